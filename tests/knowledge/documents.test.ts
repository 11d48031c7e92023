import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';
import { zip } from '../helpers/docx';
import { pdf } from '../helpers/pdf';
import { documentReaders } from '../../src/documents';
import { docxReader } from '../../src/documents/docx.reader';
import { pdfReader } from '../../src/documents/pdf.reader';
import { ingestDocument } from '../../src/modules/knowledge/knowledge.ingest';
import { UnreadableDocumentError } from '../../src/modules/knowledge/knowledge.readers';

/**
 * PDF and DOCX documents read by src/documents/ (the domain's DocumentReaders port): a PDF made
 * here, read by pdf.js on a bounded worker thread, ingested and searched; a broken one, a scan
 * and one past the time bound failed with their reasons; a DOCX whose ZIP lies about its size.
 */
let app: TestApp;
let me: TestAccount;
const readers = documentReaders();

beforeAll(async () => {
  app = await startTestApp();
  me = await app.account();
});
afterAll(() => app?.close());

const req = (method: string, path: string) => app.request(method, `/api${path}`, { token: me.token });

/** A base with this file as a document, ingested: the document as the API shows it, and its chunks. */
async function ingested(type: 'pdf' | 'docx', file: Buffer) {
  const base = (await app.request('POST', '/api/user/knowledgebases', { token: me.token, body: { name: type } })).body.data.id;
  const form = new FormData();
  form.append('name', 'Manual');
  form.append('type', type);
  form.append('file', new Blob([file]), `manual.${type}`);
  const response = await fetch(`${app.url}/api/user/knowledgebases/${base}/documents`, { method: 'POST', headers: { authorization: `Bearer ${me.token}` }, body: form });
  const id = ((await response.json()) as any).data.id;
  await ingestDocument(app.orm.em.fork(), id, { readers });
  const doc = (await req('GET', `/user/knowledgebases/${base}/documents/${id}`)).body.data;
  const chunks = await app.sql('select content from knowledge_chunks where document_id = $1 order by ordinal', [id]);
  return { base, doc, texts: chunks.map((chunk: { content: string }) => chunk.content) };
}

it('a PDF is read page by page, its pages a paragraph apart, and searched', async () => {
  const file = pdf([['Política de trocas: até 30 dias após a compra.', 'Returns are accepted within thirty days.'], ['Garantia de dois anos para eletrônicos.']]);
  const { base, doc, texts } = await ingested('pdf', file);
  expect(doc).toMatchObject({ status: 'ready', chunks_count: 1 });
  expect(texts).toEqual(['Política de trocas: até 30 dias após a compra.\nReturns are accepted within thirty days.\n\nGarantia de dois anos para eletrônicos.']);
  const hits = await req('GET', `/user/knowledgebases/${base}/search?q=${encodeURIComponent('garantia eletrônicos')}`);
  expect(hits.body.data).toEqual([expect.objectContaining({ document_id: doc.id })]);
});

it('a broken PDF and a scan (pages without a text layer) fail with their reasons', async () => {
  const broken = await ingested('pdf', Buffer.from('%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 9 0 R\nstartxref\n99999\n%%EOF\n'));
  expect(broken.doc).toMatchObject({ status: 'failed', failure_reason: 'O arquivo não é um PDF legível (corrompido ou incompleto).' });
  const scan = await ingested('pdf', pdf([[], []]));
  expect(scan.doc).toMatchObject({ status: 'failed', failure_reason: expect.stringContaining('não tem texto (é uma digitalização') });
});

it('a PDF not read within the time bound, or within the heap bound, fails, its worker ended', async () => {
  const read = pdfReader({ timeoutMs: 1 })(pdf([['Texto']]));
  await expect(read).rejects.toThrow(UnreadableDocumentError);
  await expect(read).rejects.toThrow('O PDF não pôde ser lido em 1 ms.');
  // 2 MB is less than pdf.js itself needs: the thread runs out of memory, the process does not.
  // Asked for less than the smallest heap a thread gets (2 MB aborted Node 24), it gets that: too little for pdf.js.
  await expect(pdfReader({ maxHeapMb: 2 })(pdf([['Texto']]))).rejects.toThrow('O PDF não pôde ser lido com 8 MB de memória.');
  expect(await pdfReader()(pdf([['Texto']]))).toBe('Texto');
});

it('a worker that cannot load pdf.js fails the run, not the document: the job is retried', async () => {
  const read = pdfReader({ pdfjs: 'file:///nonexistent/pdf.mjs' })(pdf([['Texto']]));
  await expect(read).rejects.toThrow('pdf.js could not be loaded');
  await expect(read).rejects.not.toBeInstanceOf(UnreadableDocumentError);
});

it('a DOCX whose ZIP declares its body smaller than it is stops where the declaration ends', async () => {
  const body = `<w:p><w:t>${'a'.repeat(1024 * 1024)}</w:t></w:p>`;
  const honest = zip({ 'word/document.xml': body });
  expect(await docxReader(2 * 1024 * 1024)(honest)).toHaveLength(1024 * 1024 + 2);
  // The same archive, its local and central headers declaring 100 bytes: under every bound.
  const liar = Buffer.from(honest);
  for (let at = 0; at + 4 <= liar.length; at++) {
    if (liar.readUInt32LE(at) === 0x04034b50) liar.writeUInt32LE(100, at + 22);
    if (liar.readUInt32LE(at) === 0x02014b50) liar.writeUInt32LE(100, at + 24);
  }
  await expect(docxReader(64 * 1024)(liar)).rejects.toThrow('O arquivo não é um DOCX legível');
  const { doc } = await ingested('docx', liar);
  expect(doc).toMatchObject({ status: 'failed', failure_reason: expect.stringContaining('DOCX legível') });
});
