/**
 * @jest-environment ./tests/setup/native-addons-environment.js
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { registry } from '../../src/metrics';
import { SileroVad, useVadWorkerSource, VAD_FRAME_SAMPLES, VAD_MAX_LAG_MS, VAD_MAX_QUEUED_FRAMES } from '../../src/voice/vad/silero';

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
  for (let at = 0; at + VAD_FRAME_SAMPLES <= audio.length; at += VAD_FRAME_SAMPLES) {
    const probability = await vad.speech(audio.subarray(at, at + VAD_FRAME_SAMPLES));
    if (probability === null) throw new Error('a frame given in real time was skipped');
    out.push(probability);
  }
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
  // 20 calls at once: the batches hold frames of many calls.
  const heard = await Promise.all(Array.from({ length: 20 }, () => probabilities(new SileroVad(), audio)));
  for (const probabilities of heard) expect(probabilities.map((x) => x.toFixed(4))).toEqual(alone.map((x) => x.toFixed(4)));
});

it('refuses a frame of the wrong size', async () => {
  await expect(new SileroVad().speech(new Int16Array(160))).rejects.toThrow(/512 samples/);
});

describe('a queue no transport can grow', () => {
  /** A worker that answers each batch `delayMs` later (every frame "speech"), except the first `ignored` batches, which it never answers. */
  const slowWorker = (delayMs: number, ignored = 0) => `
const { parentPort } = require('node:worker_threads');
let seen = 0;
parentPort.postMessage({ ready: true });
parentPort.on('message', ({ id, size, state }) => {
  if (++seen <= ${ignored}) return;
  setTimeout(() => parentPort.postMessage({ id, probabilities: new Float32Array(size).fill(0.9), state }), ${delayMs});
});`;
  const frame = () => new Int16Array(VAD_FRAME_SAMPLES);
  const lag = async () => (await registry.getSingleMetric('vozgate_voice_vad_lag_seconds')!.get()).values[0].value;
  const dropped = async (reason: string) => (await registry.getSingleMetric('vozgate_voice_vad_frames_dropped_total')!.get()).values.find((v) => v.labels.reason === reason)?.value ?? 0;
  afterEach(() => useVadWorkerSource());

  it('judges at most VAD_MAX_QUEUED_FRAMES of a call given audio far ahead of real time; the rest are skipped at once', async () => {
    const before = await dropped('queue_full');
    const vad = new SileroVad();
    // 10 s of audio at once, as a socket pushing 36 times real time would give it.
    const answers = await Promise.all(Array.from({ length: 312 }, () => vad.speech(frame())));
    const judged = answers.filter((p) => p !== null);
    expect(judged.length).toBeGreaterThan(0);
    expect(judged.length).toBeLessThanOrEqual(VAD_MAX_QUEUED_FRAMES);
    expect((await dropped('queue_full')) - before).toBe(312 - VAD_MAX_QUEUED_FRAMES);
    // The call goes on: a frame given in real time afterwards is judged.
    expect(typeof (await vad.speech(frame()))).toBe('number');
  });

  it('skips a frame that waited past VAD_MAX_LAG_MS (a slow worker), and judges the next one given in time', async () => {
    useVadWorkerSource(slowWorker(VAD_MAX_LAG_MS + 100));
    const before = await dropped('late');
    const vad = new SileroVad();
    // The second frame waits for the first's answer: by then it is late.
    const [first, second] = await Promise.all([vad.speech(frame()), vad.speech(frame())]);
    expect(first).toBeCloseTo(0.9);
    expect(second).toBeNull();
    expect((await dropped('late')) - before).toBe(1);
    expect(await vad.speech(frame())).toBeCloseTo(0.9);
  });

  it('counts a frame\'s wait from when its audio arrived (before the denoiser), and skips it when that is past VAD_MAX_LAG_MS', async () => {
    const before = await dropped('late');
    const vad = new SileroVad();
    expect(await vad.speech(frame(), performance.now() - VAD_MAX_LAG_MS - 50)).toBeNull();
    expect((await dropped('late')) - before).toBe(1);
    expect(typeof (await vad.speech(frame(), performance.now() - 10))).toBe('number');
  });

  it('fails a batch the worker never answers within VAD_BATCH_TIMEOUT_MS, shows the wait as lag, and judges the next frames', async () => {
    useVadWorkerSource(slowWorker(0, 1));
    const vad = new SileroVad();
    const hung = vad.speech(frame());
    hung.catch(() => {});
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await lag()).toBeGreaterThanOrEqual(0.25);
    await expect(hung).rejects.toThrow(/did not answer/);
    expect(await lag()).toBe(0);
    expect(await vad.speech(frame())).toBeCloseTo(0.9);
  });

  it('skips the frames still queued once closed (the call ended)', async () => {
    useVadWorkerSource(slowWorker(50));
    const vad = new SileroVad();
    const answers = Array.from({ length: 4 }, () => vad.speech(frame()));
    vad.close();
    const heard = await Promise.all(answers);
    expect(heard.slice(1)).toEqual([null, null, null]);
  });
});
