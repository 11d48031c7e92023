import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DENOISE_LATENCY_SAMPLES, Denoiser } from '../../src/voice/codecs/denoise';
import { Resampler } from '../../src/voice/codecs/resample';
import { registry } from '../../src/metrics';
import { DENOISE_MAX_QUEUED, WorkerDenoiser } from '../../src/voice/vad/denoiser';
import { askWorker, useVoiceWorkerSource, VAD_INPUT_SIZE, VAD_STATE_WIDTH } from '../../src/voice/vad/worker';

/**
 * RNNoise on a noisy phone line: the pt-BR sentence of tests/fixtures (espeak-ng, 16 kHz) taken
 * to 8 kHz, with 1.5 s of noise alone before and after it and the same noise under it, at 10 dB
 * SNR (a fan in the room of a caller on a phone). Levels are compared in dB, after shifting the
 * output back by the documented latency.
 */
const RATE = 8000;
const PAD = 1.5 * RATE;
const SNR_DB = 10;
/** Where the noise-only stretches are measured from: RNNoise learns the fan's noise in about 250 ms. */
const SETTLE = 0.5 * RATE;
/**
 * What the noise-only stretches must lose at least. Measured here on fan noise of five seeds:
 * 38 to 53 dB in each quarter second after the first. (Synthetic white noise it takes 0.5 to
 * 1.5 s to learn, depending on the seed, and then takes down by 25 to 40 dB.)
 */
const MIN_REDUCTION_DB = 25;

function sentence(): Int16Array {
  const wav = readFileSync(path.join(__dirname, '..', 'fixtures', 'speech-pt-br-16k.wav'));
  const samples = new Int16Array(wav.buffer.slice(wav.byteOffset + 44, wav.byteOffset + wav.length - ((wav.length - 44) % 2)));
  return new Resampler(16000, RATE).process(samples);
}

type Noise = 'white' | 'fan';

/** Stationary noise of unit scale: white, or a fan's (a low rumble, white noise through a one-pole low-pass near 130 Hz, and its 120 Hz hum). */
function noise(kind: Noise, length: number, seed: number): Float64Array {
  const out = new Float64Array(length);
  let state = seed;
  let rumble = 0;
  for (let i = 0; i < length; i++) {
    let white = 0;
    for (let k = 0; k < 3; k++) {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      white += (state / 2 ** 32) * 2 - 1;
    }
    rumble = 0.9 * rumble + 0.1 * white;
    out[i] = kind === 'white' ? white : rumble + 0.05 * Math.sin((2 * Math.PI * 120 * i) / RATE);
  }
  return out;
}

const energy = (x: Int16Array, from: number, to: number): number => {
  let sum = 0;
  for (let i = from; i < to; i++) sum += x[i] * x[i];
  return sum / (to - from);
};
const db = (ratio: number): number => 10 * Math.log10(ratio);

/** The sentence alone, and with `kind` noise under it and around it at SNR_DB (the sentence's power over the noise's). */
function noisyCall(kind: Noise, seed = 7): { clean: Int16Array; noisy: Int16Array; speech: [number, number] } {
  const words = sentence();
  const clean = new Int16Array(PAD + words.length + PAD);
  clean.set(words, PAD);
  const hiss = noise(kind, clean.length, seed);
  let hissPower = 0;
  for (const x of hiss) hissPower += x * x;
  const gain = Math.sqrt(energy(words, 0, words.length) / (hissPower / hiss.length) / 10 ** (SNR_DB / 10));
  const noisy = clean.map((x, i) => Math.max(-32768, Math.min(32767, Math.round(x + hiss[i] * gain))));
  return { clean, noisy, speech: [PAD, PAD + words.length] };
}

function join(chunks: Int16Array[]): Int16Array {
  const joined = new Int16Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  chunks.reduce((at, chunk) => (joined.set(chunk, at), at + chunk.length), 0);
  return joined;
}

/** The first index where `a` and `b` differ, -1 when they are the same (jest's diff of typed arrays this long is slow). */
function firstDifference(a: Int16Array, b: Int16Array): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : length;
}

/** What `denoiser` gives for `audio` fed in chunks of `sizes` (taken in turn), joined. */
function denoise(denoiser: Denoiser, audio: Int16Array, sizes = [160]): Int16Array {
  const out: Int16Array[] = [];
  for (let at = 0, turn = 0; at < audio.length; turn++) {
    const size = sizes[turn % sizes.length];
    out.push(denoiser.process(audio.subarray(at, at + size)));
    at += size;
  }
  return join(out);
}

async function alone(audio: Int16Array): Promise<Int16Array> {
  const denoiser = await Denoiser.create();
  try {
    return denoise(denoiser, audio);
  } finally {
    denoiser.destroy();
  }
}

