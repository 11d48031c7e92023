/**
 * @jest-environment ./tests/setup/native-addons-environment.js
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SileroVad, VAD_FRAME_SAMPLES } from '../../src/voice/vad/silero';

/**
 * Silero VAD on real speech: a Brazilian Portuguese sentence spoken by Debian's espeak-ng
 * (`espeak-ng -v pt-br`, then sox to 16 kHz mono; tests/fixtures/speech-pt-br-16k.wav), with a
 * second of silence on each side and of low noise under it.
 */
function speech(): Int16Array {
  const wav = readFileSync(path.join(__dirname, '..', 'fixtures', 'speech-pt-br-16k.wav'));
  return new Int16Array(wav.buffer.slice(wav.byteOffset + 44, wav.byteOffset + wav.length - ((wav.length - 44) % 2)));
}

/** `samples` with a second of silence before and after, and noise at `noise` (peak) under all of it. */
function padded(samples: Int16Array, noise: number): Int16Array {
  const out = new Int16Array(16000 + samples.length + 16000);
  out.set(samples, 16000);
  let seed = 7;
  for (let i = 0; i < out.length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    out[i] = Math.max(-32768, Math.min(32767, out[i] + Math.round(((seed / 0x7fffffff) * 2 - 1) * noise)));
  }
  return out;
}

async function probabilities(vad: SileroVad, audio: Int16Array): Promise<number[]> {
  const out: number[] = [];
  for (let at = 0; at + VAD_FRAME_SAMPLES <= audio.length; at += VAD_FRAME_SAMPLES) out.push(await vad.speech(audio.subarray(at, at + VAD_FRAME_SAMPLES)));
  return out;
}

it('hears the sentence and not the silence around it', async () => {
  const audio = padded(speech(), 200);
  const p = await probabilities(new SileroVad(), audio);
  const framesPerSecond = 16000 / VAD_FRAME_SAMPLES;
  const before = p.slice(0, Math.floor(framesPerSecond) - 2);
  const after = p.slice(p.length - Math.floor(framesPerSecond) + 8);
  const during = p.slice(Math.ceil(framesPerSecond) + 3, p.length - Math.ceil(framesPerSecond) - 3);
  expect(Math.max(...before)).toBeLessThan(0.3);
  expect(Math.max(...after)).toBeLessThan(0.3);
  // Most of the sentence is speech (the pauses between its words are not).
  expect(during.filter((x) => x > 0.5).length / during.length).toBeGreaterThan(0.7);
});

it('keeps each call’s state apart: two calls at once hear what each alone hears', async () => {
  const audio = padded(speech(), 200);
  const silent = padded(new Int16Array(16000), 200);
  const alone = await probabilities(new SileroVad(), audio);
  const [talking, quiet] = await Promise.all([probabilities(new SileroVad(), audio), probabilities(new SileroVad(), silent)]);
  expect(talking.map((x) => x.toFixed(4))).toEqual(alone.map((x) => x.toFixed(4)));
  expect(Math.max(...quiet)).toBeLessThan(0.3);
});

it('judges the frames of 20 calls in shared runs, each as it would be alone, in the order given', async () => {
  const audio = padded(speech(), 200);
  const alone = await probabilities(new SileroVad(), audio);
  const frames = Array.from({ length: Math.floor(audio.length / VAD_FRAME_SAMPLES) }, (_, i) => audio.subarray(i * VAD_FRAME_SAMPLES, (i + 1) * VAD_FRAME_SAMPLES));
  // Every frame of every call asked at once, none awaited: the batches hold frames of many calls, and a call's frames queue.
  const calls = Array.from({ length: 20 }, () => new SileroVad());
  const heard = await Promise.all(calls.map((vad) => Promise.all(frames.map((frame) => vad.speech(frame)))));
  for (const probabilities of heard) expect(probabilities.map((x) => x.toFixed(4))).toEqual(alone.map((x) => x.toFixed(4)));
});

it('refuses a frame of the wrong size', async () => {
  await expect(new SileroVad().speech(new Int16Array(160))).rejects.toThrow(/512 samples/);
});
