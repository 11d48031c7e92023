import WebSocket from 'ws';
import type { VendorAccess } from '../../config';
import { Resampler, type SampleRate } from '../codecs/resample';
import { CONNECTION_LOST, httpTransient, ServiceError, type FailureKind, type TtsEvents, type TtsOptions, type TtsService, type TtsSession, type TtsUtterance } from './service';

/**
 * ElevenLabs' streaming text to speech over its `stream-input` WebSocket. Where the format comes
 * from:
 * - the channel, its query (`model_id`, `output_format`, `language_code`, `auto_mode`,
 *   `inactivity_timeout`), the first message (`text: " "`, `voice_settings` with speed 0.7 to
 *   1.2), text "should always end with a single space", `flush`, the end of input (`text: ""`), the
 *   `audio` (base64) and `isFinal` messages, and the PCM formats: ElevenLabs' AsyncAPI,
 *   elevenlabs/elevenlabs-docs fern/apis/api/asyncapi.yml, published as
 *   https://elevenlabs.io/docs/api-reference/text-to-speech/v-1-text-to-speech-voice-id-stream-input;
 *   the `xi-api-key` header: its guide, fern/docs/pages/developer-guides/websockets.mdx;
 * - errors: the official SDK raises the JSON `message` it read before the close
 *   (elevenlabs/elevenlabs-python src/elevenlabs/realtime_tts.py); an error is `{message, error,
 *   code}`, `code` being the close that follows (src/elevenlabs/types/text_to_dialogue_websocket_error.py),
 *   and a wrong key is `invalid_api_key` after the handshake, then a 1008 close; a bad query (a
 *   language the model lacks, a model the socket does not serve) is an HTTP status at the handshake;
 * - a production client: pipecat-ai/pipecat src/pipecat/services/elevenlabs/tts.py and
 *   tts_base.py (the header, `auto_mode` for whole sentences, the languages of the v2.5 models).
 *
 * One socket per utterance, opened when the utterance begins so that the handshake overlaps the
 * model's first token; text pushed before it opens waits for it.
 */

/** The low-latency model ElevenLabs recommends for conversation (~75 ms), which takes a language code. */
const MODEL = 'eleven_flash_v2_5';
/** "Sarah", an ElevenLabs default (premade) voice: for voices without an ElevenLabs id. */
export const DEFAULT_VOICE_ID = 'EXAVITQu4vr4xnSDxMaL';
/** The languages eleven_flash_v2_5 takes as `language_code`; another one is refused at the handshake, so it is left to the model to detect. */
const LANGUAGES = new Set(
  'ar bg cs da de el en es fi fil fr hi hr hu id it ja ko ms nl no pl pt ro ru sk sv ta tr uk vi zh'.split(' '),
);
/**
 * The PCM rate asked of ElevenLabs for each rate the engine wants: the same, except 48 kHz, which
 * is not among the socket's formats (pcm_8000, 16000, 22050, 24000, 44100), so 24 kHz is doubled.
 */
const VENDOR_RATES: ReadonlyMap<number, SampleRate> = new Map<number, SampleRate>([
  [8000, 8000],
  [16000, 16000],
  [24000, 24000],
  [48000, 24000],
]);
/** ElevenLabs' speed range; the assistant's (0.5 to 2) is clamped to it. */
const SPEED = { min: 0.7, max: 1.2 };
/**
 * Seconds of silence before ElevenLabs closes the socket (its default is 20, its most 180): an
 * utterance may wait on a tool call between two sentences.
 */
const INACTIVITY_TIMEOUT_S = 180;

/** How long ElevenLabs may keep an utterance waiting before it counts as stalled. */
export interface ElevenLabsBounds {
  /** From the utterance's start to its socket's handshake's end (TLS and upgrade take a few hundred ms). */
  openMs: number;
  /** From `end` (the flush) to the next message, and between messages until the last. */
  answerMs: number;
}

/** Flash answers in well under a second; five seconds of silence means nothing is coming. */
export const ELEVENLABS_BOUNDS: ElevenLabsBounds = { openMs: 5_000, answerMs: 5_000 };

export class ElevenLabsTts implements TtsService {
  readonly vendor = 'elevenlabs';

  constructor(
    private readonly access: VendorAccess,
    private readonly bounds: ElevenLabsBounds = ELEVENLABS_BOUNDS,
  ) {}

