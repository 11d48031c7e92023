import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';

/**
 * Ingestion on the job queue, with the workers running: a document's job is enqueued with it,
 * and a run that fails is retried by the queue until the document is ready.
 */
let app: TestApp;
let me: TestAccount;

beforeAll(async () => {
  app = await startTestApp({}, { workers: true });
  me = await app.account();
});
afterAll(() => app?.close());

const req = (method: string, path: string, body?: unknown) => app.request(method, `/api${path}`, { token: me.token, body });

async function settled(kb: number, id: number, timeoutMs = 30_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await req('GET', `/user/knowledgebases/${kb}/documents/${id}`);
    if (res.body.data.status !== 'processing') return res.body.data;
    if (Date.now() > deadline) throw new Error(`document ${id} still processing: ${JSON.stringify(res.body.data)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

it('ingests a text and an uploaded txt; a run that fails is retried by the queue', async () => {
  const kb = (await req('POST', '/user/knowledgebases', { name: 'Worker' })).body.data.id;
  const text = await req('POST', `/user/knowledgebases/${kb}/documents`, { name: 'Texto', type: 'text', content: 'Abrimos às 9h.' });
  expect(await settled(kb, text.body.data.id)).toMatchObject({ status: 'ready', chunks_count: 1 });

  const form = new FormData();
  form.append('name', 'Arquivo');
  form.append('type', 'txt');
  form.append('file', new Blob(['Entregamos em todo o Brasil.\n\nTrocas em até 30 dias.']), 'faq.txt');
  const uploaded = await fetch(`${app.url}/api/user/knowledgebases/${kb}/documents`, { method: 'POST', headers: { authorization: `Bearer ${me.token}` }, body: form });
  const file = (await uploaded.json()) as any;
  expect(await settled(kb, file.data.id)).toMatchObject({ status: 'ready', chunks_count: 1 });
  const [chunk] = await app.sql('select content from knowledge_chunks where document_id = $1', [file.data.id]);
  expect(chunk.content).toBe('Entregamos em todo o Brasil.\n\nTrocas em até 30 dias.');

  // The first run fails as it marks the document ready (a sequence is not rolled back: only the first time).
  await app.sql('create sequence kb_attempts');
  await app.sql(`create function kb_fail_once() returns trigger language plpgsql as $$ begin if nextval('kb_attempts') = 1 then raise exception 'first run fails'; end if; return new; end $$`);
  await app.sql(`create trigger kb_fail_once before update on knowledge_documents for each row when (new.status = 'ready') execute function kb_fail_once()`);
  try {
    const retried = await req('POST', `/user/knowledgebases/${kb}/documents`, { name: 'Retry', type: 'text', content: 'Aceitamos Pix.' });
    expect(await settled(kb, retried.body.data.id)).toMatchObject({ status: 'ready', chunks_count: 1 });
    const [attempts] = await app.sql(`select last_value::int as n from kb_attempts`);
    expect(attempts.n).toBe(2);
  } finally {
    await app.sql('drop trigger kb_fail_once on knowledge_documents');
    await app.sql('drop function kb_fail_once()');
    await app.sql('drop sequence kb_attempts');
  }
});
