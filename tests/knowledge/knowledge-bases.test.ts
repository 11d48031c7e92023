import { Client } from 'pg';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';
import { documentReaders } from '../../src/documents';
import { ingestDocument } from '../../src/modules/knowledge/knowledge.ingest';
import { docxReader } from '../../src/documents/docx.reader';
import { docx, zip } from '../helpers/docx';

/**
 * Knowledge bases and their documents on the original platform's paths and envelopes (design.md,
 * "Knowledge bases"), the plan's limits, and ingestion of text documents. No worker runs here:
 * the tests run a document's ingestion themselves, as its job would.
 */
let app: TestApp;
let me: TestAccount;
let other: TestAccount;
const readers = documentReaders();

const LIMITS = { maxBases: 3, maxDocuments: 4, maxDocumentBytes: 64 * 1024, maxWebsitePages: 5 };

beforeAll(async () => {
  app = await startTestApp({ knowledge: LIMITS });
  me = await app.account();
  other = await app.account();
});
afterAll(() => app?.close());

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const req = (method: string, path: string, token: string, body?: unknown) => app.request(method, `/api${path}`, { token, body });

async function createBase(token: string, body: Record<string, unknown> = { name: 'FAQ' }): Promise<number> {
  const res = await req('POST', '/user/knowledgebases', token, body);
  if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
  return res.body.data.id;
}

async function upload(token: string, kb: number, fields: Record<string, string>, file: Buffer | string | null) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  if (file !== null) form.append('file', new Blob([file]), 'doc.bin');
  const response = await fetch(`${app.url}/api/user/knowledgebases/${kb}/documents`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  return { status: response.status, body: (await response.json()) as any };
}

