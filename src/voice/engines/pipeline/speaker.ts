import type { MediaOut } from '../../engine';

/**
 * The assistant's mouth: the audio of its utterances, sent to the transport in real time,
 * 20 ms a frame, with a bed of ambience under it (and alone between utterances) when the
 * assistant has one. Sending in real time rather than all at once keeps what the transport
 * holds small, so an interruption silences the assistant at once. Marks after the frames tell
 * what the caller has heard of each utterance.
 */

export const FRAME_MS = 20;
/** How far ahead of real time frames are sent: the transport's cushion against our timer's jitter. */
const LEAD_MS = 60;
/** A mark every this many frames of speech (and after an utterance's last). */
const MARK_EVERY = 5;

/** A source of ambience: the next frame of the bed, mixed under `frame` in place (a frame of silence between utterances). */
export interface Ambience {
  mixInto(frame: Int16Array): void;
}

/** What the speaker knows of an utterance's audio. */
export class Spoken {
  /** Milliseconds queued, sent, and heard (the caller's transport played them: marks). */
  queuedMs = 0;
  sentMs = 0;
  heardMs = 0;
  /** No more audio will come for it. */
  complete = false;
  /** Its whole frames waiting in the speaker's queue. */
  framesQueued = 0;
  /** When its first frame went out (ms since the epoch). */
  firstSentAt: number | null = null;
}

interface Mark {
  name: string;
  spoken: Spoken;
  sentMs: number;
}

/**
 * One clock for every call of the process: one timer, however many calls, each tick sending
 * the frames that are due.
 */
class Clock {
  private readonly speakers = new Set<Speaker>();
  private timer: NodeJS.Timeout | null = null;

  add(speaker: Speaker): void {
    this.speakers.add(speaker);
    if (!this.timer) this.schedule();
  }

  delete(speaker: Speaker): void {
    this.speakers.delete(speaker);
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      const now = Date.now();
      for (const speaker of this.speakers) {
        try {
          speaker.pump(now);
        } catch {
          // One call's transport failing must not silence the others: that call stops speaking.
          speaker.close();
        }
      }
      if (this.speakers.size > 0) this.schedule();
      else this.timer = null;
    }, FRAME_MS / 2);
    this.timer.unref();
  }
}

const clock = new Clock();

export interface SpeakerEvents {
  /** Everything sent has been heard and nothing is queued. */
  idle(): void;
}

export class Speaker {
  /** Frames waiting to go, each with the utterance it belongs to. */
  private queue: { frame: Int16Array; spoken: Spoken }[] = [];
  /** The partial frame of the utterance being queued. */
  private partial: { samples: Int16Array; filled: number; spoken: Spoken } | null = null;
  /** When the next frame is due (ms since the epoch); null while nothing plays. */
  private dueAt: number | null = null;
  private marks: Mark[] = [];
  private markSeq = 0;
  private framesSinceMark = 0;
  /** Samples of a frame at the transport's rate. */
  private readonly frameSamples: number;
  private closed = false;
  /** The latest any frame was sent after it was due (ms): real time kept, or not. */
  worstLateMs = 0;

  constructor(
    private readonly out: MediaOut,
    private readonly ambience: Ambience | null,
    private readonly events: SpeakerEvents,
  ) {
    this.frameSamples = (out.rate * FRAME_MS) / 1000;
    if (ambience) this.start(Date.now());
  }

  /** Queues audio of an utterance (PCM at the transport's rate). */
  play(spoken: Spoken, pcm: Int16Array): void {
    if (this.closed) return;
    const { frameSamples } = this;
    spoken.queuedMs += (pcm.length * 1000) / this.out.rate;
    let at = 0;
    while (at < pcm.length) {
      if (!this.partial || this.partial.spoken !== spoken) {
        this.flushPartial();
        this.partial = { samples: new Int16Array(frameSamples), filled: 0, spoken };
      }
      const take = Math.min(frameSamples - this.partial.filled, pcm.length - at);
      this.partial.samples.set(pcm.subarray(at, at + take), this.partial.filled);
      this.partial.filled += take;
      at += take;
      if (this.partial.filled === frameSamples) this.flushPartial();
    }
    if (this.dueAt === null) this.start(Date.now());
  }

