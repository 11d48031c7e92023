import { denoiseCalls, denoiseChunksFailed } from '../../metrics';
import type { DenoiseRate } from '../codecs/denoise';
import { askWorker } from './worker';

/**
 * One call's noise cancellation (`noise_cancellation`; codecs/denoise.ts is RNNoise itself), run
 * on the voice worker thread (worker.ts), where the call's RNNoise state lives from its first
 * chunk to its end: the event loop only sends the caller's PCM and takes the denoised audio
 * back. The chunks of every call given in the same turn of the event loop go in one message.
 *
 * The audio never stops for it: a chunk the worker could not denoise (it failed, or did not
 * answer within its timeout), or given while the call already has DENOISE_MAX_QUEUED chunks
 * waiting (a worker that cannot keep up), goes on as it came, counted in
 * vozgate_voice_denoise_failed_chunks_total. Chunks come back in the order given.
 */
export const DENOISE_MAX_QUEUED = 10;

interface Chunk {
  call: number;
  rate: DenoiseRate;
  pcm: Int16Array;
  resolve(denoised: Int16Array | null): void;
}

const waiting: Chunk[] = [];
let ended: number[] = [];
let scheduled = false;
let callSeq = 0;

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  setImmediate(sendBatch);
}

async function sendBatch(): Promise<void> {
  scheduled = false;
  const chunks = waiting.splice(0);
  const over = ended;
  ended = [];
  try {
    // Copied, not transferred: a chunk the worker does not answer goes on as it came.
    const answer = await askWorker({ denoise: chunks.map(({ call, rate, pcm }) => ({ call, rate, pcm })), ended: over }, [], () => {}, 'denoise');
    denoiseCalls.set(answer.calls as number);
    const denoised = answer.denoised as (Int16Array | null)[];
    chunks.forEach((chunk, i) => chunk.resolve(denoised[i] ?? null));
  } catch {
    for (const chunk of chunks) chunk.resolve(null);
  }
}

export class WorkerDenoiser {
  private readonly call = ++callSeq;
  /** The last chunk's result: the next one comes after it. */
  private last: Promise<unknown> = Promise.resolve();
  private queued = 0;
  private destroyed = false;

  /** A call's noise cancellation, for its audio at `rate`. */
  constructor(private readonly rate: DenoiseRate = 8000) {}

  /** The denoised audio of the next chunk of the caller's PCM (codecs/denoise.ts says how late and how long). */
  process(pcm: Int16Array): Promise<Int16Array> {
    if (this.destroyed) return Promise.reject(new Error('RNNoise: this denoiser was destroyed'));
    let denoised: Promise<Int16Array | null> = Promise.resolve(null);
    if (this.queued < DENOISE_MAX_QUEUED) {
      this.queued++;
      denoised = new Promise<Int16Array | null>((resolve) => {
        waiting.push({ call: this.call, rate: this.rate, pcm, resolve });
        schedule();
      }).finally(() => this.queued--);
    }
    const result = Promise.all([denoised, this.last]).then(([out]) => {
      if (out) return out;
      denoiseChunksFailed.inc();
      return pcm;
    });
    this.last = result;
    return result;
  }

  /** The call is over: the worker frees its state (after the chunks already given). */
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    ended.push(this.call);
    schedule();
  }
}
