/**
 * Deepgram live speech to text (nova-3) on its WebSocket `/v1/listen`, in Deepgram's documented
 * wire format:
 * - the query parameters and `Authorization: Token <key>`:
 *   https://developers.deepgram.com/reference/speech-to-text/listen-streaming
 * - `KeepAlive` every 3-5 s (a stream that sends nothing for 10 s is closed, NET-0001), `Finalize`
 *   (answered by a final result marked `from_finalize`), `CloseStream` (answered by `Metadata`,
 *   then the close): https://developers.deepgram.com/docs/audio-keep-alive, /docs/finalize,
 *   /docs/close-stream
 * - the messages `Results`, `Metadata`, `UtteranceEnd`, `SpeechStarted`: the official SDK's types,
 *   deepgram/deepgram-js-sdk src/api/resources/listen/resources/v1/types/ListenV1*.ts
 * - failures: a handshake answered with an HTTP 4xx/5xx (headers `dg-request-id`, `dg-error`), and
 *   close frames 1008 `DATA-0000` (the payload is not audio in the declared encoding), 1011
 *   `NET-0000`/`NET-0001`: https://developers.deepgram.com/docs/stt-troubleshooting-websocket-data-and-net-errors
 * - Pipecat's client (pipecat-ai/pipecat src/pipecat/services/deepgram/stt.py) likewise drops
 *   empty transcripts and sends a KeepAlive every 5 s.
 */
import WebSocket from 'ws';
import type { VendorAccess } from '../../config';
import { jsonMessage } from '../../lib/json-message';
import {
  PHONE_STT_AUDIO,
  ServiceError,
  sttBytesPerSecond,
  type FailureKind,
  type SttAudio,
  type SttEvents,
  type SttOptions,
  type SttService,
  type SttStream,
  type TranscriptWord,
} from './service';

export interface DeepgramBounds {
  /** Deepgram asks for a KeepAlive every 3-5 s: it closes a stream that sent nothing for 10 s. */
  keepAliveMs: number;
  /** The handshake must complete within this, or the stream has stalled. */
  connectMs: number;
  /**
   * Once a second of audio has gone unanswered, how long Deepgram may stay silent before the
   * stream counts as stalled. With `interim_results=true` Deepgram answers about every second of
   * audio, speech or not (silence comes back as empty results), so ten seconds without a word
   * from Deepgram on a stream that is fed audio is not a slow answer but a lost one; Deepgram's
   * own NET-0000 close says the same from its side.
   */
  stallMs: number;
  /** How long `close()` waits for Deepgram's `Metadata` and close after `CloseStream`. */
  closeMs: number;
}

export const DEEPGRAM_BOUNDS: Readonly<DeepgramBounds> = { keepAliveMs: 5_000, connectMs: 10_000, stallMs: 10_000, closeMs: 5_000 };

/** Audio sent before the socket opens waits for it; only its last seconds are kept. */
const PENDING_MAX_SECONDS = 2;
/** Deepgram's documented close for a payload it cannot decode as audio: a bad request, not a lost link. */
const CLOSE_NOT_AUDIO = 1008;

/** DEEPGRAM_API_KEY, and DEEPGRAM_URL: the listen endpoint itself, `wss://api.deepgram.com/v1/listen` by default. */
export interface DeepgramSttConfig extends VendorAccess {
  bounds?: Partial<DeepgramBounds>;
}

export class DeepgramStt implements SttService {
  readonly vendor = 'deepgram';
  private readonly bounds: DeepgramBounds;

  constructor(private readonly config: DeepgramSttConfig) {
    this.bounds = { ...DEEPGRAM_BOUNDS, ...config.bounds };
  }

  open(options: SttOptions, events: SttEvents): SttStream {
    return new DeepgramStream(listenUrl(this.config.url, options), options.audio ?? PHONE_STT_AUDIO, this.config.apiKey, this.bounds, events);
  }
}

