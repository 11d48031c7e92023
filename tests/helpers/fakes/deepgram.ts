import { createHash, randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { decodeSample } from '../../../src/voice/codecs/mulaw';
import { Arrivals } from './arrivals';

/**
 * A local Deepgram live speech-to-text endpoint (`/v1/listen`) that really listens, in Deepgram's
 * wire format:
 * - messages: the official SDK's types (deepgram/deepgram-js-sdk
 *   src/api/resources/listen/resources/v1/types/ListenV1{Results,Metadata,SpeechStarted,UtteranceEnd}.ts),
 *   with `channel_index`/`channel` as `[index, channels]` and the `Metadata` of
 *   https://developers.deepgram.com/docs/close-stream;
 * - Finalize answered by a final marked `from_finalize` (https://developers.deepgram.com/docs/finalize),
 *   CloseStream by the last results, `Metadata` and a 1000 close (/docs/close-stream), a stream
 *   that sends nothing for 10 s closed with 1011 NET-0001, and KeepAlive alone does not count
 *   before the first audio (/docs/stt-troubleshooting-websocket-data-and-net-errors);
 * - a refused handshake: HTTP 401 (429 and 503 on demand: their `err_code` is our reading) with `dg-request-id`, `dg-error` and the JSON body
 *   `{"err_code":"INVALID_AUTH","err_msg":"Invalid credentials.","request_id":...}` as Deepgram
 *   answers a wrong key (the body as reported from the live API; the content of `dg-error`, "the
 *   error message", is our reading of the docs).
 *
 * It takes raw audio as the query declares it (https://developers.deepgram.com/docs/encoding and
 * /docs/sample-rate: `encoding` and `sample_rate` both given for headerless audio; `linear16` is
 * 16-bit signed little-endian PCM): `mulaw` or `linear16`, at 8 or 16 kHz, mono; it refuses other
 * queries at the handshake (400), where Deepgram would take more.
 *
 * Its clock is the audio's (samples received, at the declared rate), as Deepgram's is, so a test may
 * send audio faster than real time. It hears speech by energy on 20 ms frames. It cannot
 * recognise words, so they are scripted: each utterance (speech onset to the endpointing
 * silence, or to a Finalize) takes the next entry of `fake.transcripts`, a queue shared by all
 * sessions (or of the session's own `transcripts`, when set); with the queue empty the speech is heard but not understood (empty transcripts, as
 * Deepgram gives for noise). Interim results reveal the words at about 150 a minute of speech.
 * Like Deepgram it answers silence too: an empty interim result each second of audio, and an
 * empty final every 3 s.
 */

/** The encodings and rates the fake decodes. */
const ENCODINGS = ['mulaw', 'linear16'] as const;
const RATES = [8000, 16000];
type Encoding = (typeof ENCODINGS)[number];
/** Speech is heard on frames of 20 ms. */
const FRAME_SECONDS = 0.02;
/** A 20 ms frame at or above this RMS is speech (about -38 dBFS). */
const SPEECH_RMS = 400;
/** Deepgram's interim results come about once a second of audio. */
const INTERIM_EVERY_SECONDS = 1;
/** Silence with no words is finalized, empty, once this long. */
const SILENT_FINAL_SECONDS = 3;
/** How fast interim results reveal an utterance's words (150 words a minute). */
const SECONDS_PER_WORD = 0.4;
const MODEL_INFO = { name: 'general-nova-3', version: '2025-04-17.21547', arch: 'nova-3' };
const MODEL_UUID = '40bd3654-e622-47c4-a111-63a61b23bfe8';
const NET_0001 = 'Deepgram did not receive audio data or a text message within the timeout window. See https://dpgr.am/net0001';

export interface FakeDeepgram {
  /** The listen endpoint, for DEEPGRAM_URL. */
  url: string;
  /** While set, handshakes are refused with `refuseStatus`. */
  refuse: boolean;
  /** 401 (a revoked key: the default), 429 (too many streams) or 503 (Deepgram down). */
  refuseStatus: 401 | 429 | 503;
  /** Each final result is sent this many wall-clock ms late (for benchmarks); later messages wait behind it. */
  finalLatencyMs: number;
  /** A stream that sent no frame for this long is closed with 1011 NET-0001 (Deepgram: 10 s). */
  idleCloseMs: number;
  /** While false, CloseStream is answered without `Metadata` (its results, then the close), as a stream whose Metadata is lost. */
  metadata: boolean;
  /** The words of the next utterances, in order, shared by all sessions. */
  transcripts: string[];
  sessions: DeepgramSession[];
  /** The next session to connect (or the one that already did, beyond those taken). */
  session(timeoutMs?: number): Promise<DeepgramSession>;
  close(): Promise<void>;
}

type Message = Record<string, any>;

/** Times are in samples of the audio clock. */
interface Utterance {
  words: string[];
  onset: number;
  /** The end of its last loud frame. */
  lastSpeech: number;
}

interface Word {
  word: string;
  start: number;
  end: number;
  confidence: number;
  punctuated_word?: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class DeepgramSession {
  readonly requestId: string;
  readonly path: string;
  readonly query: URLSearchParams;
  /** The `keyterm` parameters (Deepgram's keyterm prompting), in order. */
  readonly keyterms: string[];
  readonly headers: IncomingHttpHeaders;
  /** Control messages received (KeepAlive, Finalize, CloseStream...), parsed, in order. */
  readonly controls: Message[] = [];
  /** Messages sent to the client, in order. */
  readonly sent: Message[] = [];
  /** The audio's encoding and rate, as the query declared them. */
  readonly encoding: Encoding;
  readonly rate: number;
  /** Bytes of audio received. */
  received = 0;
  /** How the socket closed, once it has. */
  closedWith: { code: number; reason: string } | null = null;
  /**
   * This session's own script (the words of its next utterances, in order), taken instead of
   * the fake's shared `transcripts` while set: calls in parallel, each with its own words.
   */
  transcripts: string[] | null = null;

  private readonly chunks: Buffer[] = [];
  private readonly frame: Int16Array;
  private filled = 0;
  /** The first byte of a linear16 sample whose second byte comes in the next message. */
  private oddByte: number | null = null;
  /** Samples heard in whole frames: the audio clock, by which all the times below are counted. */
  private heard = 0;
  private readonly created = new Date().toISOString();
  private readonly endpointing: number;
  private readonly utteranceEnd: number | null;
  private readonly interim: boolean;
  private readonly vadEvents: boolean;
  private readonly formatted: boolean;
  /** The start of the audio not yet covered by a final result. */
  private segmentStart = 0;
  private lastResultAt = 0;
  private utterance: Utterance | null = null;
  /** The end of the last words finalized, while an UtteranceEnd is owed for them. */
  private lastWordEnd: number | null = null;
  private stalled = false;
  private closing = false;
  private outbox: Promise<void> = Promise.resolve();
  private idleTimer: NodeJS.Timeout | null = null;
  private readonly changed = new EventEmitter();

  constructor(
    private readonly fake: FakeDeepgram,
    private readonly socket: WebSocket,
    request: IncomingMessage,
    requestId: string,
  ) {
    this.requestId = requestId;
    const url = new URL(request.url ?? '/', 'http://fake');
    this.path = url.pathname;
    this.query = url.searchParams;
    this.keyterms = this.query.getAll('keyterm');
    this.headers = request.headers;
    // The handshake was refused unless these are among ENCODINGS and RATES.
    this.encoding = this.query.get('encoding') as Encoding;
    this.rate = Number(this.query.get('sample_rate'));
    this.frame = new Int16Array(FRAME_SECONDS * this.rate);
    // Deepgram's defaults: endpointing after 10 ms of silence, no UtteranceEnd, no interim results.
    const samplesIn = (ms: string) => (Number(ms) * this.rate) / 1000;
    const endpointing = this.query.get('endpointing');
    this.endpointing = endpointing === null ? samplesIn('10') : endpointing === 'false' ? Infinity : samplesIn(endpointing);
    const utteranceEnd = this.query.get('utterance_end_ms');
    this.utteranceEnd = utteranceEnd === null ? null : samplesIn(utteranceEnd);
    this.interim = this.query.get('interim_results') === 'true';
    this.vadEvents = this.query.get('vad_events') === 'true';
    this.formatted = this.query.get('smart_format') === 'true' || this.query.get('punctuate') === 'true';
    this.armIdleClose();
    socket.on('message', (data, isBinary) => {
      if (isBinary || this.received > 0) this.armIdleClose();
      if (this.closing) return;
      if (isBinary) this.hear(data as Buffer);
      else this.control(data.toString());
      this.changed.emit('change');
    });
    socket.on('close', (code, reason) => {
      if (this.idleTimer) clearTimeout(this.idleTimer);
      this.closedWith = { code, reason: reason.toString() };
      this.changed.emit('change');
    });
  }

  /** All the audio received, as it came (in the session's encoding), in order. */
  get audio(): Buffer {
    return Buffer.concat(this.chunks);
  }

  /** All the audio received, decoded to samples at the session's rate. */
  get pcm(): Int16Array {
    const bytes = this.audio;
    if (this.encoding === 'mulaw') return Int16Array.from(bytes, decodeSample);
    return Int16Array.from({ length: bytes.length >> 1 }, (_, i) => bytes.readInt16LE(i * 2));
  }

  /** Seconds, as Deepgram writes them, of a time in samples. */
  private seconds(samples: number): number {
    return Math.round((samples / this.rate) * 1000) / 1000;
  }

  /** Resolves once `check` holds, looked at after each thing the session receives or sends. */
  until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onChange = () => {
        if (!check()) return;
        clearTimeout(timer);
        this.changed.off('change', onChange);
        resolve();
      };
      const timer = setTimeout(() => {
        this.changed.off('change', onChange);
        reject(new Error('the Deepgram fake waited in vain'));
      }, timeoutMs);
      this.changed.on('change', onChange);
    });
  }

  /** Sends a message of the test's own (in order with the fake's). */
  send(message: Message, delayMs = 0): void {
    this.outbox = this.outbox.then(async () => {
      if (delayMs > 0) await sleep(delayMs);
      if (this.stalled || this.socket.readyState !== WebSocket.OPEN) return;
      this.socket.send(JSON.stringify(message));
      this.sent.push(message);
      this.changed.emit('change');
    });
  }

  /** The connection breaks: no close frame. */
  drop(): void {
    this.socket.terminate();
  }

  /** Deepgram freezes: it keeps reading but sends nothing more, not even a close. */
  stall(): void {
    this.stalled = true;
  }

  /** Deepgram ends the stream with a close frame (1008 DATA-0000, 1011 NET-0000...). */
  close(code: number, reason: string): void {
    this.socket.close(code, reason);
  }

  private armIdleClose(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (!this.stalled) this.socket.close(1011, NET_0001);
    }, this.fake.idleCloseMs);
  }

  private control(text: string): void {
    let message: Message;
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    this.controls.push(message);
    if (message.type === 'Finalize') this.finalResult(this.heard, { speechFinal: false, fromFinalize: true });
    if (message.type === 'CloseStream') this.closeStream();
  }

  private hear(bytes: Buffer): void {
    this.chunks.push(Buffer.from(bytes));
    this.received += bytes.length;
    if (this.encoding === 'mulaw') {
      for (const code of bytes) this.sample(decodeSample(code));
      return;
    }
    // linear16: little-endian pairs, which a message may split.
    let at = 0;
    if (this.oddByte !== null && bytes.length > 0) {
      this.sample((bytes[0] << 24) >> 16 | this.oddByte);
      this.oddByte = null;
      at = 1;
    }
    for (; at + 1 < bytes.length; at += 2) this.sample(bytes.readInt16LE(at));
    if (at < bytes.length) this.oddByte = bytes[at];
  }

  private sample(value: number): void {
    this.frame[this.filled++] = value;
    if (this.filled === this.frame.length) {
      this.filled = 0;
      this.onFrame();
    }
  }

  private onFrame(): void {
    const start = this.heard;
    this.heard += this.frame.length;
    const end = this.heard;
    let energy = 0;
    for (const sample of this.frame) energy += sample * sample;
    if (Math.sqrt(energy / this.frame.length) >= SPEECH_RMS) this.speech(start, end);
    else if (this.utterance && end - this.utterance.lastSpeech >= this.endpointing) this.finalResult(end, { speechFinal: true, fromFinalize: false });
    if (this.lastWordEnd !== null && this.utteranceEnd !== null && end - this.lastWordEnd >= this.utteranceEnd) {
      this.send({ type: 'UtteranceEnd', channel: [0, 1], last_word_end: this.seconds(this.lastWordEnd) });
      this.lastWordEnd = null;
    }
    if (end - this.lastResultAt < INTERIM_EVERY_SECONDS * this.rate) return;
    if (!this.utterance && end - this.segmentStart >= SILENT_FINAL_SECONDS * this.rate) this.finalResult(end, { speechFinal: false, fromFinalize: false });
    else if (this.interim) this.interimResult(end);
  }

  private speech(start: number, end: number): void {
    if (!this.utterance) {
      const words = ((this.transcripts ?? this.fake.transcripts).shift() ?? '').split(/\s+/).filter(Boolean);
      this.utterance = { words, onset: start, lastSpeech: end };
      // Words again before the gap ran out: no UtteranceEnd for the last ones.
      this.lastWordEnd = null;
      if (this.vadEvents) this.send({ type: 'SpeechStarted', channel: [0, 1], timestamp: this.seconds(start) });
    }
    this.utterance.lastSpeech = end;
  }

  private interimResult(end: number): void {
    const utterance = this.utterance;
    let words: Word[] = [];
    if (utterance) {
      const heard = Math.ceil((utterance.lastSpeech - utterance.onset) / (SECONDS_PER_WORD * this.rate));
      words = this.timed(utterance.words.slice(0, heard), utterance);
    }
    this.send(this.results(end, words, { isFinal: false, speechFinal: false, fromFinalize: false }));
    this.lastResultAt = end;
  }

  /** The audio up to `end` is final: the utterance's words, if one is open, and none otherwise. */
  private finalResult(end: number, flags: { speechFinal: boolean; fromFinalize: boolean }): void {
    const utterance = this.utterance;
    const words = utterance ? this.timed(utterance.words, utterance) : [];
    this.send(this.results(end, words, { isFinal: true, ...flags }), this.fake.finalLatencyMs);
    if (utterance && words.length > 0) this.lastWordEnd = utterance.lastSpeech;
    this.utterance = null;
    this.segmentStart = end;
    this.lastResultAt = end;
  }

  private closeStream(): void {
    this.closing = true;
    if (this.utterance || this.heard > this.segmentStart) this.finalResult(this.heard, { speechFinal: false, fromFinalize: false });
    if (this.fake.metadata) {
      this.send({
        type: 'Metadata',
        transaction_key: 'deprecated',
        request_id: this.requestId,
        sha256: createHash('sha256').update(this.audio).digest('hex'),
        created: this.created,
        duration: this.seconds(this.received / (this.encoding === 'linear16' ? 2 : 1)),
        channels: 1,
      });
    }
    this.outbox = this.outbox.then(() => {
      if (!this.stalled) this.socket.close(1000);
    });
  }

  /** The words spread evenly over the utterance's speech. */
  private timed(words: string[], utterance: Utterance): Word[] {
    const each = (utterance.lastSpeech - utterance.onset) / Math.max(words.length, 1);
    return words.map((text, i) => {
      const word: Word = {
        word: text.toLowerCase().replace(/[^\p{L}\p{N}']/gu, ''),
        start: this.seconds(utterance.onset + i * each),
        end: this.seconds(utterance.onset + (i + 1) * each),
        confidence: 0.99,
      };
      if (this.formatted) word.punctuated_word = text;
      return word;
    });
  }

  private results(end: number, words: Word[], flags: { isFinal: boolean; speechFinal: boolean; fromFinalize: boolean }): Message {
    return {
      type: 'Results',
      channel_index: [0, 1],
      duration: this.seconds(end - this.segmentStart),
      start: this.seconds(this.segmentStart),
      is_final: flags.isFinal,
      speech_final: flags.speechFinal,
      channel: {
        alternatives: [
          {
            transcript: words.map((word) => word.punctuated_word ?? word.word).join(' '),
            confidence: words.length > 0 ? 0.99 : 0,
            words,
          },
        ],
      },
      metadata: { request_id: this.requestId, model_info: MODEL_INFO, model_uuid: MODEL_UUID },
      from_finalize: flags.fromFinalize,
    };
  }
}

/** Why Deepgram would refuse this handshake, as its HTTP answer; null to accept it. */
function refusal(fake: FakeDeepgram, apiKey: string, request: IncomingMessage): { status: number; code: string; message: string } | null {
  const url = new URL(request.url ?? '/', 'http://fake');
  if (url.pathname !== '/v1/listen') return { status: 404, code: 'Not Found', message: 'Not found.' };
  const [scheme, key] = (request.headers.authorization ?? '').split(' ');
  if (fake.refuse && fake.refuseStatus === 429) return { status: 429, code: 'TOO_MANY_REQUESTS', message: 'Too many requests.' };
  if (fake.refuse && fake.refuseStatus === 503) return { status: 503, code: 'SERVICE_UNAVAILABLE', message: 'Service unavailable.' };
  if (fake.refuse || scheme?.toLowerCase() !== 'token' || key !== apiKey) return { status: 401, code: 'INVALID_AUTH', message: 'Invalid credentials.' };
  // What the fake can decode (Deepgram itself takes many more encodings and rates).
  const query = url.searchParams;
  const encoding = query.get('encoding');
  const rate = query.get('sample_rate');
  if (!ENCODINGS.some((known) => known === encoding) || !RATES.some((known) => String(known) === rate) || (query.get('channels') ?? '1') !== '1') {
    return { status: 400, code: 'Bad Request', message: 'The fake Deepgram takes only raw mono mulaw or linear16 at 8000 or 16000 Hz, both named in the query.' };
  }
  return null;
}

function refuseHandshake(socket: Duplex, requestId: string, answer: { status: number; code: string; message: string }): void {
  const body = JSON.stringify({ err_code: answer.code, err_msg: answer.message, request_id: requestId });
  const reasons: Record<number, string> = { 401: 'Unauthorized', 404: 'Not Found', 429: 'Too Many Requests', 503: 'Service Unavailable' };
  const reason = reasons[answer.status] ?? 'Bad Request';
  socket.end(
    `HTTP/1.1 ${answer.status} ${reason}\r\n` +
      'content-type: application/json\r\n' +
      `dg-request-id: ${requestId}\r\n` +
      `dg-error: ${answer.message}\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\n` +
      'connection: close\r\n\r\n' +
      body,
  );
}

export async function startFakeDeepgram(apiKey: string): Promise<FakeDeepgram> {
  const server = createServer();
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  const requestIds = new WeakMap<IncomingMessage, string>();
  const sessions = new Arrivals<DeepgramSession>('Deepgram session');
  const fake = { refuse: false, refuseStatus: 401, finalLatencyMs: 0, idleCloseMs: 10_000, metadata: true, transcripts: [] as string[], sessions: sessions.all } as FakeDeepgram;

  wss.on('headers', (headers, request) => headers.push(`dg-request-id: ${requestIds.get(request)}`));
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const requestId = randomUUID();
    const answer = refusal(fake, apiKey, request);
    if (answer) return refuseHandshake(socket, requestId, answer);
    requestIds.set(request, requestId);
    wss.handleUpgrade(request, socket, head, (ws) => {
      const session = new DeepgramSession(fake, ws, request, requestId);
      sessions.add(session);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  return Object.assign(fake, {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/v1/listen`,
    session: (timeoutMs?: number) => sessions.next(timeoutMs),
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
