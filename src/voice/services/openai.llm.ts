import OpenAI, { APIConnectionError, APIError } from 'openai';
import type { VendorAccess } from '../../config';
import { causes } from '../../db/availability';
import { samplingFields, type ModelParams } from '../../modules/catalog/model.params';
import { httpTransient, retryAfterMs, ServiceError, type LlmChunk, type LlmRequest, type LlmService, type LlmToolCall, type ServicePart } from './service';

/**
 * OpenAI-compatible chat completions, streamed (design.md, "The pipeline engine", the LLM row).
 * The wire format, read at the source:
 * - the request and the `chat.completion.chunk` stream: https://platform.openai.com/docs/api-reference/chat/create
 *   and /chat-streaming, as the official SDK models them (openai-node 6.49.0,
 *   src/resources/chat/completions/completions.ts): `stream_options.include_usage` adds a last
 *   chunk with `choices: []` and the usage, before `data: [DONE]`;
 * - a tool call's deltas are joined by `index`, the id and the name from the delta that carries
 *   them, the arguments appended (openai-node src/lib/ChatCompletionStream.ts, which also holds a
 *   stream that ends without a `finish_reason` to be incomplete; Pipecat joins them the same way in
 *   src/pipecat/services/openai/base_llm.py);
 * - errors: https://platform.openai.com/docs/guides/error-codes and the SDK's src/core/error.ts
 *   (an HTTP status with `{"error": {message, type, param, code}}`; an `error` object inside the
 *   stream when it fails after it started).
 */

/** How long the vendor may take to send the first chunk of its answer (its time to first token). */
export const FIRST_CHUNK_MS = 10_000;
/** How long the vendor may pause between two chunks once it started. */
export const NEXT_CHUNK_MS = 10_000;

export interface OpenAiLlmOptions extends VendorAccess {
  /** The bounds above, shorter in tests. */
  firstChunkMs?: number;
  nextChunkMs?: number;
  /** The catalogue's params of the models this service is asked for, by name; a model not here gets a temperature and no reasoning effort. */
  models?: Readonly<Record<string, ModelParams>>;
}

/**
 * The SDK client both OpenAI services use. No SDK retries: a caller waits on the line, so the
 * LLM's one retry and its fallback models are fallback.llm.ts's, bounded for a call. No SDK
 * logging: a failure reaches the engine as a ServiceError, and the SDK would print the vendor's
 * raw body.
 */
export function openAiClient(access: VendorAccess): OpenAI {
  return new OpenAI({ apiKey: access.apiKey, baseURL: access.url, maxRetries: 0, logLevel: 'off' });
}

/** An identifier such as `invalid_api_key`; anything else a vendor puts in `code` is left out. */
const ERROR_CODE = /^[\w.-]{1,64}$/;

/**
 * A failure of an OpenAI-API call as the engine sees it. Any HTTP error status is `refused`,
 * 429 and 5xx included: the vendor answered; those two, and a connection lost or never made,
 * are `transient` (the LLM's fallback tries once more before the first token). An error
 * the vendor sends inside a stream it started is `refused` too. A connection lost or never made
 * is `dropped`. The message names the status and the vendor's error code, never the vendor's
 * message (OpenAI's 401 quotes part of the key) nor the key.
 */
export function openAiFailure(part: ServicePart, vendor: string, error: unknown): ServiceError {
  if (error instanceof APIError && !(error instanceof APIConnectionError)) {
    const code = typeof error.code === 'string' && ERROR_CODE.test(error.code) ? ` (${error.code})` : '';
    const answer = error.status === undefined ? 'ended its stream with an error' : `answered HTTP ${error.status}`;
    // OpenAI also says `retry-after-ms`: the wait is read from the headers, the rule is every vendor's.
    const transient = httpTransient(error.status, undefined) && { retryAfterMs: retryAfterMs(error.headers) };
    return new ServiceError(part, 'refused', `${vendor} ${answer}${code}`, transient);
  }
  const reason = [...causes(error)].map(({ code }) => code).find((code): code is string => typeof code === 'string' && /^[A-Z_]+$/.test(code));
  return new ServiceError(part, 'dropped', `${vendor}: the connection was lost${reason ? ` (${reason})` : ''}`, { retryAfterMs: null });
}

