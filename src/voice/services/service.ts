/**
 * What the pipeline engine asks of its vendors (design.md, "The pipeline engine"): speech to
 * text, a language model, text to speech. Each vendor's wire format lives in one file of this
 * folder and implements one of these; the engine knows nothing of the wire.
 *
 * Audio between the engine and the services is 16-bit linear PCM (`Int16Array`, host byte
 * order) at a rate the engine names, except STT's input, which is bytes in the encoding the
 * stream was opened with (`SttAudio`): the 8 kHz mu-law a phone call carries, or a web call's
 * 16 kHz linear PCM, which Deepgram takes as they are.
 */

/** The part of the pipeline a failure names (the call's `hangup_reason` says `<part>-failed`). */
export type ServicePart = 'stt' | 'llm' | 'tts';

/**
 * How a vendor failed: it refused (a wrong key, a bad request: an HTTP status or a WebSocket
 * close the vendor documents), dropped (the connection ended under us), or stalled (no answer
 * within the service's bound).
 */
export type FailureKind = 'refused' | 'dropped' | 'stalled';

export class ServiceError extends Error {
  constructor(
    readonly part: ServicePart,
    readonly kind: FailureKind,
    /** Safe to log: never a key, never the vendor's raw body. */
    message: string,
    /**
     * A second attempt may succeed (a connection error, a 429, a 5xx), and how long the vendor
     * asked to wait first (`Retry-After`), when it said.
     */
    readonly transient: { retryAfterMs: number | null } | null = null,
  ) {
    super(message);
    this.name = 'ServiceError';
  }
}

/** A connection lost or never made: worth a second attempt, with no wait named. */
export const CONNECTION_LOST = { retryAfterMs: null } as const;

