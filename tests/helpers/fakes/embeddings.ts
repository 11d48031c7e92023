import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for OpenAI's `POST /v1/embeddings` (API reference, "Create embeddings":
 * `{model, input: string[], encoding_format}` answered `{object: "list", data: [{object:
 * "embedding", index, embedding}], model, usage: {prompt_tokens, total_tokens}}`;
 * `encoding_format: "base64"`: each vector's float32 values little-endian in base64). A
 * missing bearer key is a 401 in OpenAI's error shape; an empty input, or more than 2048, a 400.
 *
 * Its vectors are deterministic and meaningful enough to test retrieval: each word adds its
 * concept's axis (CONCEPTS: "quanto custa" and "o valor da mensalidade" point the same way,
 * as a real model's would), any other word a small component hashed to one of the rest.
 */
export const DIMENSIONS = 16;

/** Words by the concept (an axis of the first ones) they mean. */
const CONCEPTS: string[][] = [
  ['quanto', 'custa', 'custo', 'preço', 'valor', 'mensalidade', 'mês', 'parcela', 'assinatura', 'pagar', 'cobrado', 'price', 'cost', 'fee'],
  ['horário', 'abre', 'aberto', 'fecha', 'funcionamento', 'hours', 'open'],
  ['cancelar', 'cancelamento', 'encerrar', 'desistir', 'cancel'],
  ['entrega', 'frete', 'envio', 'shipping', 'delivery'],
];

function hash(word: string): number {
  let h = 2166136261;
  for (const char of word) h = Math.imul(h ^ char.codePointAt(0)!, 16777619);
  return h >>> 0;
}

/** The fake model's vector of a text. */
export function fakeVector(text: string, dimensions = DIMENSIONS): Float32Array {
  const vector = new Float32Array(dimensions);
  for (const word of text.toLowerCase().normalize('NFC').match(/\p{L}+/gu) ?? []) {
    const concept = CONCEPTS.findIndex((words) => words.includes(word));
    if (concept >= 0) vector[concept] += 1;
    else vector[CONCEPTS.length + (hash(word) % (dimensions - CONCEPTS.length))] += 0.05;
  }
  return vector;
}

export interface EmbeddingsRequest {
  model: unknown;
  input: unknown;
  encoding_format: unknown;
  authorization: string | undefined;
}

/** What the next answers do, in order (then `normal`). */
export type EmbeddingsScript =
  | { kind: 'normal' }
  | { kind: 'float' }
  | { kind: 'status'; status: number; retryAfter?: string }
  | { kind: 'delay'; ms: number }
  | { kind: 'count' }
  | { kind: 'dimensions' }
  | { kind: 'nan' }
  | { kind: 'huge' }
  | { kind: 'reset' };

export interface FakeEmbeddings {
  /** `http://127.0.0.1:<port>/v1` */
  url: string;
  requests: EmbeddingsRequest[];
  /** Answers to come, in order; each is used once. */
  script: EmbeddingsScript[];
  /** Every answer fails with this status while set. */
  down: number | null;
  close(): Promise<void>;
}

const body = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => resolve(text));
  });

const base64Of = (vector: Float32Array) => Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64');

export async function fakeEmbeddings(options: { dimensions?: number } = {}): Promise<FakeEmbeddings> {
  const dimensions = options.dimensions ?? DIMENSIONS;
  const fake: FakeEmbeddings = { url: '', requests: [], script: [], down: null, close: async () => {} };
  const server: Server = createServer(async (req, res) => {
    const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(payload));
    };
    const error = (status: number, message: string, code: string | null = null) =>
      send(status, { error: { message, type: 'invalid_request_error', param: null, code } });
    if (req.method !== 'POST' || req.url !== '/v1/embeddings') return error(404, 'Not found');
    const parsed = JSON.parse(await body(req));
    fake.requests.push({ model: parsed.model, input: parsed.input, encoding_format: parsed.encoding_format, authorization: req.headers.authorization });
    if (!req.headers.authorization?.startsWith('Bearer ')) return error(401, 'You didn’t provide an API key.');
    const inputs: unknown[] = Array.isArray(parsed.input) ? parsed.input : [parsed.input];
    if (inputs.length === 0 || inputs.length > 2048 || inputs.some((input) => typeof input !== 'string' || input === '')) {
      return error(400, "'$.input' is invalid.");
    }
    if (fake.down !== null) return error(fake.down, 'The server had an error while processing your request.');
    const step = fake.script.shift() ?? { kind: 'normal' };
    if (step.kind === 'status') return send(step.status, { error: { message: 'Rate limit reached for sk-abc...xyz', type: 'requests', param: null, code: 'rate_limit_exceeded' } }, step.retryAfter ? { 'retry-after': step.retryAfter } : {});
    if (step.kind === 'reset') return req.socket.destroy();
    if (step.kind === 'delay') await new Promise((resolve) => setTimeout(resolve, step.ms));
    if (step.kind === 'huge') {
      res.writeHead(200, { 'content-type': 'application/json' });
      const block = '0'.repeat(1024 * 1024);
      for (let i = 0; i < 64 && !res.destroyed; i++) await new Promise((resolve) => res.write(block, resolve));
      return res.end();
    }
    const asFloat = step.kind === 'float' || parsed.encoding_format !== 'base64';
    const vectors = (inputs as string[]).map((input) => fakeVector(input, step.kind === 'dimensions' ? dimensions + 1 : dimensions));
    if (step.kind === 'nan') vectors[0][0] = NaN;
    const data = vectors.map((vector, index) => ({ object: 'embedding', index, embedding: asFloat ? Array.from(vector) : base64Of(vector) }));
    if (step.kind === 'count') data.pop();
    // OpenAI answers in the inputs' order; the client must go by `index` all the same.
    data.reverse();
    const tokens = (inputs as string[]).reduce((sum, input) => sum + Math.ceil(input.length / 4), 0);
    send(200, { object: 'list', data, model: parsed.model, usage: { prompt_tokens: tokens, total_tokens: tokens } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  fake.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}
