import { toFile } from 'openai';
import type OpenAI from 'openai';
import type { HostedStt } from '../../config';
import { decode } from '../codecs/mulaw';
import { Resampler } from '../codecs/resample';
import { openAiClient, openAiFailure } from './openai.llm';
import { PHONE_STT_AUDIO, ServiceError, type SttAudio, type SttEvents, type SttOptions, type SttService, type SttStream } from './service';

/**
 * Speech to text by turns (design.md, "Vendors you host"): an OpenAI-compatible
 * `POST {base_url}/audio/transcriptions` (OpenAI's own with `gpt-4o-mini-transcribe`,
 * faster-whisper-server, speaches, whisper.cpp's server) is given each caller turn whole once
 * the VAD says it is over. The wire format, read at the source: the API reference
 * (https://platform.openai.com/docs/api-reference/audio/createTranscription) as openai-node
 * 6.49.0 models it (src/resources/audio/transcriptions.ts: multipart `file`, `model`,
 * `language` ISO 639-1, `response_format: "json"` -> `{text}`).
 *
 * Such a server neither streams words nor says when a turn ends: the engine's VAD does (its
 * `speechStarted` marks where the turn's audio begins, its end of turn asks `finalize`), the
 * turn's audio goes as a 16 kHz mono 16-bit WAV, and the text comes back as one final
 * (`fromFinalize`, `speechFinal`). So interruptions go by the VAD's time, and words that
 * interrupt are counted once the turn is transcribed.
 */

const RATE = 16_000;
/** Audio kept before the VAD said speech began: its judgement needs ~100 ms of speech, and a word's onset is quiet. */
const PRE_ROLL_SAMPLES = RATE / 2;
/** The longest turn sent; older audio of a longer one is dropped (a monologue, or a VAD that never hears silence). */
const MAX_TURN_SAMPLES = 60 * RATE;
/** A turn shorter than this has no words to find (a click the VAD took for speech): no request. */
const MIN_TURN_SAMPLES = RATE / 10;
/** How long a turn's transcription may take before it fails as stalled. */
export const REQUEST_MS = 8_000;
/** The most text a turn keeps from the server's answer. */
const MAX_TEXT = 4_000;

export interface OpenAiSttOptions extends HostedStt {
  /** How the call names the vendor (`openai`, or the name in STT_PROVIDERS). */
  vendor: string;
  /** The bound above, shorter in tests. */
  requestMs?: number;
}

export class OpenAiStt implements SttService {
  readonly vendor: string;
  /** The engine waits for a turn's words as long as the request may take, and a little more: its failure comes first. */
  readonly finalWaitMs: number;
  private readonly client: OpenAI;
  private readonly host: string;

  constructor(private readonly options: OpenAiSttOptions) {
    this.vendor = options.vendor;
    this.client = openAiClient(options);
    this.host = new URL(options.url).host;
    this.finalWaitMs = (options.requestMs ?? REQUEST_MS) + 500;
  }

  open(options: SttOptions, events: SttEvents): SttStream {
    return new TurnStream(
      { client: this.client, model: this.options.model, vendor: `transcription at ${this.host}`, requestMs: this.options.requestMs ?? REQUEST_MS },
      options.audio ?? PHONE_STT_AUDIO,
      options.language,
      events,
    );
  }
}

interface Settings {
  client: OpenAI;
  model: string;
  vendor: string;
  requestMs: number;
}

class TurnStream implements SttStream {
  /** The audio since the turn began (or the pre-roll while no turn is under way), 16 kHz PCM. */
  private chunks: Int16Array[] = [];
  private buffered = 0;
  /** Samples of the stream before the first buffered one: the stream's clock. */
  private dropped = 0;
  private inTurn = false;
  private readonly upsample: Resampler | null;
  /** Turns' answers are given in the order the turns ended. */
  private emitting: Promise<void> = Promise.resolve();
  private readonly requests = new Set<AbortController>();
  private sentSamples = 0;
  private over = false;

  constructor(
    private readonly settings: Settings,
    audio: SttAudio,
    private readonly language: string | null,
    private readonly events: SttEvents,
  ) {
    this.upsample = audio.encoding === 'mulaw' ? new Resampler(audio.sampleRate, RATE) : null;
  }