  open(options: TtsOptions): TtsSession {
    const vendorRate = VENDOR_RATES.get(options.sampleRate);
    if (!vendorRate) throw new RangeError(`ElevenLabs is not asked for PCM at ${options.sampleRate} Hz`);
    const query = new URLSearchParams({
      model_id: MODEL,
      output_format: `pcm_${vendorRate}`,
      // Disables the chunk schedule: the engine pushes whole sentences, the case ElevenLabs recommends it for.
      auto_mode: 'true',
      inactivity_timeout: String(INACTIVITY_TIMEOUT_S),
    });
    if (options.language && LANGUAGES.has(options.language)) query.set('language_code', options.language);
    const voice = encodeURIComponent(options.voiceId ?? DEFAULT_VOICE_ID);
    return new ElevenLabsSession({
      url: `${this.access.url}/v1/text-to-speech/${voice}/stream-input?${query}`,
      apiKey: this.access.apiKey,
      bounds: this.bounds,
      voiceSettings: {
        stability: clamp(options.stability, 0, 1),
        similarity_boost: clamp(options.similarity, 0, 1),
        speed: clamp(options.speed, SPEED.min, SPEED.max),
      },
      vendorRate,
      // One of VENDOR_RATES' keys, all engine rates the Resampler takes.
      sampleRate: options.sampleRate as SampleRate,
    });
  }
}

const clamp = (value: number, min: number, max: number): number => Math.min(max, Math.max(min, value));

/** What every utterance of a session opens its socket with. */
interface Stream {
  url: string;
  apiKey: string;
  bounds: ElevenLabsBounds;
  voiceSettings: { stability: number; similarity_boost: number; speed: number };
  vendorRate: SampleRate;
  sampleRate: SampleRate;
}

class ElevenLabsSession implements TtsSession {
  private sent = 0;
  private closed = false;
  private readonly live = new Set<ElevenLabsUtterance>();

  constructor(private readonly stream: Stream) {}

  get characters(): number {
    return this.sent;
  }

  utterance(events: TtsEvents): TtsUtterance {
    if (this.closed) throw new Error('the ElevenLabs session is closed');
    const utterance = new ElevenLabsUtterance(this.stream, events, {
      sent: (characters) => (this.sent += characters),
      finished: () => this.live.delete(utterance),
    });
    this.live.add(utterance);
    return utterance;
  }

  close(): void {
    this.closed = true;
    for (const utterance of this.live) utterance.cancel();
  }
}

/** A message ElevenLabs sends on the socket (the fields this client reads). */
interface ServerMessage {
  audio?: string | null;
  isFinal?: boolean | null;
  error?: unknown;
}

class ElevenLabsUtterance implements TtsUtterance {
  private readonly ws: WebSocket;
  private readonly resampler: Resampler | null;
  private opened = false;
  private ended = false;
  /** Done, failed or cancelled: nothing more is sent or reported. */
  private finished = false;
  /** Text pushed before the socket opened. */
  private waiting: string[] = [];
  /** The last byte of a chunk that ended inside a sample: the vendor's chunks need not split between samples. */
  private oddByte: number | null = null;
  private timer: NodeJS.Timeout;

  constructor(
    private readonly stream: Stream,
    private readonly events: TtsEvents,
    private readonly session: { sent(characters: number): void; finished(): void },
  ) {
    this.resampler = stream.vendorRate === stream.sampleRate ? null : new Resampler(stream.vendorRate, stream.sampleRate);
    this.ws = new WebSocket(stream.url, { headers: { 'xi-api-key': stream.apiKey }, perMessageDeflate: false });
    this.timer = setTimeout(() => this.fail('stalled', `ElevenLabs did not open the stream within ${stream.bounds.openMs} ms`), stream.bounds.openMs);
    this.ws.on('unexpected-response', (_request, response) => {
      response.resume();
      this.fail('refused', `ElevenLabs refused the stream: HTTP ${response.statusCode}`, httpTransient(response.statusCode, response.headers['retry-after']));
    });
    this.ws.on('open', () => this.start());
    this.ws.on('message', (data) => this.receive(data.toString()));
    // An error is followed by 'close', which says what it meant; ws would throw it without a listener.
    this.ws.on('error', () => undefined);
    this.ws.on('close', (code) => this.lost(code));
  }

