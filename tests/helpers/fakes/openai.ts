import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MS_PER_CHARACTER } from './speech';

export { MS_PER_CHARACTER };

/**
 * A local stand-in for OpenAI's REST API, for the pipeline's LLM (`POST /v1/chat/completions`)
 * and TTS (`POST /v1/audio/speech`). Its base URL is `http://127.0.0.1:<port>/v1`, as OpenAI's is
 * `https://api.openai.com/v1`.
 *
 * The wire format, read at the source: the API reference
 * (https://platform.openai.com/docs/api-reference/chat/create, /chat-streaming, /audio/createSpeech)
 * as the official SDK models it (openai-node 6.49.0: src/resources/chat/completions/completions.ts,
 * src/resources/audio/speech.ts), real streams recorded in openai/openai-go's
 * streamaccumulator_test.go, and the error bodies of https://platform.openai.com/docs/guides/error-codes.
 * - A missing or wrong bearer key: 401 with OpenAI's error JSON (the wrong key's message quotes
 *   its ends, as OpenAI's does).
 * - Chat: streamed as `data: {chat.completion.chunk}\n\n` events: the role first, the text in
 *   several deltas, each tool call as a first delta (index, id, type, name, empty arguments) and
 *   argument fragments (index and arguments only), a last delta with `finish_reason`, then with
 *   `stream_options.include_usage` a chunk with `choices: []` and the usage (the others carry
 *   `usage: null`), then `data: [DONE]`. Unstreamed, one `chat.completion` object.
 * - Speech: `pcm` only (24 kHz, 16-bit signed little-endian, mono), streamed in chunks whose
 *   sizes are odd at times, MS_PER_CHARACTER of a tone per character of the input (divided by
 *   `speed`); see `fakeSpeech`.
 * - Requests the real API refuses are refused with 400 and its error shape: a missing model, no
 *   messages, `stream_options` without `stream`, an empty `tools` array, a tool message that
 *   answers no tool call, a temperature out of 0..2, a temperature for a reasoning model (gpt-5,
 *   o-series) or a `reasoning_effort` for any other; an unknown voice, input over 4096
 *   characters, a speed out of 0.25..4.
 * - Each reply is scripted (`chat`, `speech`): its timing, and a stall, a reset, a clean early
 *   end or an error event midway, or an error status.
 * - Transcription (`POST /v1/audio/transcriptions`, src/resources/audio/transcriptions.ts):
 *   multipart `file` (read for real: a RIFF/WAVE header of 16 kHz mono 16-bit PCM, else 400),
 *   `model`, `language`, `response_format` `json` -> `{text}`. It cannot recognise words, so
 *   each answer is scripted (`transcriptions`, in order; '' once they run out), after
 *   `transcriptionMs` (a server's fixed time), and the file's seconds and loudness are kept.
 */

export interface ChatReply {
  text?: string;
  toolCalls?: { name: string; arguments: string }[];
  /**
   * The tool calls' argument fragments alternate between the calls. OpenAI sends one call's
   * deltas after the other's; some OpenAI-compatible servers do not.
   */
  interleave?: boolean;
  /** Wait before the first chunk (the headers go out at once), and between chunks. */
  firstTokenMs?: number;
  tokenMs?: number;
  /** Default: prompt tokens from the messages' length, completion tokens one per delta. */
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** No answer at all, not even the headers. */
  stall?: boolean;
  /** The connection is reset halfway through the chunks. */
  drop?: boolean;
  /** The response ends cleanly halfway through the chunks: no `finish_reason`, no `[DONE]`. */
  truncate?: boolean;
  /** Halfway through, an `error` event ends the stream, as OpenAI's does when it fails after it started. */
  streamError?: boolean;
  /** Answer this HTTP status with OpenAI's error body for it. */
  status?: number;
}

export interface SpeechReply {
  /** Wait before the first bytes (the headers go out at once), and between chunks. */
  firstByteMs?: number;
  chunkMs?: number;
  stall?: boolean;
  /** The connection is reset halfway through the audio. */
  drop?: boolean;
  status?: number;
}