/**
 * Deepgram's language code for the assistant's language (ISO 639-1). nova-3 takes the bare code
 * for each language of the catalogue (Deepgram's changelog, "Nova-3 Model Update", 2025-08 to
 * 2026-03); Portuguese is heard as Brazil speaks it.
 */
export function deepgramLanguage(iso2: string | null): string | null {
  if (iso2 === null) return null;
  return iso2 === 'pt' ? 'pt-BR' : iso2;
}

/**
 * The stream's URL: the call's audio as its transport carries it (8 kHz mu-law from Twilio, 16 kHz
 * `linear16` from a browser: raw audio needs both `encoding` and `sample_rate`), interim results
 * and Deepgram's VAD events on; the assistant's keyterms, each its own `keyterm`.
 */
export function listenUrl(base: string, options: SttOptions): string {
  const url = new URL(base);
  const audio = options.audio ?? PHONE_STT_AUDIO;
  const query: Record<string, string> = {
    model: 'nova-3',
    encoding: audio.encoding,
    sample_rate: String(audio.sampleRate),
    channels: '1',
    interim_results: 'true',
    endpointing: String(options.endpointingMs),
    utterance_end_ms: '1000',
    vad_events: 'true',
    smart_format: 'true',
  };
  if (options.language) query.language = options.language;
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  // Keyterm prompting (https://developers.deepgram.com/docs/keyterm): one `keyterm` a term,
  // a phrase's spaces as %20 (URLSearchParams would write `+`, which the docs do not name).
  const keyterms = (options.keyterms ?? []).map((term) => `keyterm=${encodeURIComponent(term)}`);
  if (keyterms.length) url.search = `${url.search}&${keyterms.join('&')}`;
  return url.toString();
}

/** What Deepgram sends; only the fields this client reads. */
type DeepgramMessage =
  | {
      type: 'Results';
      start: number;
      duration: number;
      is_final?: boolean;
      speech_final?: boolean;
      from_finalize?: boolean;
      channel: { alternatives: { transcript: string; words?: { word: string; punctuated_word?: string; start: number; end: number }[] }[] };
    }
  | { type: 'Metadata'; duration: number }
  | { type: 'UtteranceEnd' }
  | { type: 'SpeechStarted' };

class DeepgramStream implements SttStream {
  private readonly ws: WebSocket;
  /** `closing` once close() is called: from then on the caller hears nothing. */
  private state: 'connecting' | 'open' | 'closing' | 'ended' = 'connecting';
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private finalizeOnOpen = false;
  /** Audio sent since Deepgram last said anything, and the bound that runs once it is a second's worth. */
  private unanswered = 0;
  private stallTimer: NodeJS.Timeout | null = null;
  private keepAlive: NodeJS.Timeout | null = null;
  private readonly connectTimer: NodeJS.Timeout;
  /** Words came in final results since the last end of turn (an empty `speech_final` then ends that turn). */
  private wordsInTurn = false;
  private reportedSeconds: number | null = null;
  /** Audio bytes that went out on the socket: the seconds billed when Deepgram's `Metadata` never comes. */
  private sentBytes = 0;
  private handshakeStatus: { status: number; requestId: string | undefined } | null = null;
  private socketError: Error | null = null;
  private readonly socketClosed: Promise<void>;
  private closing: Promise<{ seconds: number }> | null = null;
  /** Bytes of a second of the stream's audio: every count of audio below is in its bytes. */
  private readonly bytesPerSecond: number;

