/**
 * Mixing and framing of 16-bit PCM: the ambient bed under the assistant's voice, and the
 * 20 ms frames a transport sends (Twilio wants 160 mu-law bytes at 8 kHz).
 */

/** Adds `bed` at `gain` (0..1) under `voice`, in place, saturating; the bed loops from `offset`. Answers the bed's next offset. */
export function mixUnder(voice: Int16Array, bed: Int16Array, gain: number, offset = 0): number {
  if (gain <= 0 || bed.length === 0) return offset;
  let at = offset % bed.length;
  for (let i = 0; i < voice.length; i++) {
    const sum = voice[i] + bed[at] * gain;
    voice[i] = sum > 32767 ? 32767 : sum < -32768 ? -32768 : Math.round(sum);
    if (++at === bed.length) at = 0;
  }
  return at;
}

/** Samples in `ms` milliseconds at `rate`. */
export const samplesIn = (ms: number, rate: number): number => (ms * rate) / 1000;

/**
 * Cuts a stream of samples into frames of one size, whatever the sizes of the chunks that
 * come in; what is left over waits for the next chunk (or `flush`, padded with silence).
 */
export class Framer {
  private pending: Int16Array;
  private filled = 0;

  constructor(readonly frameSamples: number) {
    this.pending = new Int16Array(frameSamples);
  }

  push(chunk: Int16Array): Int16Array[] {
    const frames: Int16Array[] = [];
    let at = 0;
    while (at < chunk.length) {
      const take = Math.min(this.frameSamples - this.filled, chunk.length - at);
      this.pending.set(chunk.subarray(at, at + take), this.filled);
      this.filled += take;
      at += take;
      if (this.filled === this.frameSamples) {
        frames.push(this.pending);
        this.pending = new Int16Array(this.frameSamples);
        this.filled = 0;
      }
    }
    return frames;
  }

  /** The last, partial frame, padded with silence; none when nothing waits. */
  flush(): Int16Array | null {
    if (this.filled === 0) return null;
    const frame = this.pending;
    this.pending = new Int16Array(this.frameSamples);
    this.filled = 0;
    return frame;
  }
}