/** The provider's endpoint for a model of the catalogue, else OpenAI's: the rule lives with what an assistant needs to speak. */
export { llmAccess } from '../../modules/assistants/assistant.voice';

export class OpenAiLlm implements LlmService {
  private readonly client: OpenAI;
  /** How messages name the vendor: its host, enough to tell the providers apart. */
  private readonly vendor: string;
  private readonly firstChunkMs: number;
  private readonly nextChunkMs: number;
  private readonly models: Readonly<Record<string, ModelParams>>;

  constructor(options: OpenAiLlmOptions) {
    this.client = openAiClient(options);
    this.vendor = `LLM at ${new URL(options.url).host}`;
    this.firstChunkMs = options.firstChunkMs ?? FIRST_CHUNK_MS;
    this.nextChunkMs = options.nextChunkMs ?? NEXT_CHUNK_MS;
    this.models = options.models ?? {};
  }

  async *complete(request: LlmRequest, signal: AbortSignal): AsyncGenerator<LlmChunk> {
    if (signal.aborted) return;
    // One controller ends the request for both reasons: the caller's abort and a stall.
    const abort = new AbortController();
    const stop = () => abort.abort();
    signal.addEventListener('abort', stop);
    /** Set when the vendor stayed silent for this long. */
    let stalledMs: number | null = null;
    let timer: NodeJS.Timeout | undefined;
    /** The vendor must send its next chunk within `ms`; the time the consumer holds a chunk does not count. */
    const awaitVendor = (ms: number) => {
      timer = setTimeout(() => {
        stalledMs = ms;
        abort.abort();
      }, ms);
    };
    const calls = new Map<number, LlmToolCall>();
    let usage: LlmChunk | null = null;
    let finished = false;
    try {
      awaitVendor(this.firstChunkMs);
      const stream = await this.client.chat.completions.create(
        {
          model: request.model,
          // gpt-5 refuses a temperature; the catalogue says which models take one, and which a reasoning effort.
          ...samplingFields(Object.hasOwn(this.models, request.model) ? this.models[request.model] : null, request.temperature),
          messages: request.messages,
          // OpenAI refuses an empty `tools` array.
          ...(request.tools.length ? { tools: request.tools.map((tool) => ({ type: 'function' as const, function: tool })) } : {}),
          stream: true,
          stream_options: { include_usage: true },
        },
        { signal: abort.signal },
      );
      const chunks = stream[Symbol.asyncIterator]();
      for (;;) {
        const next = await chunks.next();
        clearTimeout(timer);
        if (next.done) break;
        const { choices, usage: reported } = next.value;
        if (reported) usage = { type: 'usage', inputTokens: reported.prompt_tokens, outputTokens: reported.completion_tokens };
        const choice = choices[0];
        if (choice) {
          const { content, tool_calls: deltas } = choice.delta;
          if (content) {
            if (signal.aborted) return;
            yield { type: 'text', text: content };
          }
          for (const delta of deltas ?? []) {
            const call = calls.get(delta.index) ?? { id: '', type: 'function' as const, function: { name: '', arguments: '' } };
            if (delta.id) call.id = delta.id;
            if (delta.function?.name) call.function.name = delta.function.name;
            call.function.arguments += delta.function?.arguments ?? '';
            calls.set(delta.index, call);
          }
          if (choice.finish_reason) {
            finished = true;
            for (const index of [...calls.keys()].sort((a, b) => a - b)) {
              if (signal.aborted) return;
              yield { type: 'tool_call', call: calls.get(index)! };
            }
            calls.clear();
          }
        }
        awaitVendor(this.nextChunkMs);
      }
    } catch (error) {
      if (stalledMs !== null) throw this.stalled(stalledMs);
      if (signal.aborted) return;
      throw openAiFailure('llm', this.vendor, error);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', stop);
      // Ends the request when the consumer stopped early (a no-op once the stream is over).
      abort.abort();
    }
    // The SDK ends its iteration quietly when the request is aborted, a stall included.
    if (stalledMs !== null) throw this.stalled(stalledMs);
    if (signal.aborted) return;
    if (!finished) throw new ServiceError('llm', 'dropped', `${this.vendor}: the stream ended before the answer did`);
    if (usage) yield usage;
  }

  private stalled(ms: number): ServiceError {
    return new ServiceError('llm', 'stalled', `${this.vendor} sent nothing for ${ms} ms`);
  }
}
