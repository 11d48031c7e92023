import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import OpenAI, { APIConnectionError, APIError } from 'openai';
import type { VendorAccess } from '../../config';
import { causes } from '../../db/availability';
import { KEEP_ALIVE } from '../../lib/keep-alive';
import { samplingFields, type ModelParams } from '../../modules/catalog/model.params';
import { httpTransient, retryAfterMs, ServiceError, type LlmChunk, type LlmRequest, type LlmService, type LlmToolCall, type ServicePart } from './service';
import { VendorSilence } from './vendor-silence';

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
 *   stream when it fails after it started, or an `event: error`, as the SDK's
 *   src/core/streaming.ts reads them).
 *
 * The stream is read with node:http and a Server-Sent Events parser, not the SDK: it is the
 * engine's hottest request (every reply of every call, chat and test), and the SDK's fetch and
 * web streams cost a quarter of a chat reply's CPU (bench/results/chat.md). The SDK still serves
 * OpenAI's other calls (the post-call analyst, TTS and STT); a test's judge, unstreamed, asks
 * through `answer`, which assistant test runs make a hundred at once.
 */

/** How long the vendor may take to send the first chunk of its answer (its time to first token). */
export const FIRST_CHUNK_MS = 10_000;
/** How long the vendor may pause between two chunks once it started. */
export const NEXT_CHUNK_MS = 10_000;
/** The most of one event the stream's parser holds until its end comes, and the most of a refusal's body read for its code. */
const EVENT_CHARS = 1 << 20;
const ERROR_BODY_BYTES = 64 << 10;
/** The most of an unstreamed answer read. */
const ANSWER_BYTES = 4 << 20;
/** The most a tool call's arguments may hold, all of one answer's together. */
const TOOL_ARGUMENT_CHARS = 1 << 20;

/** Connections kept open between requests, as the SDK's fetch keeps them, and let go before the server closes them. */
const agents = { 'http:': new http.Agent(KEEP_ALIVE), 'https:': new https.Agent(KEEP_ALIVE) };

export interface OpenAiLlmOptions extends VendorAccess {
  /** FIRST_CHUNK_MS and NEXT_CHUNK_MS, shorter in tests. */
  firstChunkMs?: number;
  nextChunkMs?: number;
  /** The catalogue's params of the models this service is asked for, by name; a model not here gets a temperature and no reasoning effort. */
  models?: Readonly<Record<string, ModelParams>>;
}

