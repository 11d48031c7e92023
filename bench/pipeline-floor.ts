import http from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';

/**
 * The floor of the pipeline benchmark (bench/pipeline.ts): the least a server can do for the
 * same conversation, a plain node:http + ws process with no engine. It takes the same Twilio
 * calls and media streams, forwards the caller's audio to the same fake Deepgram, takes its
 * speech_final as the end of the turn, asks the same fake OpenAI for the answer (streamed),
 * sends its first sentence to the same fake speech endpoint, and sends a frame to the caller
 * for every 20 ms of audio as it comes. No VAD, no resampling, no sentence splitting beyond the
 * first full stop, no pacing clock, no database. Its "added" latency is what the harness, the
 * fakes' timers, the loopback sockets and this machine cost a turn: vozgate's own cost is its
 * added latency over this one.
 */
const { DEEPGRAM_URL, DEEPGRAM_API_KEY, OPENAI_BASE_URL, OPENAI_API_KEY } = process.env;
const FRAME = Buffer.alloc(160, 0xd5).toString('base64'); // 20 ms of quiet mu-law that is not silence
const PCM_BYTES_PER_FRAME = 24_000 * 2 * 0.02; // OpenAI's pcm: 24 kHz 16-bit

const server = http.createServer((req, res) => {
  if (req.url?.startsWith('/telephony/twilio/voice')) {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/xml' });
    res.end('<?xml version="1.0" encoding="UTF-8"?><Response><Connect><Stream url="ws://floor/media"><Parameter name="token" value="floor"/></Stream></Connect></Response>');
    return;
  }
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.end('');
});
const wss = new WebSocketServer({ server, perMessageDeflate: false });

wss.on('connection', (caller) => {
  let streamSid = '';
  let stt: WebSocket | null = null;
  caller.on('message', (raw) => {
    const text = raw.toString();
    if (text.startsWith('{"event":"media"')) {
      const payload = /"payload":"([^"]*)"/.exec(text)?.[1];
      if (payload && stt?.readyState === WebSocket.OPEN) stt.send(Buffer.from(payload, 'base64'));
      return;
    }
    const message = JSON.parse(text);
    if (message.event === 'start') {
      streamSid = message.start.streamSid;
      stt = new WebSocket(`${DEEPGRAM_URL}?model=nova-3&encoding=mulaw&sample_rate=8000&channels=1&interim_results=true&endpointing=200&utterance_end_ms=1000&vad_events=true&language=pt-BR`, {
        headers: { authorization: `Token ${DEEPGRAM_API_KEY}` },
      });
      stt.on('message', (data) => {
        const result = JSON.parse(data.toString());
        const words = result.channel?.alternatives?.[0]?.transcript;
        if (result.type === 'Results' && result.is_final && result.speech_final && words) void answer(words);
      });
      stt.on('error', () => {});
    } else if (message.event === 'mark') {
      // Nothing waits for what was heard.
    } else if (message.event === 'stop') {
      stt?.close();
    }
  });
  caller.on('close', () => stt?.close());

  async function answer(words: string): Promise<void> {
    const chat = await fetch(`${OPENAI_BASE_URL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${OPENAI_API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: words }] }),
    });
    let said = '';
    const decoder = new TextDecoder();
    let sentence: string | null = null;
    for await (const chunk of chat.body!) {
      for (const line of decoder.decode(chunk as Uint8Array, { stream: true }).split('\n')) {
        if (!line.startsWith('data: {')) continue;
        said += JSON.parse(line.slice(6)).choices?.[0]?.delta?.content ?? '';
      }
      const stop = said.indexOf('.');
      if (stop >= 0) {
        sentence = said.slice(0, stop + 1);
        break;
      }
    }
    const speech = await fetch(`${OPENAI_BASE_URL}/audio/speech`, {
      method: 'POST',
      headers: { authorization: `Bearer ${OPENAI_API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini-tts', voice: 'alloy', response_format: 'pcm', input: sentence ?? said }),
    });
    // A frame for every 20 ms of audio, paced from the first one.
    let owed = 0;
    let sent = 0;
    let started = 0;
    const pump = () => {
      while (sent < Math.floor(owed / PCM_BYTES_PER_FRAME) && Date.now() >= started + sent * 20 - 60) {
        caller.send(`{"event":"media","streamSid":"${streamSid}","media":{"payload":"${FRAME}"}}`);
        sent++;
      }
    };
    const timer = setInterval(pump, 10);
    for await (const chunk of speech.body!) {
      if (!started) started = Date.now();
      owed += (chunk as Uint8Array).length;
      pump();
    }
    const left = setInterval(() => {
      pump();
      if (sent >= Math.floor(owed / PCM_BYTES_PER_FRAME) || caller.readyState !== WebSocket.OPEN) {
        clearInterval(left);
        clearInterval(timer);
      }
    }, 10);
  }
});

server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  // The line bench/process.ts waits for, as vozgate prints it.
  console.log(`REST http://127.0.0.1:${(server.address() as AddressInfo).port}/api`);
});
