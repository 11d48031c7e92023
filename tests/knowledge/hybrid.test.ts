import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';
import { documentReaders } from '../../src/documents';
import { OpenAiEmbedder } from '../../src/documents/openai.embedder';
import { ingestDocumentTask } from '../../src/jobs/tasks/ingest-document';
import { ingestDocument } from '../../src/modules/knowledge/knowledge.ingest';
import { searchBase } from '../../src/modules/knowledge/knowledge.search';
import { RRF_K, unpackVector } from '../../src/modules/knowledge/knowledge.vectors';
import { fakeEmbeddings, fakeVector, type FakeEmbeddings } from '../helpers/fakes/embeddings';

/**
 * Hybrid search (EMBEDDINGS_MODEL): ingestion stores each chunk's vector and the model that
 * made it; search fuses the full-text and vector rankings by reciprocal rank, and falls back to
 * full text when the model fails.
 */
let app: TestApp;
let me: TestAccount;
let fake: FakeEmbeddings;
const readers = documentReaders();
const MODEL = 'fake-embedding-1';

beforeAll(async () => {
  fake = await fakeEmbeddings();
  app = await startTestApp({ embeddings: { model: MODEL, url: fake.url, apiKey: 'sk-test' } });
  me = await app.account();
});
afterAll(async () => {
  await app?.close();
  await fake?.close();
});
beforeEach(() => {
  fake.requests.length = 0;
  fake.script.length = 0;
  fake.down = null;
});

const req = (method: string, path: string, body?: unknown) => app.request(method, `/api${path}`, { token: me.token, body });
const embedder = () => app.runtime.embedder!;

const DOCUMENTS = {
  precos: 'O plano básico sai por R$ 49 por mês e o plano completo por R$ 99; a primeira parcela vence na assinatura.',
  horarios: 'A loja abre de segunda a sexta, das 9h às 18h.',
  entregas: 'Entregamos em todo o Brasil em até 5 dias úteis.',
};

async function baseWith(documents: Record<string, string>, deps = { readers, embedder: embedder() }): Promise<{ id: number; docs: Record<string, number> }> {
  const base = await req('POST', '/user/knowledgebases', { name: 'Base', language: 'portuguese' });
  const id = base.body.data.id;
  const docs: Record<string, number> = {};
  for (const [name, content] of Object.entries(documents)) {
    docs[name] = (await req('POST', `/user/knowledgebases/${id}/documents`, { name, type: 'text', content })).body.data.id;
    await ingestDocument(app.orm.em.fork(), docs[name], deps);
  }
  return { id, docs };
}

const search = async (id: number, q: string, limit = 5) =>
  (await req('GET', `/user/knowledgebases/${id}/search?${new URLSearchParams({ q, limit: String(limit) })}`)).body.data as {
    document_id: number;
    chunk_id: number;
    score: number;
  }[];

