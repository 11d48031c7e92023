import { releaseDeadWorkers } from '../../src/jobs/heartbeat';
import { startTestApp, type TestApp } from '../helpers/app';
import { exited, startWorker } from '../helpers/workers';

/**
 * A worker process killed in the middle of an import: what it committed is whole batches (never
 * half of one), and another worker resumes after the last of them, to the exact counts.
 */
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});

afterAll(async () => {
  await app?.close();
});

it('a worker killed mid-import leaves whole batches, and the import resumes to exact counts', async () => {
  const account = await app.account();
  const rows = 20_000;
  const batch = 100;
  // Every 50th row is a duplicate of the row before, every 97th is invalid.
  const lines = ['phone_number,customer_name'];
  let expectedInvalid = 0;
  let expectedDuplicates = 0;
  for (let i = 1; i <= rows; i++) {
    if (i % 97 === 0) {
      lines.push(`bad${i},x`);
      expectedInvalid++;
    } else if (i % 50 === 0) {
      // A copy of an invalid row is invalid too.
      const previous = lines[lines.length - 1];
      lines.push(previous);
      if (previous.startsWith('bad')) expectedInvalid++;
      else expectedDuplicates++;
    } else lines.push(`+55119${String(60000000 + i)},Cliente ${i}`);
  }
  const csv = lines.join('\n');
  const env = { LEAD_IMPORT_BATCH_ROWS: String(batch) };
  const first = await startWorker(app, env);
  const started = await app.request('POST', '/api/user/leads/import', { token: account.token, body: { campaign_id: account.campaignId, csv } });
  expect(started.status).toBe(202);
  const id = started.body.data.id;

  // Killed once a few batches have committed, well before the end.
  for (;;) {
    const [{ rows_done }] = await app.sql('select rows_done from lead_imports where id = $1', [id]);
    if (rows_done >= 5 * batch) break;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  first.child.kill('SIGKILL');
  await exited(first.child);
  const [cut] = await app.sql('select rows_done, created, duplicates, invalid, status from lead_imports where id = $1', [id]);
  expect(cut.status).toBe('running');
  expect(cut.rows_done).toBeLessThan(rows);
  expect(cut.rows_done % batch).toBe(0); // whole batches only
  const [{ n }] = await app.sql('select count(*)::int as n from leads where campaign_id = $1', [account.campaignId]);
  expect(n).toBe(cut.created); // every lead written is counted, none of a batch cut short

  // The sweeper of another process frees the dead worker's job; a new worker takes it up.
  await new Promise((resolve) => setTimeout(resolve, app.config.workers.heartbeatMs * 3 + 100));
  await releaseDeadWorkers(app.orm.em.fork(), app.config.workers.heartbeatMs * 3);
  const second = await startWorker(app, env);
  try {
    const deadline = Date.now() + 60_000;
    let done: any;
    for (;;) {
      [done] = await app.sql('select status, rows_done, created, duplicates, invalid from lead_imports where id = $1', [id]);
      if (done.status !== 'running' || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(done).toEqual({ status: 'done', rows_done: rows, created: rows - expectedInvalid - expectedDuplicates, duplicates: expectedDuplicates, invalid: expectedInvalid });
    const [{ total, distinct }] = await app.sql('select count(*)::int as total, count(distinct phone_number)::int as distinct from leads where campaign_id = $1', [account.campaignId]);
    expect({ total, distinct }).toEqual({ total: done.created, distinct: done.created });
  } finally {
    second.child.kill('SIGKILL');
    await exited(second.child);
  }
});
