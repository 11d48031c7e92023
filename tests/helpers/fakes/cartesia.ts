import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { Arrivals } from './arrivals';
import { fakeSpeech, MS_PER_CHARACTER } from './speech';

export { fakeSpeech, MS_PER_CHARACTER };

/**
 * A local stand-in for Cartesia's TTS WebSocket (`/tts/websocket`, API version 2026-03-01),
 * speaking its documented format: https://docs.cartesia.ai/2026-03-01/api-reference/tts/websocket
 * (requests, `cancel`, `chunk`, `done`, `error`), https://docs.cartesia.ai/use-the-api/api-errors
 * (the error objects), https://docs.cartesia.ai/use-the-api/tts-websocket/contexts (every input of
 * a context keeps the same fields but `transcript` and `continue`).
 *
 * It takes the key as Cartesia does (`X-API-Key`, or `Authorization: Bearer`), refuses a wrong
 * one with HTTP 401 on the handshake (what Cartesia answers: pipecat-ai/rtvi-infra-examples#4,
 * "server rejected WebSocket connection: HTTP 401"), and refuses a handshake without a dated
 * `Cartesia-Version` with 400 (the fake's own strictness). Its speech is a 440 Hz tone,
 * MS_PER_CHARACTER long for each character of transcript, in 20 ms chunks at the requested rate;
 * `done` follows the last chunk once the context is closed with `continue: false`.
 */

const CHUNK_MS = 20;
const SAMPLE_RATES = [8000, 16000, 22050, 24000, 44100, 48000];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Samples of the fake's speech for `characters` of transcript at `rate`. */
export function speechSamples(characters: number, rate: number): number {
  return (characters * MS_PER_CHARACTER * rate) / 1000;
}


/** Samples as Cartesia's `pcm_s16le` carries them: little-endian bytes, in base64. */
export function pcmBase64(samples: Int16Array): string {
  const bytes = Buffer.alloc(samples.length * 2);
  samples.forEach((sample, i) => bytes.writeInt16LE(sample, i * 2));
  return bytes.toString('base64');
}

export interface CartesiaSocket {
  url: string;
  headers: IncomingHttpHeaders;
  /** Every message the client sent, parsed, in order. */
  messages: Record<string, any>[];
  /** Every message the fake sent, in order. */
  sent: Record<string, any>[];
  /** What Cartesia reads in a context: its transcripts joined as they are, with nothing between them. */
  transcript(contextId: string): string;
  /** The first message the client sent that matches, waiting for it if it has not come yet. */
  message(match: (message: Record<string, any>) => boolean, timeoutMs?: number): Promise<Record<string, any>>;
  /** Sends a message as Cartesia would, beside what the fake sends by itself. */
  send(message: Record<string, unknown>): void;
  /** Closes the socket with a close frame, as Cartesia does to an idle one. */
  close(): void;
  /**
   * Sends the close frame but never finishes the close, leaving the client in the moment every
   * close passes through: closing, its socket not yet closed. Resolves once the client has
   * answered with its own close frame.
   */
  closeHeld(): Promise<void>;
  /** Ends the connection with no close frame, as a lost network does. */
  drop(): void;
  /** From now on answers nothing, the socket left open. */
  stall(): void;
  closed: Promise<void>;
}

export interface FakeCartesia {
  /** The base URL (CARTESIA_URL); the socket is at its `/tts/websocket`. */
  url: string;
  /** While set, every handshake is refused with 401 (a revoked key, say). */
  refuse: boolean;
  /** While set, handshakes are left unanswered: the socket never opens. */
  holdHandshakes: boolean;
  /** The wait before a context's first chunk. */
  firstByteMs: number;
  sockets: CartesiaSocket[];
  /** The next socket to connect (or the one that already did, beyond those taken). */
  socket(timeoutMs?: number): Promise<CartesiaSocket>;
  close(): Promise<void>;
}

interface Context {
  /** The request's fields that every later input must repeat. */
  fields: string;
  rate: number;
  /** Samples of speech made so far: where the tone goes on. */
  made: number;
  chunks: Int16Array[];
  /** `continue: false` came: no more input. */
  ended: boolean;
  /** Cancelled, or `done` sent: nothing more is said on it. */
  over: boolean;
  /** The first chunk's wait (firstByteMs) is over. */
  spoken: boolean;
  /** Its chunks are being sent. */
  pumping: boolean;
}

const errorBody = (title: string, message: string) => JSON.stringify({ error_code: null, title, message, request_id: randomUUID() });