describe('hybrid search', () => {
  it('stores each chunk’s vector and the model that made it', async () => {
    const { docs } = await baseWith({ precos: DOCUMENTS.precos });
    const [row] = await app.orm.em.fork().execute('select d.embeddings_model, c.embedding from knowledge_documents d join knowledge_chunks c on c.document_id = d.id where d.id = ?', [docs.precos]);
    expect(row.embeddings_model).toBe(MODEL);
    // Packed float32 values, big-endian as float4send writes them, exactly as the model answered them.
    const answered = fakeVector(DOCUMENTS.precos);
    expect(row.embedding).toBeInstanceOf(Buffer);
    expect(row.embedding).toHaveLength(answered.length * 4);
    expect(unpackVector(row.embedding)).toEqual(answered);
    expect(row.embedding.readFloatBE(4 * answered.findIndex((value) => value !== 0))).toBe(answered.find((value) => value !== 0));
    expect(fake.requests).toEqual([{ model: MODEL, input: [DOCUMENTS.precos], encoding_format: 'base64', authorization: 'Bearer sk-test' }]);
  });

  it('finds the chunk that answers a question sharing no word with it, with embeddings and not without', async () => {
    const { id, docs } = await baseWith(DOCUMENTS);
    // "quanto custa a mensalidade": not a word (nor a stem) of the prices' chunk.
    const question = 'quanto custa a mensalidade?';
    const hits = await search(id, question);
    expect(hits[0].document_id).toBe(docs.precos);
    expect(fake.requests.at(-1)).toEqual({ model: MODEL, input: [question], encoding_format: 'base64', authorization: 'Bearer sk-test' });
    // The score is the fused one: first of the vectors' ranking, in no full-text one.
    expect(hits[0].score).toBeCloseTo(1 / (RRF_K + 1), 10);
    const base = { id, language: 'portuguese' };
    expect(await searchBase(app.orm.em.fork(), base, question, 5)).toEqual([]);
  });

  it('fuses the rankings by reciprocal rank: a chunk in both first, then by the sum of 1/(60 + rank)', async () => {
    const { id, docs } = await baseWith({
      both: 'O prazo de entrega é de 5 dias.',
      words: 'O prazo de validade do cupom é de 30 dias.',
      meaning: 'Frete e envio para todo o Brasil.',
    });
    const hits = await search(id, 'prazo de entrega');
    // Full text: `both` (every word), then `words` (some); vectors: `both` and `meaning` (the delivery concept), then `words`.
    expect(hits.map((hit) => hit.document_id)).toEqual([docs.both, docs.words, docs.meaning]);
    const rrf = (...ranks: number[]) => ranks.reduce((sum, rank) => sum + 1 / (RRF_K + rank), 0);
    expect([rrf(1, 1), rrf(1, 2)]).toContainEqual(hits[0].score);
    expect(hits[1].score).toBe(rrf(2, 3));
    expect([rrf(1), rrf(2)]).toContainEqual(hits[2].score);
  });

  it('answers by full text alone when the model fails or is late, never an error', async () => {
    const { id, docs } = await baseWith(DOCUMENTS);
    fake.down = 500;
    const failed = await search(id, 'quanto custa o plano básico?');
    expect(failed.map((hit) => hit.document_id)).toEqual([docs.precos]);
    expect(await search(id, 'quanto custa a mensalidade?')).toEqual([]);
    fake.down = null;
    fake.script.push({ kind: 'delay', ms: 1000 });
    const late = await searchBase(app.orm.em.fork(), { id, language: 'portuguese' }, 'quanto custa o plano básico?', 5, { embedder: embedder(), embedTimeoutMs: 100 });
    expect(late.map((hit) => hit.document_id)).toEqual([docs.precos]);
  });

  it('never compares vectors of two models: documents of another model are searched by full text', async () => {
    const other = new OpenAiEmbedder({ model: 'another-model', url: fake.url, apiKey: 'sk-test' });
    const { id, docs } = await baseWith(DOCUMENTS, { readers, embedder: other });
    const base = { id, language: 'portuguese' };
    expect(await searchBase(app.orm.em.fork(), base, 'quanto custa a mensalidade?', 5, { embedder: embedder() })).toEqual([]);
    // Ingested again with the configured model, its vectors count (and the cached base is read again).
    await ingestDocument(app.orm.em.fork(), docs.precos, { readers, embedder: embedder() });
    const hits = await searchBase(app.orm.em.fork(), base, 'quanto custa a mensalidade?', 5, { embedder: embedder() });
    expect(hits.map((hit) => hit.document_id)).toEqual([docs.precos]);
  });

  it('ranks a large base by vectors over the full-text candidates only', async () => {
    const { id, docs } = await baseWith(DOCUMENTS);
    const base = { id, language: 'portuguese' };
    // A base "larger" than the bound: a chunk with no word of the question is out of reach.
    const deps = { embedder: embedder(), wholeBaseChunks: 0 };
    expect(await searchBase(app.orm.em.fork(), base, 'quanto custa a mensalidade?', 5, deps)).toEqual([]);
    const hits = (await searchBase(app.orm.em.fork(), base, 'quanto custa a entrega da loja?', 5, deps)).map((hit) => hit.document_id);
    expect(hits.sort()).toEqual([docs.horarios, docs.entregas].sort());
  });
});

describe('ingestion with embeddings', () => {
  const job = (attempts: number) => ({ job: { attempts, max_attempts: 5 } }) as never;

  it('retries a failure of the model; on the last attempt keeps the chunks without vectors, ready, and logs why', async () => {
    const base = await req('POST', '/user/knowledgebases', { name: 'Falhas', language: 'portuguese' });
    const document = (await req('POST', `/user/knowledgebases/${base.body.data.id}/documents`, { name: 'd', type: 'text', content: DOCUMENTS.precos })).body.data;
    fake.down = 503;
    await expect(ingestDocumentTask.run(app.runtime, { document_id: document.id }, job(1))).rejects.toThrow(/answered HTTP 503/);
    const read = async () => (await req('GET', `/user/knowledgebases/${base.body.data.id}/documents/${document.id}`)).body.data;
    expect((await read()).status).toBe('processing');
    const warnings: unknown[] = [];
    const warn = jest.spyOn(app.runtime.logger, 'warn').mockImplementation((message, fields) => void warnings.push({ message, fields }));
    try {
      await ingestDocumentTask.run(app.runtime, { document_id: document.id }, job(5));
    } finally {
      warn.mockRestore();
    }
    expect(await read()).toMatchObject({ status: 'ready', chunks_count: 1, failure_reason: null });
    expect(warnings).toEqual([
      { message: 'knowledge: a document kept without vectors (searched by full text only)', fields: { document_id: document.id, reason: expect.stringMatching(/answered HTTP 503$/) } },
    ]);
    const [row] = await app.orm.em.fork().execute('select d.embeddings_model, c.embedding from knowledge_documents d join knowledge_chunks c on c.document_id = d.id where d.id = ?', [document.id]);
    expect(row).toEqual({ embeddings_model: null, embedding: null });
    fake.down = null;
    expect((await search(base.body.data.id, 'plano básico')).map((hit) => hit.document_id)).toEqual([document.id]);
  });
});
