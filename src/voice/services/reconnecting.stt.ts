import type { VendorEvent } from '../../modules/calls/call.vendor-events';
import {
  PHONE_STT_AUDIO,
  sttBytesPerSecond,
  type ServiceError,
  type SttEvents,
  type SttOptions,
  type SttService,
  type SttStream,
  type Transcript,
  type TranscriptWord,
} from './service';

/**
 * A streaming STT that does not end a call by itself (design.md, "Vendors that never end a call
 * by themselves"): when the vendor's stream drops or stalls, a new one is opened with the same
 * options and the last seconds of the caller's audio are sent to it first, so the words said
 * around the drop are heard. A refusal (a wrong key, audio the vendor cannot decode) is no
 * accident and fails at once; so does the stream once `failures` of them fall within `windowMs`,
 * a reconnect that does not open counting as one. Each reconnect is reported (`vendor_retried`).
 *
 * The vendor counts its times from the first byte of each socket; the engine is given seconds
 * from the start of this stream, never going back: each socket's times are offset by the audio
 * before its first byte, and what the replayed audio repeats of results already final is left
 * out (by the words' times), so no final reaches the engine twice.
 *
 * Nothing here is Deepgram's: any streaming STT whose stream reports `opened` and its failures'
 * kinds can be wrapped.
 */
export interface ReconnectRule {
  /** This many failures within `windowMs` fail the stream. */
  failures: number;
  windowMs: number;
  /** Seconds of the caller's latest audio sent to a new socket first. */
  replaySeconds: number;
  /** The most audio kept while a socket opens (the replay and what the caller says meanwhile); the oldest goes first. */
  backlogSeconds: number;
  /** The clock of the failure window. */
  now: () => number;
}

export const RECONNECT_RULE: Readonly<ReconnectRule> = { failures: 3, windowMs: 30_000, replaySeconds: 2, backlogSeconds: 12, now: Date.now };

/** Times closer than this (Deepgram writes milliseconds) are the same instant. */
const SAME_TIME = 0.005;

export class ReconnectingStt implements SttService {
  readonly vendor: string;
  private readonly rule: ReconnectRule;

  constructor(
    private readonly inner: SttService,
    private readonly report: (event: VendorEvent) => void,
    rule: Partial<ReconnectRule> = {},
  ) {
    this.vendor = inner.vendor;
    this.rule = { ...RECONNECT_RULE, ...rule };
  }

  open(options: SttOptions, events: SttEvents): SttStream {
    return new ReconnectingStream(this.inner, options, events, this.rule, (reason) =>
      this.report({ type: 'vendor_retried', part: 'stt', vendor: this.inner.vendor, reason }),
    );
  }
}

/** Audio chunks with their byte count, cut from the front to a budget. */
class AudioQueue {
  chunks: Uint8Array[] = [];
  bytes = 0;

  constructor(private readonly maxBytes: number) {}

  /** Adds a chunk; returns the bytes cut from the front to stay within the budget. */
  push(chunk: Uint8Array): number {
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    let excess = this.bytes - this.maxBytes;
    const cut = Math.max(excess, 0);
    while (excess > 0) {
      const first = this.chunks[0];
      const dropped = Math.min(first.length, excess);
      if (dropped === first.length) this.chunks.shift();
      else this.chunks[0] = first.subarray(dropped);
      this.bytes -= dropped;
      excess -= dropped;
    }
    return cut;
  }
}

class ReconnectingStream implements SttStream {
  private state: 'running' | 'failed' | 'closed' = 'running';
  private readonly bytesPerSecond: number;
  /** The caller's latest audio, for the replay. */
  private readonly ring: AudioQueue;
  /** Audio waiting for the socket to open, and where in the stream its first byte lies. */
  private backlog: AudioQueue;
  private readonly backlogBytes: number;
  private backlogStart = 0;
  /** Bytes the caller sent: the stream's clock. */
  private sentBytes = 0;
  private link!: SttStream;
  /** Which socket is current: events of an earlier one are ignored. */
  private linkId = 0;
  private linkOpen = false;
  /** Seconds of the stream before the current socket's first byte. */
  private linkOffset = 0;
  /** A `finalize()` to send once the socket opens, or one sent and not yet answered (a new socket is asked again). */
  private finalizeOnOpen = false;
  private finalizeUnanswered = false;
  /** The end of the last final given to the engine: the replay's results before it were heard already. */
  private finalUntil = 0;
  /** The last interim given since that final: its words before the replay are heard by no socket again. */
  private interim: Transcript | null = null;
  private failures: number[] = [];
  /** The seconds of the sockets that were given up. */
  private readonly retired: Promise<{ seconds: number }>[] = [];
  private closing: Promise<{ seconds: number }> | null = null;

  constructor(
    private readonly inner: SttService,
    private readonly options: SttOptions,
    private readonly events: SttEvents,
    private readonly rule: ReconnectRule,
    private readonly retried: (reason: string) => void,
  ) {
    const audio = options.audio ?? PHONE_STT_AUDIO;
    this.bytesPerSecond = sttBytesPerSecond(audio);
    // Budgets in whole samples: a cut never splits linear16's two bytes.
    const sampleBytes = this.bytesPerSecond / audio.sampleRate;
    const budget = (seconds: number) => Math.floor(seconds * audio.sampleRate) * sampleBytes;
    this.ring = new AudioQueue(budget(rule.replaySeconds));
    this.backlogBytes = budget(rule.backlogSeconds);
    this.backlog = new AudioQueue(this.backlogBytes);
    this.openLink();
  }