  constructor(
    url: string,
    audio: SttAudio,
    apiKey: string,
    private readonly bounds: DeepgramBounds,
    private readonly events: SttEvents,
  ) {
    this.bytesPerSecond = sttBytesPerSecond(audio);
    this.ws = new WebSocket(url, { headers: { authorization: `Token ${apiKey}` }, perMessageDeflate: false });
    this.connectTimer = setTimeout(() => this.fail('stalled', `Deepgram did not open the stream within ${bounds.connectMs} ms`), bounds.connectMs);
    this.ws.on('unexpected-response', (_request, response) => {
      const requestId = response.headers['dg-request-id'];
      this.handshakeStatus = { status: response.statusCode ?? 0, requestId: typeof requestId === 'string' ? requestId : undefined };
      this.ws.terminate();
    });
    this.ws.on('open', () => this.onOpen());
    this.ws.on('message', (data, isBinary) => {
      if (!isBinary) this.onMessage(data.toString());
    });
    this.ws.on('error', (error) => (this.socketError ??= error));
    this.socketClosed = new Promise((resolve) =>
      this.ws.on('close', (code, reason) => {
        this.onClose(code, reason.toString());
        resolve();
      }),
    );
  }

  send(audio: Uint8Array): void {
    // An empty binary message would read to Deepgram as the old end-of-stream signal.
    if (audio.length === 0) return;
    if (this.state === 'connecting') return this.keep(audio.slice());
    if (this.state !== 'open') return;
    this.ws.send(audio);
    this.sentBytes += audio.length;
    this.unanswered += audio.length;
    // Deepgram answers about once per second of audio: the stall bound runs once a second is unanswered.
    if (this.unanswered >= this.bytesPerSecond && !this.stallTimer) {
      this.stallTimer = setTimeout(() => this.fail('stalled', `Deepgram sent nothing for ${this.bounds.stallMs} ms while audio flowed`), this.bounds.stallMs);
    }
  }

  finalize(): void {
    if (this.state === 'connecting') this.finalizeOnOpen = true;
    else if (this.state === 'open') this.ws.send('{"type":"Finalize"}');
  }

