import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import type { VendorAccess } from '../../config';
import { jsonMessage } from '../../lib/json-message';
import { CONNECTION_LOST, httpTransient, ServiceError, type TtsEvents, type TtsOptions, type TtsService, type TtsSession, type TtsUtterance } from './service';

/**
 * Cartesia's streaming text to speech over its TTS WebSocket, API version 2026-03-01. Where the
 * format comes from:
 * - the socket, its generation request, `cancel`, and the `chunk`/`done`/`error` messages:
 *   https://docs.cartesia.ai/2026-03-01/api-reference/tts/websocket, and the contexts guide,
 *   https://docs.cartesia.ai/use-the-api/tts-websocket/contexts (`continue`, the empty closing
 *   transcript, "inputs on the same context must keep all fields except transcript, continue");
 * - the error event's fields (`status_code`, `error_code`): https://docs.cartesia.ai/use-the-api/api-errors;
 * - the raw sample rates: https://docs.cartesia.ai/build-with-cartesia/capability-guides/tts-output-audio-format;
 * - speed: https://docs.cartesia.ai/build-with-cartesia/capability-guides/volume-speed-emotion;
 * - the handshake's headers and a production client's handling of the messages: pipecat-ai/pipecat,
 *   src/pipecat/services/cartesia/tts.py (`X-API-Key`, `Cartesia-Version: 2026-03-01`; Cartesia's
 *   own SDKs now send the key as `Authorization: Bearer`); the message types:
 *   cartesia-ai/cartesia-python, src/cartesia/types/websocket_response.py and
 *   generation_request_param.py.
 *
 * One socket per session (a call), opened at once so that the first utterance does not wait for
 * the handshake, and one context per utterance. Cartesia closes an idle socket, so the next
 * utterance after a close opens a new one.
 *
 * The assistant's stability and similarity have no Cartesia equivalent (Sonic takes speed,
 * volume and emotion only) and are not sent.
 */

const PATH = '/tts/websocket';
/** The API version this file speaks: the error event's fields are this version's. */
const VERSION = '2026-03-01';
/** sonic-3, not sonic-3.5: Cartesia has speed disabled on sonic-3.5 for now, and speech_speed must take effect. */
const MODEL = 'sonic-3';
/** "British Reading Lady", the voice of Pipecat's Cartesia examples: for voices without a Cartesia id. */
const DEFAULT_VOICE = '71a7ad14-091c-4e8e-a314-022ece01c121';
/** The rates Cartesia gives raw PCM at; the engine's (8, 16, 24, 48 kHz) are all among them, so nothing is resampled. */
const SAMPLE_RATES = new Set([8000, 16000, 22050, 24000, 44100, 48000]);

/** How long Cartesia may keep us waiting before it counts as stalled. */
export interface CartesiaBounds {
  /** From the socket's creation to its handshake's end. */
  connectMs: number;
  /**
   * From an utterance's first text to its first audio, and from `end` to each next message of
   * the utterance. Cartesia may hold text back up to 3 s (its `max_buffer_delay_ms` default)
   * to speak it with more context, so this leaves it 2 s more.
   */
  stallMs: number;
}

export const CARTESIA_BOUNDS: CartesiaBounds = { connectMs: 5_000, stallMs: 5_000 };

/**
 * The assistant's speed (0.5 to 2, 1 = normal) as Cartesia's `generation_config.speed` (0.6 to
 * 1.5): each side of normal scaled onto Cartesia's, so 1 stays 1 and the ends meet the ends.
 */
export function cartesiaSpeed(speed: number): number {
  const clamped = Math.min(2, Math.max(0.5, speed));
  const mapped = clamped < 1 ? 0.6 + (clamped - 0.5) * 0.8 : 1 + (clamped - 1) * 0.5;
  return Math.round(mapped * 100) / 100;
}

export class CartesiaTts implements TtsService {
  readonly vendor = 'cartesia';

  constructor(
    private readonly access: VendorAccess,
    private readonly bounds: CartesiaBounds = CARTESIA_BOUNDS,
  ) {}

  open(options: TtsOptions): TtsSession {
    if (!SAMPLE_RATES.has(options.sampleRate)) throw new RangeError(`Cartesia does not give PCM at ${options.sampleRate} Hz`);
    return new CartesiaSession(this.access, this.bounds, {
      model_id: MODEL,
      voice: { mode: 'id', id: options.voiceId ?? DEFAULT_VOICE },
      ...(options.language ? { language: options.language } : {}),
      output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: options.sampleRate },
      generation_config: { speed: cartesiaSpeed(options.speed) },
    });
  }
}

/** Characters of scripts written without spaces between words or sentences (Han, kana, Thai and their punctuation). */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\u3000-\u303f\uff00-\uffef]/u;

/** The fields of a generation request that stay the same on every input of every context. */
type RequestFields = Record<string, unknown>;

class CartesiaSession implements TtsSession {
  private sent = 0;
  private connection: Connection | null;
  private closed = false;

