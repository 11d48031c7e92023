import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Framer, mixUnder, samplesIn } from '../../src/voice/codecs/mix';
import { decode, decodeSample, encode, encodeSample } from '../../src/voice/codecs/mulaw';
import { Resampler, type SampleRate } from '../../src/voice/codecs/resample';

/** Vectors from an independent implementation (CPython's audioop), made once: see the file's `about`. */
const g711 = JSON.parse(readFileSync(path.join(__dirname, '..', 'fixtures', 'g711-mulaw.json'), 'utf8')) as { decode: number[]; samples: number[]; encoded: number[] };

describe('G.711 mu-law', () => {
  it("decodes every code as the reference does", () => {
    expect(Array.from({ length: 256 }, (_, code) => decodeSample(code))).toEqual(g711.decode);
    expect([decodeSample(0xff), decodeSample(0x80), decodeSample(0x00)]).toEqual([0, 32124, -32124]);
  });

  it('encodes samples across the whole range as the reference does', () => {
    expect(Array.from(encode(Int16Array.from(g711.samples)))).toEqual(g711.encoded);
    expect([encodeSample(0), encodeSample(32767), encodeSample(-32768)]).toEqual([0xff, 0x80, 0x00]);
  });

  it('round-trips a code exactly, and a sample within its segment’s step', () => {
    const codes = Uint8Array.from({ length: 256 }, (_, i) => i);
    const again = encode(decode(codes));
    // 0x7f is mu-law's negative zero: it decodes to 0, which encodes as 0xff.
    expect(Array.from(again).filter((code, i) => code !== i)).toEqual([0xff]);
    for (const sample of [-30000, -1000, -5, 0, 7, 900, 12345, 32000]) {
      const error = Math.abs(decodeSample(encodeSample(sample)) - sample);
      expect(error).toBeLessThanOrEqual(Math.max(8, Math.abs(sample) / 16));
    }
  });
});

/** A sine of `hz` at `rate`, `seconds` long, at `amplitude`. */
function sine(hz: number, rate: number, seconds: number, amplitude = 10000): Int16Array {
  return Int16Array.from({ length: rate * seconds }, (_, i) => Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / rate)));
}

const rms = (samples: Int16Array) => Math.sqrt(samples.reduce((sum, s) => sum + s * s, 0) / samples.length);

/** Zero crossings per second over the middle of a signal: twice its frequency. */
function frequency(samples: Int16Array, rate: number): number {
  const middle = samples.subarray(Math.floor(samples.length / 4), Math.floor((3 * samples.length) / 4));
  let crossings = 0;
  for (let i = 1; i < middle.length; i++) if (middle[i - 1] < 0 !== middle[i] < 0) crossings++;
  return crossings / 2 / (middle.length / rate);
}

describe('resampling', () => {
  const pairs: [SampleRate, SampleRate][] = [
    [8000, 16000], [16000, 8000], [8000, 24000], [24000, 8000], [8000, 48000], [48000, 8000],
    [16000, 24000], [24000, 16000], [16000, 48000], [48000, 16000], [24000, 48000], [48000, 24000],
  ];

  it.each(pairs)('keeps a 1 kHz tone’s frequency and level from %i to %i Hz', (from, to) => {
    const out = new Resampler(from, to).process(sine(1000, from, 1));
    expect(out.length).toBe(to);
    expect(frequency(out, to)).toBeCloseTo(1000, -1);
    const level = 20 * Math.log10(rms(out.subarray(to / 4, (3 * to) / 4)) / (10000 / Math.SQRT2));
    expect(Math.abs(level)).toBeLessThan(0.5);
  });

  it('filters out what the lower rate cannot carry instead of folding it back', () => {
    // 6 kHz at 48 kHz would alias to 2 kHz at 8 kHz: it must be at least 50 dB down.
    const aliased = new Resampler(48000, 8000).process(sine(6000, 48000, 1));
    expect(20 * Math.log10(rms(aliased.subarray(2000, 6000)) / (10000 / Math.SQRT2))).toBeLessThan(-50);
    // 3 kHz, inside the 8 kHz band, passes.
    const kept = new Resampler(48000, 8000).process(sine(3000, 48000, 1));
    expect(Math.abs(20 * Math.log10(rms(kept.subarray(2000, 6000)) / (10000 / Math.SQRT2)))).toBeLessThan(1);
  });

  it('gives, 20 ms at a time, exactly what it gives for the whole signal at once', () => {
    const signal = sine(440, 8000, 1);
    const whole = new Resampler(8000, 24000).process(signal);
    const streaming = new Resampler(8000, 24000);
    const pieces: number[] = [];
    for (let at = 0; at < signal.length; at += 160) pieces.push(...streaming.process(signal.subarray(at, at + 160)));
    expect(pieces).toEqual(Array.from(whole));
  });

  it('gives the same in chunks of any size, some shorter than its filter, as for the whole signal', () => {
    const signal = sine(440, 16000, 1);
    for (const [from, to] of [[16000, 8000], [8000, 16000], [24000, 8000]] as const) {
      const input = from === 16000 ? signal : sine(440, from, 1);
      const whole = new Resampler(from, to).process(input);
      const streaming = new Resampler(from, to);
      const pieces: number[] = [];
      const sizes = [320, 7, 320, 1, 50, 640, 3, 320];
      for (let at = 0, k = 0; at < input.length; at += sizes[k++ % sizes.length]) pieces.push(...streaming.process(input.subarray(at, at + sizes[k % sizes.length])));
      expect([from, to, pieces]).toEqual([from, to, Array.from(whole)]);
    }
  });
});

describe('mixing and framing', () => {
  it('adds the bed under the voice at its gain, looping it and saturating', () => {
    const voice = Int16Array.from([1000, -1000, 32000, -32000]);
    const next = mixUnder(voice, Int16Array.from([2000, 4000, 2000]), 0.5, 1);
    expect(Array.from(voice)).toEqual([3000, 0, 32767, -30000]);
    expect(next).toBe(2);
    const silent = Int16Array.from([5, 6]);
    mixUnder(silent, Int16Array.from([9999]), 0);
    expect(Array.from(silent)).toEqual([5, 6]);
  });

  it('cuts any chunks into 20 ms frames and pads the last with silence', () => {
    const framer = new Framer(samplesIn(20, 8000));
    expect(framer.frameSamples).toBe(160);
    const frames = [...framer.push(new Int16Array(100).fill(1)), ...framer.push(new Int16Array(300).fill(2))];
    expect(frames.map((frame) => frame.length)).toEqual([160, 160]);
    expect([frames[0][99], frames[0][100], frames[1][159]]).toEqual([1, 2, 2]);
    const last = framer.flush()!;
    expect([last.length, last[79], last[80]]).toEqual([160, 2, 0]);
    expect(framer.flush()).toBeNull();
  });
});
