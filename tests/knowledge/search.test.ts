import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';
import { documentReaders } from '../../src/documents';
import { ingestDocument } from '../../src/modules/knowledge/knowledge.ingest';

/**
 * Full-text search of a knowledge base (GET /user/knowledgebases/{id}/search, and GraphQL's
 * searchKnowledgeBase): PostgreSQL's, in the base's language, best first.
 */
let app: TestApp;
let me: TestAccount;
const readers = documentReaders();

beforeAll(async () => {
  app = await startTestApp();
  me = await app.account();
});
afterAll(() => app?.close());

const req = (method: string, path: string, body?: unknown) => app.request(method, `/api${path}`, { token: me.token, body });

/** A base of `language` with these documents, ingested; answers its id and the documents' ids by name. */
async function baseWith(language: string, documents: Record<string, string>): Promise<{ id: number; docs: Record<string, number> }> {
  const base = await req('POST', '/user/knowledgebases', { name: `Base ${language}`, language });
  const id = base.body.data.id;
  const docs: Record<string, number> = {};
  for (const [name, content] of Object.entries(documents)) {
    const created = await req('POST', `/user/knowledgebases/${id}/documents`, { name, type: 'text', content });
    docs[name] = created.body.data.id;
    await ingestDocument(app.orm.em.fork(), docs[name], { readers });
  }
  return { id, docs };
}

const search = (id: number, q: string, limit?: number) =>
  req('GET', `/user/knowledgebases/${id}/search?${new URLSearchParams({ q, ...(limit ? { limit: String(limit) } : {}) })}`);

const PORTUGUESE = {
  horarios:
    'A Loja Centro abre de segunda a sexta, das 9h às 18h, e aos sábados das 9h às 13h. Não abrimos aos domingos nem nos feriados nacionais.',
  entregas:
    'Entregamos em todo o Brasil. A entrega é grátis em compras acima de R$ 100 e leva até 5 dias úteis nas capitais; no interior, até 10 dias úteis.',
  trocas:
    'Você pode trocar ou devolver um produto em até 30 dias após o recebimento, com a nota fiscal. O reembolso é feito no mesmo meio de pagamento.',
  pagamento: 'Aceitamos cartão de crédito em até 10 vezes sem juros, Pix com 5% de desconto e boleto bancário.',
};

const ENGLISH = {
  hours: 'Our downtown store is open Monday to Friday from 9 am to 6 pm, and on Saturdays from 9 am to 1 pm. We are closed on Sundays.',
  shipping: 'We ship across the country. Shipping is free on orders over $100 and takes up to five business days.',
  returns: 'You can return or exchange any item within 30 days of delivery with your receipt. Refunds go back to the original payment method.',
  warranty: 'Every appliance comes with a two-year warranty covering manufacturing defects, but not accidental damage.',
};