  constructor(
    private readonly access: VendorAccess,
    readonly bounds: CartesiaBounds,
    readonly fields: RequestFields,
  ) {
    this.connection = this.connect();
  }

  get characters(): number {
    return this.sent;
  }

  utterance(events: TtsEvents): TtsUtterance {
    if (this.closed) throw new Error('The Cartesia session is closed');
    return new CartesiaUtterance(this, events);
  }

  /** The open socket, or a new one when the last is lost or closing. */
  live(): Connection {
    if (this.closed) throw new Error('The Cartesia session is closed');
    if (!this.connection?.usable) this.connection = this.connect();
    return this.connection;
  }

  close(): void {
    this.closed = true;
    this.connection?.close();
    this.connection = null;
  }

  private connect(): Connection {
    const connection: Connection = new Connection(this.access, this.bounds, {
      sent: (characters) => (this.sent += characters),
      lost: () => {
        if (this.connection === connection) this.connection = null;
      },
    });
    return connection;
  }
}

interface Outgoing {
  utterance: CartesiaUtterance;
  message: string;
  characters: number;
}

/** One socket to Cartesia and the utterances (contexts) it carries. */
class Connection {
  private readonly socket: WebSocket;
  private readonly utterances = new Map<string, CartesiaUtterance>();
  /** Contexts Cartesia has heard of: only those need a `cancel`. */
  private readonly started = new Set<string>();
  /** What was sent before the handshake ended. */
  private queue: Outgoing[] = [];
  private opened = false;
  private lost = false;
  private readonly connectTimer: NodeJS.Timeout;

  constructor(
    access: VendorAccess,
    bounds: CartesiaBounds,
    private readonly hooks: { sent(characters: number): void; lost(): void },
  ) {
    this.socket = new WebSocket(access.url.replace(/\/+$/, '') + PATH, {
      headers: { 'X-API-Key': access.apiKey, 'Cartesia-Version': VERSION },
    });
    this.connectTimer = setTimeout(
      () => this.lose(new ServiceError('tts', 'stalled', `Cartesia did not open the connection within ${bounds.connectMs} ms`)),
      bounds.connectMs,
    );
    this.socket.on('unexpected-response', (_request, response) => {
      response.resume();
      this.lose(
        new ServiceError('tts', 'refused', `Cartesia refused the connection (HTTP ${response.statusCode})`, httpTransient(response.statusCode, response.headers['retry-after'])),
      );
    });
    this.socket.on('open', () => {
      this.opened = true;
      clearTimeout(this.connectTimer);
      for (const outgoing of this.queue) this.write(outgoing);
      this.queue = [];
    });
    this.socket.on('message', (data) => this.receive(data.toString()));
    // An error is always followed by `close`, which says what it means for the utterances.
    this.socket.on('error', () => undefined);
    this.socket.on('close', (code) =>
      this.lose(new ServiceError('tts', 'dropped', this.opened ? `Cartesia closed the connection (code ${code})` : 'Cartesia could not be reached', CONNECTION_LOST)),
    );
  }

  /**
   * Open or opening. Cartesia closes an idle socket with a close frame: from then on the socket
   * is closing, and text sent on it would be lost.
   */
  get usable(): boolean {
    return !this.lost && (this.socket.readyState === WebSocket.CONNECTING || this.socket.readyState === WebSocket.OPEN);
  }

  send(utterance: CartesiaUtterance, request: RequestFields, characters: number): void {
    this.utterances.set(utterance.id, utterance);
    const outgoing = { utterance, message: JSON.stringify(request), characters };
    if (this.opened) this.write(outgoing);
    else this.queue.push(outgoing);
  }

  /** The utterance is over: what it has not sent yet is dropped, and `cancel` stops a context Cartesia is still speaking. */
  release(utterance: CartesiaUtterance, cancel: boolean): void {
    this.utterances.delete(utterance.id);
    this.queue = this.queue.filter((outgoing) => outgoing.utterance !== utterance);
    if (cancel && this.started.has(utterance.id) && !this.lost) this.socket.send(JSON.stringify({ context_id: utterance.id, cancel: true }));
    this.started.delete(utterance.id);
  }

  /** The session ends: its utterances go quiet, without a failure. */
  close(): void {
    this.lost = true;
    clearTimeout(this.connectTimer);
    for (const utterance of this.utterances.values()) utterance.silence();
    this.utterances.clear();
    this.socket.close(1000);
  }

  private write({ utterance, message, characters }: Outgoing): void {
    this.socket.send(message);
    this.started.add(utterance.id);
    this.hooks.sent(characters);
  }

  private receive(text: string): void {
    // Not Cartesia's (not JSON, null, an array, no type): the utterance waiting on it stalls, and says so.
    const message = jsonMessage(text, 'type') as CartesiaMessage | null;
    if (!message) return;
    const utterance = message.context_id === undefined ? undefined : this.utterances.get(message.context_id);
    if (utterance) utterance.receive(message);
    // An error of no context is the socket's: every utterance on it is lost.
    else if (message.type === 'error' && message.context_id === undefined) for (const each of [...this.utterances.values()]) each.receive(message);
  }