export interface TranscriptionReply {
  text?: string;
  /** Wait before answering, over `transcriptionMs`. */
  latencyMs?: number;
  stall?: boolean;
  status?: number;
}

/** A transcription request as the fake read it. */
export interface TranscriptionRequest {
  headers: IncomingHttpHeaders;
  model: string;
  language: string | null;
  responseFormat: string | null;
  /** The WAV's seconds, and its RMS (0..32767): whether the turn held sound. */
  seconds: number;
  rms: number;
}

export interface FakeRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, any>;
  /** Settles when the exchange is over: `completed` when the whole response went out, `closed` when the connection ended first. */
  outcome: Promise<'completed' | 'closed'>;
}

export interface FakeOpenAi {
  /** The base URL: `http://127.0.0.1:<port>/v1`. */
  url: string;
  /** What the next chat completions answer, in order; a function gets the request's body. */
  chat: (ChatReply | ((body: Record<string, any>) => ChatReply))[];
  /** The answer once `chat` is empty. */
  defaultChat: (body: Record<string, any>) => ChatReply;
  speech: (SpeechReply | ((body: Record<string, any>) => SpeechReply))[];
  defaultSpeech: (body: Record<string, any>) => SpeechReply;
  /** Requests that passed the key check and the body's validation, by endpoint. */
  chatRequests: FakeRequest[];
  speechRequests: FakeRequest[];
  /** Any voice name is taken (a hosted server's own voices, such as Kokoro's `af_bella`), not only OpenAI's. */
  anyVoice: boolean;
  /** What the next transcriptions answer, in order. */
  transcriptions: (TranscriptionReply | string)[];
  /** The answer once `transcriptions` is empty ('' by default: no words). */
  defaultTranscription: () => TranscriptionReply | string;
  /** Every transcription's fixed time (a server's own), in ms. */
  transcriptionMs: number;
  transcriptionRequests: TranscriptionRequest[];
  /** Resolves with the `n`th (0-based) speech request once it came. */
  speechRequest(n: number): Promise<FakeRequest>;
  close(): Promise<void>;
}

/** The audio the fake speaks per character of input, at speed 1. */
export const SPEECH_RATE = 24_000;
const SAMPLES_PER_CHARACTER = (SPEECH_RATE * MS_PER_CHARACTER) / 1000;

/**
 * The fake's speech for `input`: a 60 ms tone per character, its pitch from the character, so
 * that pieces spoken out of order, or joined wrong, do not give the same signal.
 */
export function fakeSpeech(input: string, speed = 1): Int16Array {
  const perCharacter = Math.round(SAMPLES_PER_CHARACTER / speed);
  const pcm = new Int16Array(input.length * perCharacter);
  for (let c = 0; c < input.length; c++) {
    const hz = 300 + (input.charCodeAt(c) % 16) * 50;
    for (let i = 0; i < perCharacter; i++) pcm[c * perCharacter + i] = Math.round(6000 * Math.sin((2 * Math.PI * hz * i) / SPEECH_RATE));
  }
  return pcm;
}

/** Chunk sizes the speech goes out in, in turn: odd ones split a sample across two chunks. */
const CHUNK_BYTES = [4801, 3200, 1999, 4096];

/** Voices the API accepts by name (src/resources/audio/speech.ts). */
const VOICES = new Set(['alloy', 'ash', 'ballad', 'coral', 'echo', 'fable', 'onyx', 'nova', 'sage', 'shimmer', 'verse', 'marin', 'cedar']);

/** OpenAI's error body for a status the script asks for. */
const ERRORS: Record<number, { message: string; type: string; code: string | null }> = {
  400: { message: 'Invalid request.', type: 'invalid_request_error', code: null },
  401: { message: 'Incorrect API key provided: sk-proj-********wxyz.', type: 'invalid_request_error', code: 'invalid_api_key' },
  403: { message: 'Country, region, or territory not supported', type: 'request_forbidden', code: 'unsupported_country_region_territory' },
  404: { message: 'The model does not exist or you do not have access to it.', type: 'invalid_request_error', code: 'model_not_found' },
  429: { message: 'Rate limit reached for requests. Please try again in 20s.', type: 'requests', code: 'rate_limit_exceeded' },
  500: { message: 'The server had an error while processing your request. Sorry about that!', type: 'server_error', code: null },
  503: { message: 'The engine is currently overloaded, please try again later', type: 'server_error', code: null },
};

