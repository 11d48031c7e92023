import { TRANSACTION_ATTEMPTS } from '../../src/db/entity-manager';
import { startTestApp, type HttpResult, type TestApp } from '../helpers/app';
import { dialerKit, sleep } from '../helpers/dialer';
import { exited, startWorker, type WorkerProcess } from '../helpers/workers';

/**
 * The dialer against every client write that touches its rows, at once: three worker processes
 * dial two running campaigns of one account while clients add leads to them, edit them, stop
 * and start them and reset leads. Every writer takes its row locks in one mode (FOR NO KEY
 * UPDATE, src/db/locks.ts) and one order, so PostgreSQL finds no deadlock, and no client gets
 * a 500.
 */
let app: TestApp;
const workers: WorkerProcess[] = [];
const { phone, setup, addLead } = dialerKit(() => app);

beforeAll(async () => {
  app = await startTestApp({ maxParallelCalls: 6, dialerTimeScale: 600, telephony: { provider: 'simulator', simulatorSpeed: 200, twilio: null } });
  for (let i = 0; i < 3; i++) workers.push(await startWorker(app));
}, 60_000);

afterAll(async () => {
  for (const { child } of workers) child.kill('SIGKILL');
  await Promise.all(workers.map(({ child }) => exited(child)));
  await app?.close();
});

async function deadlocks(): Promise<number> {
  const [row] = await app.sql<{ deadlocks: string }>('select deadlocks::text from pg_stat_database where datname = current_database()');
  return Number(row.deadlocks);
}

it('lead adds, campaign edits, stop/start and lead resets beside three dialling processes: no deadlock, no 500', async () => {
  const first = await setup({ max_calls_in_parallel: 4, max_retries: 3 });
  const second = await setup({ max_calls_in_parallel: 4, max_retries: 3 });
  // Both campaigns on one account, so that the dialer's account lock is shared by both.
  const account = first.account;
  await app.sql('update campaigns set account_id = $1 where id = $2', [account.accountId, second.campaign]);
  await app.sql('update assistants set account_id = $1 where id = $2', [account.accountId, second.assistant]);
  await app.sql('update phone_numbers set account_id = $1 where id = (select phone_number_id from assistants where id = $2)', [account.accountId, second.assistant]);
  const campaigns = [first.campaign, second.campaign];
  const leads: number[] = [];
  for (const campaign of campaigns) {
    for (let i = 0; i < 10; i++) leads.push(await addLead({ ...first, campaign }, phone(i % 2 ? 'busy' : 'human')));
  }
  const before = await deadlocks();
  for (const campaign of campaigns) {
    expect((await app.request('POST', '/api/user/campaigns/update-status', { token: account.token, body: { campaign_id: campaign, action: 'start' } })).status).toBe(200);
  }

  const answers: { what: string; res: HttpResult }[] = [];
  // Each kind of write goes on for 8 s and until it went through more than 10 times (a busy
  // machine answers fewer in 8 s), at most 30 s.
  const deadline = Date.now() + 8_000;
  const lastly = Date.now() + 30_000;
  const through = (what: string) => answers.filter((a) => a.what === what && a.res.status === 200).length;
  const loop = (what: string, request: (i: number) => Promise<HttpResult>) => async () => {
    for (let i = 0; Date.now() < lastly && (Date.now() < deadline || through(what) <= 10); i++) answers.push({ what, res: await request(i) });
  };
  const pick = (i: number) => campaigns[i % campaigns.length];
  await Promise.all([
    loop('add lead', (i) => app.request('POST', '/api/user/lead', { token: account.token, body: { phone_number: phone(i % 3 ? 'human' : 'busy'), campaign_id: pick(i) } }))(),
    loop('add lead', (i) => app.request('POST', '/api/user/lead', { token: account.token, body: { phone_number: phone('no-answer'), campaign_id: pick(i + 1) } }))(),
    loop('edit campaign', (i) => app.request('PUT', `/api/user/campaigns/${pick(i)}`, { token: account.token, body: { max_calls_in_parallel: 2 + (i % 3), retry_interval: 1 + (i % 2) } }))(),
    loop('stop/start', (i) =>
      app.request('POST', '/api/user/campaigns/update-status', { token: account.token, body: { campaign_id: pick(i >> 1), action: i % 2 ? 'start' : 'stop' } }),
    )(),
    loop('reset lead', (i) => app.request('PUT', `/api/user/leads/${leads[i % leads.length]}`, { token: account.token, body: { status: 'created' } }))(),
  ]);

  const failed = answers.filter(({ res }) => res.status >= 500).map(({ what, res }) => `${what}: ${res.status} ${res.text}`);
  expect(failed).toEqual([]);
  // Every kind of write went through, many times.
  for (const what of ['add lead', 'edit campaign', 'stop/start', 'reset lead']) {
    expect(answers.filter((a) => a.what === what && a.res.status === 200).length).toBeGreaterThan(10);
  }
  expect(app.loggedErrors).toEqual([]);
  // PostgreSQL counts the deadlocks it broke; a backend reports its counts within a second.
  await sleep(1_500);
  expect((await deadlocks()) - before).toBe(0);
  for (const { output } of workers) expect(output()).not.toMatch(/deadlock/i);
}, 90_000);

it("runs a transaction that PostgreSQL chose as a deadlock's victim again, whole", async () => {
  const a = await app.account();
  const b = await app.account();
  // Two transactions lock the same two rows in opposite orders, each waiting for the other to
  // hold its first: PostgreSQL aborts one, which runs again once the other has committed.
  let runs = 0;
  let arrived = 0;
  const bothHoldTheirFirst = new Promise<void>((resolve) => {
    const check = setInterval(() => arrived >= 2 && (clearInterval(check), resolve()), 5);
  });
  const crossing = (first: number, second: number) =>
    app.orm.em.fork().transactional(async (tx) => {
      runs++;
      await tx.execute('update accounts set balance = balance + 1 where id = ?', [first]);
      if (++arrived <= 2) await bothHoldTheirFirst;
      await tx.execute('update accounts set balance = balance + 1 where id = ?', [second]);
    });
  const balances = () => app.sql('select balance::float as balance from accounts where id = any($1) order by id', [[a.accountId, b.accountId]]);
  const [before, deadlocksBefore] = [await balances(), await deadlocks()];
  await Promise.all([crossing(a.accountId, b.accountId), crossing(b.accountId, a.accountId)]);
  // The victim ran twice; both transactions added 1 to both balances, once each.
  expect(runs).toBe(3);
  expect(TRANSACTION_ATTEMPTS).toBeGreaterThanOrEqual(2);
  expect((await balances()).map((row: any, i: number) => row.balance - before[i].balance)).toEqual([2, 2]);
  await sleep(1_500);
  expect((await deadlocks()) - deadlocksBefore).toBe(1);
});
