import { startWorkers, restartDelayMs, type Workers } from '../../src/jobs/runner';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';
import { json, startReceiver, type Receiver } from '../helpers/receiver';
import { startOwnCluster, type OwnCluster } from '../helpers/own-cluster';

/**
 * The job runner through a PostgreSQL outage: the server stopped (fast shutdown) while calls
 * are stepping through the simulator's jobs and a webhook delivery is in flight (its receiver
 * answers only once the database is gone, so that the job's outcome cannot be recorded), then
 * started again. graphile-worker's runner
 * stops for good when it cannot record a job's outcome; ours must come back by itself, run
 * every overdue job, settle every call, and keep the balance equal to its ledger. The server
 * is the test's own, so stopping it touches no other test file.
 */
let server: OwnCluster;
let app: TestApp;
let workers: Workers;
let account: TestAccount;
let assistantId: number;
let receiver: Receiver;
/** Lets the held webhook deliveries be answered. */
let release: () => void;
const released = new Promise<void>((resolve) => (release = resolve));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  server = await startOwnCluster();
  // A slow clock, so that calls are mid-way through their steps when the database goes.
  app = await startTestApp(
    { telephony: { provider: 'simulator', simulatorSpeed: 20, twilio: null }, maxParallelCalls: 100, allowPrivateNetworkTargets: true },
    { adminUrl: server.adminUrl },
  );
  receiver = await startReceiver();
  receiver.respond = async (_request, res) => {
    await released;
    json(res, 200, { ok: true });
  };
  workers = await startWorkers(app.runtime, app.databaseUrl);
  account = await app.account({ balance: '1000' });
  assistantId = await app.outboundAssistant(account);
}, 60_000);

afterAll(async () => {
  await workers?.stop(2_000).catch(() => {});
  await app?.close().catch(() => {});
  await server?.close();
  await receiver?.close();
});

async function waitUntil(condition: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

it('backs off from 0.5 s to at most 10 s between attempts to start again', () => {
  expect([0, 1, 2, 3, 4, 5, 10].map(restartDelayMs)).toEqual([500, 1000, 2000, 4000, 8000, 10_000, 10_000]);
});

it('starts the runner again after an outage: overdue jobs run, calls settle, the balance equals its ledger', async () => {
  const endpoint = await app.request('POST', '/api/user/webhooks', { token: account.token, body: { url: receiver.url, events: ['call.initiated'] } });
  expect(endpoint.status).toBe(201);
  const ids: number[] = [];
  for (let i = 0; i < 12; i++) {
    const res = await app.request('POST', '/api/user/make_call', {
      token: account.token,
      body: { phone_number: `+5511976${String(5000 + i).padStart(4, '0')}99`, assistant_id: assistantId },
    });
    expect(res.status).toBe(200);
    ids.push(res.body.call_id);
  }
  // Calls in flight, and delivery jobs waiting on their receiver.
  await waitUntil(async () => receiver.requests.length > 0, 10_000, 'a webhook delivery in flight');

  await server.run('stop');
  release();
  // The delivery's outcome cannot be recorded: graphile-worker's worker gives up, and so does
  // its runner. While the database is away, the runner is not counted as running (no
  // heartbeat, no alive file).
  await waitUntil(async () => !workers.running, 10_000, 'the runner to notice the outage');
  await sleep(500);
  await server.run('start');

  await waitUntil(async () => workers.running, 30_000, 'the runner to run again');
  for (const id of ids) {
    await app.finishedCall(id, account.token, 30_000);
  }
  // No job is left overdue: each one due has run (or is running) again.
  await waitUntil(
    async () => (await app.sql(`select count(*)::int as n from graphile_worker.jobs where run_at < now() - interval '3 seconds' and locked_at is null and attempts < max_attempts`))[0].n === 0,
    30_000,
    'the overdue jobs to run',
  );
  const [money] = await app.sql(
    `select a.balance::text as balance, (select coalesce(sum(amount), 0)::text from ledger_entries where account_id = a.id) as ledger
     from accounts a where a.id = $1`,
    [account.accountId],
  );
  expect(Number(money.balance)).toBeCloseTo(Number(money.ledger), 6);
  // Every call released its reservation (nothing is held for a call that ended).
  const [held] = await app.sql(
    `select count(*)::int as n from calls c where c.id = any($1)
       and exists (select 1 from ledger_entries l where l.reference = 'call:' || c.id and l.kind = 'call_reservation')
       and not exists (select 1 from ledger_entries l where l.reference = 'call:' || c.id and l.kind = 'call_reservation_release')`,
    [ids],
  );
  expect(held.n).toBe(0);
  // The heartbeat names the new runner's workers only.
  const beats = await app.sql(`select count(*)::int as n from worker_heartbeats where beat_at > now() - interval '2 seconds'`);
  expect(beats[0].n).toBe(app.config.workers.concurrency);
}, 120_000);
