import type { VendorAccess } from '../config';
import type { Embedder } from '../modules/knowledge/knowledge.ports';
import { retryWaitMs } from '../voice/services/fallback.llm';
import { httpTransient, retryAfterMs } from '../voice/services/service';

/**
 * The OpenAI-compatible embeddings API (EMBEDDINGS_MODEL), read at the source: OpenAI's API
 * reference, "Create embeddings" (openapi.yaml's CreateEmbeddingRequest and
 * CreateEmbeddingResponse): `POST {base}/embeddings` with `{model, input: string[],
 * encoding_format}`, answered `{object: "list", data: [{object: "embedding", index,
 * embedding}], model, usage}`; an input array holds at most 2048 items, none empty.
 * `encoding_format: "base64"` answers each vector as its float32 values, little-endian, in
 * base64 (what the official SDKs ask for: a quarter of the bytes of decimal text); servers
 * customers host may ignore it and answer a plain array of numbers, which is taken too.
 *
 * Every answer is untrusted: a wrong count or index, vectors of different lengths, a value that
 * is not a finite number, or a body past its bound is refused with an EmbeddingsError whose
 * message names what was wrong, never the vendor's text nor the key.
 */

/**
 * Texts per request: LlamaIndex's OpenAIEmbedding sends 100 (its embed_batch_size), well under
 * OpenAI's 2048 inputs and its limit on the tokens of a request (100 chunks of 800 characters
 * are about 20,000 tokens); a failed request then costs 100 texts' work, not 2048.
 */
export const EMBED_BATCH = 100;
/** The longest vector taken: OpenAI's largest model answers 3072, open models up to 4096. */
export const MAX_DIMENSIONS = 8192;
/** How long one request may take, connect to last byte. */
export const EMBED_TIMEOUT_MS = 30_000;
/** Bytes an answer may have per input: MAX_DIMENSIONS numbers as decimal text ("-0.012345678901234567,"). */
const BYTES_PER_INPUT = MAX_DIMENSIONS * 24 + 1024;

export class EmbeddingsError extends Error {
  constructor(
    message: string,
    /** A second attempt may succeed (a connection error, a timeout, a 429, a 5xx), and the wait the vendor asked for. */
    readonly transient: { retryAfterMs: number | null } | null = null,
  ) {
    super(message);
    this.name = 'EmbeddingsError';
  }
}

export interface OpenAiEmbedderOptions extends VendorAccess {
  model: string;
  timeoutMs?: number;
  batch?: number;
}

const ERROR_CODE = /^[\w.-]{1,64}$/;

export class OpenAiEmbedder implements Embedder {
  readonly model: string;
  private readonly endpoint: string;
  private readonly vendor: string;

  constructor(private readonly options: OpenAiEmbedderOptions) {
    this.model = options.model;
    this.endpoint = `${options.url.replace(/\/+$/, '')}/embeddings`;
    this.vendor = `embeddings (${new URL(options.url).host})`;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const batch = this.options.batch ?? EMBED_BATCH;
    const vectors: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += batch) {
      const answered = await this.withRetry(texts.slice(start, start + batch));
      // Vectors of two lengths cannot be compared: one model answers one length.
      if (vectors.length > 0 && answered[0].length !== vectors[0].length) {
        throw new EmbeddingsError(`${this.vendor} answered vectors of ${answered[0].length} dimensions after ${vectors[0].length}`);
      }
      vectors.push(...answered);
    }
    return vectors;
  }

  /** One request, and once more after a transient failure (after its Retry-After, at most 1 s). */
  private async withRetry(texts: string[]): Promise<Float32Array[]> {
    try {
      return await this.request(texts);
    } catch (error) {
      const transient = error instanceof EmbeddingsError ? error.transient : null;
      if (!transient) throw error;
      await new Promise((resolve) => setTimeout(resolve, retryWaitMs(transient)));
      return this.request(texts);
    }
  }

  private async request(texts: string[]): Promise<Float32Array[]> {
    const timeoutMs = this.options.timeoutMs ?? EMBED_TIMEOUT_MS;
    const signal = AbortSignal.timeout(timeoutMs);
    let response: Response;
    let body: string;
    try {
      response = await fetch(this.endpoint, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.options.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: this.model, input: texts, encoding_format: 'base64' }),
        signal,
        redirect: 'error',
      });
      body = await readBounded(response, texts.length * BYTES_PER_INPUT + 64 * 1024);
    } catch (error) {
      if (error instanceof EmbeddingsError) throw error;
      const timedOut = signal.aborted;
      throw new EmbeddingsError(`${this.vendor}: ${timedOut ? `no complete answer within ${timeoutMs} ms` : 'the connection failed'}`, { retryAfterMs: null });
    }
    if (response.status !== 200) {
      const transient = httpTransient(response.status, undefined) && { retryAfterMs: retryAfterMs(response.headers) };
      throw new EmbeddingsError(`${this.vendor} answered HTTP ${response.status}${errorCode(body)}`, transient);
    }
    return parseAnswer(body, texts.length, this.vendor);
  }
}