  send(audio: Uint8Array): void {
    if (this.state !== 'running' || audio.length === 0) return;
    // The caller's buffer may be reused; the ring keeps it for seconds.
    const chunk = audio.slice();
    this.ring.push(chunk);
    this.sentBytes += chunk.length;
    if (this.linkOpen) this.link.send(chunk);
    else this.backlogStart += this.backlog.push(chunk);
  }

  finalize(): void {
    if (this.state !== 'running') return;
    if (!this.linkOpen) this.finalizeOnOpen = true;
    else {
      this.finalizeUnanswered = true;
      this.link.finalize();
    }
  }

  /** Resolves with the seconds of every socket of the stream, summed (each billed what it heard, the replays too). */
  close(): Promise<{ seconds: number }> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<{ seconds: number }> {
    if (this.state === 'running') this.retired.push(this.link.close());
    this.state = 'closed';
    const all = await Promise.all(this.retired);
    return { seconds: Math.round(all.reduce((sum, { seconds }) => sum + seconds, 0) * 1000) / 1000 };
  }

  private openLink(): void {
    const id = ++this.linkId;
    this.linkOpen = false;
    const current = <A extends unknown[]>(handle: (...args: A) => void) => (...args: A) => {
      if (id === this.linkId && this.state === 'running') handle(...args);
    };
    // A stream may answer within open() itself: the link is set first.
    const events: SttEvents = {
      transcript: current((transcript: Transcript) => this.onTranscript(transcript)),
      speechStarted: current(() => this.events.speechStarted()),
      utteranceEnd: current(() => this.events.utteranceEnd()),
      failed: current((error: ServiceError) => this.onFailed(error)),
      opened: current(() => this.onOpened()),
    };
    this.link = this.inner.open(this.options, events);
  }

  private onOpened(): void {
    this.linkOpen = true;
    this.linkOffset = this.backlogStart / this.bytesPerSecond;
    const backlog = this.backlog.chunks;
    this.backlog = new AudioQueue(this.backlogBytes);
    for (const chunk of backlog) this.link.send(chunk);
    if (this.finalizeOnOpen) {
      this.finalizeOnOpen = false;
      this.finalize();
    }
  }

  private onFailed(error: ServiceError): void {
    if (error.kind === 'refused' && !error.transient) return this.fail(error);
    const now = this.rule.now();
    this.failures = this.failures.filter((at) => now - at < this.rule.windowMs);
    this.failures.push(now);
    if (this.failures.length >= this.rule.failures) return this.fail(error);
    this.retired.push(this.link.close());
    this.keepInterimBeforeReplay();
    // The new socket begins with the caller's latest audio; a Finalize the old one did not answer is asked of it.
    this.backlog = new AudioQueue(this.backlogBytes);
    for (const chunk of this.ring.chunks) this.backlog.push(chunk);
    this.backlogStart = this.sentBytes - this.ring.bytes;
    if (this.finalizeUnanswered) this.finalizeOnOpen = true;
    this.finalizeUnanswered = false;
    this.openLink();
    this.retried(error.message);
  }

  /**
   * The interim words said before the replayed audio reach no socket again: they are given as
   * final (the vendor's interim words that far back rarely change), lest the drop lose them.
   */
  private keepInterimBeforeReplay(): void {
    const interim = this.interim;
    this.interim = null;
    const replayStart = (this.sentBytes - this.ring.bytes) / this.bytesPerSecond;
    const words = (interim?.words ?? []).filter((word) => word.end <= replayStart + SAME_TIME);
    if (!interim || words.length === 0) return;
    const end = words[words.length - 1].end;
    this.give({ text: words.map((word) => word.text).join(' '), isFinal: true, speechFinal: false, fromFinalize: false, start: interim.start, duration: end - interim.start, words });
  }

  /** The socket's result in the stream's seconds, without what the engine already has as final. */
  private onTranscript(raw: Transcript): void {
    const offset = this.linkOffset;
    let start = raw.start + offset;
    const end = start + raw.duration;
    let words = raw.words?.map((word): TranscriptWord => ({ text: word.text, start: word.start + offset, end: word.end + offset }));
    let text = raw.text;
    if (raw.fromFinalize) this.finalizeUnanswered = false;
    if (start < this.finalUntil - SAME_TIME) {
      // The replay repeats audio whose results are final: only words after them are new.
      // A repeated end of turn was given already; the answer to a Finalize the engine waits for was not.
      if (end <= this.finalUntil + SAME_TIME && !raw.fromFinalize) return;
      const signal = raw.isFinal && (raw.fromFinalize || raw.speechFinal);
      if (words) {
        words = words.filter((word) => (word.start + word.end) / 2 > this.finalUntil);
        text = words.map((word) => word.text).join(' ');
      }
      if (!text && !signal) return;
      start = this.finalUntil;
    }
    this.give({ ...raw, text, start, duration: Math.max(end - start, 0), words });
  }

  private give(transcript: Transcript): void {
    if (transcript.isFinal) {
      this.finalUntil = Math.max(this.finalUntil, transcript.start + transcript.duration);
      this.interim = null;
    } else if (transcript.text) this.interim = transcript;
    this.events.transcript(transcript);
  }

  private fail(error: ServiceError): void {
    this.state = 'failed';
    this.retired.push(this.link.close());
    this.events.failed(error);
  }
}