it('takes the noise down by a clear margin and keeps the speech', async () => {
  const { clean, noisy, speech } = noisyCall('fan');
  const out = await alone(noisy);
  const lag = DENOISE_LATENCY_SAMPLES;
  const [start, end] = speech;

  const before = db(energy(out, SETTLE + lag, start - 400 + lag) / energy(noisy, SETTLE, start - 400));
  const after = db(energy(out, end + 400 + lag, out.length) / energy(noisy, end + 400, out.length - lag));
  expect(before).toBeLessThan(-MIN_REDUCTION_DB);
  expect(after).toBeLessThan(-MIN_REDUCTION_DB);

  // The sentence keeps its level (measured: within 0.3 dB), and what is left is the sentence: the
  // output follows the clean speech closely (correlation measured 0.96; the noisy input's, 0.95).
  expect(Math.abs(db(energy(out, start + lag, end + lag) / energy(clean, start, end)))).toBeLessThan(2);
  let product = 0;
  for (let i = start; i < end; i++) product += clean[i] * out[i + lag];
  const correlation = product / (end - start) / Math.sqrt(energy(clean, start, end) * energy(out, start + lag, end + lag));
  expect(correlation).toBeGreaterThan(0.9);
});

it('gives each call what it gives alone: two calls at once share no state', async () => {
  const talking = noisyCall('fan').noisy;
  const hiss = noisyCall('white', 99).noisy;
  const [talkingAlone, hissAlone] = [await alone(talking), await alone(hiss)];

  const [a, b] = await Promise.all([Denoiser.create(), Denoiser.create()]);
  const outA: Int16Array[] = [];
  const outB: Int16Array[] = [];
  for (let at = 0; at < talking.length; at += 160) {
    outA.push(a.process(talking.subarray(at, at + 160)));
    outB.push(b.process(hiss.subarray(at, at + 160)));
  }
  a.destroy();
  b.destroy();
  expect(firstDifference(join(outA), talkingAlone)).toBe(-1);
  expect(firstDifference(join(outB), hissAlone)).toBe(-1);
});

it('gives back as many samples as it takes, whatever the chunks, late by DENOISE_LATENCY_SAMPLES', async () => {
  const { clean, noisy, speech } = noisyCall('white');
  const denoiser = await Denoiser.create();
  for (let at = 0; at + 160 <= 8000; at += 160) expect(denoiser.process(noisy.subarray(at, at + 160))).toHaveLength(160);
  denoiser.destroy();

  // In uneven chunks, only the last 10 ms frame left unfilled (under 80 samples) waits, and the
  // audio is the same as in 20 ms chunks.
  const even = await alone(noisy);
  const uneven = await Denoiser.create();
  const out = denoise(uneven, noisy, [37, 160, 333, 1, 80, 999]);
  uneven.destroy();
  expect(out.length).toBe(noisy.length - (noisy.length % 80));
  expect(firstDifference(out, even.subarray(0, out.length))).toBe(-1);

  // The lag at which the output best matches the clean sentence.
  const [start, end] = speech;
  let best = { lag: -1, score: -Infinity };
  for (let lag = 0; lag < 400; lag++) {
    let score = 0;
    for (let i = start; i < end; i++) score += clean[i] * out[i + lag];
    if (score > best.score) best = { lag, score };
  }
  expect(best.lag).toBe(DENOISE_LATENCY_SAMPLES);
});

it('keeps working when other calls grow the shared heap, and refuses work once destroyed', async () => {
  const { noisy } = noisyCall('fan');
  const expected = await alone(noisy);
  const half = 160 * Math.floor(noisy.length / 320);

  const denoiser = await Denoiser.create();
  const first = denoise(denoiser, noisy.subarray(0, half));
  // A call's state is about 19 KB and the heap starts at 16 MiB, about 5 MiB of it RNNoise's own:
  // 1200 more calls make it grow, which detaches the views every denoiser holds of its frames.
  const others = await Promise.all(Array.from({ length: 1200 }, () => Denoiser.create()));
  const rest = denoise(denoiser, noisy.subarray(half));
  for (const other of others) other.destroy();
  expect(firstDifference(join([first, rest]), expected)).toBe(-1);

  denoiser.destroy();
  denoiser.destroy();
  expect(() => denoiser.process(new Int16Array(160))).toThrow(/destroyed/);
});