  /** Plays a clip whole, as one stretch of speech of its own (the apology kept for a dead TTS). */
  clip(pcm: Int16Array): void {
    const spoken = new Spoken();
    this.play(spoken, pcm);
    this.finish(spoken);
  }

  /** No more audio comes for this utterance: its last partial frame goes, padded with silence. */
  finish(spoken: Spoken): void {
    spoken.complete = true;
    if (this.partial?.spoken === spoken) this.flushPartial();
    else if (spoken.framesQueued === 0 && spoken.sentMs > 0 && this.framesSinceMark > 0) this.mark(spoken); // its last frames went before it was known to be the end
    if (this.dueAt === null) this.start(Date.now());
    this.checkIdle();
  }

  /** Whether anything is queued or not yet heard. */
  get busy(): boolean {
    return this.queue.length > 0 || this.partial !== null || this.marks.length > 0;
  }

  /** The transport played the audio up to this mark. */
  played(name: string): void {
    const index = this.marks.findIndex((mark) => mark.name === name);
    if (index < 0) return;
    for (const mark of this.marks.splice(0, index + 1)) mark.spoken.heardMs = Math.max(mark.spoken.heardMs, mark.sentMs);
    this.checkIdle();
  }

  /** Silences the assistant: what is queued is dropped, and the transport drops what it holds. */
  clear(): void {
    const wasBusy = this.busy;
    for (const { spoken } of this.queue) spoken.framesQueued = 0;
    this.queue = [];
    this.partial = null;
    this.marks = [];
    this.framesSinceMark = 0;
    if (wasBusy) this.out.clear();
    if (!this.ambience) this.stop();
    this.checkIdle();
  }

  close(): void {
    this.closed = true;
    this.queue = [];
    this.partial = null;
    this.stop();
  }

  /** Sends the frames due by `now` (and LEAD_MS ahead). */
  pump(now: number): void {
    if (this.dueAt === null) return;
    while (this.dueAt <= now + LEAD_MS) {
      const late = now - this.dueAt;
      if (late > this.worstLateMs) this.worstLateMs = late;
      if (!this.sendFrame(now)) return this.stop();
      this.dueAt += FRAME_MS;
    }
  }

  private start(now: number): void {
    if (this.closed || this.dueAt !== null) return;
    this.dueAt = now;
    clock.add(this);
    this.pump(now);
  }

  private stop(): void {
    this.dueAt = null;
    clock.delete(this);
  }

  /** Sends one frame: speech (with ambience under it), else ambience alone; false when there is nothing to send. */
  private sendFrame(now: number): boolean {
    const next = this.queue.shift();
    if (!next) {
      if (!this.ambience) return false;
      const frame = new Int16Array(this.frameSamples);
      this.ambience.mixInto(frame);
      this.out.media(frame);
      return true;
    }
    const { frame, spoken } = next;
    spoken.framesQueued--;
    this.ambience?.mixInto(frame);
    this.out.media(frame);
    spoken.firstSentAt ??= now;
    spoken.sentMs += FRAME_MS;
    const lastOfUtterance = spoken.complete && spoken.framesQueued === 0;
    if (++this.framesSinceMark >= MARK_EVERY || lastOfUtterance) this.mark(spoken);
    return true;
  }

  /** A mark after what has been sent of an utterance. */
  private mark(spoken: Spoken): void {
    const name = `${++this.markSeq}`;
    this.marks.push({ name, spoken, sentMs: spoken.sentMs });
    this.out.mark(name);
    this.framesSinceMark = 0;
  }

  private flushPartial(): void {
    if (!this.partial) return;
    if (this.partial.filled > 0) {
      this.queue.push({ frame: this.partial.samples, spoken: this.partial.spoken });
      this.partial.spoken.framesQueued++;
    }
    this.partial = null;
  }

  private checkIdle(): void {
    if (!this.busy) this.events.idle();
  }
}
