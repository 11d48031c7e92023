import { mixUnder } from './mix';
import type { SampleRate } from './resample';
import { seededRandom } from '../../lib/seeded-random';

/**
 * The ambient bed (design.md, "The pipeline engine (contract)": `ambient_sound_volume`): an
 * office's ambience under the whole call, made here from seeded noise, so nothing is shipped or
 * licensed. Three layers, shaped to the telephone band (most of the energy under 3 kHz), so a
 * phone call's 8 kHz loses little of it:
 * - room tone: ventilation, noise through low-passes (a rumble under 150 Hz, and some air);
 * - a distant murmur: noise in the band of voices (around 550 Hz) that swells and fades at the
 *   pace of syllables;
 * - a keyboard, now and then: short runs of faint key ticks, band-passed around 2.5 kHz.
 * The bed is one period of a loop, with no seam: each filter runs twice around it (the second
 * lap starts from the state the first ended in), and a tick near the end spills into the start.
 * It is the same in every process (seeded generators; the ticks fall at the same seconds at
 * every rate), generated once per rate, on first use: about 50 ms of CPU at 8 kHz.
 */
export const AMBIENT_SECONDS = 8;
/** The bed's level at volume 1 (RMS, dB below full scale): about 10 dB under a TTS voice. */
export const AMBIENT_REFERENCE_DBFS = -30;

const SEED = 0x0ff1ce;
/** Runs of typing in the loop, keys in a run, and the time between keys (s). */
const TYPING_RUNS = 3;
const KEYS_PER_RUN = [4, 9];
const KEY_INTERVAL = [0.09, 0.22];
/** A tick: 12 ms of noise decaying with a 2 ms time constant, band-passed twice around 2.5 kHz. */
const TICK_SECONDS = 0.012;
const TICK_DECAY = 0.002;
/** The layers' levels: the air's and the murmur's RMS to the rumble's, and a tick's peak to the RMS of all three. */
const AIR = 0.35;
const MURMUR = 0.3;
const TICK_PEAK = 1.2;

/** `length` samples of roughly Gaussian noise of unit variance (a sum of three uniforms). */
function noise(random: () => number, length: number): Float64Array {
  const out = new Float64Array(length);
  for (let i = 0; i < length; i++) out[i] = (random() + random() + random() - 1.5) * 2;
  return out;
}

/**
 * A one-pole low-pass at `cutoff` Hz. `looped`: `x` is one period of a loop, and the filter runs
 * round it twice, keeping the second lap, which starts where the first ended.
 */
function lowPass(x: Float64Array, cutoff: number, rate: number, looped: boolean): Float64Array {
  const keep = Math.exp((-2 * Math.PI * cutoff) / rate);
  const y = new Float64Array(x.length);
  let state = 0;
  for (let lap = looped ? 2 : 1; lap > 0; lap--) {
    for (let i = 0; i < x.length; i++) y[i] = state = keep * state + (1 - keep) * x[i];
  }
  return y;
}

/** A band-pass around `centre` Hz (the biquad of the Audio EQ Cookbook, 0 dB at the centre), looped as `lowPass`. */
function bandPass(x: Float64Array, centre: number, q: number, rate: number, looped: boolean): Float64Array {
  const w = (2 * Math.PI * centre) / rate;
  const alpha = Math.sin(w) / (2 * q);
  const [b0, a1, a2] = [alpha / (1 + alpha), (-2 * Math.cos(w)) / (1 + alpha), (1 - alpha) / (1 + alpha)];
  const y = new Float64Array(x.length);
  let x1 = 0;
  let x2 = 0;
  let y1 = 0;
  let y2 = 0;
  for (let lap = looped ? 2 : 1; lap > 0; lap--) {
    for (let i = 0; i < x.length; i++) {
      y[i] = b0 * (x[i] - x2) - a1 * y1 - a2 * y2;
      x2 = x1;
      x1 = x[i];
      y2 = y1;
      y1 = y[i];
    }
  }
  return y;
}

function rms(x: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < x.length; i++) sum += x[i] * x[i];
  return Math.sqrt(sum / x.length);
}

/** `x` scaled, in place, to an RMS of 1. */
function normalised(x: Float64Array): Float64Array {
  const level = rms(x);
  for (let i = 0; i < x.length; i++) x[i] /= level;
  return x;
}

function render(rate: SampleRate): Int16Array {
  const length = AMBIENT_SECONDS * rate;
  const random = seededRandom(SEED);
  const events = seededRandom(SEED + 1);

  // The rumble, which the other layers join.
  const bed = normalised(lowPass(lowPass(noise(random, length), 150, rate, true), 150, rate, true));
  const air = normalised(lowPass(lowPass(noise(random, length), 1500, rate, true), 3000, rate, true));
  const voices = normalised(bandPass(bandPass(noise(random, length), 550, 0.9, rate, true), 550, 0.9, rate, true));
  // Syllables: the square of noise low-passed at 4 Hz, a level that swells and fades.
  const syllables = normalised(lowPass(noise(random, length), 4, rate, true));
  for (let i = 0; i < length; i++) bed[i] += AIR * air[i] + MURMUR * voices[i] * syllables[i] ** 2;
  const background = rms(bed);

  const tickLength = Math.round(TICK_SECONDS * rate);
  for (let run = 0; run < TYPING_RUNS; run++) {
    let at = events() * AMBIENT_SECONDS;
    const keys = KEYS_PER_RUN[0] + Math.floor(events() * (KEYS_PER_RUN[1] - KEYS_PER_RUN[0] + 1));
    for (let key = 0; key < keys; key++) {
      const burst = noise(random, tickLength);
      for (let i = 0; i < tickLength; i++) burst[i] *= Math.exp(-i / rate / TICK_DECAY);
      const tick = bandPass(bandPass(burst, 2500, 2, rate, false), 2500, 2, rate, false);
      const peak = Math.max(...tick.map(Math.abs));
      const level = (TICK_PEAK * background * (0.6 + 0.4 * events())) / peak;
      const start = Math.round(at * rate);
      for (let i = 0; i < tickLength; i++) bed[(start + i) % length] += tick[i] * level;
      at += KEY_INTERVAL[0] + events() * (KEY_INTERVAL[1] - KEY_INTERVAL[0]);
    }
  }

  const scale = (32768 * 10 ** (AMBIENT_REFERENCE_DBFS / 20)) / rms(bed);
  return Int16Array.from(bed, (y) => Math.max(-32768, Math.min(32767, Math.round(y * scale))));
}

const beds = new Map<SampleRate, Int16Array>();

function officeAmbience(rate: SampleRate): Int16Array {
  let bed = beds.get(rate);
  if (!bed) beds.set(rate, (bed = render(rate)));
  return bed;
}

/** One call's ambience: the looped bed at the assistant's volume (0..1), from where it last stopped. */
export class AmbientBed {
  private readonly gain: number;
  /** Empty at volume 0: no bed is made, and mixing it costs nothing. */
  private readonly bed: Int16Array;
  private offset = 0;

  constructor(volume: number, rate: SampleRate = 8000) {
    this.gain = volume > 0 ? Math.min(volume, 1) : 0;
    this.bed = this.gain > 0 ? officeAmbience(rate) : new Int16Array(0);
  }

  /** The bed's next `count` samples alone (silence at volume 0). */
  next(count: number): Int16Array {
    const samples = new Int16Array(count);
    this.mixInto(samples);
    return samples;
  }

  /** Mixes the bed's next samples under `frame`, in place (saturating). */
  mixInto(frame: Int16Array): void {
    this.offset = mixUnder(frame, this.bed, this.gain, this.offset);
  }
}
