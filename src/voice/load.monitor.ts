import { monitorEventLoopDelay } from 'node:perf_hooks';

/**
 * Admission control by measured load (issue 50, item 6). A process that takes one call too many
 * slows every call it holds: on a shared 2-core machine 50 calls reached an added p99 of 1.6 s
 * and 100 left turns unanswered. So the process measures what its callers feel, the event
 * loop's delay and the VAD's lag, and past VOICE_MAX_LOAD_DELAY_MS over the last few seconds it
 * refuses the next call instead (web calls 503, Twilio `<Reject reason="busy"/>`, the dialer
 * holds). Calls already under way are never cut: they are the ones this protects.
 */

/** What the monitor reads at each sample; a test gives its own. */
export interface LoadSources {
  /** The event loop's delay over the period since the last read (its p99), in ms beyond the timer's own period. */
  loopDelayMs(): number;
  /** How long the VAD's oldest frame under way has waited, now, in ms. */
  vadLagMs(): number;
}

export interface LoadReading {
  loop_delay_ms: number;
  vad_lag_ms: number;
}

export interface LoadMonitorOptions {
  /** The bound (VOICE_MAX_LOAD_DELAY_MS); 0: never overloaded. */
  boundMs: number;
  sources: LoadSources;
  /** The readings the load is the mean of: the last few seconds, so a single pause (a GC) refuses nothing. */
  windowMs?: number;
  /** Monotonic milliseconds. */
  now?: () => number;
}

/** How often the loop delay and VAD lag are read. */
export const LOAD_SAMPLE_MS = 250;
/** The window the load is averaged over. */
export const LOAD_WINDOW_MS = 3_000;

export class LoadMonitor {
  private readonly readings: { at: number; loop: number; vad: number }[] = [];
  private readonly windowMs: number;
  private readonly now: () => number;

  constructor(private readonly options: LoadMonitorOptions) {
    this.windowMs = options.windowMs ?? LOAD_WINDOW_MS;
    this.now = options.now ?? (() => performance.now());
  }

  get boundMs(): number {
    return this.options.boundMs;
  }

  /** Reads the sources once, and forgets the readings that left the window. */
  sample(): void {
    const at = this.now();
    const { sources } = this.options;
    this.readings.push({ at, loop: sources.loopDelayMs(), vad: sources.vadLagMs() });
    while (this.readings.length > 0 && this.readings[0].at <= at - this.windowMs) this.readings.shift();
  }

  /** The mean of the window's readings (zero before the first). */
  load(): LoadReading {
    const fresh = this.readings.filter((reading) => reading.at > this.now() - this.windowMs);
    if (fresh.length === 0) return { loop_delay_ms: 0, vad_lag_ms: 0 };
    const mean = (pick: (reading: (typeof fresh)[number]) => number) => Math.round((fresh.reduce((sum, reading) => sum + pick(reading), 0) / fresh.length) * 10) / 10;
    return { loop_delay_ms: mean((reading) => reading.loop), vad_lag_ms: mean((reading) => reading.vad) };
  }

  /** Whether either measure passes the bound. */
  overloaded(): boolean {
    if (this.options.boundMs <= 0) return false;
    const load = this.load();
    return load.loop_delay_ms > this.options.boundMs || load.vad_lag_ms > this.options.boundMs;
  }

  /** Samples every `everyMs` until the answer is called; each sample is then given to `onSample`. */
  start(everyMs = LOAD_SAMPLE_MS, onSample: () => void = () => {}): () => void {
    const timer = setInterval(() => {
      this.sample();
      onSample();
    }, everyMs);
    timer.unref();
    return () => clearInterval(timer);
  }
}

/**
 * The event loop's delay, from Node's own histogram: its p99 since the last read, less the
 * timer period it includes. A reset makes the histogram skip its next delta, so a stall across
 * a read would be lost: the reader's own lateness (it is read every `readEveryMs`) covers it.
 */
export function eventLoopDelaySource(readEveryMs = LOAD_SAMPLE_MS, resolutionMs = 10): { loopDelayMs(): number; stop(): void } {
  const histogram = monitorEventLoopDelay({ resolution: resolutionMs });
  histogram.enable();
  let lastRead = performance.now();
  return {
    loopDelayMs() {
      const now = performance.now();
      const late = now - lastRead - readEveryMs;
      lastRead = now;
      const delay = histogram.count > 0 ? histogram.percentile(99) / 1e6 - resolutionMs : 0;
      histogram.reset();
      return Math.max(0, delay, late);
    },
    stop: () => histogram.disable(),
  };
}
