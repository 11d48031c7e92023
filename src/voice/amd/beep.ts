/**
 * A mailbox's beep on the callee's decoded audio (design.md, "Calls that act"): a steady tone
 * in the 400-2000 Hz band (mailboxes beep at 440 to 1000+ Hz) held 100 ms or more, and its
 * end, after which the voicemail message is left. Pure: the audio's own samples are its clock.
 *
 * Each 20 ms frame is measured with Goertzel's filter at every 25 Hz of the band: a tone puts
 * nearly all of the frame's energy in one of them (a pure tone on its frequency: all of it; 12 Hz
 * off: 80%), speech spreads it over its harmonics and formants, noise over everything.
 */

const FRAME_MS = 20;
const LOW_HZ = 400;
const HIGH_HZ = 2000;
const STEP_HZ = 25;
/** The share of a frame's energy in one frequency for the frame to be a tone. */
const TONE_SHARE = 0.6;
/** Quieter than this (20 ms RMS) is no beep (a line's hiss can be tonal). */
const MIN_RMS = 300;
/** A beep is a tone held this long... */
export const BEEP_MIN_MS = 100;
/** ... on one frequency, within this much from frame to frame. */
const DRIFT_HZ = 60;

export interface Beep {
  /** Ms of audio heard before the beep began, and before it ended (null while it sounds). */
  startMs: number;
  endMs: number | null;
  hz: number;
}

export class BeepDetector {
  private readonly frameSamples: number;
  private readonly frame: Int16Array;
  private fill = 0;
  private readonly coefficients: { hz: number; coefficient: number }[];
  private heardMs = 0;
  /** The tone under way: when it began and at what frequency; frames it has lasted. */
  private tone: { startMs: number; hz: number; frames: number } | null = null;
  private found: Beep | null = null;

  constructor(readonly rate: number) {
    this.frameSamples = (rate * FRAME_MS) / 1000;
    this.frame = new Int16Array(this.frameSamples);
    this.coefficients = [];
    for (let hz = LOW_HZ; hz <= Math.min(HIGH_HZ, rate / 2 - STEP_HZ); hz += STEP_HZ) {
      this.coefficients.push({ hz, coefficient: 2 * Math.cos((2 * Math.PI * hz) / rate) });
    }
  }

  /** The beep found so far (its end once it has ended), or null. */
  get beep(): Beep | null {
    return this.found;
  }

  /** Whether a beep has been heard to its end. */
  get ended(): boolean {
    return this.found?.endMs != null;
  }

  /** Ms of audio heard. */
  get elapsedMs(): number {
    return this.heardMs;
  }

  /** The callee's audio, in order, PCM at `rate`. Answers the beep once found. */
  audio(pcm: Int16Array): Beep | null {
    for (let i = 0; i < pcm.length && !this.ended; i++) {
      this.frame[this.fill++] = pcm[i];
      if (this.fill === this.frameSamples) {
        this.fill = 0;
        this.onFrame(this.toneOf(this.frame));
      }
    }
    return this.found;
  }

  private onFrame(hz: number | null): void {
    const at = this.heardMs;
    this.heardMs += FRAME_MS;
    if (this.found) {
      // The beep sounds until its tone stops.
      if (hz === null || Math.abs(hz - this.found.hz) > DRIFT_HZ) this.found.endMs = at;
      return;
    }
    if (hz !== null && this.tone && Math.abs(hz - this.tone.hz) <= DRIFT_HZ) {
      this.tone.frames++;
      if (this.tone.frames * FRAME_MS >= BEEP_MIN_MS) this.found = { startMs: this.tone.startMs, endMs: null, hz: this.tone.hz };
    } else {
      this.tone = hz === null ? null : { startMs: at, hz, frames: 1 };
    }
  }

  /** The frame's tone in the band, or null when it is not one. */
  private toneOf(frame: Int16Array): number | null {
    let energy = 0;
    for (let i = 0; i < frame.length; i++) energy += frame[i] * frame[i];
    if (Math.sqrt(energy / frame.length) < MIN_RMS) return null;
    let best = 0;
    let bestHz = 0;
    for (const { hz, coefficient } of this.coefficients) {
      let s1 = 0;
      let s2 = 0;
      for (let i = 0; i < frame.length; i++) {
        const s0 = frame[i] + coefficient * s1 - s2;
        s2 = s1;
        s1 = s0;
      }
      const power = s1 * s1 + s2 * s2 - coefficient * s1 * s2;
      if (power > best) {
        best = power;
        bestHz = hz;
      }
    }
    // A pure tone of amplitude A on the frequency: power (A·N/2)², energy A²·N/2, so the share is 1.
    const share = best / ((frame.length / 2) * energy);
    return share >= TONE_SHARE ? bestHz : null;
  }
}
