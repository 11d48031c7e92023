import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { Arrivals } from './arrivals';
import { fakeSpeech, MS_PER_CHARACTER } from './speech';

export { fakeSpeech, MS_PER_CHARACTER };

/**
 * A local stand-in for ElevenLabs' `stream-input` text-to-speech WebSocket, speaking its documented
 * format: elevenlabs/elevenlabs-docs fern/apis/api/asyncapi.yml (the channel
 * `/v1/text-to-speech/{voice_id}/stream-input`, its query, the first message `text: " "`, `flush`,
 * the end of input `text: ""`, the `audio`/`isFinal` messages, `chunk_length_schedule` and its
 * default [120, 160, 250, 290], `auto_mode` "disabling chunk schedule and buffers") and
 * fern/docs/pages/developer-guides/websockets.mdx (the `xi-api-key` header).
 *
 * It refuses a key as ElevenLabs does: the handshake succeeds (the key may also come in the first
 * message), the first message is read, then an error `{message, error, code}` is sent and the
 * socket closed with 1008, policy violation (the error's shape:
 * elevenlabs-python src/elevenlabs/types/text_to_dialogue_websocket_error.py; the texts, as
 * ElevenLabs sends them: `invalid_api_key`, `authentication_required`). A query it cannot serve is
 * refused at the handshake with an HTTP status, as ElevenLabs refuses a language its model lacks.
 *
 * Its speech is a 440 Hz tone, MS_PER_CHARACTER long for each character of text that is not a
 * space, made per generation (each text message under `auto_mode`, else when the buffer reaches
 * the chunk schedule's next length, on `flush` and at the end of input) and sent in messages of
 * CHUNK_BYTES, an odd size: nothing in the docs says a chunk ends between two samples.
 */

const CHUNK_BYTES = 3001;
const DEFAULT_SCHEDULE = [120, 160, 250, 290];
const PATH = /^\/v1\/text-to-speech\/([^/]+)\/stream-input$/;
/** The PCM formats of the socket's `output_format` (the fake makes no MP3, Opus or G.711). */
const RATES: Record<string, number> = { pcm_8000: 8000, pcm_16000: 16000, pcm_22050: 22050, pcm_24000: 24000, pcm_44100: 44100 };

/** Characters of `text` that the fake speaks (all but spaces). */
export const spokenCharacters = (text: string): number => text.replace(/\s/g, '').length;


export interface ElevenLabsSocket {
  voiceId: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** Every message the client sent, parsed, in order. */
  messages: Record<string, any>[];
  /** Audio messages the fake sent. */
  audioSent: number;
  /** Ends the connection with no close frame, as a lost network does. */
  drop(): void;
  /** From now on answers nothing, the socket left open. */
  stall(): void;
  /** Resolves with the close code once the socket is closed. */
  closed: Promise<number>;
}

export interface FakeElevenLabs {
  /** The base URL (ELEVENLABS_URL). */
  url: string;
  /** While set, every stream is refused as a wrong key is (a revoked key, say). */
  refuse: boolean;
  /** While set, every handshake is answered with this HTTP status. */
  handshakeStatus: number | null;
  /** The next handshakes are answered with these, one each, before anything else (a 429 with its `Retry-After`, say). */
  nextHandshakes: { status: number; retryAfter?: string }[];
  /** Handshakes asked for so far, refused ones too. */
  handshakes: number;
  /** The wait before each generation's audio. */
  firstByteMs: number;
  sockets: ElevenLabsSocket[];
  /** The next socket to connect (or the one that already did, beyond those taken). */
  socket(timeoutMs?: number): Promise<ElevenLabsSocket>;
  close(): Promise<void>;
}

