import type { VendorEvent } from '../../modules/calls/call.vendor-events';
import { retryWaitMs } from './fallback.llm';
import { ServiceError, type TtsEvents, type TtsOptions, type TtsService, type TtsSession, type TtsUtterance } from './service';

/**
 * Text to speech that does not end a call by itself (design.md, "Vendors that never end a call
 * by themselves"): an utterance that fails before its first audio (refused, dropped, stalled) is
 * spoken again, whole, by the next vendor of the chain, and that vendor speaks the rest of the
 * call: a vendor that failed is not asked again, so a dead vendor does not cost every sentence
 * its attempts. A transient failure (a 429, a 5xx, a connection error) is first tried once more
 * on the same vendor after its `Retry-After` (at most 1 s; else 250 ms), as the LLM's is. Once
 * audio has come, a failure is the utterance's: the caller heard part of it, and saying it
 * again would repeat it.
 *
 * LiveKit Agents' tts/fallback_adapter.py does the same per utterance; Pipecat's ServiceSwitcher
 * keeps the switched service, as this does.
 */

/** One vendor of the chain and the voice it speaks with (null: its default voice). */
export interface TtsChoice {
  service: TtsService;
  voiceId: string | null;
}

export class FallbackTts implements TtsService {
  constructor(
    private readonly choices: readonly TtsChoice[],
    private readonly report: (event: VendorEvent) => void,
  ) {
    if (choices.length === 0) throw new Error('TTS needs a vendor');
  }

  /** The call's own vendor: the one the filler cache and the logs name. */
  get vendor(): string {
    return this.choices[0].service.vendor;
  }

  /** Each vendor speaks with its own voice of the chain; the options' voice is ignored. */
  open(options: TtsOptions): TtsSession {
    return new FallbackSession(this.choices, options, this.report);
  }
}

class FallbackSession implements TtsSession {
  /** The vendor now speaking: the first that has not failed. */
  private current = 0;
  /** Sessions opened so far, by index of the chain: a fallback vendor is opened only when needed. */
  private readonly sessions = new Map<number, TtsSession>();
  private closed = false;

  constructor(
    readonly choices: readonly TtsChoice[],
    private readonly options: TtsOptions,
    readonly report: (event: VendorEvent) => void,
  ) {}

  get characters(): number {
    let sum = 0;
    for (const session of this.sessions.values()) sum += session.characters;
    return sum;
  }

  get now(): number {
    return this.current;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  utterance(events: TtsEvents): TtsUtterance {
    if (this.closed) throw new Error('the TTS session is closed');
    return new FallbackUtterance(this, events);
  }

  /** The session of a vendor of the chain, opened on first use; an error here is that vendor's failure. */
  session(index: number): TtsSession {
    let session = this.sessions.get(index);
    if (!session) {
      const { service, voiceId } = this.choices[index];
      session = service.open({ ...this.options, voiceId });
      this.sessions.set(index, session);
    }
    return session;
  }

  /**
   * The vendor at `failed` failed before an utterance's first audio: the next one speaks from
   * now on. Another utterance may have moved past it already; the index to use is returned, or
   * null when the chain is spent.
   */
  next(failed: number, reason: string): number | null {
    if (this.current > failed) return this.current;
    const to = failed + 1;
    if (to >= this.choices.length) return null;
    this.current = to;
    this.report({ type: 'vendor_switched', part: 'tts', from: this.choices[failed].service.vendor, to: this.choices[to].service.vendor, reason });
    return to;
  }

  close(): void {
    this.closed = true;
    for (const session of this.sessions.values()) session.close();
  }
}

class FallbackUtterance implements TtsUtterance {
  /** Everything pushed, so that another attempt speaks the utterance whole. */
  private readonly texts: string[] = [];
  private ended = false;
  /** Cancelled, done or failed: nothing more is reported. */
  private over = false;
  private heard = false;
  private retried = false;
  /** The vendor (index of the chain) of the attempt under way, and the attempt itself. */
  private vendor: number;
  private attempt: TtsUtterance | null = null;
  /** Counts attempts: events of an attempt given up are ignored. */
  private attempts = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly session: FallbackSession,
    private readonly events: TtsEvents,
  ) {
    this.vendor = session.now;
    this.start();
  }

  push(text: string): void {
    if (this.over || this.ended) return;
    this.texts.push(text);
    this.attempt?.push(text);
  }

  end(): void {
    if (this.over || this.ended) return;
    this.ended = true;
    this.attempt?.end();
  }

  cancel(): void {
    if (this.over) return;
    this.over = true;
    clearTimeout(this.timer);
    const attempt = this.attempt;
    this.attempt = null;
    attempt?.cancel();
  }

  /** Opens an attempt on the current vendor and gives it everything pushed so far. */
  private start(): void {
    // The call ended during a retry's wait: nothing is left to say it to.
    if (this.session.isClosed) return void (this.over = true);
    const id = ++this.attempts;
    const mine = () => !this.over && id === this.attempts;
    let attempt: TtsUtterance;
    try {
      attempt = this.session.session(this.vendor).utterance({
        audio: (pcm) => {
          if (!mine()) return;
          this.heard = true;
          this.events.audio(pcm);
        },
        done: () => {
          if (!mine()) return;
          this.over = true;
          this.events.done();
        },
        failed: (error) => {
          if (mine()) this.failed(error);
        },
      });
    } catch (error) {
      // A vendor that cannot open (a sample rate it lacks) failed as surely as one that refused.
      const message = error instanceof Error ? error.message : 'could not open';
      queueMicrotask(() => {
        if (mine()) this.failed(new ServiceError('tts', 'refused', `${this.session.choices[this.vendor].service.vendor}: ${message}`));
      });
      return;
    }
    this.attempt = attempt;
    for (const text of this.texts) if (mine()) attempt.push(text);
    if (this.ended && mine()) attempt.end();
  }

  private failed(error: ServiceError): void {
    this.attempt = null;
    if (this.heard) {
      this.over = true;
      return this.events.failed(error);
    }
    if (error.transient && !this.retried) {
      this.retried = true;
      const wait = retryWaitMs(error.transient);
      this.session.report({ type: 'vendor_retried', part: 'tts', vendor: this.session.choices[this.vendor].service.vendor, reason: error.message });
      // Bumped so that nothing of the failed attempt counts, while the wait keeps its place.
      const id = ++this.attempts;
      this.timer = setTimeout(() => {
        if (!this.over && id === this.attempts) this.start();
      }, wait);
      this.timer.unref();
      return;
    }
    const next = this.session.next(this.vendor, error.message);
    if (next === null) {
      this.over = true;
      return this.events.failed(error);
    }
    // The next vendor is asked at once: one retry an utterance.
    this.retried = true;
    this.vendor = next;
    this.start();
  }
}