/** ` (code)` of an OpenAI error body `{"error": {code}}` when it is an identifier; the vendor's message is never repeated. */
function errorCode(body: string): string {
  try {
    const code = (JSON.parse(body) as { error?: { code?: unknown } })?.error?.code;
    return typeof code === 'string' && ERROR_CODE.test(code) ? ` (${code})` : '';
  } catch {
    return '';
  }
}

/** The body as text, refused (and the connection dropped) past `max` bytes. */
async function readBounded(response: Response, max: number): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > max) {
    await response.body?.cancel();
    throw new EmbeddingsError(`embeddings: an answer of ${declared} bytes, more than ${max}`);
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw new EmbeddingsError(`embeddings: an answer of more than ${max} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The vectors of an answer in the inputs' order, or an EmbeddingsError saying what was wrong with it. */
export function parseAnswer(body: string, count: number, vendor: string): Float32Array[] {
  const refuse = (what: string) => new EmbeddingsError(`${vendor} answered ${what}`);
  let answer: unknown;
  try {
    answer = JSON.parse(body);
  } catch {
    throw refuse('something that is not JSON');
  }
  const data = (answer as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) throw refuse('no `data` list');
  if (data.length !== count) throw refuse(`${data.length} vectors for ${count} texts`);
  const vectors: (Float32Array | undefined)[] = new Array(count);
  let dimensions = -1;
  for (const item of data) {
    const { index, embedding } = (item ?? {}) as { index?: unknown; embedding?: unknown };
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count || vectors[index]) throw refuse('a missing, repeated or out-of-range `index`');
    const vector = typeof embedding === 'string' ? fromBase64(embedding) : Array.isArray(embedding) ? fromNumbers(embedding) : null;
    if (!vector) throw refuse('an `embedding` that is neither base64 float32 nor a list of numbers');
    if (vector.length === 0 || vector.length > MAX_DIMENSIONS) throw refuse(`a vector of ${vector.length} dimensions (1 to ${MAX_DIMENSIONS} are taken)`);
    if (dimensions >= 0 && vector.length !== dimensions) throw refuse(`vectors of ${dimensions} and ${vector.length} dimensions`);
    dimensions = vector.length;
    for (let i = 0; i < vector.length; i++) if (!Number.isFinite(vector[i])) throw refuse('a value that is not a finite number');
    vectors[index] = vector;
  }
  return vectors as Float32Array[];
}

function fromBase64(text: string): Float32Array | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return null;
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length % 4 !== 0) return null;
  const vector = new Float32Array(bytes.length / 4);
  for (let i = 0; i < vector.length; i++) vector[i] = bytes.readFloatLE(i * 4);
  return vector;
}

function fromNumbers(values: unknown[]): Float32Array | null {
  if (!values.every((value) => typeof value === 'number')) return null;
  return Float32Array.from(values as number[]);
}
