import type OpenAI from 'openai';
import type { VendorAccess } from '../../config';
import { Resampler, type SampleRate } from '../codecs/resample';
import { openAiClient, openAiFailure } from './openai.llm';
import { ServiceError, type TtsEvents, type TtsOptions, type TtsService, type TtsSession, type TtsUtterance } from './service';
import { VendorSilence } from './vendor-silence';

/**
 * OpenAI's text to speech, `POST {OPENAI_BASE_URL}/audio/speech`, streamed (design.md, "The
 * pipeline engine", the TTS row). The wire format, read at the source: the API reference
 * (https://platform.openai.com/docs/api-reference/audio/createSpeech) as the official SDK models
 * it (openai-node 6.49.0, src/resources/audio/speech.ts: `model`, `input` up to 4096 characters,
 * `voice`, `response_format`, `speed` 0.25..4, `instructions`, `stream_format`), and the text to
 * speech guide (https://platform.openai.com/docs/guides/text-to-speech): `pcm` is the raw samples
 * at 24 kHz, 16-bit signed little-endian, mono, with no header, sent as it is made. Pipecat's
 * src/pipecat/services/openai/tts.py asks for the same and reads the body as it comes.
 *
 * Each piece of text pushed is one request; they run side by side, and their audio is heard in
 * the order they were pushed. The API has no language parameter (the model reads the text's), nor
 * stability or similarity: those settings of the assistant do not reach this vendor.
 */

/** OpenAI's `pcm`; a hosted server's may differ (TTS_PROVIDERS' `sample_rate`). */
const PCM_RATE: SampleRate = 24_000;
const DEFAULT_MODEL = 'gpt-4o-mini-tts';
const DEFAULT_VOICE = 'alloy';
/** How long a request may take to send its first audio bytes (its time to first byte). */
export const FIRST_BYTE_MS = 10_000;
/** How long a request may pause between two chunks of audio once it started. */
export const NEXT_BYTES_MS = 10_000;

export interface OpenAiTtsOptions extends VendorAccess {
  /** A hosted server's model and the rate of the PCM it sends (TTS_PROVIDERS); OpenAI's when absent. */
  model?: string;
  sampleRate?: SampleRate;
  /** The bounds above, shorter in tests. */
  firstByteMs?: number;
  nextBytesMs?: number;
}

interface Settings {
  client: OpenAI;
  model: string;
  pcmRate: SampleRate;
  /** How messages name the vendor. */
  vendor: string;
  firstByteMs: number;
  nextBytesMs: number;
}

export class OpenAiTts implements TtsService {
  readonly vendor = 'openai';
  private readonly settings: Settings;

  constructor(options: OpenAiTtsOptions) {
    this.settings = {
      client: openAiClient(options),
      model: options.model ?? DEFAULT_MODEL,
      pcmRate: options.sampleRate ?? PCM_RATE,
      vendor: `OpenAI speech at ${new URL(options.url).host}`,
      firstByteMs: options.firstByteMs ?? FIRST_BYTE_MS,
      nextBytesMs: options.nextBytesMs ?? NEXT_BYTES_MS,
    };
  }

  open(options: TtsOptions): TtsSession {
    if (![8000, 16000, 24000, 48000].includes(options.sampleRate)) throw new Error(`OpenAI TTS: no resampling to ${options.sampleRate} Hz`);
    return new OpenAiTtsSession(this.settings, options);
  }
}

class OpenAiTtsSession implements TtsSession {
  private sent = 0;
  private readonly live = new Set<Utterance>();

  constructor(
    private readonly settings: Settings,
    private readonly options: TtsOptions,
  ) {}

  get characters(): number {
    return this.sent;
  }

  utterance(events: TtsEvents): TtsUtterance {
    const utterance: Utterance = new Utterance(this.settings, this.options, events, {
      sent: (characters) => (this.sent += characters),
      over: () => this.live.delete(utterance),
    });
    this.live.add(utterance);
    return utterance;
  }

  close(): void {
    for (const utterance of this.live) utterance.cancel();
  }
}

/** One pushed piece of text: its request, and its audio while earlier pieces are still heard. */
interface Piece {
  abort: AbortController;
  waiting: Uint8Array[];
  complete: boolean;
}