  close(): Promise<{ seconds: number }> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<{ seconds: number }> {
    if (this.state === 'ended') return { seconds: this.reportedSeconds ?? this.sentSeconds() };
    const wasOpen = this.state === 'open';
    this.state = 'closing';
    this.stopTimers();
    if (wasOpen) {
      this.ws.send('{"type":"CloseStream"}');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.socketClosed, new Promise((resolve) => (timer = setTimeout(resolve, this.bounds.closeMs)))]);
      clearTimeout(timer);
    }
    this.ws.terminate();
    this.state = 'ended';
    return { seconds: this.reportedSeconds ?? this.sentSeconds() };
  }

  /**
   * The audio sent, in seconds as Deepgram writes them (to the millisecond): Deepgram's
   * `Metadata` is lost with a stream that drops or a close that times out, yet it heard (and
   * bills) that audio.
   */
  private sentSeconds(): number {
    return Math.round((this.sentBytes / this.bytesPerSecond) * 1000) / 1000;
  }

  /** Frames are whole samples (linear16's two bytes each), and so is every cut of the budget: it is whole seconds. */
  private keep(frame: Uint8Array): void {
    this.pending.push(frame);
    this.pendingBytes += frame.length;
    let excess = this.pendingBytes - PENDING_MAX_SECONDS * this.bytesPerSecond;
    while (excess > 0) {
      const first = this.pending[0];
      const dropped = Math.min(first.length, excess);
      if (dropped === first.length) this.pending.shift();
      else this.pending[0] = first.subarray(dropped);
      this.pendingBytes -= dropped;
      excess -= dropped;
    }
  }

  private onOpen(): void {
    if (this.state !== 'connecting') return;
    this.state = 'open';
    clearTimeout(this.connectTimer);
    this.keepAlive = setInterval(() => this.ws.send('{"type":"KeepAlive"}'), this.bounds.keepAliveMs);
    const pending = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    for (const frame of pending) this.send(frame);
    if (this.finalizeOnOpen) this.finalize();
    this.events.opened?.();
  }

  private onMessage(text: string): void {
    this.unanswered = 0;
    if (this.stallTimer) clearTimeout(this.stallTimer);
    this.stallTimer = null;
    // Any JSON value may come (null, a number, an array): only an object naming its type is Deepgram's.
    const message = jsonMessage(text, 'type') as DeepgramMessage | null;
    if (!message) return;
    if (message.type === 'Metadata' && Number.isFinite(message.duration)) this.reportedSeconds = message.duration;
    if (this.state !== 'open') return;
    switch (message.type) {
      case 'Results':
        return this.onResults(message);
      case 'SpeechStarted':
        return this.events.speechStarted();
      case 'UtteranceEnd':
        this.wordsInTurn = false;
        return this.events.utteranceEnd();
    }
  }

  /**
   * Deepgram transcribes silence and noise too, as empty results (about one a second): those
   * carry nothing and are dropped. Two empty ones carry a signal and pass: the answer to
   * `finalize()` (`from_finalize`: all heard so far is final, its words perhaps already sent), and
   * a `speech_final` after final words (Deepgram's end of that turn).
   */
  private onResults(message: Extract<DeepgramMessage, { type: 'Results' }>): void {
    // Read as untrusted: a field of another type than Deepgram documents is taken as absent.
    const alternative = message.channel?.alternatives?.[0];
    const text = typeof alternative?.transcript === 'string' ? alternative.transcript : '';
    const isFinal = message.is_final === true;
    const speechFinal = message.speech_final === true;
    if (isFinal && text) this.wordsInTurn = true;
    if (!text && message.from_finalize !== true && !(speechFinal && this.wordsInTurn)) return;
    if (speechFinal) this.wordsInTurn = false;
    const words = DeepgramStream.wordsOf(alternative?.words);
    const start = Number.isFinite(message.start) ? message.start : 0;
    const duration = Number.isFinite(message.duration) ? message.duration : 0;
    this.events.transcript({ text, isFinal, speechFinal, fromFinalize: message.from_finalize === true, start, duration, words });
  }

  /** Deepgram's words with their times (a reconnect trims those heard twice by them); entries not shaped so are left out. */
  private static wordsOf(words: unknown): TranscriptWord[] | undefined {
    if (!Array.isArray(words)) return undefined;
    return words.flatMap((word) =>
      word && typeof word === 'object' && Number.isFinite(word.start) && Number.isFinite(word.end)
        ? [{ text: String(word.punctuated_word ?? word.word ?? ''), start: word.start as number, end: word.end as number }]
        : [],
    );
  }

  private onClose(code: number, reason: string): void {
    if (this.state === 'connecting') {
      // Any answer but 101 (401 a wrong key, 400 a bad query, 429, 5xx) is Deepgram declining the stream.
      if (this.handshakeStatus) {
        const { status, requestId } = this.handshakeStatus;
        // A 429 or 5xx is Deepgram busy or broken, not the request: another attempt may be taken.
        const transient = status === 408 || status === 429 || status >= 500 ? { retryAfterMs: null } : null;
        return this.fail('refused', `Deepgram refused the stream: HTTP ${status}${requestId ? ` (request ${requestId})` : ''}`, transient);
      }
      return this.fail('dropped', `Deepgram could not be reached: ${this.socketError?.message ?? `closed ${code}`}`);
    }
    const why = `Deepgram closed the stream: ${code}${reason ? ` ${reason}` : ''}`;
    this.fail(code === CLOSE_NOT_AUDIO ? 'refused' : 'dropped', why);
  }

  /** The stream is lost: tell the caller once, and nothing after. */
  private fail(kind: FailureKind, message: string, transient: ServiceError['transient'] = null): void {
    if (this.state !== 'connecting' && this.state !== 'open') return;
    this.state = 'ended';
    this.stopTimers();
    this.ws.terminate();
    this.events.failed(new ServiceError('stt', kind, message, transient));
  }

  private stopTimers(): void {
    clearTimeout(this.connectTimer);
    if (this.stallTimer) clearTimeout(this.stallTimer);
    if (this.keepAlive) clearInterval(this.keepAlive);
    this.stallTimer = null;
    this.keepAlive = null;
  }
}