export async function startFakeElevenLabs(apiKey: string): Promise<FakeElevenLabs> {
  const fake = { refuse: false, handshakeStatus: null, nextHandshakes: [], handshakes: 0, firstByteMs: 0 } as unknown as FakeElevenLabs;
  const wss = new WebSocketServer({
    port: 0,
    host: '127.0.0.1',
    verifyClient: (info, done) => {
      const url = new URL(info.req.url ?? '', 'ws://fake');
      fake.handshakes++;
      const scripted = fake.nextHandshakes.shift();
      if (scripted) return done(false, scripted.status, 'Refused', scripted.retryAfter === undefined ? {} : { 'Retry-After': scripted.retryAfter });
      if (fake.handshakeStatus) return done(false, fake.handshakeStatus);
      if (!PATH.test(url.pathname)) return done(false, 404);
      if (!RATES[url.searchParams.get('output_format') ?? '']) return done(false, 400);
      done(true);
    },
  });
  await new Promise<void>((resolve) => wss.once('listening', resolve));
  const sockets = new Arrivals<ElevenLabsSocket>('ElevenLabs socket');

  wss.on('connection', (ws: WebSocket, req) => {
    const url = new URL(req.url ?? '', 'ws://fake');
    const rate = RATES[url.searchParams.get('output_format')!];
    const autoMode = url.searchParams.get('auto_mode') === 'true';
    let schedule = DEFAULT_SCHEDULE;
    let generations = 0;
    let buffer = '';
    let made = 0;
    let stalled = false;
    /** Generations are sent one after another, each after the first-byte wait. */
    let sending = Promise.resolve();
    let closedResolve: (code: number) => void;
    const socket: ElevenLabsSocket = {
      voiceId: decodeURIComponent(PATH.exec(url.pathname)![1]),
      query: Object.fromEntries(url.searchParams),
      headers: req.headers,
      messages: [],
      audioSent: 0,
      drop: () => ws.terminate(),
      stall: () => (stalled = true),
      closed: new Promise<number>((resolve) => (closedResolve = resolve)),
    };
    ws.on('close', (code) => closedResolve(code));
    const answering = () => !stalled && ws.readyState === ws.OPEN;

    const refuseStream = (error: string, message: string) => {
      ws.send(JSON.stringify({ message, error, code: 1008 }));
      ws.close(1008, message);
    };

    /** Speaks what is buffered: its audio in CHUNK_BYTES messages, all at once, as the vendor streams a generation. */
    const generate = (last: boolean) => {
      const text = buffer;
      buffer = '';
      generations++;
      sending = sending.then(async () => {
        if (fake.firstByteMs > 0) await new Promise((resolve) => setTimeout(resolve, fake.firstByteMs));
        const count = (spokenCharacters(text) * MS_PER_CHARACTER * rate) / 1000;
        const pcm = fakeSpeech(made, count, rate);
        made += count;
        const bytes = Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);
        for (let at = 0; at < bytes.length && answering(); at += CHUNK_BYTES) {
          socket.audioSent++;
          ws.send(JSON.stringify({ audio: bytes.subarray(at, at + CHUNK_BYTES).toString('base64'), isFinal: false, normalizedAlignment: null, alignment: null }));
        }
        if (last && answering()) {
          ws.send(JSON.stringify({ audio: null, isFinal: true, normalizedAlignment: null, alignment: null }));
          ws.close(1000);
        }
      });
    };

    ws.on('message', (data) => {
      let message: Record<string, any>;
      try {
        message = JSON.parse(data.toString());
      } catch {
        return refuseStream('invalid_message', 'Invalid message received');
      }
      socket.messages.push(message);
      if (socket.messages.length === 1) {
        const key = req.headers['xi-api-key'] ?? message['xi-api-key'] ?? message.xi_api_key;
        if (key === undefined) {
          return refuseStream('authentication_required', 'None of the authentication methods (xi-api-key, authorization header, single-use token) were found.');
        }
        if (fake.refuse || key !== apiKey) return refuseStream('invalid_api_key', 'Invalid API key');
        schedule = message.generation_config?.chunk_length_schedule ?? schedule;
        // The first message's text is the blank space that opens the stream.
        return;
      }
      if (stalled || typeof message.text !== 'string') return;
      if (message.text === '') return generate(true);
      buffer += message.text;
      const due = schedule[Math.min(generations, schedule.length - 1)];
      if (spokenCharacters(buffer) > 0 && (message.flush === true || autoMode || buffer.length >= due)) generate(false);
    });

    sockets.add(socket);
  });

  return Object.assign(fake, {
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`,
    sockets: sockets.all,
    socket: (timeoutMs?: number) => sockets.next(timeoutMs),
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close(() => resolve());
      }),
  });
}