/** A `Retry-After` value (seconds or an HTTP date) in ms; null when absent or unreadable. */
export function parseRetryAfter(retryAfter: string | string[] | null | undefined): number | null {
  const value = (Array.isArray(retryAfter) ? retryAfter[0] : retryAfter)?.trim();
  if (!value) return null;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

/** `Retry-After` (seconds or an HTTP date) or OpenAI's `retry-after-ms`, in ms; null when absent or unreadable. */
export function retryAfterMs(headers: Headers | Readonly<Record<string, string | string[] | undefined>> | undefined): number | null {
  const get = (name: string) => (headers instanceof Headers ? headers.get(name) : headers?.[name]);
  const ms = Number(get('retry-after-ms') ?? NaN);
  return Number.isFinite(ms) && ms >= 0 ? ms : parseRetryAfter(get('retry-after'));
}

/**
 * Whether an HTTP status a vendor answered is worth a second attempt (429, 5xx), with its
 * `Retry-After` in ms when it is readable.
 */
export function httpTransient(status: number | undefined, retryAfter: string | string[] | undefined): { retryAfterMs: number | null } | null {
  if (status === undefined || (status !== 429 && status < 500)) return null;
  return { retryAfterMs: parseRetryAfter(retryAfter) };
}

// ---------------------------------------------------------------- speech to text

/**
 * The caller's audio as the stream takes it: a phone call's 8 kHz mu-law (one byte a sample), or
 * a web call's 16 kHz linear PCM (16-bit signed little-endian, two bytes a sample).
 */
export type SttAudio = { encoding: 'mulaw'; sampleRate: 8000 } | { encoding: 'linear16'; sampleRate: 16000 };

/** A phone call's audio, the default of a stream opened without `audio`. */
export const PHONE_STT_AUDIO: SttAudio = { encoding: 'mulaw', sampleRate: 8000 };

/** Bytes of a second of `audio`: the unit of the seconds a stream counts. */
export function sttBytesPerSecond(audio: SttAudio): number {
  return audio.sampleRate * (audio.encoding === 'linear16' ? 2 : 1);
}

export interface SttOptions {
  /** The vendor's language code (BCP-47, such as `pt-BR`), or null for the vendor's default. */
  language: string | null;
  /** Milliseconds of silence after which the vendor marks a final result `speech_final`. */
  endpointingMs: number;
  /** The encoding and rate of what `send` is given; a phone call's 8 kHz mu-law when absent. */
  audio?: SttAudio;
  /** The assistant's `keyterms`, variables filled: words the vendor should expect (Deepgram's keyterm prompting). */
  keyterms?: readonly string[];
}

export interface Transcript {
  text: string;
  /** The text of this stretch of audio will not change any more. */
  isFinal: boolean;
  /** The vendor judges the speaker finished their turn (Deepgram's `speech_final`). */
  speechFinal: boolean;
  /** The answer to `finalize()`: everything heard so far is final (perhaps with no new words). */
  fromFinalize: boolean;
  /** Seconds from the start of the stream. */
  start: number;
  duration: number;
  /** Each word and its times (seconds from the start of the stream), when the vendor gives them. */
  words?: TranscriptWord[];
}

export interface TranscriptWord {
  /** As it belongs in the text (Deepgram's `punctuated_word` when formatted). */
  text: string;
  start: number;
  end: number;
}

export interface SttEvents {
  transcript(transcript: Transcript): void;
  /** The vendor heard no more words for its utterance-end interval (Deepgram's `UtteranceEnd`). */
  utteranceEnd(): void;
  /** The vendor heard speech begin (Deepgram's `SpeechStarted`). */
  speechStarted(): void;
  /** The stream is lost; nothing more comes from it. */
  failed(error: ServiceError): void;
  /**
   * The vendor took the stream: audio sent from now on goes out at once, not into the bounded
   * backlog kept while it connects (the reconnecting stream waits for this to count its times).
   */
  opened?(): void;
}

export interface SttStream {
  /** A frame of the caller's audio, in the stream's `SttAudio` encoding (linear16: little-endian bytes). */
  send(audio: Uint8Array): void;
  /** The caller stopped speaking: the vendor should give its final result now. */
  finalize(): void;
  /** The VAD heard the caller begin a turn: a transcriber of whole turns keeps the audio from here (a streaming one need not listen). */
  speechStarted?(): void;
  /** Ends the stream; resolves with the audio seconds the vendor reports having processed. */
  close(): Promise<{ seconds: number }>;
}

export interface SttService {
  readonly vendor: string;
  /** How long the engine waits for the final words after `finalize` (a transcriber of whole turns takes its request's time); the engine's default when absent. */
  readonly finalWaitMs?: number;
  open(options: SttOptions, events: SttEvents): SttStream;
}

// ---------------------------------------------------------------- language model

/** A chat message in the OpenAI chat-completions shape (the lingua franca of the vendors). */
export type LlmMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: LlmToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface LlmToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** A function the model may call: JSON-schema parameters. */
export interface LlmFunction {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface LlmRequest {
  model: string;
  temperature: number;
  messages: LlmMessage[];
  tools: LlmFunction[];
}

/**
 * What a streamed completion yields, in order: text as it comes; each tool call whole once its
 * deltas are joined (by `index`); the usage last, when the vendor reports it.
 */
export type LlmChunk =
  | { type: 'text'; text: string }
  | { type: 'tool_call'; call: LlmToolCall }
  | { type: 'usage'; inputTokens: number; outputTokens: number };

export interface LlmService {
  /**
   * Streams a completion. Aborting `signal` ends the iteration quietly (a barge-in); a vendor
   * failure throws a ServiceError (`llm`).
   */
  complete(request: LlmRequest, signal: AbortSignal): AsyncIterable<LlmChunk>;
}

// ---------------------------------------------------------------- text to speech

export interface TtsOptions {
  /** The vendor's voice id; null for the vendor's default voice. */
  voiceId: string | null;
  /** The vendor's language code (ISO 639-1, such as `pt`), or null. */
  language: string | null;
  /** The assistant's settings: speed 0.5..2 (1 = normal), stability and similarity 0..1. */
  speed: number;
  stability: number;
  similarity: number;
  /** The PCM rate the engine wants back. */
  sampleRate: number;
}

export interface TtsEvents {
  /** PCM of the utterance, in order, at the session's sample rate. */
  audio(pcm: Int16Array): void;
  /** All the text pushed before `end` has been spoken (the last audio came). */
  done(): void;
  /** The utterance is lost; nothing more comes from it. */
  failed(error: ServiceError): void;
}

/** One utterance (an assistant's turn, or a filler): text in, in pieces, audio out. */
export interface TtsUtterance {
  /** More text of the utterance (a sentence, or a few words). */
  push(text: string): void;
  /** No more text: speak what is left. */
  end(): void;
  /** Drop it: no more audio or events come (a barge-in). */
  cancel(): void;
}

/** One call's speech: a vendor connection may be kept open across its utterances. */
export interface TtsSession {
  utterance(events: TtsEvents): TtsUtterance;
  /** Characters sent to the vendor so far (its unit of billing). */
  readonly characters: number;
  close(): void;
}

export interface TtsService {
  readonly vendor: string;
  open(options: TtsOptions): TtsSession;
}
