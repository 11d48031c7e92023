import type { WebSocket } from 'ws';
import { voiceAudioDropped, voiceSocketsClosedForPacing } from '../metrics';

/**
 * The pace a call's audio may arrive at, the same for every transport (the browser's socket,
 * Twilio's media stream). A caller speaks in real time; a socket that sends faster makes the
 * engine hear, transcribe and pay for audio nobody spoke, at the cost of every other call on
 * the process (one socket at 36x real time took a core). So each socket holds a credit of
 * audio: it starts full at PACING_BURST_MS and refills at real time, never above that. Audio
 * beyond the credit is dropped before it is decoded; a socket that has had PACING_CLOSE_AFTER_MS
 * of audio dropped is closed (1008).
 *
 * Over any window of W ms a socket can therefore deliver at most PACING_BURST_MS + W: twice real
 * time over any 5 s, and real time in the long run, which is what a microphone or Twilio
 * sends. The burst absorbs a network stall: audio queued behind it arrives late and at once.
 */
export const PACING_BURST_MS = 5_000;
/** Dropped audio after which the socket is closed: an honest client drops none. */
export const PACING_CLOSE_AFTER_MS = 5_000;
/** The close code (policy violation) and reason of a socket that kept sending too fast. */
export const PACING_CLOSE_CODE = 1008;
export const PACING_CLOSE_REASON = 'audio faster than real time';
/**
 * How long a socket closed for its pace has to answer the close before its connection is
 * dropped. ws would wait 30 s for the answer, reading all that time whatever the page still
 * sends: a page that ignores the close pushed 30,000 s of audio (about 1 GB) in those 30 s.
 */
export const PACING_CLOSE_GRACE_MS = 1_000;

export type PacingVerdict = 'pass' | 'drop' | 'close';

/**
 * Dropped audio is counted in /metrics by the second, not by the frame: a pusher's frames come
 * by the thousand, and a labelled counter's increment cost more than all the rest of a drop
 * (profiled under pushers: 33 ms of the 41 ms their drops cost in the pacing). The transports
 * count the rest as the socket ends.
 */
const COUNT_DROPS_EVERY_MS = 1_000;

/** One socket's pace. Times are monotonic milliseconds (performance.now()). */
export class AudioPacer {
  private credit = PACING_BURST_MS;
  private at: number | null = null;
  private droppedMs = 0;
  /** Dropped and not yet counted in /metrics. */
  private uncountedMs = 0;

  constructor(private readonly transport: 'browser' | 'twilio') {}

  /**
   * Whether `ms` of audio that arrived `now` goes to the engine (`pass`), is dropped (`drop`),
   * or is dropped and the socket must be closed (`close`, said once; later calls say `drop`).
   */
  take(ms: number, now: number = performance.now()): PacingVerdict {
    if (this.at !== null) this.credit = Math.min(PACING_BURST_MS, this.credit + Math.max(0, now - this.at));
    this.at = now;
    if (ms <= this.credit) {
      this.credit -= ms;
      this.count();
      return 'pass';
    }
    const before = this.droppedMs;
    this.droppedMs += ms;
    this.uncountedMs += ms;
    if (before < PACING_CLOSE_AFTER_MS && this.droppedMs >= PACING_CLOSE_AFTER_MS) {
      this.count();
      voiceSocketsClosedForPacing.inc({ transport: this.transport });
      return 'close';
    }
    if (this.uncountedMs >= COUNT_DROPS_EVERY_MS) this.count();
    return 'drop';
  }

  /** Counts the dropped audio not counted yet: a run of drops ended, a second of it, the close, the socket's end. */
  count(): void {
    if (!this.uncountedMs) return;
    voiceAudioDropped.inc({ transport: this.transport }, this.uncountedMs / 1000);
    this.uncountedMs = 0;
  }
}

/** Closes a socket that kept sending too fast (1008), and drops it if it has not answered within PACING_CLOSE_GRACE_MS. */
export function closeForPace(socket: WebSocket): void {
  socket.close(PACING_CLOSE_CODE, PACING_CLOSE_REASON);
  const cutOff = setTimeout(() => socket.terminate(), PACING_CLOSE_GRACE_MS);
  cutOff.unref();
  socket.once('close', () => clearTimeout(cutOff));
}

/** How fast audio that arrived at once reaches the engine: four times real time. */
export const FEED_SPEED = 4;
/** Audio the engine takes at once before the feed's pace holds: a caller at real time never waits. */
export const FEED_BURST_MS = 200;
const FEED_TICK_MS = 10;

/**
 * The audio a socket passed, handed to its engine at most FEED_SPEED times real time. The pacing
 * lets a burst of PACING_BURST_MS through (a network stall caught up), and a pusher's burst
 * arrives in a tenth of a second; handed over at once, its engine work (the STT's socket, the
 * VAD, about half a millisecond a frame on a busy box) took the process from under another
 * call's greeting until it was done. Fed at four times real time, the same audio reaches the
 * engine within a quarter of its length, spread thin; a caller at real time never waits.
 */
export class EngineFeed<T> {
  private queue: { frame: T; ms: number }[] = [];
  /** Audio the engine may take now; below zero after a frame longer than the burst. */
  private credit = FEED_BURST_MS;
  private at = performance.now();
  private timer: NodeJS.Timeout | null = null;

  /** `keep`: a frame that waits past this task, as it may be kept (a copy of a socket's buffer). */
  constructor(
    private readonly deliver: (frame: T) => void,
    private readonly keep: (frame: T) => T,
  ) {}

  push(frame: T, ms: number): void {
    this.refill();
    if (!this.queue.length && this.credit > 0) {
      this.credit -= ms;
      return this.deliver(frame);
    }
    this.queue.push({ frame: this.keep(frame), ms });
    this.timer ??= setTimeout(() => this.drain(), FEED_TICK_MS);
  }

  /** Hands over all that waits now: what the page sends next (a key, a hangup) comes after it. */
  flush(): void {
    for (const { frame } of this.queue.splice(0)) this.deliver(frame);
  }

  /** The call is over: what waits is dropped. */
  clear(): void {
    this.queue = [];
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private refill(): void {
    const now = performance.now();
    this.credit = Math.min(FEED_BURST_MS, this.credit + (now - this.at) * FEED_SPEED);
    this.at = now;
  }

  private drain(): void {
    this.timer = null;
    this.refill();
    let handed = 0;
    while (handed < this.queue.length && this.credit > 0) this.credit -= this.queue[handed++].ms;
    const frames = this.queue.splice(0, handed);
    if (this.queue.length) this.timer = setTimeout(() => this.drain(), FEED_TICK_MS);
    for (const { frame } of frames) this.deliver(frame);
  }
}