describe('knowledge bases', () => {
  it('create, read, list, update and delete in the original platform’s envelopes', async () => {
    const account = await app.account();
    const created = await req('POST', '/user/knowledgebases', account.token, { name: ' Produtos ', description: 'Catálogo' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      message: 'Knowledgebase created successfully.',
      data: {
        id: expect.any(Number), name: 'Produtos', description: 'Catálogo', language: 'portuguese', status: 'empty', status_label: 'Empty',
        documents_count: 0, assistants_count: 0, created_at: expect.stringMatching(ISO), updated_at: expect.stringMatching(ISO),
      },
    });
    const id = created.body.data.id;
    const one = await req('GET', `/user/knowledgebases/${id}`, account.token);
    expect(one.body).toEqual({ data: created.body.data });
    const list = await req('GET', '/user/knowledgebases', account.token);
    expect(list.body).toEqual({ data: [created.body.data] });
    const updated = await req('PUT', `/user/knowledgebases/${id}`, account.token, { name: 'Products', language: 'english' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ message: 'Knowledgebase updated successfully.', data: { id, name: 'Products', description: 'Catálogo', language: 'english' } });
    const deleted = await req('DELETE', `/user/knowledgebases/${id}`, account.token);
    expect(deleted.body).toEqual({ message: 'Knowledgebase deleted successfully.' });
    expect((await req('GET', `/user/knowledgebases/${id}`, account.token)).status).toBe(404);
  });

  it('refuse a bad name, description or language, each on its field', async () => {
    const account = await app.account();
    for (const [body, field] of [
      [{}, 'name'],
      [{ name: '  ' }, 'name'],
      [{ name: 'x'.repeat(256) }, 'name'],
      [{ name: 'ok', description: 'x'.repeat(256) }, 'description'],
      [{ name: 'ok', language: 'klingon' }, 'language'],
    ] as const) {
      const res = await req('POST', '/user/knowledgebases', account.token, body);
      expect([res.status, Object.keys(res.body.errors ?? {})]).toEqual([422, [field]]);
    }
    expect((await req('GET', '/user/knowledgebases', account.token)).body).toEqual({ data: [] });
  });

  it('answer another account’s base exactly as a missing one', async () => {
    const id = await createBase(other.token);
    const missing = 900_000_123;
    for (const [method, path, body] of [
      ['GET', '/user/knowledgebases/{id}', undefined],
      ['PUT', '/user/knowledgebases/{id}', { name: 'Mine' }],
      ['DELETE', '/user/knowledgebases/{id}', undefined],
      ['GET', '/user/knowledgebases/{id}/documents', undefined],
      ['POST', '/user/knowledgebases/{id}/documents', { name: 'x', type: 'text', content: 'Olá' }],
      ['GET', '/user/knowledgebases/{id}/search', undefined],
    ] as const) {
      const theirs = await req(method, `${path.replace('{id}', String(id))}${path.endsWith('search') ? '?q=ola' : ''}`, me.token, body);
      const none = await req(method, `${path.replace('{id}', String(missing))}${path.endsWith('search') ? '?q=ola' : ''}`, me.token, body);
      expect([method, path, theirs.status, theirs.body]).toEqual([method, path, 404, { message: 'Base de conhecimento não encontrada', code: 'NOT_FOUND' }]);
      expect(none.body).toEqual(theirs.body);
    }
    expect((await req('GET', `/user/knowledgebases/${id}`, other.token)).body.data.name).toBe('FAQ');
  });

  it('hold the plan’s limit of bases under parallel creates (KB_MAX_BASES)', async () => {
    const account = await app.account();
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => req('POST', '/user/knowledgebases', account.token, { name: `Base ${i}` })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(LIMITS.maxBases);
    const refused = results.filter((r) => r.status === 422);
    expect(refused).toHaveLength(12 - LIMITS.maxBases);
    expect(refused[0].body).toMatchObject({ code: 'PLAN_LIMIT', message: expect.stringContaining(`${LIMITS.maxBases} bases de conhecimento`) });
    const [row] = await app.sql('select count(*)::int as n from knowledge_bases where account_id = $1', [account.accountId]);
    expect(row.n).toBe(LIMITS.maxBases);
  });

  it('are reachable through GraphQL with the same rules', async () => {
    const account = await app.account();
    const res = await app.graphql(`mutation { createKnowledgeBase(input: { name: "GQL", language: "spanish" }) { id name language status documents_count } }`, {}, account.token);
    expect(res.body.data.createKnowledgeBase).toMatchObject({ name: 'GQL', language: 'spanish', status: 'empty', documents_count: 0 });
    const list = await app.graphql(`{ knowledgeBases { id name } }`, {}, account.token);
    expect(list.body.data.knowledgeBases).toHaveLength(1);
    const bad = await app.graphql(`mutation { createKnowledgeBase(input: { name: "" }) { id } }`, {}, account.token);
    expect(bad.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', errors: { name: [expect.any(String)] } });
  });
});

describe('documents', () => {
  let kb: number;
  beforeAll(async () => {
    kb = await createBase(me.token, { name: 'Docs' });
  });

  it('a text document: 201 processing, read, listed, renamed, deleted', async () => {
    const created = await req('POST', `/user/knowledgebases/${kb}/documents`, me.token, { name: 'Horários', type: 'text', content: 'Abrimos às 9h.' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      message: 'Document created successfully. Processing will begin shortly.',
      data: {
        id: expect.any(Number), knowledgebase_id: kb, name: 'Horários', description: null, type: 'text', type_label: 'Text', url: null, links: [],
        relative_links_limit: null, source_bytes: 15, status: 'processing', status_label: 'Processing', failure_reason: null, chunks_count: 0,
        created_at: expect.stringMatching(ISO), updated_at: expect.stringMatching(ISO),
      },
    });
    const id = created.body.data.id;
    const [job] = await app.sql(`select task_identifier, key from graphile_worker.jobs where key = $1`, [`knowledge-ingest:${id}`]);
    expect(job).toMatchObject({ task_identifier: 'knowledge:ingest' });
    expect((await req('GET', `/user/knowledgebases/${kb}/documents/${id}`, me.token)).body).toEqual({ data: created.body.data });
    expect((await req('GET', `/user/knowledgebases/${kb}`, me.token)).body.data).toMatchObject({ status: 'processing', documents_count: 1 });
    const list = await req('GET', `/user/knowledgebases/${kb}/documents`, me.token);
    expect(list.body.data.map((d: any) => d.id)).toContain(id);
    const renamed = await req('PUT', `/user/knowledgebases/${kb}/documents/${id}`, me.token, { name: 'Horário', description: 'Loja' });
    expect(renamed.body).toMatchObject({ message: 'Document updated successfully.', data: { id, name: 'Horário', description: 'Loja', type: 'text' } });
    expect((await req('DELETE', `/user/knowledgebases/${kb}/documents/${id}`, me.token)).body).toEqual({ message: 'Document deleted successfully.' });
    expect((await req('GET', `/user/knowledgebases/${kb}/documents/${id}`, me.token)).body).toEqual({ message: 'Documento não encontrado', code: 'NOT_FOUND' });
  });

  it('a website document keeps its url, links and limit; each bad field is a 422 naming it', async () => {
    const ok = await req('POST', `/user/knowledgebases/${kb}/documents`, me.token, {
      name: 'Site', type: 'website', url: 'https://example.com', links: [{ link: 'https://example.com/precos' }], relative_links_limit: 5,
    });
    expect(ok.status).toBe(201);
    expect(ok.body.data).toMatchObject({ type: 'website', url: 'https://example.com', links: [{ link: 'https://example.com/precos' }], relative_links_limit: 5 });
    const defaulted = await req('POST', `/user/knowledgebases/${kb}/documents`, me.token, { name: 'Site 2', type: 'website', url: 'https://example.org' });
    expect(defaulted.body.data.relative_links_limit).toBe(LIMITS.maxWebsitePages);
    for (const id of [ok.body.data.id, defaulted.body.data.id]) await req('DELETE', `/user/knowledgebases/${kb}/documents/${id}`, me.token);

    const cases: [Record<string, unknown>, string][] = [
      [{ name: 'x', type: 'website', url: 'https://example.com', relative_links_limit: LIMITS.maxWebsitePages + 1 }, 'relative_links_limit'],
      [{ name: 'x', type: 'website', url: 'https://example.com', relative_links_limit: 0 }, 'relative_links_limit'],
      [{ name: 'x', type: 'website', links: Array.from({ length: LIMITS.maxWebsitePages + 1 }, (_, i) => ({ link: `https://example.com/${i}` })) }, 'links'],
      [{ name: 'x', type: 'website' }, 'url'],
      [{ name: 'x', type: 'website', url: 'ftp://example.com' }, 'url'],
      [{ name: 'x', type: 'website', links: [{ link: 'nope' }] }, 'links.0.link'],
      [{ name: 'x', type: 'text' }, 'content'],
      [{ name: 'x', type: 'text', content: 'ç'.repeat(LIMITS.maxDocumentBytes / 2 + 1) }, 'content'],
      [{ name: 'x', type: 'pdf' }, 'file'],
      [{ name: 'x', type: 'audio' }, 'type'],
      [{ type: 'text', content: 'a' }, 'name'],
    ];
    for (const [body, field] of cases) {
      const res = await req('POST', `/user/knowledgebases/${kb}/documents`, me.token, body);
      expect([field, res.status, Object.keys(res.body.errors ?? {})]).toEqual([field, 422, [field]]);
    }
    expect((await req('GET', `/user/knowledgebases/${kb}/documents`, me.token)).body.data).toEqual([]);
  });

  it('files come as multipart `file`: a txt is kept; binary, a false PDF or a file over KB_MAX_DOCUMENT_BYTES is a 422 on file, never a 413', async () => {
    const txt = await upload(me.token, kb, { name: 'Notas', type: 'txt' }, 'Entregamos em todo o Brasil.\n');
    expect(txt.status).toBe(201);
    expect(txt.body.data).toMatchObject({ type: 'txt', type_label: 'TXT', status: 'processing', source_bytes: 29 });
    const [row] = await app.sql('select convert_from(source, $1) as text from knowledge_documents where id = $2', ['UTF8', txt.body.data.id]);
    expect(row.text).toBe('Entregamos em todo o Brasil.\n');
    await req('DELETE', `/user/knowledgebases/${kb}/documents/${txt.body.data.id}`, me.token);

    const binary = await upload(me.token, kb, { name: 'Bin', type: 'txt' }, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 0xff]));
    expect([binary.status, binary.body.errors]).toEqual([422, { file: ['O arquivo file deve ser texto codificado em UTF-8 (este parece binário).'] }]);
    const fakePdf = await upload(me.token, kb, { name: 'PDF', type: 'pdf' }, 'not a pdf');
    expect([fakePdf.status, Object.keys(fakePdf.body.errors)]).toEqual([422, ['file']]);
    const big = await upload(me.token, kb, { name: 'Big', type: 'txt' }, 'a'.repeat(LIMITS.maxDocumentBytes + 1));
    expect([big.status, big.body.errors]).toEqual([422, { file: [`O arquivo file não pode ter mais de ${LIMITS.maxDocumentBytes} bytes.`] }]);
    const none = await upload(me.token, kb, { name: 'None', type: 'docx' }, null);
    expect([none.status, Object.keys(none.body.errors)]).toEqual([422, ['file']]);
    const pdf = await upload(me.token, kb, { name: 'Manual', type: 'pdf' }, '%PDF-1.4\n%fake but well started\n');
    expect(pdf.status).toBe(201);
    await req('DELETE', `/user/knowledgebases/${kb}/documents/${pdf.body.data.id}`, me.token);
    expect((await req('GET', `/user/knowledgebases/${kb}/documents`, me.token)).body.data).toEqual([]);
  });

  it('hold the plan’s limit of documents per base under parallel creates (KB_MAX_DOCUMENTS)', async () => {
    const base = await createBase(me.token, { name: 'Full' });
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => req('POST', `/user/knowledgebases/${base}/documents`, me.token, { name: `D${i}`, type: 'text', content: `Texto ${i}` })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(LIMITS.maxDocuments);
    expect(results.filter((r) => r.status === 422).every((r) => r.body.code === 'PLAN_LIMIT')).toBe(true);
    const [row] = await app.sql('select count(*)::int as n from knowledge_documents where knowledge_base_id = $1', [base]);
    expect(row.n).toBe(LIMITS.maxDocuments);
    await req('DELETE', `/user/knowledgebases/${base}`, me.token);
  });

  it('a document of another base of mine, or of another account, is a 404', async () => {
    const mine = await createBase(me.token, { name: 'Mine' });
    const doc = await req('POST', `/user/knowledgebases/${mine}/documents`, me.token, { name: 'A', type: 'text', content: 'Olá' });
    const theirs = await createBase(other.token, { name: 'Theirs' });
    expect((await req('GET', `/user/knowledgebases/${kb}/documents/${doc.body.data.id}`, me.token)).status).toBe(404);
    expect((await req('DELETE', `/user/knowledgebases/${kb}/documents/${doc.body.data.id}`, me.token)).status).toBe(404);
    expect((await req('GET', `/user/knowledgebases/${mine}/documents/${doc.body.data.id}`, other.token)).status).toBe(404);
    expect((await req('PUT', `/user/knowledgebases/${theirs}/documents/${doc.body.data.id}`, me.token, { name: 'B' })).status).toBe(404);
    await req('DELETE', `/user/knowledgebases/${mine}`, me.token);
  });
});

