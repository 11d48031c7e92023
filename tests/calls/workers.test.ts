import type { ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { releaseDeadWorkers } from '../../src/jobs/heartbeat';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';
import { exited, startWorker as startWorkerProcess } from '../helpers/workers';

/**
 * Calls on worker processes of their own (`npm run worker`, compiled by `npm test`), beside
 * an API process that runs no workers: two at once, and one killed in the middle of calls.
 */
const children: ChildProcess[] = [];

async function startWorker(app: TestApp, env: NodeJS.ProcessEnv = {}): Promise<ChildProcess> {
  const { child } = await startWorkerProcess(app, env);
  children.push(child);
  return child;
}

let app: TestApp;
let account: TestAccount;
let assistantId: number;

beforeAll(async () => {
  // A slower clock than the other tests, so that calls are still going when a worker dies.
  app = await startTestApp({ telephony: { provider: 'simulator', simulatorSpeed: 40, twilio: null }, maxParallelCalls: 100 });
  account = await app.account({ balance: '1000' });
  const phone = await app.phoneNumber(account.accountId, '+5511922220000');
  const res = await app.request('POST', '/api/user/assistant', {
    token: account.token,
    body: {
      assistant_name: 'Ana', voice_id: 1, language: 'Portuguese', llm_model: 'm', calls_direction: 'make', engine_type: 'pipeline',
      timezone: 'America/Sao_Paulo', initial_message: 'Oi', system_prompt: 'Seja breve.', phone_number_id: phone,
    },
  });
  assistantId = res.body.data.id;
});

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await Promise.all(children.map(exited));
  await app?.close();
});

async function startCalls(count: number, lastFours: string[]): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    const phone = `+55119${String(7000 + i).padStart(4, '0')}${lastFours[i % lastFours.length]}`;
    const res = await app.request('POST', '/api/user/make_call', { token: account.token, body: { phone_number: phone, assistant_id: assistantId } });
    expect(res.status).toBe(200);
    ids.push(res.body.call_id);
  }
  return ids;
}

async function waitUntil(condition: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Every call went through its states once, and answered calls were charged once. */
async function expectEachProcessedOnce(ids: number[]) {
  const events = await app.sql('select call_id, status from call_events where call_id = any($1) order by id', [ids]);
  const ledger = await app.sql(`select reference from ledger_entries where kind = 'call' and account_id = $1`, [account.accountId]);
  const calls = await app.sql('select id, status, answered_at from calls where id = any($1)', [ids]);
  for (const call of calls) {
    const path = events.filter((e: any) => e.call_id === call.id).map((e: any) => e.status);
    expect(new Set(path).size).toBe(path.length);
    expect(path[0]).toBe('initiated');
    expect(path.at(-1)).toBe(call.status);
    const charges = ledger.filter((row: any) => row.reference === `call:${call.id}`).length;
    expect(charges).toBe(call.answered_at ? 1 : 0);
  }
}

it('runs calls on two worker processes at once without processing any twice', async () => {
  // The first also touches a file with each heartbeat, as a container health check reads it.
  const aliveFile = path.join(tmpdir(), `vozgate-alive-${process.pid}`);
  const workers = [await startWorker(app, { WORKER_ALIVE_FILE: aliveFile }), await startWorker(app)];
  const ids = await startCalls(16, ['1111', '0001', '2222', '0004', '0002', '0003', '3333', '0005']);
  for (const id of ids) await app.finishedCall(id, account.token, 60_000);
  await expectEachProcessedOnce(ids);
  expect(Date.now() - statSync(aliveFile).mtimeMs).toBeLessThan(5_000);
  for (const worker of workers) worker.kill('SIGTERM');
  await Promise.all(workers.map(exited));
});

it('finishes the calls of a worker killed mid-call on another worker', async () => {
  const doomed = await startWorker(app);
  const ids = await startCalls(6, ['4444', '5555', '6666']);
  await waitUntil(
    async () => (await app.sql(`select count(*)::int as n from calls where id = any($1) and status = 'in-progress'`, [ids]))[0].n === ids.length,
    30_000,
    'the calls to be answered',
  );
  doomed.kill('SIGKILL');
  await exited(doomed);
  const stuck = await app.sql(`select count(*)::int as n from calls where id = any($1) and finished_at is null`, [ids]);
  expect(stuck[0].n).toBe(ids.length);

  await startWorker(app);
  // The dead worker's heartbeat stops; its jobs (if it died holding one) are released.
  await new Promise((resolve) => setTimeout(resolve, app.config.workers.heartbeatMs * 4));
  await releaseDeadWorkers(app.orm.em.fork(), app.config.workers.heartbeatMs * 3);
  for (const id of ids) {
    const call = await app.finishedCall(id, account.token, 60_000);
    expect(call.status).toBe('completed');
  }
  await expectEachProcessedOnce(ids);
});