  push(text: string): void {
    const words = text.trim();
    if (this.ended || this.finished || !words) return;
    if (this.opened) this.sendText(words);
    else this.waiting.push(words);
  }

  end(): void {
    if (this.ended || this.finished) return;
    this.ended = true;
    if (this.opened) this.sendEnd();
  }

  cancel(): void {
    if (this.finished) return;
    this.finish();
    this.ws.terminate();
  }

  private start(): void {
    clearTimeout(this.timer);
    this.opened = true;
    this.send({ text: ' ', voice_settings: this.stream.voiceSettings });
    for (const words of this.waiting) this.sendText(words);
    this.waiting = [];
    if (this.ended) this.sendEnd();
  }

  private sendText(words: string): void {
    this.session.sent(words.length);
    this.send({ text: `${words} ` });
  }

  /** Speak what is buffered now, then no more text: ElevenLabs answers `isFinal` after the last audio. */
  private sendEnd(): void {
    this.send({ text: ' ', flush: true });
    this.send({ text: '' });
    this.awaitAnswer();
  }

  private send(message: Record<string, unknown>): void {
    this.ws.send(JSON.stringify(message));
  }

  private awaitAnswer(): void {
    clearTimeout(this.timer);
    const { answerMs } = this.stream.bounds;
    this.timer = setTimeout(() => this.fail('stalled', `ElevenLabs sent nothing for ${answerMs} ms after the end of the text`), answerMs);
  }

  private receive(text: string): void {
    // Frames already on their way when the utterance was cancelled.
    if (this.finished) return;
    const message = parse(text);
    if (!message) return;
    if (message.error) return this.fail('refused', `ElevenLabs refused the stream: ${errorName(message.error)}`);
    if (this.ended) this.awaitAnswer();
    if (typeof message.audio === 'string' && message.audio) {
      this.events.audio(this.pcm(Buffer.from(message.audio, 'base64')));
      // The listener may have cancelled the utterance (a barge-in).
      if (this.finished) return;
    }
    if (message.isFinal === true) {
      this.finish();
      this.ws.close();
      this.events.done();
    }
  }

  /** 16-bit little-endian PCM at the vendor's rate, as the engine's samples at its rate. */
  private pcm(bytes: Buffer): Int16Array {
    const whole = this.oddByte === null ? bytes : Buffer.concat([Buffer.of(this.oddByte), bytes]);
    const samples = new Int16Array(whole.length >> 1);
    for (let i = 0; i < samples.length; i++) samples[i] = whole.readInt16LE(i * 2);
    this.oddByte = whole.length % 2 ? whole[whole.length - 1] : null;
    return this.resampler ? this.resampler.process(samples) : samples;
  }

  /** The socket closed: the end of a finished utterance, or else a failure its close code names. */
  private lost(code: number): void {
    if (this.finished) return;
    if (!this.opened) return this.fail('dropped', `ElevenLabs could not be reached (close ${code})`, CONNECTION_LOST);
    // 1008, policy violation, is how ElevenLabs ends a stream it will not serve (a key, a quota, a setting).
    if (code === 1008) return this.fail('refused', 'ElevenLabs closed the stream as a policy violation (1008)');
    this.fail('dropped', `ElevenLabs closed the stream before its end (close ${code})`, CONNECTION_LOST);
  }

  /** `transient`: a 429, a 5xx or a connection lost, worth a second attempt. */
  private fail(kind: FailureKind, message: string, transient: ServiceError['transient'] = null): void {
    if (this.finished) return;
    this.finish();
    this.ws.terminate();
    this.events.failed(new ServiceError('tts', kind, message, transient));
  }

  private finish(): void {
    this.finished = true;
    clearTimeout(this.timer);
    this.session.finished();
  }
}

function parse(text: string): ServerMessage | null {
  try {
    const message: unknown = JSON.parse(text);
    return message && typeof message === 'object' ? message : null;
  } catch {
    return null;
  }
}

/** The vendor's machine-readable error name (`invalid_api_key`, `quota_exceeded`), never its free text. */
function errorName(error: unknown): string {
  return typeof error === 'string' && /^[a-z0-9_]{1,64}$/.test(error) ? error : 'an error';
}