class Refusal {
  constructor(
    readonly status: number,
    readonly message: string,
    readonly param: string | null = null,
    readonly code: string | null = null,
    readonly type = 'invalid_request_error',
  ) {}
}

function sendError(res: ServerResponse, { status, message, type, param, code }: Refusal): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-request-id': requestId() });
  res.end(JSON.stringify({ error: { message, type, param, code } }, null, 2));
}

const requestId = () => `req_${Math.random().toString(16).slice(2).padEnd(32, '0')}`;

/** OpenAI's 401s: the wrong key's message shows its first 8 and last 4 characters. */
function keyRefusal(authorization: string | undefined): Refusal {
  const given = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
  if (!given) {
    return new Refusal(
      401,
      "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username and password. You can obtain an API key from https://platform.openai.com/account/api-keys.",
    );
  }
  const masked = `${given.slice(0, 8)}${'*'.repeat(Math.max(given.length - 12, 0))}${given.slice(-4)}`;
  return new Refusal(401, `Incorrect API key provided: ${masked}. You can find your API key at https://platform.openai.com/account/api-keys.`, null, 'invalid_api_key');
}

function checkChat(body: Record<string, any>): void {
  if (typeof body.model !== 'string' || !body.model) throw new Refusal(400, 'you must provide a model parameter');
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    throw new Refusal(400, "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.", 'messages', 'empty_array');
  }
  const answered = new Set<string>();
  for (const [i, message] of body.messages.entries()) {
    if (!['system', 'developer', 'user', 'assistant', 'tool'].includes(message?.role)) {
      throw new Refusal(400, `Invalid value: '${message?.role}'. Supported values are: 'system', 'assistant', 'user', 'tool', 'function', and 'developer'.`, `messages[${i}].role`, 'invalid_value');
    }
    for (const call of message.tool_calls ?? []) answered.add(call.id);
    if (message.role === 'tool' && !answered.has(message.tool_call_id)) {
      throw new Refusal(400, "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", `messages.[${i}].role`);
    }
  }
  // Every tool call is answered by the tool messages that follow it, before anything else.
  for (const [i, message] of body.messages.entries()) {
    const owed = new Set<string>((message.tool_calls ?? []).map((call: any) => call.id));
    for (let j = i + 1; j < body.messages.length && body.messages[j].role === 'tool'; j++) owed.delete(body.messages[j].tool_call_id);
    if (owed.size > 0) {
      throw new Refusal(
        400,
        `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...owed].join(', ')}`,
        `messages.[${i + 1}].role`,
      );
    }
  }
  if (body.stream_options != null && body.stream !== true) {
    throw new Refusal(400, "The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'stream_options', 'invalid_value');
  }
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools) || body.tools.length === 0) {
      throw new Refusal(400, "Invalid 'tools': empty array. Expected an array with minimum length 1, but got an empty array instead.", 'tools', 'empty_array');
    }
    for (const [i, tool] of body.tools.entries()) {
      if (tool?.type !== 'function' || !/^[a-zA-Z0-9_-]{1,64}$/.test(tool.function?.name ?? '')) {
        throw new Refusal(400, `Invalid 'tools[${i}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`, `tools[${i}].function.name`, 'invalid_value');
      }
    }
  }
  if (body.temperature !== undefined && !(typeof body.temperature === 'number' && body.temperature >= 0 && body.temperature <= 2)) {
    throw new Refusal(400, `Invalid 'temperature': decimal above maximum value. Expected a value <= 2, but got ${body.temperature} instead.`, 'temperature', 'decimal_above_max_value');
  }
  checkReasoning(body);
  checkResponseFormat(body);
}

