import type { VendorEvent } from '../../modules/calls/call.vendor-events';
import { ServiceError, type LlmChunk, type LlmRequest, type LlmService } from './service';

/**
 * An LLM that does not end a call by itself (design.md, "Vendors that never end a call by
 * themselves"): before the first chunk of an answer, a transient failure (a connection error,
 * a 429, a 5xx) is tried once more on the same model, after its `Retry-After` (at most 1 s;
 * else 250 ms); then each fallback model in order, once, any failure moving on (a stall too: waiting
 * for it again would double what the caller waits). The model that answers serves the rest of
 * the call, so a dead model does not cost every turn its attempts. Once a chunk has come, a
 * failure is the answer's: the caller has heard part of it, and a second answer would repeat it.
 *
 * Like LiveKit Agents' FallbackAdapter (livekit-agents/llm/fallback_adapter.py), with
 * its retry on the same model before the switch as Pipecat's and Vapi's fallback plans do.
 */

/** One model of the chain, and the service (its provider's endpoint) that serves it. */
export interface LlmChoice {
  model: string;
  service: LlmService;
}

/** The longest `Retry-After` honoured: the caller waits on the line. */
export const MAX_RETRY_WAIT_MS = 1000;
/** The wait before a retry when the vendor named none. */
export const RETRY_WAIT_MS = 250;

/** How long to wait before the one retry of a transient failure: its `Retry-After`, at most MAX_RETRY_WAIT_MS; else RETRY_WAIT_MS. */
export function retryWaitMs(transient: { retryAfterMs: number | null }): number {
  return Math.min(transient.retryAfterMs ?? RETRY_WAIT_MS, MAX_RETRY_WAIT_MS);
}

export class FallbackLlm implements LlmService {
  /** The model now answering: the first that did not fail. */
  private current = 0;

  constructor(
    private readonly choices: readonly LlmChoice[],
    private readonly report: (event: VendorEvent) => void,
  ) {
    if (choices.length === 0) throw new Error('an LLM needs a model');
  }

  /** The request's model is the chain's: the model now answering replaces it. */
  async *complete(request: LlmRequest, signal: AbortSignal): AsyncGenerator<LlmChunk> {
    let retried = false;
    for (;;) {
      const { model, service } = this.choices[this.current];
      let started = false;
      try {
        for await (const chunk of service.complete({ ...request, model }, signal)) {
          started = true;
          yield chunk;
        }
        return;
      } catch (error) {
        if (started || signal.aborted || !(error instanceof ServiceError)) throw error;
        if (error.transient && !retried) {
          retried = true;
          this.report({ type: 'vendor_retried', part: 'llm', vendor: model, reason: error.message });
          await wait(retryWaitMs(error.transient), signal);
          if (signal.aborted) return;
          continue;
        }
        const next = this.choices[this.current + 1];
        if (!next) throw error;
        this.report({ type: 'vendor_switched', part: 'llm', from: model, to: next.model, reason: error.message });
        // One retry an answer: the next model is asked at once.
        this.current++;
        retried = true;
      }
    }
  }
}

/** Resolves after `ms`, or at once when the signal aborts. */
function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
}
