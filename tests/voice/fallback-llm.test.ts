import type { VendorEvent } from '../../src/modules/calls/call.vendor-events';
import { FallbackLlm, MAX_RETRY_WAIT_MS, RETRY_WAIT_MS } from '../../src/voice/services/fallback.llm';
import { retryAfterMs } from '../../src/voice/services/service';
import { ServiceError, type LlmChunk, type LlmRequest, type LlmService } from '../../src/voice/services/service';

/**
 * The LLM's retry and fallback models (src/voice/services/fallback.llm.ts) on virtual time:
 * scripted models, each attempt answering or failing as told, and the waits between them
 * measured on jest's clock. The end-to-end calls through the fakes are llm-fallback.test.ts.
 */

/** What one attempt of a scripted model does: answer these texts, fail before any, or fail after some. */
type Attempt = { answer: string[] } | { fail: ServiceError; after?: string[] };

/** A model whose attempts follow a script, and the times (virtual ms) each attempt began. */
function scripted(...attempts: Attempt[]): LlmService & { began: number[]; models: string[] } {
  const began: number[] = [];
  const models: string[] = [];
  return {
    began,
    models,
    async *complete(request: LlmRequest): AsyncGenerator<LlmChunk> {
      began.push(Date.now());
      models.push(request.model);
      const attempt = attempts.shift();
      if (!attempt) throw new Error('the script has no more attempts');
      if ('answer' in attempt) {
        for (const text of attempt.answer) yield { type: 'text', text };
        return;
      }
      for (const text of attempt.after ?? []) yield { type: 'text', text };
      throw attempt.fail;
    },
  };
}

const limited = (retryAfterMs: number | null = null) => new ServiceError('llm', 'refused', 'api.openai.com answered HTTP 429', { retryAfterMs });
const serverError = () => new ServiceError('llm', 'refused', 'api.openai.com answered HTTP 500', { retryAfterMs: null });
const wrongKey = () => new ServiceError('llm', 'refused', 'api.openai.com answered HTTP 401 (invalid_api_key)');
const stalled = () => new ServiceError('llm', 'stalled', 'api.openai.com sent nothing for 5000 ms');

const REQUEST: LlmRequest = { model: 'ignored', temperature: 0.5, messages: [{ role: 'user', content: 'Oi' }], tools: [] };

/** Runs one answer to its end on virtual time: its texts, or the error it threw. */
async function answer(llm: LlmService, signal = new AbortController().signal): Promise<string[] | ServiceError> {
  const texts: string[] = [];
  const run = (async () => {
    for await (const chunk of llm.complete(REQUEST, signal)) if (chunk.type === 'text') texts.push(chunk.text);
    return texts;
  })().catch((error: ServiceError) => error);
  await jest.runAllTimersAsync();
  return run;
}

beforeEach(() => jest.useFakeTimers({ now: 0 }));
afterEach(() => jest.useRealTimers());