export async function startFakeCartesia(apiKey: string): Promise<FakeCartesia> {
  const fake = { refuse: false, holdHandshakes: false, firstByteMs: 0 } as FakeCartesia;
  const held: (() => void)[] = [];
  const wss = new WebSocketServer({
    port: 0,
    host: '127.0.0.1',
    path: '/tts/websocket',
    verifyClient: (info, done) => {
      const { headers } = info.req;
      const key = headers['x-api-key'] ?? headers.authorization?.replace(/^Bearer /, '');
      const json = { 'Content-Type': 'application/json' };
      if (fake.refuse || key !== apiKey) return done(false, 401, errorBody('Unauthorized', 'Invalid API key.'), json);
      if (!/^\d{4}-\d{2}-\d{2}$/.test(String(headers['cartesia-version']))) {
        return done(false, 400, errorBody('Invalid version', 'Send a Cartesia-Version header with a date.'), json);
      }
      if (fake.holdHandshakes) held.push(() => done(false, 503));
      else done(true);
    },
  });
  await new Promise<void>((resolve) => wss.once('listening', resolve));
  const sockets = new Arrivals<CartesiaSocket>('Cartesia socket');

  wss.on('connection', (ws: WebSocket, req) => {
    const contexts = new Map<string, Context>();
    const waiters: { match: (message: Record<string, any>) => boolean; resolve: (message: Record<string, any>) => void }[] = [];
    let stalled = false;
    let closedResolve: () => void;
    const socket: CartesiaSocket = {
      url: req.url ?? '',
      headers: req.headers,
      messages: [],
      transcript: (contextId) =>
        socket.messages
          .filter((message) => message.context_id === contextId && typeof message.transcript === 'string')
          .map((message) => message.transcript)
          .join(''),
      sent: [],
      message(match, timeoutMs = 10_000) {
        const found = socket.messages.find(match);
        if (found) return Promise.resolve(found);
        return new Promise((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error('no such message from the client')), timeoutMs);
          waiters.push({ match, resolve: (message) => (clearTimeout(timer), resolve(message)) });
        });
      },
      send(message) {
        socket.sent.push(message);
        ws.send(JSON.stringify(message));
      },
      close: () => ws.close(1000),
      closeHeld: () =>
        new Promise<void>((resolve) => {
          const raw = (ws as unknown as { _socket: Socket })._socket;
          // ws stops reading the socket, so it never sees the client's answer and never ends the connection.
          raw.removeAllListeners('data');
          raw.once('data', () => resolve());
          raw.write(Buffer.from([0x88, 0x02, 0x03, 0xe8])); // a final close frame, code 1000
        }),
      drop: () => ws.terminate(),
      stall: () => (stalled = true),
      closed: new Promise<void>((resolve) => (closedResolve = resolve)),
    };
    ws.on('close', () => closedResolve());

    const refuse = (contextId: unknown, message: string) =>
      socket.send({
        type: 'error',
        done: true,
        status_code: 400,
        error_code: null,
        title: 'Invalid request',
        message,
        request_id: `${randomUUID()}:${contextId}`,
        ...(typeof contextId === 'string' ? { context_id: contextId } : {}),
      });

    const speaking = (context: Context) => !context.over && !stalled && ws.readyState === ws.OPEN;

    /** Sends a context's chunks as they are made, then `done` once it is closed. */
    async function pump(id: string, context: Context) {
      if (context.pumping) return;
      context.pumping = true;
      if (!context.spoken) {
        context.spoken = true;
        if (fake.firstByteMs > 0) await new Promise((resolve) => setTimeout(resolve, fake.firstByteMs));
      }
      while (context.chunks.length > 0 && speaking(context)) {
        const data = pcmBase64(context.chunks.shift()!);
        socket.send({ type: 'chunk', data, done: false, status_code: 206, step_time: 12, context_id: id });
        await new Promise((resolve) => setImmediate(resolve));
      }
      if (context.ended && context.chunks.length === 0 && speaking(context)) {
        context.over = true;
        socket.send({ type: 'done', done: true, status_code: 206, context_id: id });
      }
      context.pumping = false;
    }

    ws.on('message', (data) => {
      const message = JSON.parse(data.toString());
      socket.messages.push(message);
      for (const waiter of waiters.filter((w) => w.match(message))) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(message);
      }
      if (stalled) return;
      const { transcript, context_id: id, continue: more = false, ...fields } = message;
      if (message.cancel === true) {
        const context = contexts.get(id);
        if (context) (context.over = true), (context.chunks = []);
        return;
      }
      const format = fields.output_format ?? {};
      const problem =
        typeof id !== 'string' || id === '' ? 'context_id is required'
        : typeof fields.model_id !== 'string' ? 'model_id is required'
        : typeof transcript !== 'string' ? 'transcript is required'
        : typeof more !== 'boolean' ? 'continue must be a boolean'
        : fields.voice?.mode !== 'id' || !UUID.test(String(fields.voice?.id)) ? 'voice not found'
        : format.container !== 'raw' || format.encoding !== 'pcm_s16le' || !SAMPLE_RATES.includes(format.sample_rate) ? 'unsupported output_format'
        : fields.generation_config?.speed !== undefined && !(fields.generation_config.speed >= 0.6 && fields.generation_config.speed <= 1.5) ? 'speed must be within [0.6, 1.5]'
        : contexts.get(id)?.ended ? 'the context is closed'
        : contexts.has(id) && contexts.get(id)!.fields !== JSON.stringify(fields) ? 'inputs of a context must keep the same fields'
        : null;
      if (problem) return refuse(id, problem);
      let context = contexts.get(id);
      if (!context) {
        context = { fields: JSON.stringify(fields), rate: format.sample_rate, made: 0, chunks: [], ended: false, over: false, spoken: false, pumping: false };
        contexts.set(id, context);
      }
      const total = speechSamples(transcript.length, context.rate);
      const perChunk = (CHUNK_MS * context.rate) / 1000;
      for (let at = 0; at < total; at += perChunk) context.chunks.push(fakeSpeech(context.made + at, Math.min(perChunk, total - at), context.rate));
      context.made += total;
      context.ended = !more;
      void pump(id, context);
    });

    sockets.add(socket);
  });

  return Object.assign(fake, {
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`,
    sockets: sockets.all,
    socket: (timeoutMs?: number) => sockets.next(timeoutMs),
    close: () =>
      new Promise<void>((resolve) => {
        for (const release of held.splice(0)) release();
        for (const client of wss.clients) client.terminate();
        wss.close(() => resolve());
      }),
  });
}
