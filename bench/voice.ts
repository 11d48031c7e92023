import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import WebSocket, { WebSocketServer } from 'ws';
import { initOrm } from '../src/db/orm';
import { addPhoneNumber, createAccount } from '../src/modules/accounts/account.service';
import { dropDatabase, freshDatabase, percentile, rssKb, startVozgate, twilioSignature } from './process';

/**
 * The voice bridge: `calls` calls at once on one API process (the compiled server, in a child
 * process), each answered on its Twilio number's voice URL and streaming to the built-in
 * Realtime engine. This process plays both sides: Twilio (a Media Streams client per call,
 * sending a 20 ms mu-law frame every 20 ms and echoing marks) and OpenAI (a fake Realtime
 * server sending a 20 ms audio delta every 20 ms to each session). Each frame carries its
 * own sequence in its bytes, so its arrival is matched to its departure on one clock.
 * Measured: the time a frame takes through vozgate each way (Twilio -> Realtime, Realtime ->
 * Twilio), the server's CPU while the calls run, and its resident memory per call.
 */
export interface VoiceResult {
  calls: number;
  seconds: number;
  frames_in: number;
  frames_out: number;
  in_p50_ms: number;
  in_p99_ms: number;
  out_p50_ms: number;
  out_p99_ms: number;
  cpu_cores: number;
  kb_per_call: number;
}

const FRAME_MS = 20;
const APPEND = '{"type":"input_audio_buffer.append","audio":"';
const PUBLIC_URL = 'http://vozgate.bench';
const ACCOUNT_SID = `AC${randomBytes(16).toString('hex')}`;
const AUTH_TOKEN = randomBytes(16).toString('hex');

/** CPU seconds (user + system) a process has used. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
}

/** A 160-byte frame whose first bytes say which call and which frame it is (the rest is silence in mu-law). */
function frame(call: number, seq: number): string {
  const bytes = Buffer.alloc(160, 0xff);
  bytes.writeUInt16BE(call, 0);
  bytes.writeUInt32BE(seq, 2);
  return bytes.toString('base64');
}

