/**
 * @ci-once worker processes killed mid-transaction, about a minute of real time; the ingestion's SQL runs the same on every Node
 */
import { createHash } from 'node:crypto';
import { enqueue, jobKey } from '../../src/jobs/queue';
import { chunkText, normaliseText } from '../../src/modules/knowledge/knowledge.chunking';
import { enqueueIngestion } from '../../src/modules/knowledge/knowledge.ingest';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';
import { exited, startWorker, type WorkerProcess } from '../helpers/workers';

/**
 * A worker process killed with SIGKILL while it is inside a document's ingestion transaction,
 * some batches of chunks written and more to come: the document keeps what it had (no chunk
 * the first time, its old chunks on a re-ingestion), and once the queue hands the dead
 * worker's job to another worker, the document is ready with exactly the chunks its content makes.
 */
let app: TestApp;
let me: TestAccount;
let kb: number;
const workers: WorkerProcess[] = [];
/** ingestDocument's chunks per insert statement. */
const BATCH = 500;

beforeAll(async () => {
  // No workers of its own (the default): only the worker processes below take jobs.
  app = await startTestApp({}, { recordQueries: false });
  me = await app.account();
  kb = (await app.request('POST', '/api/user/knowledgebases', { token: me.token, body: { name: 'Pedidos' } })).body.data.id;
});

// Each test's workers stop with it, so that only the next test's take its jobs.
afterEach(async () => {
  for (const worker of workers) worker.child.kill('SIGTERM');
  await Promise.all(workers.splice(0).map((worker) => exited(worker.child)));
});

afterAll(() => app?.close());

async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>, everyMs = 5): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

async function worker(): Promise<WorkerProcess> {
  const started = await startWorker(app);
  workers.push(started);
  return started;
}

/** About `megabytes` of varied sentences in paragraphs: some 1,400 chunks a megabyte. */
function bigText(megabytes: number): string {
  const paragraphs: string[] = [];
  for (let p = 0, bytes = 0; bytes < megabytes * 1024 * 1024; p++) {
    const sentences: string[] = [];
    for (let s = 0; s < 6; s++) {
      const n = p * 6 + s;
      sentences.push(`Pedido ${n}: entregamos na região ${n % 97} em ${1 + (n % 13)} dias úteis, com frete de R$ ${(n % 50) + 9},90 e troca em até ${n % 30} dias.`);
    }
    const paragraph = sentences.join(' ');
    paragraphs.push(paragraph);
    bytes += Buffer.byteLength(paragraph) + 2;
  }
  return paragraphs.join('\n\n');
}

async function uploadTxt(name: string, content: string): Promise<number> {
  const form = new FormData();
  form.append('name', name);
  form.append('type', 'txt');
  form.append('file', new Blob([content]), `${name}.txt`);
  const res = await fetch(`${app.url}/api/user/knowledgebases/${kb}/documents`, { method: 'POST', headers: { authorization: `Bearer ${me.token}` }, body: form });
  expect(res.status).toBe(201);
  return ((await res.json()) as any).data.id;
}

const documentRow = async (id: number) => (await app.sql('select status, failure, chunks_count, updated_at from knowledge_documents where id = $1', [id]))[0];

/** What is stored of a document's chunks: how many, their ordinals, and a digest of their contents in order. */
async function storedChunks(id: number) {
  const [row] = await app.sql(
    `select count(*)::int as total, count(distinct ordinal)::int as ordinals, min(ordinal) as first, max(ordinal) as last,
            md5(coalesce(string_agg(content, E'\\u0001' order by ordinal), '')) as digest
       from knowledge_chunks where document_id = $1`,
    [id],
  );
  return row;
}

/** The stored form of `chunks`, as storedChunks answers it. */
const chunksOf = (chunks: string[]) => ({
  total: chunks.length,
  ordinals: chunks.length,
  first: chunks.length ? 0 : null,
  last: chunks.length ? chunks.length - 1 : null,
  digest: createHash('md5').update(chunks.join('\u0001')).digest('hex'),
});

/**
 * Kills `doomed` with SIGKILL once it is inside document `id`'s ingestion transaction with
 * batches written and more to come, and waits until its database backend has ended.
 *
 * The chunks are inserted only by ingestDocument's transaction, after it has locked the base
 * and the document and deleted the old chunks, BATCH a statement; the statement's text carries
 * the document's id and its batch's first ordinal (MikroORM's `execute` inlines the values;
 * pg_stat_activity keeps a statement's first 1 kB). A backend running (or just past) the insert
 * of the third batch or a later one has written two batches or more in this run, and cannot be
 * there before; one still four batches short of the last cannot commit before the kill lands.
 */
