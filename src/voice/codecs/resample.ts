/**
 * Sample-rate conversion between the rates the voice path meets (Twilio's 8 kHz, the
 * browser's and the STT's 16 kHz, the TTS vendors' 16/24/48 kHz), as a stream: a polyphase
 * windowed-sinc filter (up by L, low-pass, down by M, for the ratio L/M) that keeps the last
 * samples of one chunk for the next, so 20 ms frames resampled one by one give exactly what the
 * whole signal resampled at once gives. The low-pass stops at 90% of the lower rate's Nyquist
 * frequency, so what the lower rate cannot carry is filtered out, not folded back as aliases.
 */
export type SampleRate = 8000 | 16000 | 24000 | 48000;

/**
 * The filter's length, in taps of the higher rate's period: 32 periods of it. An output
 * sample then takes 32 input samples when the rate goes up, and 32·M/L when it comes down (a
 * longer filter at the input's rate, for the same sharpness at the lower rate's edge).
 */
const PERIODS = 32;

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/** Blackman window over `n` points. */
function blackman(i: number, n: number): number {
  const x = (2 * Math.PI * i) / (n - 1);
  return 0.42 - 0.5 * Math.cos(x) + 0.08 * Math.cos(2 * x);
}

/** The prototype low-pass, split into its L phases of `taps` each: phases[p][j] = h[p + j·L]. */
function polyphaseFilter(up: number, down: number, taps: number): Float32Array[] {
  const length = up * taps;
  // Cutoff in cycles per sample of the upsampled rate: 90% of the lower rate's Nyquist.
  const cutoff = (0.9 * 0.5) / Math.max(up, down);
  const centre = (length - 1) / 2;
  const phases = Array.from({ length: up }, () => new Float32Array(taps));
  for (let n = 0; n < length; n++) {
    const t = n - centre;
    const sinc = t === 0 ? 2 * cutoff : Math.sin(2 * Math.PI * cutoff * t) / (Math.PI * t);
    // Gain `up`: zero-stuffing by L leaves 1/L of the energy in the band.
    phases[n % up][Math.floor(n / up)] = sinc * blackman(n, length) * up;
  }
  return phases;
}

export class Resampler {
  private readonly up: number;
  private readonly down: number;
  private readonly taps: number;
  private readonly phases: Float32Array[];
  /** The last `taps - 1` input samples (for the next chunk's first outputs), then room for a chunk. */
  private work: Float32Array;
  /** Input samples taken so far, and the index of the next output sample. */
  private consumed = 0;
  private next = 0;

  constructor(
    readonly from: SampleRate,
    readonly to: SampleRate,
  ) {
    const divisor = gcd(from, to);
    this.up = to / divisor;
    this.down = from / divisor;
    this.taps = Math.ceil((PERIODS * Math.max(this.up, this.down)) / this.up);
    this.phases = polyphaseFilter(this.up, this.down, this.taps);
    this.work = new Float32Array(this.taps - 1);
  }

  /** The resampled output of the next chunk of input (the same rate: a copy). */
  process(input: Int16Array): Int16Array {
    if (this.from === this.to) return input.slice();
    const { taps, up, down } = this;
    const keep = taps - 1;
    // The history (always at its start), then the chunk; reused while chunks keep their size.
    if (this.work.length !== keep + input.length) {
      const work = new Float32Array(keep + input.length);
      work.set(this.work.subarray(0, keep));
      this.work = work;
    }
    const work = this.work;
    for (let i = 0; i < input.length; i++) work[keep + i] = input[i];
    const total = this.consumed + input.length;
    const out = new Int16Array(Math.ceil((input.length * up) / down) + 1);
    let count = 0;
    const consumed = this.consumed;
    for (let next = this.next; ; next++) {
      const u = next * down;
      const base = Math.floor(u / up);
      if (base >= total) {
        this.next = next;
        break;
      }
      const coefficients = this.phases[u - base * up];
      const at = base - consumed + keep;
      // Four taps a step: a tighter loop for V8 than one tap a step (taps is a multiple of 4 or the rest is summed after).
      let a = 0;
      let b = 0;
      let c = 0;
      let d = 0;
      let j = 0;
      for (; j + 3 < taps; j += 4) {
        a += coefficients[j] * work[at - j];
        b += coefficients[j + 1] * work[at - j - 1];
        c += coefficients[j + 2] * work[at - j - 2];
        d += coefficients[j + 3] * work[at - j - 3];
      }
      for (; j < taps; j++) a += coefficients[j] * work[at - j];
      const sum = a + b + c + d;
      out[count++] = sum > 32767 ? 32767 : sum < -32768 ? -32768 : Math.round(sum);
    }
    // The last `keep` samples lead the next chunk.
    work.copyWithin(0, work.length - keep);
    this.consumed = total;
    return out.subarray(0, count);
  }
}