class Utterance implements TtsUtterance {
  /** Pieces not heard to their end yet, in order; the first one is being heard. */
  private readonly pieces: Piece[] = [];
  /** One resampler for the whole utterance, so its filter runs on across pieces. */
  private readonly resampler: Resampler;
  /** The first byte of a sample whose second byte is in the next chunk. */
  private oddByte: number | null = null;
  private ended = false;
  /** Done, failed or cancelled: nothing more is emitted. */
  private over = false;

  constructor(
    private readonly settings: Settings,
    private readonly options: TtsOptions,
    private readonly events: TtsEvents,
    private readonly session: { sent(characters: number): void; over(): void },
  ) {
    this.resampler = new Resampler(settings.pcmRate, options.sampleRate as SampleRate);
  }

  push(text: string): void {
    // The API refuses an empty input; a blank piece has nothing to say anyway.
    if (this.over || this.ended || !text.trim()) return;
    const piece: Piece = { abort: new AbortController(), waiting: [], complete: false };
    this.pieces.push(piece);
    this.session.sent(text.length);
    void this.speak(piece, text);
  }

  end(): void {
    if (this.over || this.ended) return;
    this.ended = true;
    this.advance();
  }

  cancel(): void {
    this.finish();
  }

  private async speak(piece: Piece, text: string): Promise<void> {
    const audio = this.audio(piece.abort, text);
    for (;;) {
      let next: IteratorResult<Uint8Array>;
      try {
        next = await audio.next();
      } catch (error) {
        this.fail(error as ServiceError);
        return;
      }
      if (next.done) break;
      if (piece === this.pieces[0]) this.hear(next.value);
      else piece.waiting.push(next.value);
    }
    piece.complete = true;
    this.advance();
  }

  /** The audio bytes of one piece as they come; any failure is thrown as a ServiceError. */
  private async *audio(abort: AbortController, text: string): AsyncGenerator<Uint8Array> {
    const { client, model, vendor, firstByteMs, nextBytesMs } = this.settings;
    let stalledMs: number | null = null;
    const silence = new VendorSilence((ms) => {
      stalledMs = ms;
      abort.abort();
    });
    try {
      silence.await(firstByteMs);
      const response = await client.audio.speech.create(
        { model, input: text, voice: this.options.voiceId ?? DEFAULT_VOICE, response_format: 'pcm', speed: this.options.speed },
        { signal: abort.signal },
      );
      // fetch gives every 200 a body.
      const reader = response.body!.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        silence.await(nextBytesMs);
        yield value;
      }
    } catch (error) {
      if (stalledMs !== null) throw new ServiceError('tts', 'stalled', `${vendor} sent nothing for ${stalledMs} ms`);
      throw openAiFailure('tts', vendor, error);
    } finally {
      silence.stop();
    }
  }

  /** Moves past the pieces heard to their end, hearing what the next ones have sent meanwhile. */
  private advance(): void {
    while (this.pieces[0]?.complete) {
      this.pieces.shift();
      for (const bytes of this.pieces[0]?.waiting.splice(0) ?? []) this.hear(bytes);
    }
    // An audio handler may have cancelled the utterance meanwhile.
    if (!this.over && this.ended && this.pieces.length === 0) {
      this.finish();
      this.events.done();
    }
  }

  /** Little-endian 16-bit samples from bytes that may split a sample, resampled and emitted. */
  private hear(bytes: Uint8Array): void {
    // An audio handler may have cancelled the utterance while earlier audio was emitted.
    if (this.over) return;
    let joined = bytes;
    if (this.oddByte !== null) {
      joined = new Uint8Array(bytes.length + 1);
      joined[0] = this.oddByte;
      joined.set(bytes, 1);
    }
    const count = joined.length >> 1;
    this.oddByte = joined.length % 2 ? joined[joined.length - 1] : null;
    const samples = new Int16Array(count);
    const view = new DataView(joined.buffer, joined.byteOffset, count * 2);
    for (let i = 0; i < count; i++) samples[i] = view.getInt16(i * 2, true);
    const pcm = this.resampler.process(samples);
    if (pcm.length) this.events.audio(pcm);
  }

  /** A request failed (a cancelled one too: then the utterance is over already). */
  private fail(error: ServiceError): void {
    if (this.over) return;
    this.finish();
    this.events.failed(error);
  }

  private finish(): void {
    if (this.over) return;
    this.over = true;
    for (const piece of this.pieces) piece.abort.abort();
    this.session.over();
  }
}