async function killInsideIngestion(doomed: WorkerProcess, id: number, chunks: number): Promise<{ inTransaction: boolean; workerId: string }> {
  const backend = await waitFor('the worker to be inside the ingestion transaction, some batches written', 40_000, async () => {
    const rows: { pid: number; query: string; in_transaction: boolean }[] = await app.sql(
      `select pid, query, xact_start < query_start as in_transaction from pg_stat_activity
        where datname = current_database() and state in ('active', 'idle in transaction') and query like 'insert into knowledge_chunks%'`,
    );
    return rows.find((row) => {
      const [, document, start] = /select (\d+), \d+, t\.ordinal - 1 \+ (\d+)/.exec(row.query) ?? [];
      return Number(document) === id && Number(start) >= 2 * BATCH && Number(start) <= chunks - 5 * BATCH;
    });
  });
  doomed.child.kill('SIGKILL');
  await exited(doomed.child);
  // The backend sees its connection gone once the statement under way ends, and rolls back.
  await waitFor('the dead worker’s backend to end', 20_000, async () => ((await app.sql('select 1 from pg_stat_activity where pid = $1', [backend.pid])).length ? undefined : true), 20);
  // The job is still there, held by the dead worker: the queue does not give it out again by itself.
  const [job] = await app.sql('select locked_by from graphile_worker.jobs where key = $1', [jobKey('knowledge:ingest', id)]);
  expect(job.locked_by).not.toBeNull();
  return { inTransaction: backend.in_transaction, workerId: job.locked_by };
}

/**
 * Another worker's sweeper releases the jobs of a worker whose heartbeat stopped; it runs every
 * minute, here it is added once the dead worker's heartbeat is stale, so as not to wait for the
 * minute. Then a worker takes the job again; answers the document once it is no longer processing.
 */
async function ingestedAgain(id: number, deadWorkerId: string, from: unknown): Promise<any> {
  const staleMs = app.config.workers.heartbeatMs * 3;
  await waitFor(
    'the dead worker’s heartbeat to be stale',
    10_000,
    async () => {
      const [{ fresh }] = await app.sql(`select count(*)::int as fresh from worker_heartbeats where worker_id = $1 and beat_at >= now() - ($2 * interval '1 millisecond')`, [
        deadWorkerId,
        staleMs + 100,
      ]);
      return fresh === 0 ? true : undefined;
    },
    50,
  );
  await worker();
  await enqueue(app.orm.em.fork(), 'calls:sweep', {});
  return waitFor('the document to be ingested again', 40_000, async () => {
    const row = await documentRow(id);
    return row.status === 'processing' || JSON.stringify(row) === JSON.stringify(from) ? undefined : row;
  }, 50);
}

it('a worker killed inside the first ingestion leaves no chunk; another worker then makes the document whole', async () => {
  // Near KB_MAX_DOCUMENT_BYTES (10 MB): over 20 insert batches.
  const content = bigText(9.5);
  expect(Buffer.byteLength(content)).toBeLessThanOrEqual(app.config.knowledge.maxDocumentBytes);
  const expected = chunkText(normaliseText(content));
  expect(expected.length).toBeGreaterThan(20 * BATCH);

  const first = await worker();
  const id = await uploadTxt('grande', content);
  const killed = await killInsideIngestion(first, id, expected.length);
  const cut = await documentRow(id);
  expect(cut).toMatchObject({ status: 'processing', failure: null, chunks_count: 0 });
  expect(await storedChunks(id)).toEqual(chunksOf([]));
  expect(killed.inTransaction).toBe(true);

  expect(await ingestedAgain(id, killed.workerId, cut)).toMatchObject({ status: 'ready', failure: null, chunks_count: expected.length });
  expect(await storedChunks(id)).toEqual(chunksOf(expected));
});

it('a worker killed inside a re-ingestion leaves the old chunks; another worker then replaces them all', async () => {
  const old = 'Abrimos às 9h.\n\nFechamos às 18h, de segunda a sábado.';
  const first = await worker();
  const id = await uploadTxt('pequeno', old);
  const ready = await waitFor('the first ingestion', 30_000, async () => {
    const row = await documentRow(id);
    return row.status === 'processing' ? undefined : row;
  }, 20);
  const oldChunks = chunkText(normaliseText(old));
  expect(ready).toMatchObject({ status: 'ready', chunks_count: oldChunks.length });
  const oldIds = (await app.sql('select id from knowledge_chunks where document_id = $1 order by id', [id])).map((row) => row.id);

  // The document's source replaced and its ingestion enqueued again, as a re-ingestion does.
  // Smaller, enough batches on both sides of the kill.
  const content = bigText(5);
  const expected = chunkText(normaliseText(content));
  expect(expected.length).toBeGreaterThan(10 * BATCH);
  await app.sql('update knowledge_documents set source = $2, source_bytes = $3 where id = $1', [id, Buffer.from(content), Buffer.byteLength(content)]);
  await enqueueIngestion(app.orm.em.fork(), id);
  const killed = await killInsideIngestion(first, id, expected.length);
  expect(await documentRow(id)).toEqual(ready);
  expect(await storedChunks(id)).toEqual(chunksOf(oldChunks));
  expect((await app.sql('select id from knowledge_chunks where document_id = $1 order by id', [id])).map((row) => row.id)).toEqual(oldIds);
  expect(killed.inTransaction).toBe(true);

  expect(await ingestedAgain(id, killed.workerId, ready)).toMatchObject({ status: 'ready', failure: null, chunks_count: expected.length });
  expect(await storedChunks(id)).toEqual(chunksOf(expected));
  const [{ kept }] = await app.sql('select count(*)::int as kept from knowledge_chunks where id = any($1)', [oldIds]);
  expect(kept).toBe(0);
});