/**
 * `response_format` as the API takes it (openai-node src/resources/shared.ts ResponseFormatText,
 * ResponseFormatJSONObject, ResponseFormatJSONSchema): a json_schema format has a name of at most
 * 64 letters, digits, `_` or `-`, and a schema object; strict structured outputs want every
 * object's properties all `required` and `additionalProperties: false`.
 */
function checkResponseFormat(body: Record<string, any>): void {
  const format = body.response_format;
  if (format === undefined) return;
  if (!['text', 'json_object', 'json_schema'].includes(format?.type)) {
    throw new Refusal(400, `Invalid value: '${format?.type}'. Supported values are: 'text', 'json_object', and 'json_schema'.`, 'response_format.type', 'invalid_value');
  }
  if (format.type !== 'json_schema') return;
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(format.json_schema?.name ?? '')) {
    throw new Refusal(400, "Invalid 'response_format.json_schema.name': string does not match pattern.", 'response_format.json_schema.name', 'invalid_value');
  }
  const schema = format.json_schema.schema;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) throw new Refusal(400, "Missing required parameter: 'response_format.json_schema.schema'.", 'response_format.json_schema.schema');
  if (format.json_schema.strict !== true) return;
  const strictObjects = (node: any, path: string): void => {
    if (typeof node !== 'object' || node === null) return;
    if (node.type === 'object') {
      const properties = Object.keys(node.properties ?? {});
      if (node.additionalProperties !== false || properties.some((name) => !(node.required ?? []).includes(name))) {
        throw new Refusal(400, `Invalid schema for response_format '${format.json_schema.name}': In context=${path}, 'additionalProperties' is required to be supplied and to be false, and 'required' must list every property.`, 'response_format', 'invalid_value');
      }
      for (const [name, child] of Object.entries(node.properties ?? {})) strictObjects(child, `${path}.${name}`);
    }
    if (node.items) strictObjects(node.items, `${path}[]`);
  };
  strictObjects(schema, '()');
}

/** OpenAI's reasoning models, by name: the gpt-5 family and the o-series. */
const REASONING_MODEL = /^(gpt-5|o\d)/;
const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high'];

/**
 * A reasoning model refuses a temperature other than its default (1), and the others refuse
 * `reasoning_effort`, with OpenAI's own 400s (as reported from the API in
 * gabrii/Cursor-Azure-GPT-5#33 and QwenLM/qwen-code#921: `unsupported_value`; and
 * `unsupported_parameter` for a parameter the model does not take).
 */
function checkReasoning(body: Record<string, any>): void {
  const reasoning = REASONING_MODEL.test(body.model);
  if (reasoning && body.temperature !== undefined && body.temperature !== 1) {
    throw new Refusal(400, `Unsupported value: 'temperature' does not support ${body.temperature} with this model. Only the default (1) value is supported.`, 'temperature', 'unsupported_value');
  }
  if (body.reasoning_effort === undefined) return;
  if (!reasoning) throw new Refusal(400, "Unsupported parameter: 'reasoning_effort' is not supported with this model.", 'reasoning_effort', 'unsupported_parameter');
  if (!REASONING_EFFORTS.includes(body.reasoning_effort)) {
    throw new Refusal(400, `Invalid value: '${body.reasoning_effort}'. Supported values are: ${REASONING_EFFORTS.map((v) => `'${v}'`).join(', ')}.`, 'reasoning_effort', 'invalid_value');
  }
}

function checkSpeech(body: Record<string, any>, anyVoice: boolean): void {
  if (typeof body.model !== 'string' || !body.model) throw new Refusal(400, 'you must provide a model parameter');
  if (typeof body.input !== 'string' || !body.input) throw new Refusal(400, "Invalid 'input': string too short.", 'input', 'string_below_min_length');
  if (body.input.length > 4096) {
    throw new Refusal(400, `Invalid 'input': string too long. Expected a string with maximum length 4096, but got a string with length ${body.input.length} instead.`, 'input', 'string_above_max_length');
  }
  if (!(VOICES.has(body.voice) || typeof body.voice?.id === 'string' || (anyVoice && typeof body.voice === 'string' && body.voice))) {
    throw new Refusal(400, `Invalid value: '${body.voice}'. Supported values are: ${[...VOICES].map((v) => `'${v}'`).join(', ')}.`, 'voice', 'invalid_value');
  }
  if (body.speed !== undefined && !(typeof body.speed === 'number' && body.speed >= 0.25 && body.speed <= 4)) {
    throw new Refusal(400, `Invalid 'speed': expected a value between 0.25 and 4.0, but got ${body.speed} instead.`, 'speed', 'invalid_value');
  }
  // The fake speaks only what the pipeline asks for; the API also has mp3, opus, aac, flac, wav and SSE.
  if (body.response_format !== 'pcm' || (body.stream_format ?? 'audio') !== 'audio') {
    throw new Refusal(400, 'The fake speaks response_format pcm, stream_format audio only.', 'response_format');
  }
}

