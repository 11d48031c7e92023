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
  /** The last `taps - 1` input samples, for the next chunk's first outputs. */
  private history: Float32Array;
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
    this.history = new Float32Array(this.taps - 1);
  }

  /** The resampled output of the next chunk of input (the same rate: a copy). */
  process(input: Int16Array): Int16Array {
    if (this.from === this.to) return input.slice();
    const { taps } = this;
    const keep = taps - 1;
    const work = new Float32Array(keep + input.length);
    work.set(this.history);
    for (let i = 0; i < input.length; i++) work[keep + i] = input[i];
    const total = this.consumed + input.length;
    const out = new Int16Array(Math.ceil(((total - this.consumed) * this.up) / this.down) + 1);
    let count = 0;
    for (;;) {
      const u = this.next * this.down;
      const base = Math.floor(u / this.up);
      if (base >= total) break;
      const coefficients = this.phases[u - base * this.up];
      const at = base - this.consumed + keep;
      let sum = 0;
      for (let j = 0; j < taps; j++) sum += coefficients[j] * work[at - j];
      out[count++] = sum > 32767 ? 32767 : sum < -32768 ? -32768 : Math.round(sum);
      this.next++;
    }
    this.history = work.slice(work.length - keep);
    this.consumed = total;
    return out.subarray(0, count);
  }
}
