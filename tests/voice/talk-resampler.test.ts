import { TALK_RESAMPLER_SOURCE } from '../../src/docs/talk';

/**
 * The /talk worklet's resampler (the very source the browser runs, src/docs/talk.ts) at the
 * device rates a browser may run at, 8 to 96 kHz, in 20 ms-ish chunks of 128 samples as an
 * AudioWorklet hands them: to 16 kHz for the socket, and from 16 kHz for playback.
 * talk-browser.test.ts runs it in chromium at 48 and 44.1 kHz.
 */
type Resampler = { process(input: Float32Array): Float32Array };
const Resampler: new (from: number, to: number) => Resampler = new Function(`${TALK_RESAMPLER_SOURCE}; return Resampler;`)();

function tone(hz: number, rate: number, seconds: number): Float32Array {
  return Float32Array.from({ length: Math.round(rate * seconds) }, (_, i) => 0.5 * Math.sin((2 * Math.PI * hz * i) / rate));
}

/** The stream resampled in chunks of 128 samples (an AudioWorklet's render quantum). */
function resample(from: number, to: number, input: Float32Array): Float32Array {
  const resampler = new Resampler(from, to);
  const parts: Float32Array[] = [];
  for (let at = 0; at < input.length; at += 128) parts.push(resampler.process(input.subarray(at, at + 128)).slice());
  const out = new Float32Array(parts.reduce((n, part) => n + part.length, 0));
  parts.reduce((at, part) => (out.set(part, at), at + part.length), 0);
  return out;
}

/** Amplitude of the `hz` component of `samples` at `rate` (Goertzel). */
function amplitudeAt(samples: Float32Array, hz: number, rate: number): number {
  const w = (2 * Math.PI * hz) / rate;
  let re = 0;
  let im = 0;
  for (let i = 0; i < samples.length; i++) (re += samples[i] * Math.cos(w * i)), (im -= samples[i] * Math.sin(w * i));
  return (2 * Math.hypot(re, im)) / samples.length;
}

/** The middle of a signal: past the filter's start, before its end. */
const steady = (samples: Float32Array, rate: number) => samples.subarray(Math.round(0.1 * rate), Math.round(0.1 * rate) + Math.round(0.25 * rate));

// 47 999 Hz shares no factor with 16 kHz: its 16 000 phases are cut to 1024.
const RATES = [8000, 11_025, 22_050, 24_000, 32_000, 44_100, 47_999, 48_000, 88_200, 96_000];

it.each(RATES)('from %i Hz to 16 kHz: the length kept, 1 kHz at its level, what 16 kHz cannot carry filtered out', (rate) => {
  const out = resample(rate, 16_000, tone(1000, rate, 0.5));
  expect(Math.abs(out.length - 8000)).toBeLessThanOrEqual(2);
  expect(amplitudeAt(steady(out, 16_000), 1000, 16_000)).toBeCloseTo(0.5, 2);
  // A tone above 8 kHz (and below the input's Nyquist), which sample dropping folds below 8 kHz.
  if (rate > 20_000) {
    const high = steady(resample(rate, 16_000, tone(9500, rate, 0.5)), 16_000);
    expect(Math.max(...high.map(Math.abs))).toBeLessThan(0.5 * 0.01);
  }
});

it.each(RATES)('from 16 kHz to %i Hz: the length kept, 1 kHz at its level, no image of it above 8 kHz', (rate) => {
  const out = resample(16_000, rate, tone(1000, 16_000, 0.5));
  expect(Math.abs(out.length - rate / 2)).toBeLessThanOrEqual(2);
  expect(amplitudeAt(steady(out, rate), 1000, rate)).toBeCloseTo(0.5, 2);
  // The image a sample-and-hold or linear interpolation leaves at 16 kHz - 1 kHz.
  if (rate > 30_000) expect(amplitudeAt(steady(out, rate), 15_000, rate)).toBeLessThan(0.5 * 0.01);
});

it('passes audio through unchanged at 16 kHz', () => {
  const input = tone(440, 16_000, 0.1);
  expect(resample(16_000, 16_000, input)).toEqual(input);
});