describe('on the voice worker thread (vad/denoiser.ts), as calls use it', () => {
  const gauge = async (name: string) => (await registry.getSingleMetric(name)!.get()).values[0]?.value ?? 0;

  /** What a call's WorkerDenoiser gives for `audio` in 20 ms chunks given as a socket gives them, joined. */
  async function onWorker(denoiser: WorkerDenoiser, audio: Int16Array): Promise<Int16Array> {
    const out: Promise<Int16Array>[] = [];
    for (let at = 0; at < audio.length; at += 160) {
      out.push(denoiser.process(audio.slice(at, at + 160)));
      // Three chunks at a time, as a socket a little ahead of a worker that keeps up gives them (beyond
      // DENOISE_MAX_QUEUED waiting they would go on undenoised): batches hold several of a call's chunks and others'.
      if (out.length % 3 === 0) await out[out.length - 1];
    }
    return join(await Promise.all(out));
  }

  it('gives exactly what the main thread’s RNNoise gives, for two calls at once, and frees each call’s state at its end', async () => {
    const failedBefore = await gauge('vozgate_voice_denoise_failed_chunks_total');
    const talking = noisyCall('fan').noisy;
    const hiss = noisyCall('white', 99).noisy;
    const [talkingAlone, hissAlone] = [await alone(talking), await alone(hiss)];

    const [a, b] = [new WorkerDenoiser(), new WorkerDenoiser()];
    const [outA, outB] = await Promise.all([onWorker(a, talking), onWorker(b, hiss)]);
    expect(await gauge('vozgate_voice_denoise_calls')).toBe(2);
    expect(firstDifference(outA, talkingAlone)).toBe(-1);
    expect(firstDifference(outB, hissAlone)).toBe(-1);
    expect(await gauge('vozgate_voice_denoise_failed_chunks_total')).toBe(failedBefore);

    // A call's end frees its state; a call that starts afterwards starts afresh.
    a.destroy();
    b.destroy();
    await expect(a.process(new Int16Array(160))).rejects.toThrow(/destroyed/);
    const c = new WorkerDenoiser();
    expect(firstDifference(await onWorker(c, hiss), hissAlone)).toBe(-1);
    expect(await gauge('vozgate_voice_denoise_calls')).toBe(1);
    c.destroy();
    const d = new WorkerDenoiser();
    await d.process(new Int16Array(160));
    d.destroy();
  });

  it('keeps the VAD answered while denoise batches wait: a VAD batch given after 20 of them is judged after the first, not after all', async () => {
    // The models loaded first (a denoise batch and a VAD batch answered), as on a call under way.
    const { noisy } = noisyCall('fan');
    const chunk = (call: number) => ({ call, rate: 8000, pcm: noisy.slice(PAD, PAD + 160) });
    const vadBatch = () => ({ size: 1, input: new Float32Array(VAD_INPUT_SIZE), state: new Float32Array(2 * VAD_STATE_WIDTH) });
    await askWorker({ denoise: [chunk(900)], ended: [] }, [], () => {}, 'denoise');
    await askWorker(vadBatch(), [], () => {});
    // Twenty batches of 20 calls' chunks, then a VAD batch, all in the port at once: a worker
    // that ran each denoise batch in its message's handler judged the VAD after all twenty.
    const answered: string[] = [];
    const calls = Array.from({ length: 20 }, (_, i) => 901 + i);
    const batches = Array.from({ length: 20 }, (_, i) => ({ denoise: calls.map(chunk), ended: i === 19 ? [900, ...calls] : [] }));
    const denoising = batches.map((batch, i) => askWorker(batch, [], () => {}, 'denoise').then(() => answered.push(`denoise ${i}`)));
    const judged = askWorker(vadBatch(), [], () => {}).then((answer) => (answered.push('vad'), answer));
    await Promise.all([...denoising, judged]);
    expect((await judged).probabilities).toHaveLength(1);
    expect(answered.indexOf('vad')).toBeLessThanOrEqual(2);
    expect(answered.filter((name) => name.startsWith('denoise'))).toEqual(calls.map((_, i) => `denoise ${i}`)); // in the order sent
  });

  it('never stops the audio: a worker that does not answer lets each chunk go on as it came, in order, within its timeout', async () => {
    useVoiceWorkerSource(`
const { parentPort } = require('node:worker_threads');
parentPort.postMessage({ ready: true, denoiseReady: true });
parentPort.on('message', () => {});`);
    try {
      const failedBefore = await gauge('vozgate_voice_denoise_failed_chunks_total');
      const { noisy } = noisyCall('fan');
      const denoiser = new WorkerDenoiser();
      // More than DENOISE_MAX_QUEUED at once: those beyond it are not even sent, and still come after the others.
      const chunks = Array.from({ length: DENOISE_MAX_QUEUED + 2 }, (_, i) => noisy.slice(i * 160, (i + 1) * 160));
      const order: number[] = [];
      const out = await Promise.all(chunks.map((chunk, i) => denoiser.process(chunk).then((pcm) => (order.push(i), pcm))));
      expect(order).toEqual(chunks.map((_, i) => i));
      expect(firstDifference(join(out), join(chunks))).toBe(-1);
      expect((await gauge('vozgate_voice_denoise_failed_chunks_total')) - failedBefore).toBe(chunks.length);
      denoiser.destroy();
    } finally {
      useVoiceWorkerSource();
    }
  });
});
