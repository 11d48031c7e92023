import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';
import { documentReaders } from '../../src/documents';
import { jobKey } from '../../src/jobs/queue';
import { ingestDocument } from '../../src/modules/knowledge/knowledge.ingest';
import { readHtml } from '../../src/modules/knowledge/knowledge.website';

/**
 * Website documents: a site of several pages served here, crawled through the guarded outbound
 * client within its limits (relative_links_limit, KB_MAX_WEBSITE_PAGES, robots.txt, same host).
 */
let app: TestApp;
let me: TestAccount;
let site: http.Server;
let origin: string;
const requested: string[] = [];
const ROBOTS = 'User-agent: *\nDisallow: /privado\n';
/** The site's robots.txt: its body, or an HTTP status it answers instead. */
let robots: string | number = ROBOTS;

const PAGES: Record<string, string> = {
  '/': `<html><head><title>Loja</title><style>body { color: red }</style></head><body>
    <h1>Loja Centro</h1><p>Bem-vindo &amp; boas compras.</p><script>var secret = "não indexar";</script>
    <a href="/horarios">Horários</a> <a href='/privado'>Privado</a> <a href="/entregas#topo">Entregas</a>
    <a href="http://localhost:PORT/outro-host">Outro host</a> <a href="mailto:x@example.com">mail</a> <a href="/trocas">Trocas</a></body></html>`,
  '/horarios': '<p>Abrimos de segunda a sexta, das 9h às 18h.</p><a href="/">Início</a>',
  '/entregas': '<p>A entrega é grátis acima de R$ 100.</p>',
  '/trocas': '<p>Trocas em até 30 dias com a nota fiscal.</p>',
  '/privado': '<p>Página que o robots.txt proíbe.</p>',
  '/outro-host': '<p>Outro host.</p>',
};