/**
 * Waits `ms`, or less if the connection closes meanwhile; says whether it is still open. No wait
 * at all for 0: what is written in one go reaches the client in one read.
 */
function pause(res: ServerResponse, ms: number): Promise<boolean> {
  if (res.destroyed || ms === 0) return Promise.resolve(!res.destroyed);
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      res.off('close', done);
      resolve(!res.destroyed);
    };
    const timer = setTimeout(done, ms);
    res.on('close', done);
  });
}

let sequence = 0;

/** The deltas of a streamed reply, in order (without the usage chunk). */
function chatDeltas(reply: ChatReply): { delta: Record<string, unknown>; finish_reason: string | null }[] {
  const deltas: { delta: Record<string, unknown>; finish_reason: string | null }[] = [];
  const calls = (reply.toolCalls ?? []).map((call, index) => ({ index, id: `call_fake${++sequence}`, ...call, fragments: call.arguments.match(/[^]{1,5}/g) ?? [] }));
  const starts = calls.map(({ index, id, name }) => ({ index, id, type: 'function', function: { name, arguments: '' } }));
  if (reply.text || !calls.length) {
    deltas.push({ delta: { role: 'assistant', content: '', refusal: null }, finish_reason: null });
    for (const word of (reply.text ?? '').match(/\S*\s*/g)!.filter(Boolean)) deltas.push({ delta: { content: word }, finish_reason: null });
  }
  const fragment = (call: (typeof calls)[number], f: number) => ({ delta: { tool_calls: [{ index: call.index, function: { arguments: call.fragments[f] } }] }, finish_reason: null });
  if (reply.interleave) {
    for (const start of starts) deltas.push({ delta: { tool_calls: [start] }, finish_reason: null });
    for (let f = 0; calls.some((call) => f < call.fragments.length); f++) {
      for (const call of calls) if (f < call.fragments.length) deltas.push(fragment(call, f));
    }
  } else {
    for (const call of calls) {
      deltas.push({ delta: { tool_calls: [starts[call.index]] }, finish_reason: null });
      for (let f = 0; f < call.fragments.length; f++) deltas.push(fragment(call, f));
    }
  }
  // A reply of tool calls only opens with the role on the first call's delta, as OpenAI's does.
  if (!reply.text && calls.length) Object.assign(deltas[0].delta, { role: 'assistant', content: null, refusal: null });
  deltas.push({ delta: {}, finish_reason: calls.length ? 'tool_calls' : 'stop' });
  return deltas;
}