export async function runVoiceScenario(
  adminUrl: string,
  root: string,
  calls: number,
  seconds: number,
  log: (line: string) => void,
  node = process.execPath,
): Promise<VoiceResult> {
  const database = 'vozgate_bench_voice';
  const databaseUrl = await freshDatabase(adminUrl, database);
  const orm = await initOrm({ databaseUrl });

  // OpenAI's side: each session, once set up, sends a delta every frame.
  const sentOut = new Map<string, number>();
  const arrivedIn: number[] = [];
  const sentIn = new Map<string, number>();
  const arrivedOut: number[] = [];
  const realtime = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise<void>((resolve) => realtime.once('listening', resolve));
  const sessions: WebSocket[] = [];
  realtime.on('connection', (socket) => {
    socket.on('message', (raw: Buffer) => {
      const text = raw.toString();
      if (text.startsWith(APPEND)) {
        const at = performance.now();
        const audio = text.slice(APPEND.length, -2);
        const sent = sentIn.get(audio);
        if (sent !== undefined) {
          arrivedIn.push(at - sent);
          sentIn.delete(audio);
        }
      } else if (text.includes('"session.update"')) {
        socket.send('{"type":"session.updated","session":{}}');
        socket.send('{"type":"response.created","response":{"id":"resp_1"}}');
        sessions.push(socket);
      }
    });
  });
  // Twilio's REST API, for hangups at the end.
  const twilioApi = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  await new Promise<void>((resolve) => twilioApi.listen(0, '127.0.0.1', resolve));

  const { account, token } = await createAccount(orm.em.fork(), { name: 'Voice bench', balance: '100000' });
  const number = '+5511955000003';
  const phone = await addPhoneNumber(orm.em.fork(), { accountId: account.id, number, smsEnabled: false, expiresAt: null });
  const server = await startVozgate(root, databaseUrl, {
    PUBLIC_URL,
    TELEPHONY_PROVIDER: 'twilio',
    TWILIO_ACCOUNT_SID: ACCOUNT_SID,
    TWILIO_AUTH_TOKEN: AUTH_TOKEN,
    TWILIO_API_BASE: `http://127.0.0.1:${(twilioApi.address() as AddressInfo).port}`,
    OPENAI_API_KEY: 'sk-bench',
    OPENAI_REALTIME_URL: `ws://127.0.0.1:${(realtime.address() as AddressInfo).port}`,
    PLAN_MAX_PARALLEL_CALLS: String(calls * 2),
    LOG_LEVEL: 'warn',
  }, [], node);
  const [{ id: voice }] = await orm.em.fork().execute(`select id from voices where mode = 'multimodal' order by id limit 1`);
  const created = await fetch(`http://127.0.0.1:${server.port}/api/user/assistant`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      assistant_name: 'Bench',
      voice_id: voice,
      language: 'Portuguese',
      llm_model: 'gpt-realtime',
      calls_direction: 'receive',
      engine_type: 'multimodal',
      timezone: 'America/Sao_Paulo',
      initial_message: 'Olá!',
      system_prompt: 'Você atende.',
      phone_number_id: phone.id,
      who_speaks_first: 'Customer',
      max_call_duration: 1200,
      re_engagement_interval: 600,
      max_silence_duration: 120,
      record_call: false,
    }),
  });
  if (created.status !== 201) throw new Error(`voice: the assistant was refused: ${await created.text()}`);

  const clients: WebSocket[] = [];
  const tickers: NodeJS.Timeout[] = [];
  try {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const before = rssKb(server.child.pid!);
    log(`voice: ringing ${calls} calls`);
    for (let i = 0; i < calls; i++) {
      const params = { CallSid: `CA${randomBytes(16).toString('hex')}`, AccountSid: ACCOUNT_SID, From: `+551198765${String(1000 + i)}`, To: number, CallStatus: 'ringing', Direction: 'inbound' };
      const res = await fetch(`http://127.0.0.1:${server.port}/telephony/twilio/voice`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilioSignature(AUTH_TOKEN, `${PUBLIC_URL}/telephony/twilio/voice`, params) },
        body: new URLSearchParams(params).toString(),
      });
      const twiml = await res.text();
      const parameters = Object.fromEntries([...twiml.matchAll(/<Parameter name="(\w+)" value="([^"]+)"\/>/g)].map((m) => [m[1], m[2]]));
      if (!parameters.token) throw new Error(`voice: call ${i} was not answered: ${twiml}`);
      const socket = new WebSocket(`ws://127.0.0.1:${server.port}/telephony/twilio/media`, { perMessageDeflate: false });
      await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
      const streamSid = `MZ${randomBytes(16).toString('hex')}`;
      socket.on('message', (raw: Buffer) => {
        const text = raw.toString();
        if (text.startsWith('{"event":"media"')) {
          const at = performance.now();
          const payload = /"payload":"([^"]+)"/.exec(text)![1];
          const sent = sentOut.get(payload);
          if (sent !== undefined) {
            arrivedOut.push(at - sent);
            sentOut.delete(payload);
          }
        } else if (text.startsWith('{"event":"mark"')) {
          socket.send(text); // played at once
        }
      });
      socket.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }));
      socket.send(JSON.stringify({ event: 'start', streamSid, start: { streamSid, callSid: params.CallSid, customParameters: parameters, tracks: ['inbound'] } }));
      clients.push(socket);
    }
    for (let wait = 0; sessions.length < calls; wait++) {
      if (wait > 500) throw new Error(`voice: only ${sessions.length} of ${calls} Realtime sessions opened`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const during = rssKb(server.child.pid!);

    log(`voice: ${seconds} s of 20 ms frames both ways`);
    // Each call on its own 20 ms clock, the calls spread over the frame as real streams are.
    const cpuBefore = cpuSeconds(server.child.pid!);
    const wallBefore = performance.now();
    for (let i = 0; i < calls; i++) {
      let seq = 0;
      const start = setTimeout(() => {
        tickers.push(
          setInterval(() => {
            seq++;
            const inbound = frame(i, seq);
            sentIn.set(inbound, performance.now());
            clients[i].send(`{"event":"media","streamSid":"x","media":{"payload":"${inbound}"}}`);
            const outbound = frame(i + 32768, seq);
            sentOut.set(outbound, performance.now());
            sessions[i].send(`{"type":"response.output_audio.delta","response_id":"resp_1","item_id":"item_${i}","output_index":0,"content_index":0,"delta":"${outbound}"}`);
          }, FRAME_MS),
        );
      }, (i * FRAME_MS) / calls);
      tickers.push(start);
    }
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    for (const ticker of tickers) clearInterval(ticker);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const cpu = (cpuSeconds(server.child.pid!) - cpuBefore) / ((performance.now() - wallBefore) / 1000);
    arrivedIn.sort((a, b) => a - b);
    arrivedOut.sort((a, b) => a - b);
    const round = (value: number) => Math.round(value * 100) / 100;
    return {
      calls,
      seconds,
      frames_in: arrivedIn.length,
      frames_out: arrivedOut.length,
      in_p50_ms: round(percentile(arrivedIn, 50)),
      in_p99_ms: round(percentile(arrivedIn, 99)),
      out_p50_ms: round(percentile(arrivedOut, 50)),
      out_p99_ms: round(percentile(arrivedOut, 99)),
      cpu_cores: round(cpu),
      kb_per_call: Math.round((during - before) / calls),
    };
  } finally {
    for (const ticker of tickers) clearInterval(ticker);
    for (const socket of clients) socket.terminate();
    for (const socket of realtime.clients) socket.terminate();
    server.child.kill('SIGTERM');
    await new Promise((resolve) => (server.child.exitCode !== null ? resolve(null) : server.child.once('exit', resolve)));
    await new Promise((resolve) => realtime.close(resolve));
    await new Promise((resolve) => twilioApi.close(resolve));
    await orm.close();
    await dropDatabase(adminUrl, database);
  }
}