beforeAll(async () => {
  app = await startTestApp();
  me = await app.account();
  site = http.createServer((req, res) => {
    requested.push(req.url ?? '');
    if (req.url === '/robots.txt') return void (typeof robots === 'number' ? res.writeHead(robots).end() : res.end(robots));
    const page = PAGES[req.url ?? ''];
    if (!page) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page.replace('PORT', String((site.address() as AddressInfo).port)));
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await app?.close();
  await new Promise((resolve) => site?.close(resolve));
});

const req = (method: string, path: string, body?: unknown) => app.request(method, `/api${path}`, { token: me.token, body });

async function website(body: Record<string, unknown>, options: { allowPrivate: boolean; maxPages: number }) {
  const kb = (await req('POST', '/user/knowledgebases', { name: 'Site' })).body.data.id;
  const created = await req('POST', `/user/knowledgebases/${kb}/documents`, { name: 'Site', type: 'website', ...body });
  expect(created.status).toBe(201);
  requested.length = 0;
  await ingestDocument(app.orm.em.fork(), created.body.data.id, { readers: documentReaders(), crawl: options });
  const doc = (await req('GET', `/user/knowledgebases/${kb}/documents/${created.body.data.id}`)).body.data;
  const chunks = await app.sql('select content from knowledge_chunks where document_id = $1 order by ordinal', [doc.id]);
  return { kb, doc, texts: chunks.map((c: { content: string }) => c.content), requested: [...requested] };
}

it('crawls from url the same-host links, breadth first, up to relative_links_limit pages, never a path robots.txt disallows', async () => {
  const { kb, doc, texts, requested } = await website({ url: `${origin}/`, relative_links_limit: 2 }, { allowPrivate: true, maxPages: 50 });
  expect(doc).toMatchObject({ status: 'ready', chunks_count: 3 });
  expect(requested).toEqual(['/robots.txt', '/', '/horarios', '/entregas']);
  expect(texts[0]).toBe('Loja Centro\n\nBem-vindo & boas compras.\n\nHorários Privado Entregas\nOutro host mail Trocas');
  expect(texts.slice(1)).toEqual(['Abrimos de segunda a sexta, das 9h às 18h.\n\nInício', 'A entrega é grátis acima de R$ 100.']);
  const search = await req('GET', `/user/knowledgebases/${kb}/search?q=${encodeURIComponent('Vocês abrem de segunda a sexta?')}`);
  expect(search.body.data[0].content).toContain('Abrimos de segunda a sexta');
});

it('reads `links` as given, within KB_MAX_WEBSITE_PAGES for the whole document', async () => {
  const links = ['/trocas', '/entregas', '/horarios'].map((path) => ({ link: `${origin}${path}` }));
  const { doc, texts, requested } = await website({ url: `${origin}/`, links }, { allowPrivate: true, maxPages: 2 });
  expect(doc.status).toBe('ready');
  expect(requested).toEqual(['/robots.txt', '/trocas', '/entregas']);
  expect(texts).toEqual(['Trocas em até 30 dias com a nota fiscal.', 'A entrega é grátis acima de R$ 100.']);
});

it('refuses a private address unless development allows it: the document fails with the reason, and nothing is requested', async () => {
  const { doc, requested } = await website({ url: `${origin}/` }, { allowPrivate: false, maxPages: 50 });
  expect(doc).toMatchObject({ status: 'failed', chunks_count: 0, failure_reason: expect.stringContaining('endereço interno') });
  expect(requested).toEqual([]);
});

it('a page that robots.txt disallows, or that answers an error, is not read; none read fails the document', async () => {
  const { doc, requested } = await website({ links: [{ link: `${origin}/privado` }, { link: `${origin}/nada` }] }, { allowPrivate: true, maxPages: 50 });
  expect(doc).toMatchObject({ status: 'failed', failure_reason: expect.stringMatching(/robots\.txt.*HTTP 404/) });
  expect(requested).toEqual(['/robots.txt', '/nada']);
});

it('reads robots.txt as RFC 9309 says: the group of its own agent over `*`, the longest rule, wildcards; a server error allows nothing', async () => {
  const links = ['/trocas', '/entregas', '/horarios'].map((path) => ({ link: `${origin}${path}` }));
  try {
    robots = 'User-agent: *\nDisallow: /\n\nUser-agent: vozgate-knowledge\nAllow: /\nDisallow: /*regas$\n';
    const ours = await website({ links }, { allowPrivate: true, maxPages: 50 });
    expect(ours.requested).toEqual(['/robots.txt', '/trocas', '/horarios']);
    expect(ours.texts).toEqual(['Trocas em até 30 dias com a nota fiscal.', 'Abrimos de segunda a sexta, das 9h às 18h.\n\nInício']);

    robots = 'User-agent: *\nDisallow: /\nAllow: /trocas\n';
    expect((await website({ links }, { allowPrivate: true, maxPages: 50 })).requested).toEqual(['/robots.txt', '/trocas']);

    robots = 404;
    expect((await website({ links }, { allowPrivate: true, maxPages: 50 })).requested).toEqual(['/robots.txt', '/trocas', '/entregas', '/horarios']);

    robots = 503;
    const down = await website({ links }, { allowPrivate: true, maxPages: 50 });
    expect(down.requested).toEqual(['/robots.txt']);
    expect(down.doc).toMatchObject({ status: 'failed', failure_reason: expect.stringContaining('robots.txt') });
  } finally {
    robots = ROBOTS;
  }
});

describe('readHtml', () => {
  it('keeps the text and the links, drops what is not text, and reads an unclosed script or comment as the end of the page', () => {
    expect(readHtml('<p>a &lt;b&gt; &#231;&#x e9;</p><SCRIPT>x</script >c<a HREF=/d?e=1#f>d</a><a href="javascript:1">j</a>', 'http://h/x/')).toEqual({
      text: ' a <b> ç&#x e9;\n\nc d  j ',
      links: ['http://h/d?e=1'],
    });
    expect(readHtml('kept<script>never closed <p>lost</p>', 'http://h/')).toEqual({ text: 'kept', links: [] });
    expect(readHtml('kept<!-- never closed <p>lost', 'http://h/').text).toBe('kept');
    expect(readHtml('kept < and more', 'http://h/').text).toBe('kept < and more');
    // A list whose items close themselves, in a template that is no text.
    expect(readHtml('<template><script>x</script>y</template>z<ul><li>one<li>two</ul>', 'http://h/').text).toBe('z  one\n\n two\n\n\n\n');
  });

  it('costs the length of a page built to be slow (an unclosed tag, a comment, a script repeated)', () => {
    const hostile = '<a href="'.repeat(20_000) + '<!--'.repeat(20_000) + '<script'.repeat(20_000);
    expect(readHtml(hostile, 'http://h/').links).toEqual([]);
  });
});

it('re-ingesting a website reads it again: processing (the old chunks still searched) until its new chunks replace them; a failed document is tried again likewise', async () => {
  const before = PAGES['/horarios'];
  try {
    const { kb, doc } = await website({ links: [{ link: `${origin}/horarios` }], relative_links_limit: 1 }, { allowPrivate: true, maxPages: 50 });
    expect(doc.status).toBe('ready');
    const search = async (q: string) => (await req('GET', `/user/knowledgebases/${kb}/search?q=${encodeURIComponent(q)}`)).body.data.map((hit: any) => hit.content);
    expect(await search('segunda sexta')).toEqual([expect.stringContaining('das 9h às 18h')]);

    PAGES['/horarios'] = '<p>Novo horário: de segunda a sábado, das 8h às 20h.</p>';
    const again = await req('POST', `/user/knowledgebases/${kb}/documents/${doc.id}/reingest`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ message: 'Document queued for processing. Its chunks are replaced once it is read again.', data: expect.objectContaining({ id: doc.id, status: 'processing' }) });
    const [job] = await app.sql(`select count(*)::int as n from graphile_worker.jobs where key = $1`, [jobKey('knowledge:ingest', String(doc.id))]);
    expect(job.n).toBe(1);
    expect(await search('segunda sexta')).toEqual([expect.stringContaining('das 9h às 18h')]); // the old chunks until the new replace them

    await ingestDocument(app.orm.em.fork(), doc.id, { readers: documentReaders(), crawl: { allowPrivate: true, maxPages: 50 } });
    expect((await req('GET', `/user/knowledgebases/${kb}/documents/${doc.id}`)).body.data.status).toBe('ready');
    expect(await search('segunda')).toEqual([expect.stringContaining('das 8h às 20h')]);
    expect(await search('18h')).toEqual([]);

    // The site down: the document fails; once it is back, re-ingesting makes it ready.
    delete PAGES['/horarios'];
    await req('POST', `/user/knowledgebases/${kb}/documents/${doc.id}/reingest`);
    await ingestDocument(app.orm.em.fork(), doc.id, { readers: documentReaders(), crawl: { allowPrivate: true, maxPages: 50 } });
    expect((await req('GET', `/user/knowledgebases/${kb}/documents/${doc.id}`)).body.data).toMatchObject({ status: 'failed', failure_reason: expect.any(String) });
    PAGES['/horarios'] = before;
    const retried = await req('POST', `/user/knowledgebases/${kb}/documents/${doc.id}/reingest`);
    expect(retried.body.data).toMatchObject({ status: 'processing', failure_reason: null });
    await ingestDocument(app.orm.em.fork(), doc.id, { readers: documentReaders(), crawl: { allowPrivate: true, maxPages: 50 } });
    expect((await req('GET', `/user/knowledgebases/${kb}/documents/${doc.id}`)).body.data).toMatchObject({ status: 'ready', failure_reason: null });
    expect(await search('segunda sexta')).toEqual([expect.stringContaining('das 9h às 18h')]);
  } finally {
    PAGES['/horarios'] = before;
  }
});

it('re-ingesting a document of another base, or one that is not there, is a 404', async () => {
  const kb = (await req('POST', '/user/knowledgebases', { name: 'Outra' })).body.data.id;
  const missing = await req('POST', `/user/knowledgebases/${kb}/documents/999999/reingest`);
  expect(missing.status).toBe(404);
  expect(missing.body).toEqual({ message: 'Documento não encontrado', code: 'NOT_FOUND' });
});