  send(bytes: Uint8Array): void {
    if (this.over) return;
    const pcm = this.upsample ? this.upsample.process(decode(bytes)) : littleEndian(bytes);
    this.chunks.push(pcm);
    this.buffered += pcm.length;
    const keep = this.inTurn ? MAX_TURN_SAMPLES : PRE_ROLL_SAMPLES;
    while (this.chunks.length > 1 && this.buffered - this.chunks[0].length >= keep) {
      const first = this.chunks.shift()!;
      this.buffered -= first.length;
      this.dropped += first.length;
    }
  }

  speechStarted(): void {
    this.inTurn = true;
  }

  finalize(): void {
    if (this.over) return;
    const start = this.dropped / RATE;
    const pcm = join(this.chunks, this.buffered);
    this.dropped += this.buffered;
    this.chunks = [];
    this.buffered = 0;
    this.inTurn = false;
    const heard = pcm.length >= MIN_TURN_SAMPLES ? this.transcribe(pcm) : Promise.resolve('');
    heard.catch(() => {}); // handled in order below
    this.emitting = this.emitting.then(async () => {
      let text: string;
      try {
        text = await heard;
      } catch (error) {
        return this.fail(error as ServiceError);
      }
      if (this.over) return;
      this.events.transcript({ text, isFinal: true, speechFinal: true, fromFinalize: true, start, duration: pcm.length / RATE });
    });
  }

  async close(): Promise<{ seconds: number }> {
    this.over = true;
    for (const request of this.requests) request.abort();
    return { seconds: this.sentSamples / RATE };
  }

  private fail(error: ServiceError): void {
    if (this.over) return;
    this.over = true;
    for (const request of this.requests) request.abort();
    this.events.failed(error);
  }

  /** One turn's words; any failure is thrown as a ServiceError. */
  private async transcribe(pcm: Int16Array): Promise<string> {
    const { client, model, vendor, requestMs } = this.settings;
    const abort = new AbortController();
    this.requests.add(abort);
    let stalled = false;
    const timer = setTimeout(() => {
      stalled = true;
      abort.abort();
    }, requestMs);
    this.sentSamples += pcm.length;
    try {
      const file = await toFile(wav(pcm), 'turn.wav', { type: 'audio/wav' });
      const answer: unknown = await client.audio.transcriptions.create(
        { file, model, response_format: 'json', ...(this.language ? { language: this.language } : {}) },
        { signal: abort.signal },
      );
      const text = (answer as { text?: unknown } | null)?.text;
      if (typeof text !== 'string') throw new ServiceError('stt', 'refused', `${vendor} answered without a text`);
      return text.slice(0, MAX_TEXT).trim();
    } catch (error) {
      if (error instanceof ServiceError) throw error;
      if (stalled) throw new ServiceError('stt', 'stalled', `${vendor} sent nothing for ${requestMs} ms`, { retryAfterMs: null });
      throw openAiFailure('stt', vendor, error);
    } finally {
      clearTimeout(timer);
      this.requests.delete(abort);
    }
  }
}

/** A web call's linear16 bytes as samples (an odd trailing byte is dropped: frames come whole). */
function littleEndian(bytes: Uint8Array): Int16Array {
  const count = bytes.length >> 1;
  const view = new DataView(bytes.buffer, bytes.byteOffset, count * 2);
  const samples = new Int16Array(count);
  for (let i = 0; i < count; i++) samples[i] = view.getInt16(i * 2, true);
  return samples;
}

function join(chunks: Int16Array[], length: number): Int16Array {
  const out = new Int16Array(length);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/** A RIFF/WAVE file of 16 kHz mono 16-bit PCM. */
export function wav(pcm: Int16Array): Buffer {
  const data = pcm.length * 2;
  const out = Buffer.alloc(44 + data);
  out.write('RIFF', 0, 'ascii');
  out.writeUInt32LE(36 + data, 4);
  out.write('WAVE', 8, 'ascii');
  out.write('fmt ', 12, 'ascii');
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(1, 20); // PCM
  out.writeUInt16LE(1, 22); // mono
  out.writeUInt32LE(RATE, 24);
  out.writeUInt32LE(RATE * 2, 28);
  out.writeUInt16LE(2, 32);
  out.writeUInt16LE(16, 34);
  out.write('data', 36, 'ascii');
  out.writeUInt32LE(data, 40);
  for (let i = 0; i < pcm.length; i++) out.writeInt16LE(pcm[i], 44 + i * 2);
  return out;
}