  private lose(error: ServiceError): void {
    if (this.lost) return;
    this.lost = true;
    clearTimeout(this.connectTimer);
    this.queue = [];
    this.socket.terminate();
    this.hooks.lost();
    const failing = [...this.utterances.values()];
    this.utterances.clear();
    for (const utterance of failing) utterance.fail(error);
  }
}

/** What Cartesia sends: `chunk` (base64 PCM in `data`), `done`, `error`, and timestamps we do not ask for. */
interface CartesiaMessage {
  type: string;
  context_id?: string;
  data?: string;
  status_code?: number;
  error_code?: string | null;
}

/** One utterance: one Cartesia context. */
class CartesiaUtterance implements TtsUtterance {
  readonly id = randomUUID();
  private connection: Connection | null = null;
  private ended = false;
  private settled = false;
  private heard = false;
  /** The odd byte of a chunk, the first half of the next chunk's first sample. */
  private carry: Buffer | null = null;
  private watchdog: NodeJS.Timeout | undefined;
  /** The last text pushed: whether the next needs a space before it. */
  private lastPushed = '';

  constructor(
    private readonly session: CartesiaSession,
    private readonly events: TtsEvents,
  ) {}

  push(text: string): void {
    if (this.settled || this.ended || text === '') return;
    this.send(this.joined(text), true);
    this.lastPushed = text;
    if (!this.heard && this.watchdog === undefined) this.arm();
  }

  /**
   * Cartesia joins a context's transcripts as they are, and the engine pushes whole sentences
   * trimmed: without a space between two of them, "Olá." and "Tudo bem?" are read as one word
   * ("Olá.Tudo"). Scripts written without spaces (Chinese, Japanese, Thai) get none.
   */
  private joined(text: string): string {
    const before = this.lastPushed;
    if (before === '' || /\s$/u.test(before) || /^\s/u.test(text)) return text;
    if (UNSPACED.test(before.slice(-1)) || UNSPACED.test(text[0])) return text;
    return ` ${text}`;
  }

  end(): void {
    if (this.settled || this.ended) return;
    this.ended = true;
    if (this.connection === null) {
      // Cartesia never heard of a context with no text: there is nothing to wait for.
      queueMicrotask(() => this.finish());
      return;
    }
    this.send('', false);
    this.arm();
  }

  cancel(): void {
    if (!this.settled) this.settle(true);
  }

  receive(message: CartesiaMessage): void {
    if (message.type === 'chunk' && typeof message.data === 'string') {
      this.heard = true;
      if (this.ended) this.arm();
      else this.disarm();
      const samples = this.samples(message.data);
      if (samples.length > 0) this.events.audio(samples);
    } else if (message.type === 'done') {
      this.finish();
    } else if (message.type === 'error') {
      // Only an identifier of the vendor's reaches a message, never its free text.
      const code = typeof message.error_code === 'string' && /^[\w.-]{1,64}$/.test(message.error_code) ? `, ${message.error_code}` : '';
      const transient = httpTransient(message.status_code, undefined);
      this.fail(new ServiceError('tts', 'refused', `Cartesia refused the request (${Number.isInteger(message.status_code) ? message.status_code : 'no status'}${code})`, transient));
    }
  }

  fail(error: ServiceError, cancel = false): void {
    if (this.settled) return;
    this.settle(cancel);
    this.events.failed(error);
  }

  /** Goes quiet without a word: the session is closing. */
  silence(): void {
    this.settled = true;
    this.disarm();
  }

  private send(transcript: string, more: boolean): void {
    this.connection ??= this.session.live();
    this.connection.send(this, { ...this.session.fields, transcript, context_id: this.id, continue: more }, transcript.length);
  }

  private finish(): void {
    if (this.settled) return;
    this.settle(false);
    this.events.done();
  }

  private settle(cancel: boolean): void {
    this.settled = true;
    this.disarm();
    this.connection?.release(this, cancel);
  }

  private arm(): void {
    this.disarm();
    const { stallMs } = this.session.bounds;
    this.watchdog = setTimeout(() => this.fail(new ServiceError('tts', 'stalled', `Cartesia sent nothing for ${stallMs} ms`), true), stallMs);
  }

  private disarm(): void {
    clearTimeout(this.watchdog);
    this.watchdog = undefined;
  }

  /** Little-endian 16-bit PCM as samples, a sample split between two chunks joined. */
  private samples(data: string): Int16Array {
    const decoded = Buffer.from(data, 'base64');
    const bytes = this.carry ? Buffer.concat([this.carry, decoded]) : decoded;
    const count = bytes.length >> 1;
    this.carry = bytes.length % 2 ? bytes.subarray(bytes.length - 1) : null;
    const samples = new Int16Array(count);
    for (let i = 0; i < count; i++) samples[i] = bytes.readInt16LE(i * 2);
    return samples;
  }
}