function usageOf(reply: ChatReply, body: Record<string, any>, deltas: ReturnType<typeof chatDeltas>) {
  const { prompt_tokens, completion_tokens } = reply.usage ?? {
    prompt_tokens: Math.ceil(JSON.stringify(body.messages).length / 4),
    completion_tokens: deltas.filter(({ delta }) => delta.content || delta.tool_calls).length,
  };
  return {
    prompt_tokens,
    completion_tokens,
    total_tokens: prompt_tokens + completion_tokens,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

async function answerChat(res: ServerResponse, body: Record<string, any>, reply: ChatReply): Promise<void> {
  const id = `chatcmpl-fake${++sequence}`;
  const created = Math.floor(Date.now() / 1000);
  const common = { id, created, model: body.model, service_tier: 'default', system_fingerprint: 'fp_fake' };
  const deltas = chatDeltas(reply);
  const usage = usageOf(reply, body, deltas);
  if (body.stream !== true) {
    if (!(await pause(res, reply.firstTokenMs ?? 0))) return;
    if (reply.drop) return void res.socket?.destroy();
    const ids = deltas.flatMap(({ delta }) => (delta.tool_calls as { id?: string }[] | undefined) ?? []).flatMap(({ id }) => (id ? [id] : []));
    res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': requestId() });
    res.end(
      JSON.stringify({
        ...common,
        object: 'chat.completion',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: reply.text ?? null,
              refusal: null,
              annotations: [],
              ...(ids.length ? { tool_calls: reply.toolCalls!.map((call, i) => ({ id: ids[i], type: 'function', function: call })) } : {}),
            },
            logprobs: null,
            finish_reason: deltas.at(-1)!.finish_reason,
          },
        ],
        usage,
      }),
    );
    return;
  }
  const includeUsage = body.stream_options?.include_usage === true;
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-request-id': requestId() });
  res.flushHeaders();
  const send = (chunk: Record<string, unknown>) => res.write(`data: ${JSON.stringify({ ...common, object: 'chat.completion.chunk', ...chunk })}\n\n`);
  const half = Math.floor(deltas.length / 2);
  for (const [i, { delta, finish_reason }] of deltas.entries()) {
    if (!(await pause(res, i === 0 ? (reply.firstTokenMs ?? 0) : (reply.tokenMs ?? 0)))) return;
    if (i === half && reply.drop) return void res.socket?.destroy();
    if (i === half && reply.truncate) return void res.end();
    if (i === half && reply.streamError) {
      const { message, type, code } = ERRORS[500];
      return void res.end(`data: ${JSON.stringify({ error: { message, type, param: null, code } })}\n\n`);
    }
    send({ choices: [{ index: 0, delta, logprobs: null, finish_reason }], ...(includeUsage ? { usage: null } : {}) });
  }
  if (includeUsage) send({ choices: [], usage });
  res.end('data: [DONE]\n\n');
}

/** The `file` of a multipart transcription request, checked as the real API checks what it can decode. */
async function readTranscription(req: IncomingMessage, body: Buffer): Promise<Omit<TranscriptionRequest, 'headers'>> {
  let form: FormData;
  try {
    form = await new Response(body, { headers: { 'content-type': req.headers['content-type'] ?? '' } }).formData();
  } catch {
    throw new Refusal(400, 'Could not parse multipart form');
  }
  const file = form.get('file');
  const model = form.get('model');
  if (typeof model !== 'string' || !model) throw new Refusal(400, 'you must provide a model parameter');
  if (!(file instanceof Blob)) throw new Refusal(400, "Missing required parameter: 'file'.", 'file');
  const wav = Buffer.from(await file.arrayBuffer());
  const ok =
    wav.length >= 44 &&
    wav.toString('ascii', 0, 4) === 'RIFF' &&
    wav.toString('ascii', 8, 12) === 'WAVE' &&
    wav.toString('ascii', 12, 16) === 'fmt ' &&
    wav.readUInt16LE(20) === 1 &&
    wav.readUInt16LE(22) === 1 &&
    wav.readUInt32LE(24) === 16_000 &&
    wav.readUInt16LE(34) === 16 &&
    wav.toString('ascii', 36, 40) === 'data' &&
    wav.readUInt32LE(40) === wav.length - 44;
  if (!ok) throw new Refusal(400, 'The audio file could not be decoded or its format is not supported.', 'file', 'invalid_value');
  const samples = (wav.length - 44) / 2;
  let energy = 0;
  for (let i = 0; i < samples; i++) energy += wav.readInt16LE(44 + i * 2) ** 2;
  const field = (name: string) => (typeof form.get(name) === 'string' ? (form.get(name) as string) : null);
  return { model, language: field('language'), responseFormat: field('response_format'), seconds: samples / 16_000, rms: samples ? Math.sqrt(energy / samples) : 0 };
}

