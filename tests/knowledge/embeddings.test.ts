import { loadConfig } from '../../src/config';
import { EmbeddingsError, OpenAiEmbedder } from '../../src/documents/openai.embedder';
import { DIMENSIONS, fakeEmbeddings, fakeVector, type FakeEmbeddings } from '../helpers/fakes/embeddings';

/**
 * The embeddings adapter (src/documents/openai.embedder.ts) against a local OpenAI-compatible
 * `/embeddings`, and its configuration (EMBEDDINGS_*).
 */
let fake: FakeEmbeddings;
beforeEach(async () => {
  fake = await fakeEmbeddings();
});
afterEach(() => fake.close());

const embedder = (options: { batch?: number; timeoutMs?: number } = {}) => new OpenAiEmbedder({ model: 'text-embedding-3-small', url: fake.url, apiKey: 'sk-test', ...options });

describe('the embeddings adapter', () => {
  it('asks for base64 float32 in batches, and answers each text’s vector in the texts’ order', async () => {
    const texts = ['quanto custa', 'o valor da mensalidade', 'horário de funcionamento', 'frete grátis', 'outra coisa'];
    const vectors = await embedder({ batch: 2 }).embed(texts);
    expect(vectors.map((vector) => Array.from(vector))).toEqual(texts.map((text) => Array.from(fakeVector(text))));
    expect(fake.requests.map(({ model, input, encoding_format, authorization }) => ({ model, input, encoding_format, authorization }))).toEqual([
      { model: 'text-embedding-3-small', input: texts.slice(0, 2), encoding_format: 'base64', authorization: 'Bearer sk-test' },
      { model: 'text-embedding-3-small', input: texts.slice(2, 4), encoding_format: 'base64', authorization: 'Bearer sk-test' },
      { model: 'text-embedding-3-small', input: texts.slice(4), encoding_format: 'base64', authorization: 'Bearer sk-test' },
    ]);
  });

  it('takes a plain array of numbers from a server that ignores encoding_format', async () => {
    fake.script.push({ kind: 'float' });
    const [vector] = await embedder().embed(['quanto custa']);
    expect(Array.from(vector)).toEqual(Array.from(fakeVector('quanto custa')));
  });

  it('tries a 429 or a 5xx once more after its Retry-After, and fails on the second, without the vendor’s words', async () => {
    fake.script.push({ kind: 'status', status: 429, retryAfter: '0' });
    expect(await embedder().embed(['a'])).toHaveLength(1);
    expect(fake.requests).toHaveLength(2);
    fake.script.push({ kind: 'status', status: 503 }, { kind: 'status', status: 503 });
    const error = await embedder().embed(['a']).catch((caught) => caught);
    expect(error).toBeInstanceOf(EmbeddingsError);
    expect(error.message).toMatch(/^embeddings \(127\.0\.0\.1:\d+\) answered HTTP 503 \(rate_limit_exceeded\)$/);
    expect(error.message).not.toContain('sk-');
    expect(fake.requests).toHaveLength(4);
    // A refusal (a bad key, a bad request) is not tried again.
    fake.script.push({ kind: 'status', status: 400 });
    await expect(embedder().embed(['a'])).rejects.toThrow(/answered HTTP 400/);
    expect(fake.requests).toHaveLength(5);
  });

  it('refuses an answer with a wrong count, vectors of two lengths, a NaN or a huge body, with a clear error', async () => {
    const cases: [FakeEmbeddings['script'][number], RegExp][] = [
      [{ kind: 'count' }, /answered 1 vectors for 2 texts/],
      [{ kind: 'nan' }, /not a finite number/],
      [{ kind: 'huge' }, /an answer of more than \d+ bytes/],
    ];
    for (const [step, message] of cases) {
      fake.script.push(step);
      await expect(embedder().embed(['quanto custa', 'frete'])).rejects.toThrow(message);
    }
    // Two batches of different lengths: not one model's vectors.
    fake.script.push({ kind: 'normal' }, { kind: 'dimensions' });
    await expect(embedder({ batch: 1 }).embed(['a', 'b'])).rejects.toThrow(`vectors of ${DIMENSIONS + 1} dimensions after ${DIMENSIONS}`);
  });

  it('gives up after its timeout, and on a connection reset, with one more try each', async () => {
    fake.script.push({ kind: 'delay', ms: 500 }, { kind: 'delay', ms: 500 });
    await expect(embedder({ timeoutMs: 100 }).embed(['a'])).rejects.toThrow(/no complete answer within 100 ms/);
    fake.script.length = 0;
    fake.script.push({ kind: 'reset' });
    expect(await embedder().embed(['a'])).toHaveLength(1);
  });
});

describe('EMBEDDINGS_* configuration', () => {
  it('is off without EMBEDDINGS_MODEL, defaults to OpenAI’s URL and key, and refuses a model without a key', () => {
    expect(loadConfig({}).embeddings).toBeNull();
    expect(loadConfig({ EMBEDDINGS_MODEL: 'text-embedding-3-small', OPENAI_API_KEY: 'sk-o', OPENAI_BASE_URL: 'http://llm:8000/v1/' }).embeddings).toEqual({
      model: 'text-embedding-3-small',
      url: 'http://llm:8000/v1',
      apiKey: 'sk-o',
    });
    expect(
      loadConfig({ EMBEDDINGS_MODEL: 'bge-m3', EMBEDDINGS_BASE_URL: 'http://tei:8080/v1', EMBEDDINGS_API_KEY: 'k', OPENAI_API_KEY: 'sk-o' }).embeddings,
    ).toEqual({ model: 'bge-m3', url: 'http://tei:8080/v1', apiKey: 'k' });
    expect(() => loadConfig({ EMBEDDINGS_MODEL: 'text-embedding-3-small' })).toThrow('EMBEDDINGS_MODEL needs EMBEDDINGS_API_KEY (or OPENAI_API_KEY)');
    let message = '';
    try {
      loadConfig({ EMBEDDINGS_BASE_URL: 'ftp://x', EMBEDDINGS_API_KEY: 'secret-key', EMBEDDINGS_MODEL: 'x'.repeat(201) });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('EMBEDDINGS_BASE_URL must be an http(s) URL');
    expect(message).toContain('EMBEDDINGS_MODEL must be a model');
    expect(message).not.toContain('secret-key');
  });
});