describe('search', () => {
  it('answers only chunks with every word of the question when at least `limit` of them have them all', async () => {
    const full = (n: number) => `Documento ${n}. A garantia cobre defeitos de fábrica durante dois anos. Para dúvidas, procure a assistência. A bateria tem seis meses.`;
    const { id, docs } = await baseWith('portuguese', {
      ...Object.fromEntries([1, 2, 3].map((n) => [`full${n}`, full(n)])),
      // One of the words, many times and close together: ts_rank_cd of the words OR'd puts it above the others.
      partial: 'Garantia, garantia, garantia: a garantia estendida é a garantia da garantia.',
    });
    const hits = await search(id, 'garantia bateria', 3);
    expect(hits.body.data.map((hit: { document_id: number }) => hit.document_id).sort()).toEqual([docs.full1, docs.full2, docs.full3].sort());
    // Fewer than `limit` with both: those with one of them are answered too.
    expect((await search(id, 'garantia bateria', 4)).body.data.map((hit: { document_id: number }) => hit.document_id)).toContain(docs.partial);
  });

  it('ranks the chunk that answers a question in Portuguese first', async () => {
    const { id, docs } = await baseWith('portuguese', PORTUGUESE);
    const cases: [string, keyof typeof PORTUGUESE][] = [
      ['Qual é o horário de funcionamento? Vocês abrem no sábado?', 'horarios'],
      ['Quanto custa a entrega para o interior?', 'entregas'],
      ['Posso devolver um produto? Como recebo o reembolso?', 'trocas'],
      ['Vocês aceitam pix ou cartão parcelado?', 'pagamento'],
      ['"nota fiscal"', 'trocas'],
    ];
    for (const [question, expected] of cases) {
      const res = await search(id, question);
      expect(res.status).toBe(200);
      expect([question, res.body.data[0]?.document_id]).toEqual([question, docs[expected]]);
      expect(res.body.data[0]).toEqual({ document_id: docs[expected], chunk_id: expect.any(Number), content: PORTUGUESE[expected], score: expect.any(Number) });
      const scores = res.body.data.map((hit: { score: number }) => hit.score);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
    }
  });

  it('ranks the chunk that answers a question in English first, in an english base (stems: "shipped" finds "ship")', async () => {
    const { id, docs } = await baseWith('english', ENGLISH);
    const cases: [string, keyof typeof ENGLISH][] = [
      ['When are you open on Saturday?', 'hours'],
      ['How long does shipping take, and is it free?', 'shipping'],
      ['Can I get a refund if I return something?', 'returns'],
      ['Is accidental damage covered by the warranty?', 'warranty'],
      ['how are orders shipped', 'shipping'],
    ];
    for (const [question, expected] of cases) {
      const res = await search(id, question);
      expect([question, res.body.data[0]?.document_id]).toEqual([question, docs[expected]]);
    }
  });

  it('answers no chunk for words no document has, or only stop words; `limit` bounds the answer', async () => {
    const { id } = await baseWith('portuguese', PORTUGUESE);
    expect((await search(id, 'helicóptero')).body).toEqual({ data: [] });
    expect((await search(id, 'de a o que')).body).toEqual({ data: [] });
    expect((await search(id, 'dias úteis pagamento produto', 2)).body.data).toHaveLength(2);
  });

  it('keeps an excluded word excluded: "-word" is not OR\'d into a match of everything else', async () => {
    const { id, docs } = await baseWith('portuguese', PORTUGUESE);
    expect((await search(id, 'entrega grátis')).body.data.map((hit: any) => hit.document_id)).toContain(docs.entregas);
    const excluded = (await search(id, 'entrega -interior')).body.data.map((hit: any) => hit.document_id);
    expect(excluded).not.toContain(docs.entregas);
    expect(excluded).toEqual([]);
  });

  it('leaves the words too common in a large base out of the search for chunks with some of the words', async () => {
    const { id, docs } = await baseWith('portuguese', { bulk: 'carga' });
    // 6,000 chunks with "garantia", one of them with "bateria" too: the base is past the bound (5,000).
    await app.orm.em.fork().execute(
      `insert into knowledge_chunks (document_id, knowledge_base_id, ordinal, content, language)
       select ?, ?, n, case when n = 3000 then 'A garantia da bateria.' else 'A garantia número ' || n || '.' end, 'portuguese'
         from generate_series(1, 6000) n`,
      [docs.bulk, id],
    );
    await app.orm.em.fork().execute('update knowledge_documents set chunks_count = 6001 where id = ?', [docs.bulk]);
    // Only one chunk has both; "garantia", in every chunk, is not searched alone: nothing else is answered.
    const hits = (await search(id, 'garantia bateria celular')).body.data;
    expect(hits.map((hit: { content: string }) => hit.content)).toEqual(['A garantia da bateria.']);
    // A word the sample does not know counts as rare: a question of it alone still finds it.
    expect((await search(id, 'número 4321')).body.data.map((hit: { content: string }) => hit.content)).toEqual(['A garantia número 4321.']);
  });

  it('answers only chunks with every word when the words most chunks have are left out of the index: they are checked on each chunk', async () => {
    const { id } = await baseWith('portuguese', { bulk: 'carga' });
    // 6,000 chunks with "garantia" (in more than 20% of them: checked, not searched in the index);
    // 8 with "bateria" too, far apart; 4 with "bateria" alone, many times (ranked above the 8 were they let in).
    await app.orm.em.fork().execute(
      `insert into knowledge_chunks (document_id, knowledge_base_id, ordinal, content, language)
       select (select id from knowledge_documents where knowledge_base_id = ?), ?, n,
              case when n <= 8 then 'A garantia vale por um ano inteiro desde a data da compra registrada na nota, e cobre a bateria ' || n || '.'
                   when n <= 12 then 'Bateria, bateria, bateria: a bateria avulsa ' || n || '.'
                   else 'A garantia número ' || n || '.' end, 'portuguese'
         from generate_series(1, 6000) n`,
      [id, id],
    );
    await app.orm.em.fork().execute('update knowledge_documents set chunks_count = 6001 where knowledge_base_id = ?', [id]);
    const hits = (await search(id, 'garantia bateria', 5)).body.data.map((hit: { content: string }) => hit.content);
    expect(hits).toHaveLength(5);
    for (const content of hits) expect(content).toMatch(/^A garantia vale .* bateria \d\.$/);
  });

  it('refuses a missing query or a limit out of range, each on its field', async () => {
    const { id } = await baseWith('portuguese', { a: 'Olá.' });
    const missing = await req('GET', `/user/knowledgebases/${id}/search`);
    expect([missing.status, missing.body.errors]).toEqual([422, { q: ['O campo q é obrigatório.'] }]);
    for (const limit of ['0', '51', 'x']) {
      const res = await req('GET', `/user/knowledgebases/${id}/search?q=ola&limit=${limit}`);
      expect([limit, res.status, Object.keys(res.body.errors)]).toEqual([limit, 422, ['limit']]);
    }
  });

  it('searches in the base’s new language once it is changed, and through GraphQL', async () => {
    const { id, docs } = await baseWith('simple', ENGLISH);
    // `simple` does not stem: "shipped" is not "ship".
    expect((await search(id, 'shipped')).body.data).toEqual([]);
    expect((await req('PUT', `/user/knowledgebases/${id}`, { language: 'english' })).status).toBe(200);
    expect((await search(id, 'shipped')).body.data[0].document_id).toBe(docs.shipping);
    const res = await app.graphql(`query ($id: Int!) { searchKnowledgeBase(id: $id, q: "warranty defects", limit: 1) { document_id chunk_id content score } }`, { id }, me.token);
    expect(res.body.data.searchKnowledgeBase).toEqual([{ document_id: docs.warranty, chunk_id: expect.any(Number), content: ENGLISH.warranty, score: expect.any(Number) }]);
  });
});