describe('FallbackLlm', () => {
  it.each([
    ['the vendor’s Retry-After', 600, 600],
    ['at most 1 s however long the vendor asks', 30_000, MAX_RETRY_WAIT_MS],
    ['250 ms when the vendor named no wait', null, RETRY_WAIT_MS],
  ])('retries a 429 once on the same model after %s', async (_, asked, waited) => {
    const model = scripted({ fail: limited(asked) }, { answer: ['Olá!'] });
    const events: VendorEvent[] = [];
    const llm = new FallbackLlm([{ model: 'gpt-4o-mini', service: model }], (event) => events.push(event));
    expect(await answer(llm)).toEqual(['Olá!']);
    expect(model.began).toEqual([0, waited]);
    expect(model.models).toEqual(['gpt-4o-mini', 'gpt-4o-mini']);
    expect(events).toEqual([{ type: 'vendor_retried', part: 'llm', vendor: 'gpt-4o-mini', reason: 'api.openai.com answered HTTP 429' }]);
  });

  it('switches to the fallback model at once after the retry failed too, and that model answers the rest of the call', async () => {
    const first = scripted({ fail: serverError() }, { fail: serverError() });
    const second = scripted({ answer: ['Primeira resposta.'] }, { answer: ['Segunda resposta.'] });
    const events: VendorEvent[] = [];
    const llm = new FallbackLlm(
      [
        { model: 'gpt-4o-mini', service: first },
        { model: 'llama-3.1-70b', service: second },
      ],
      (event) => events.push(event),
    );
    expect(await answer(llm)).toEqual(['Primeira resposta.']);
    expect(first.began).toEqual([0, RETRY_WAIT_MS]);
    // No second wait: the caller has waited once already.
    expect(second.began).toEqual([RETRY_WAIT_MS]);
    expect(second.models).toEqual(['llama-3.1-70b']);
    expect(events.map((event) => event.type)).toEqual(['vendor_retried', 'vendor_switched']);
    expect(events[1]).toEqual({ type: 'vendor_switched', part: 'llm', from: 'gpt-4o-mini', to: 'llama-3.1-70b', reason: 'api.openai.com answered HTTP 500' });

    // The next turn goes straight to the model that answered: the dead one costs no more waits.
    expect(await answer(llm)).toEqual(['Segunda resposta.']);
    expect(first.began).toHaveLength(2);
    expect(events).toHaveLength(2);
  });

  it('does not retry what a second attempt cannot mend (a wrong key, a stall): it switches at once, and fails when no model is left', async () => {
    const first = scripted({ fail: wrongKey() });
    const second = scripted({ fail: stalled() });
    const events: VendorEvent[] = [];
    const llm = new FallbackLlm(
      [
        { model: 'gpt-4o-mini', service: first },
        { model: 'gpt-4o', service: second },
      ],
      (event) => events.push(event),
    );
    const failure = await answer(llm);
    expect(failure).toBeInstanceOf(ServiceError);
    expect((failure as ServiceError).kind).toBe('stalled');
    expect([first.began, second.began]).toEqual([[0], [0]]);
    expect(events).toEqual([{ type: 'vendor_switched', part: 'llm', from: 'gpt-4o-mini', to: 'gpt-4o', reason: 'api.openai.com answered HTTP 401 (invalid_api_key)' }]);
  });

  it('never retries once a chunk has come: the caller heard part of the answer', async () => {
    const first = scripted({ fail: serverError(), after: ['Claro, o seu'] });
    const second = scripted({ answer: ['never asked'] });
    const events: VendorEvent[] = [];
    const llm = new FallbackLlm(
      [
        { model: 'gpt-4o-mini', service: first },
        { model: 'gpt-4o', service: second },
      ],
      (event) => events.push(event),
    );
    const texts: string[] = [];
    const run = (async () => {
      for await (const chunk of llm.complete(REQUEST, new AbortController().signal)) if (chunk.type === 'text') texts.push(chunk.text);
    })();
    await expect(run).rejects.toMatchObject({ message: 'api.openai.com answered HTTP 500' });
    expect(texts).toEqual(['Claro, o seu']);
    expect(second.began).toEqual([]);
    expect(events).toEqual([]);
  });

  it('ends quietly when the caller barges in during the wait before the retry, and asks no model again', async () => {
    const model = scripted({ fail: limited(800) }, { answer: ['never asked'] });
    const controller = new AbortController();
    const llm = new FallbackLlm([{ model: 'gpt-4o-mini', service: model }], () => {});
    const texts: string[] = [];
    const run = (async () => {
      for await (const chunk of llm.complete(REQUEST, controller.signal)) if (chunk.type === 'text') texts.push(chunk.text);
      return 'ended';
    })();
    await jest.advanceTimersByTimeAsync(300);
    controller.abort();
    await expect(run).resolves.toBe('ended');
    await jest.runAllTimersAsync();
    expect(model.began).toEqual([0]);
    expect(texts).toEqual([]);
  });
});

describe('retryAfterMs', () => {
  const headers = (entries: Record<string, string>) => new Headers(entries);
  it.each([
    ['seconds', { 'retry-after': '2' }, 2000],
    ['fractional seconds', { 'retry-after': '0.5' }, 500],
    ['OpenAI’s retry-after-ms, first', { 'retry-after-ms': '350', 'retry-after': '9' }, 350],
    ['an HTTP date', { 'retry-after': new Date(3000).toUTCString() }, 3000],
    ['an HTTP date past', { 'retry-after': new Date(-60_000).toUTCString() }, 0],
    ['nothing', {}, null],
    ['garbage', { 'retry-after': 'soon' }, null],
    ['a negative number', { 'retry-after-ms': '-5' }, null],
  ])('reads %s', (_, entries, expected) => {
    expect(retryAfterMs(headers(entries))).toBe(expected);
  });
});
