import { AMBIENT_REFERENCE_DBFS, AMBIENT_SECONDS, AmbientBed } from '../../src/voice/codecs/ambient';
import { Resampler, type SampleRate } from '../../src/voice/codecs/resample';

const RATES: SampleRate[] = [8000, 16000, 24000, 48000];

function power(x: Int16Array): number {
  let sum = 0;
  for (let i = 0; i < x.length; i++) sum += x[i] * x[i];
  return sum / x.length;
}
const dbfs = (x: Int16Array): number => 10 * Math.log10(power(x) / 32768 ** 2);

/** The largest step between neighbouring samples in `x`. */
function largestStep(x: Int16Array): number {
  let most = 0;
  for (let i = 1; i < x.length; i++) most = Math.max(most, Math.abs(x[i] - x[i - 1]));
  return most;
}

/** The first index where `a` and `b` differ, -1 when they are the same (jest's diff of typed arrays this long is slow). */
function firstDifference(a: Int16Array, b: Int16Array): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : length;
}

it('plays at the assistant’s volume: 0.8 is 12 dB over 0.2, and 1 is the reference level', () => {
  const loop = AMBIENT_SECONDS * 8000;
  const full = new AmbientBed(1).next(loop);
  expect(dbfs(new AmbientBed(0.8).next(loop)) - dbfs(new AmbientBed(0.2).next(loop))).toBeCloseTo(20 * Math.log10(4), 1);
  expect(dbfs(full)).toBeCloseTo(AMBIENT_REFERENCE_DBFS, 1);
  expect(firstDifference(new AmbientBed(3).next(loop), full)).toBe(-1);
});

it('is digital silence at volume 0, and leaves the voice untouched', () => {
  for (const volume of [0, -0.5, Number.NaN]) {
    const bed = new AmbientBed(volume);
    expect(bed.next(AMBIENT_SECONDS * 8000).every((sample) => sample === 0)).toBe(true);
    const voice = Int16Array.from({ length: 160 }, (_, i) => Math.round(8000 * Math.sin(i / 5)));
    const heard = voice.slice();
    bed.mixInto(heard);
    expect(heard).toEqual(voice);
  }
});

it('mixes the bed under the voice frame after frame, round the loop, saturating at full scale', () => {
  const mixed = new AmbientBed(0.5);
  const alone = new AmbientBed(0.5);
  // A loop and a half of 20 ms frames: a quiet tone, and every tenth frame at full scale.
  for (let n = 0; n < (1.5 * AMBIENT_SECONDS * 8000) / 160; n++) {
    const voice = Int16Array.from({ length: 160 }, (_, i) => (n % 10 === 0 ? 32767 : Math.round(3000 * Math.sin((n * 160 + i) / 7))));
    const frame = voice.slice();
    mixed.mixInto(frame);
    const bed = alone.next(160);
    expect(frame).toEqual(voice.map((sample, i) => Math.max(-32768, Math.min(32767, sample + bed[i]))));
  }
});

it.each(RATES)('loops at %i Hz without a click: the step across the seam is no bigger than the steps near it', (rate) => {
  const loop = AMBIENT_SECONDS * rate;
  const played = new AmbientBed(1, rate).next(loop + 1);
  expect(played[loop]).toBe(played[0]);
  const near = rate / 50;
  const seam = Math.abs(played[loop] - played[loop - 1]);
  expect(seam).toBeLessThanOrEqual(Math.max(largestStep(played.subarray(loop - near, loop)), largestStep(played.subarray(0, near))));
});

it('is the same on every call and in every process', () => {
  const loop = AMBIENT_SECONDS * 16000;
  const first = new AmbientBed(0.5, 16000).next(loop);
  expect(firstDifference(new AmbientBed(0.5, 16000).next(loop), first)).toBe(-1);
  // A fresh copy of the module: nothing cached, the bed made again.
  let fresh!: typeof import('../../src/voice/codecs/ambient');
  jest.isolateModules(() => {
    fresh = require('../../src/voice/codecs/ambient');
  });
  expect(firstDifference(new fresh.AmbientBed(0.5, 16000).next(loop), first)).toBe(-1);
});

it.each(RATES)('stays in the background at %i Hz: no 20 ms of it 10 dB over the rest, and a phone’s 8 kHz keeps it', (rate) => {
  const played = new AmbientBed(1, rate).next(AMBIENT_SECONDS * rate);
  const window = rate / 50;
  const levels: number[] = [];
  for (let at = 0; at + window <= played.length; at += window) levels.push(dbfs(played.subarray(at, at + window)));
  levels.sort((a, b) => a - b);
  // Measured: the loudest 20 ms (a swell of the murmur, a key) 6 to 8 dB over the median.
  expect(levels[levels.length - 1] - levels[levels.length >> 1]).toBeLessThan(10);
  // What 8 kHz cannot carry (over 3.6 kHz, the resampler's low-pass) is under 0.5 dB of it (measured: 0.04 dB).
  if (rate !== 8000) expect(dbfs(new Resampler(rate, 8000).process(played)) - dbfs(played)).toBeGreaterThan(-0.5);
});
