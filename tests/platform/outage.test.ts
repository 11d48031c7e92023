import { Client } from 'pg';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';

/**
 * The database goes away under load and comes back: /readyz fails then recovers, requests in
 * between get a clean 503 (never a 500, never a stack trace), and nothing is half-written.
 */
let app: TestApp;
let account: TestAccount;
let admin: Client;
let database: string;

beforeAll(async () => {
  app = await startTestApp();
  account = await app.account();
  admin = new Client({ connectionString: process.env.TEST_DATABASE_URL });
  await admin.connect();
  database = new URL(app.databaseUrl).pathname.slice(1);
});
afterAll(async () => {
  await admin.query(`alter database ${database} allow_connections true`).catch(() => {});
  await admin.end();
  await app?.close();
});

async function takeDatabaseAway(): Promise<void> {
  await admin.query(`alter database ${database} allow_connections false`);
  await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [database]);
}

it('answers 503 while the database is away and recovers when it is back', async () => {
  expect((await app.request('GET', '/readyz')).status).toBe(200);
  let phone = 0;
  const create = () =>
    app.request('POST', '/api/user/lead', {
      token: account.token,
      body: { phone_number: `+55119876${String(10000 + phone++).padStart(5, '0')}`, campaign_id: account.campaignId },
    });

  const before = await Promise.all(Array.from({ length: 5 }, create));
  expect(before.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);

  await takeDatabaseAway();
  const during = await Promise.all([
    ...Array.from({ length: 10 }, create),
    app.request('GET', '/api/user/leads', { token: account.token }),
    app.graphql('{ campaigns { id } }', {}, account.token),
  ]);
  for (const res of during) {
    expect(res.status).toBe(503);
    expect(res.text).toContain('Serviço temporariamente indisponível.');
    expect(res.headers.get('retry-after')).toBe('5');
  }
  expect((await app.request('GET', '/readyz')).status).toBe(503);
  expect((await app.request('GET', '/healthz')).status).toBe(200);

  await admin.query(`alter database ${database} allow_connections true`);
  const deadline = Date.now() + 15_000;
  while ((await app.request('GET', '/readyz')).status !== 200) {
    if (Date.now() > deadline) throw new Error('never ready again');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const after = await Promise.all(Array.from({ length: 5 }, create));
  expect(after.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);

  const check = new Client({ connectionString: app.databaseUrl });
  await check.connect();
  const { rows } = await check.query('select count(*)::int as n from leads where account_id = $1', [account.accountId]);
  await check.end();
  expect(rows[0].n).toBe(10);
});