/**
 * The SDK client of the other OpenAI calls (TTS, STT). No SDK retries: a caller waits on the line, so the
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
  private readonly url: URL;
  private readonly apiKey: string;
  /** How messages name the vendor: its host, enough to tell the providers apart. */
  private readonly vendor: string;
  private readonly firstChunkMs: number;
  private readonly nextChunkMs: number;
  private readonly models: Readonly<Record<string, ModelParams>>;

  constructor(options: OpenAiLlmOptions) {
    // The SDK's path: the base URL, then `/chat/completions`.
    this.url = new URL(`${options.url.replace(/\/+$/, '')}/chat/completions`);
    if (!Object.hasOwn(agents, this.url.protocol)) throw new Error(`an LLM's URL is http or https, not ${this.url.protocol}`);
    this.apiKey = options.apiKey;
    this.vendor = `LLM at ${this.url.host}`;
    this.firstChunkMs = options.firstChunkMs ?? FIRST_CHUNK_MS;
    this.nextChunkMs = options.nextChunkMs ?? NEXT_CHUNK_MS;
    this.models = options.models ?? {};
  }

  async *complete(request: LlmRequest, signal: AbortSignal): AsyncGenerator<LlmChunk> {
    if (signal.aborted) return;
    // One controller ends the request for both reasons: the caller's abort and a stall.
    const abort = new AbortController();
    const stop = () => abort.abort(ENDED);
    signal.addEventListener('abort', stop);
    /** Set when the vendor stayed silent for this long. */
    let stalledMs: number | null = null;
    const silence = new VendorSilence((ms) => {
      stalledMs = ms;
      abort.abort(ENDED);
    });
    const answer = new Answer(this.vendor);
    try {
      silence.await(this.firstChunkMs);
      const response = await this.post(this.body(request), abort.signal);
      const events: EventSourceMessage[] = [];
      let tooLong = false;
      const parser = createParser({ onEvent: (event) => events.push(event), onError: () => (tooLong = true), maxBufferSize: EVENT_CHARS });
      response.setEncoding('utf8');
      for await (const text of response as AsyncIterable<string>) {
        silence.hold();
        parser.feed(text);
        if (tooLong) throw new ServiceError('llm', 'refused', `${this.vendor} sent more than ${EVENT_CHARS} characters of one event`);
        for (const event of events.splice(0)) {
          for (const chunk of answer.read(event)) {
            if (signal.aborted) return;
            yield chunk;
          }
        }
        silence.await(this.nextChunkMs);
      }
    } catch (error) {
      if (stalledMs !== null) throw this.stalled(stalledMs);
      if (signal.aborted) return;
      if (error instanceof ServiceError) throw error;
      throw openAiFailure('llm', this.vendor, error);
    } finally {
      silence.stop();
      signal.removeEventListener('abort', stop);
      // Ends the request when the consumer stopped early (a no-op once the stream is over).
      abort.abort(ENDED);
    }
    // A response ended by the stall's abort may end its reading quietly.
    if (stalledMs !== null) throw this.stalled(stalledMs);
    if (signal.aborted) return;
    if (!answer.finished) throw new ServiceError('llm', 'dropped', `${this.vendor}: the stream ended before the answer did`);
    if (answer.usage) yield answer.usage;
  }

  /**
   * One unstreamed completion in a JSON schema (a test's judge, which reads the whole answer):
   * its text and token counts, within `timeoutMs`. A failure is a ServiceError, as `complete`'s.
   */
  async answer(
    request: { model: string; messages: LlmRequest['messages']; schema: { name: string; schema: Record<string, unknown> } },
    timeoutMs: number,
  ): Promise<{ text: string; inputTokens: number; outputTokens: number }> {
    const abort = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      abort.abort(ENDED);
    }, timeoutMs);
    try {
      const body = JSON.stringify({
        model: request.model,
        messages: request.messages,
        response_format: { type: 'json_schema', json_schema: { name: request.schema.name, strict: true, schema: request.schema.schema } },
      });
      const response = await this.post(body, abort.signal, 'application/json');
      const text = await readText(response, ANSWER_BYTES);
      if (text === null) throw new ServiceError('llm', 'refused', `${this.vendor} answered more than ${ANSWER_BYTES} bytes`);
      const completion = parseJson(text);
      if (!isRecord(completion)) throw new ServiceError('llm', 'refused', `${this.vendor} answered no JSON object`);
      const choice: unknown = Array.isArray(completion.choices) ? completion.choices[0] : undefined;
      const message = isRecord(choice) && isRecord(choice.message) ? choice.message : {};
      const usage = isRecord(completion.usage) ? completion.usage : {};
      return { text: typeof message.content === 'string' ? message.content : '', inputTokens: count(usage.prompt_tokens), outputTokens: count(usage.completion_tokens) };
    } catch (error) {
      if (timedOut) throw new ServiceError('llm', 'stalled', `${this.vendor} did not answer within ${timeoutMs} ms`);
      if (error instanceof ServiceError) throw error;
      throw openAiFailure('llm', this.vendor, error);
    } finally {
      clearTimeout(timer);
      abort.abort(ENDED);
    }
  }

  /** The request's JSON, as the SDK would send it. */
  private body(request: LlmRequest): string {
    return JSON.stringify({
      model: request.model,
      // gpt-5 refuses a temperature; the catalogue says which models take one, and which a reasoning effort.
      ...samplingFields(Object.hasOwn(this.models, request.model) ? this.models[request.model] : null, request.temperature),
      messages: request.messages,
      // OpenAI refuses an empty `tools` array.
      ...(request.tools.length ? { tools: request.tools.map((tool) => ({ type: 'function' as const, function: tool })) } : {}),
      stream: true,
      stream_options: { include_usage: true },
    });
  }

  /** A 2xx response's head; any other status is a refusal. `signal` ends the exchange until it is over. */
  private async post(body: string, signal: AbortSignal, accept = 'text/event-stream'): Promise<IncomingMessage> {
    const response = await this.send(body, signal, accept);
    if (response.statusCode! < 200 || response.statusCode! >= 300) throw await this.refusal(response);
    return response;
  }

  /** The response's head, or the connection's failure. */
  private send(body: string, signal: AbortSignal, accept: string): Promise<IncomingMessage> {
    const { url } = this;
    const client = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const request = client.request(url, {
        method: 'POST',
        agent: agents[url.protocol as keyof typeof agents],
        headers: {
          authorization: `Bearer ${this.apiKey}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          accept,
        },
      });
      // Not http.request's own `signal`: it destroys the request's socket even after the response
      // came whole, when the socket may already serve the next request (kept alive). Once the
      // response came, it is the response that is ended: its socket too only while it is unread.
      let response: IncomingMessage | undefined;
      const end = () => (response ? response.destroy() : request.destroy(new Error('the request was aborted')));
      signal.addEventListener('abort', end);
      request.once('close', () => signal.removeEventListener('abort', end));
      // Both stay on for the exchange's life. A failure once the response came is read where the
      // response is read; one after that (an abort that ends the exchange early) is nobody's.
      request.on('error', reject);
      request.on('response', (head) => {
        response = head;
        head.on('error', () => undefined);
        resolve(head);
      });
      request.end(body);
    });
  }

  /** An HTTP error status as the engine sees it, with the vendor's error code when its body names one. */
  private async refusal(response: IncomingMessage): Promise<ServiceError> {
    const code = errorCode(parseJson((await readText(response, ERROR_BODY_BYTES)) ?? ''));
    const status = response.statusCode!;
    const transient = httpTransient(status, undefined) && { retryAfterMs: retryAfterMs(response.headers) };
    return new ServiceError('llm', 'refused', `${this.vendor} answered HTTP ${status}${code}`, transient);
  }

  private stalled(ms: number): ServiceError {
    return new ServiceError('llm', 'stalled', `${this.vendor} sent nothing for ${ms} ms`);
  }
}

/**
 * Why a request's own controller ends it (the caller's abort, a stall, or the answer read): one
 * reason for all, made once. Without one, each abort makes a DOMException with its stack, a
 * cost every reply paid at its end.
 */
const ENDED = new Error('the exchange with the LLM was ended');

/**
 * One answer as its `chat.completion.chunk` events come: the text as it comes, each tool call
 * once whole (its deltas joined by `index`), the usage kept for the end. Anything a chunk holds
 * that is not of the documented shape is left out; an error the vendor sends is a refusal.
 */
class Answer {
  private readonly calls = new Map<number, LlmToolCall>();
  private argumentChars = 0;
  private done = false;
  usage: LlmChunk | null = null;
  finished = false;

  constructor(private readonly vendor: string) {}

  *read(event: EventSourceMessage): Generator<LlmChunk> {
    if (this.done) return;
    if (event.data.startsWith('[DONE]')) {
      this.done = true;
      return;
    }
    // OpenAI's Assistants stream names its events `thread.*`; the chat stream sends none of those.
    if (event.event?.startsWith('thread.')) return;
    const chunk = parseJson(event.data);
    if (chunk === undefined) throw new ServiceError('llm', 'refused', `${this.vendor} sent an event that is not JSON`);
    if (event.event === 'error' || (isRecord(chunk) && chunk.error)) {
      throw new ServiceError('llm', 'refused', `${this.vendor} ended its stream with an error${errorCode(chunk)}`);
    }
    if (!isRecord(chunk)) return;
    const usage = chunk.usage;
    if (isRecord(usage)) this.usage = { type: 'usage', inputTokens: count(usage.prompt_tokens), outputTokens: count(usage.completion_tokens) };
    const choice: unknown = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
    if (!isRecord(choice)) return;
    const delta = isRecord(choice.delta) ? choice.delta : {};
    if (typeof delta.content === 'string' && delta.content) yield { type: 'text', text: delta.content };
    for (const part of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) this.join(part);
    if (choice.finish_reason) {
      this.finished = true;
      for (const index of [...this.calls.keys()].sort((a, b) => a - b)) yield { type: 'tool_call', call: this.calls.get(index)! };
      this.calls.clear();
    }
  }

  /** A tool call's delta, joined to those of its `index`. */
  private join(part: unknown): void {
    if (!isRecord(part) || !Number.isSafeInteger(part.index)) return;
    const index = part.index as number;
    const call = this.calls.get(index) ?? { id: '', type: 'function' as const, function: { name: '', arguments: '' } };
    if (typeof part.id === 'string' && part.id) call.id = part.id;
    const fn = isRecord(part.function) ? part.function : {};
    if (typeof fn.name === 'string' && fn.name) call.function.name = fn.name;
    if (typeof fn.arguments === 'string') {
      this.argumentChars += fn.arguments.length;
      if (this.argumentChars > TOOL_ARGUMENT_CHARS) throw new ServiceError('llm', 'refused', `${this.vendor} sent tool calls longer than ${TOOL_ARGUMENT_CHARS} characters`);
      call.function.arguments += fn.arguments;
    }
    this.calls.set(index, call);
  }
}

/** A response's body as text, or null past `bytes` (the rest is not read). */
async function readText(response: IncomingMessage, bytes: number): Promise<string | null> {
  const pieces: Buffer[] = [];
  let length = 0;
  for await (const piece of response as AsyncIterable<Buffer>) {
    length += piece.length;
    if (length > bytes) return null;
    pieces.push(piece);
  }
  return Buffer.concat(pieces).toString('utf8');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A token count a vendor reports; anything else counts none. */
function count(value: unknown): number {
  return Number.isSafeInteger(value) && (value as number) >= 0 ? (value as number) : 0;
}

/** ` (code)` for an error body's `{"error": {"code": ...}}` that is an identifier, else nothing. */
function errorCode(body: unknown): string {
  const error = isRecord(body) ? body.error : undefined;
  const code = isRecord(error) ? error.code : undefined;
  return typeof code === 'string' && ERROR_CODE.test(code) ? ` (${code})` : '';
}