describe('ingestion of text', () => {
  let owner: TestAccount;
  beforeAll(async () => {
    owner = await app.account();
  });
  const text = (n: number) =>
    Array.from({ length: n }, (_, i) => `Frase número ${i} sobre o atendimento da loja, com   espaços \t demais.`).join(' ') + '\r\n\r\n\r\nFim.';

  it('normalises and chunks the text, marks the document ready, and deleting the base deletes its documents and chunks', async () => {
    const base = await createBase(owner.token, { name: 'Ingest' });
    const created = await req('POST', `/user/knowledgebases/${base}/documents`, owner.token, { name: 'Longo', type: 'text', content: text(40) });
    const id = created.body.data.id;
    await ingestDocument(app.orm.em.fork(), id, { readers });
    const doc = (await req('GET', `/user/knowledgebases/${base}/documents/${id}`, owner.token)).body.data;
    expect(doc).toMatchObject({ status: 'ready', failure_reason: null });
    const chunks = await app.sql('select ordinal, content from knowledge_chunks where document_id = $1 order by ordinal', [id]);
    expect(chunks.length).toBe(doc.chunks_count);
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.map((c: any) => c.ordinal)).toEqual(chunks.map((_: unknown, i: number) => i));
    for (const chunk of chunks) {
      expect(chunk.content.length).toBeLessThanOrEqual(800);
      expect(chunk.content).not.toMatch(/ {2}|\t|\r/);
    }
    // Each chunk after the first starts with the end of the one before.
    expect(chunks[0].content.endsWith(chunks[1].content.split(' Frase')[0])).toBe(true);
    expect(chunks[chunks.length - 1].content.endsWith('demais.\n\nFim.')).toBe(true);
    expect((await req('GET', `/user/knowledgebases/${base}`, owner.token)).body.data).toMatchObject({ status: 'ready', status_label: 'Ready' });

    // Ingesting again replaces the chunks, never adds to them.
    await ingestDocument(app.orm.em.fork(), id, { readers });
    expect((await app.sql('select count(*)::int as n from knowledge_chunks where document_id = $1', [id]))[0].n).toBe(chunks.length);

    expect((await req('DELETE', `/user/knowledgebases/${base}`, owner.token)).status).toBe(200);
    expect(await app.sql('select id from knowledge_documents where id = $1', [id])).toEqual([]);
    expect(await app.sql('select id from knowledge_chunks where document_id = $1', [id])).toEqual([]);
  });

  it('a failure after the chunks are written (the status update fails) leaves no chunk and the document processing; the retry completes it', async () => {
    const base = await createBase(owner.token, { name: 'Crash' });
    const created = await req('POST', `/user/knowledgebases/${base}/documents`, owner.token, { name: 'Crash', type: 'text', content: text(30) });
    const id = created.body.data.id;
    await app.sql(`create function kb_crash() returns trigger language plpgsql as $$ begin raise exception 'crash between the steps'; end $$`);
    await app.sql(`create trigger kb_crash before update on knowledge_documents for each row when (new.status = 'ready' and new.id = ${Number(id)}) execute function kb_crash()`);
    try {
      await expect(ingestDocument(app.orm.em.fork(), id, { readers })).rejects.toThrow();
      expect(await app.sql('select id from knowledge_chunks where document_id = $1', [id])).toEqual([]);
      expect((await req('GET', `/user/knowledgebases/${base}/documents/${id}`, owner.token)).body.data).toMatchObject({ status: 'processing', chunks_count: 0 });
    } finally {
      await app.sql('drop trigger kb_crash on knowledge_documents');
      await app.sql('drop function kb_crash()');
    }
    await ingestDocument(app.orm.em.fork(), id, { readers });
    expect((await req('GET', `/user/knowledgebases/${base}/documents/${id}`, owner.token)).body.data).toMatchObject({ status: 'ready' });
    await req('DELETE', `/user/knowledgebases/${base}`, owner.token);
  });

  it('a language change in flight is never passed by an ingestion: its chunks take the new language', async () => {
    const base = await createBase(owner.token, { name: 'Language' });
    const created = await req('POST', `/user/knowledgebases/${base}/documents`, owner.token, { name: 'A', type: 'text', content: 'Shipping is free.' });
    // A language change as updateKnowledgeBase makes it, not yet committed.
    const client = new Client({ connectionString: app.databaseUrl });
    await client.connect();
    try {
      await client.query('begin');
      await client.query(`select id from knowledge_bases where id = $1 for no key update`, [base]);
      await client.query(`update knowledge_bases set language = 'english' where id = $1`, [base]);
      await client.query(`update knowledge_chunks set language = 'english' where knowledge_base_id = $1`, [base]);
      const ingesting = ingestDocument(app.orm.em.fork(), created.body.data.id, { readers });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await client.query('commit');
      await ingesting;
    } finally {
      await client.end();
    }
    const chunks = await app.sql('select language::text as language from knowledge_chunks where document_id = $1', [created.body.data.id]);
    expect(chunks).toEqual([{ language: 'english' }]);
    await req('DELETE', `/user/knowledgebases/${base}`, owner.token);
  });

  it('a DOCX made here is read: its paragraphs, runs joined, entities decoded; then searched', async () => {
    const base = await createBase(owner.token, { name: 'Word' });
    const file = docx([['Política de tro', 'cas: até 30 dias.'], ['Garantia & assistência <técnica> de 2 anos.']]);
    const created = await upload(owner.token, base, { name: 'Manual', type: 'docx' }, file);
    expect(created.status).toBe(201);
    await ingestDocument(app.orm.em.fork(), created.body.data.id, { readers });
    const read = await req('GET', `/user/knowledgebases/${base}/documents/${created.body.data.id}`, owner.token);
    expect(read.body.data).toMatchObject({ status: 'ready', chunks_count: 1 });
    const [chunk] = await app.sql('select content from knowledge_chunks where document_id = $1', [created.body.data.id]);
    expect(chunk.content).toBe('Política de trocas: até 30 dias.\n\nGarantia & assistência <técnica> de 2 anos.');
    const hits = await req('GET', `/user/knowledgebases/${base}/search?q=garantia`, owner.token);
    expect(hits.body.data[0].document_id).toBe(created.body.data.id);
    await req('DELETE', `/user/knowledgebases/${base}`, owner.token);
  });

  it('a DOCX that is no readable archive fails with its reason; one that inflates past the bound is not read', async () => {
    const base = await createBase(owner.token, { name: 'Broken' });
    const broken = await upload(owner.token, base, { name: 'Broken', type: 'docx' }, Buffer.concat([Buffer.from('PK\u0003\u0004'), Buffer.alloc(64)]));
    expect(broken.status).toBe(201);
    await ingestDocument(app.orm.em.fork(), broken.body.data.id, { readers });
    const read = await req('GET', `/user/knowledgebases/${base}/documents/${broken.body.data.id}`, owner.token);
    expect(read.body.data).toMatchObject({ status: 'failed', failure_reason: expect.stringContaining('DOCX') });
    await req('DELETE', `/user/knowledgebases/${base}`, owner.token);
    // A bomb: 1 MB of XML in a few kilobytes, read with a 64 KB bound.
    const bomb = zip({ 'word/document.xml': `<w:t>${'a'.repeat(1024 * 1024)}</w:t>` });
    expect(bomb.length).toBeLessThan(8 * 1024);
    await expect(docxReader(64 * 1024)(bomb)).rejects.toThrow('passa de');
    expect(await docxReader(2 * 1024 * 1024)(bomb)).toHaveLength(1024 * 1024);
    expect(await docxReader(1024)(zip({ 'word/document.xml': '<w:p><w:t>Guardado</w:t></w:p>' }, true))).toBe('Guardado\n\n');
  });

  it('a txt that is not UTF-8 fails with its reason', async () => {
    const base = await createBase(owner.token, { name: 'Later' });
    const txt = await upload(owner.token, base, { name: 'T', type: 'txt' }, 'ok');
    await app.sql(`update knowledge_documents set source = '\\xff00'::bytea where id = $1`, [txt.body.data.id]);
    await ingestDocument(app.orm.em.fork(), txt.body.data.id, { readers });
    const failed = await req('GET', `/user/knowledgebases/${base}/documents/${txt.body.data.id}`, owner.token);
    expect(failed.body.data).toMatchObject({ status: 'failed', status_label: 'Failed', failure_reason: 'O arquivo não é texto UTF-8.' });
    expect((await req('GET', `/user/knowledgebases/${base}`, owner.token)).body.data.status).toBe('failed');
    await req('DELETE', `/user/knowledgebases/${base}`, owner.token);
  });
});