async function answerSpeech(res: ServerResponse, body: Record<string, any>, reply: SpeechReply): Promise<void> {
  const pcm = fakeSpeech(body.input, body.speed ?? 1);
  const bytes = Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);
  res.writeHead(200, { 'content-type': 'audio/pcm', 'x-request-id': requestId() });
  res.flushHeaders();
  for (let at = 0, n = 0; at < bytes.length; n++) {
    if (!(await pause(res, n === 0 ? (reply.firstByteMs ?? 0) : (reply.chunkMs ?? 0)))) return;
    if (reply.drop && at >= bytes.length / 2) return void res.socket?.destroy();
    const size = CHUNK_BYTES[n % CHUNK_BYTES.length];
    res.write(bytes.subarray(at, at + size));
    at += size;
  }
  res.end();
}

export async function startFakeOpenAi(apiKey: string): Promise<FakeOpenAi> {
  const waiters: { n: number; resolve: (request: FakeRequest) => void }[] = [];
  const fake: FakeOpenAi = {
    url: '',
    chat: [],
    defaultChat: () => ({ text: 'Hello! How can I help you today?' }),
    speech: [],
    defaultSpeech: () => ({}),
    chatRequests: [],
    speechRequests: [],
    anyVoice: false,
    transcriptions: [],
    defaultTranscription: () => '',
    transcriptionMs: 0,
    transcriptionRequests: [],
    speechRequest(n) {
      if (fake.speechRequests[n]) return Promise.resolve(fake.speechRequests[n]);
      return new Promise((resolve) => waiters.push({ n, resolve }));
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const route = `${req.method} ${req.url}`;
    if (route !== 'POST /v1/chat/completions' && route !== 'POST /v1/audio/speech' && route !== 'POST /v1/audio/transcriptions') {
      throw new Refusal(404, `Invalid URL (${req.method} ${req.url?.replace(/^\/v1/, '')})`);
    }
    if (req.headers.authorization !== `Bearer ${apiKey}`) throw keyRefusal(req.headers.authorization);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (route === 'POST /v1/audio/transcriptions') {
      const heard = await readTranscription(req, Buffer.concat(chunks));
      fake.transcriptionRequests.push({ headers: req.headers, ...heard });
      const scripted = fake.transcriptions.shift() ?? fake.defaultTranscription();
      const reply = typeof scripted === 'string' ? { text: scripted } : scripted;
      if (reply.stall) return;
      if (!(await pause(res, fake.transcriptionMs + (reply.latencyMs ?? 0)))) return;
      if (reply.status) {
        const { message, type, code } = ERRORS[reply.status] ?? ERRORS[500];
        throw new Refusal(reply.status, message, null, code, type);
      }
      res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': requestId() });
      return void res.end(JSON.stringify({ text: reply.text ?? '' }));
    }
    let body: Record<string, any>;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      throw new Refusal(400, 'We could not parse the JSON body of your request. (HINT: This likely means you aren\'t using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)');
    }
    const chat = route === 'POST /v1/chat/completions';
    if (chat) checkChat(body);
    else checkSpeech(body, fake.anyVoice);
    const outcome = new Promise<'completed' | 'closed'>((resolve) => res.on('close', () => resolve(res.writableFinished ? 'completed' : 'closed')));
    const request: FakeRequest = { path: req.url!, headers: req.headers, body, outcome };
    const scripted = chat ? (fake.chat.shift() ?? fake.defaultChat) : (fake.speech.shift() ?? fake.defaultSpeech);
    const reply = typeof scripted === 'function' ? scripted(body) : scripted;
    if (chat) {
      fake.chatRequests.push(request);
    } else {
      fake.speechRequests.push(request);
      for (const waiter of waiters.filter((w) => w.n < fake.speechRequests.length)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(fake.speechRequests[waiter.n]);
      }
    }
    if (reply.stall) return;
    if (reply.status) {
      const { message, type, code } = ERRORS[reply.status] ?? ERRORS[500];
      throw new Refusal(reply.status, message, null, code, type);
    }
    await (chat ? answerChat(res, body, reply as ChatReply) : answerSpeech(res, body, reply as SpeechReply));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      if (error instanceof Refusal) return sendError(res, error);
      res.destroy(error);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return fake;
}
