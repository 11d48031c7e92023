import { Client } from 'pg';
import { isDatabaseUnavailable } from '../../src/db/availability';
import { startTestApp, type HttpResult, type TestAccount, type TestApp } from '../helpers/app';
import { startOwnCluster, type OwnCluster } from '../helpers/own-cluster';

/**
 * The PostgreSQL server itself stopped (fast shutdown: sessions killed, transactions in
 * flight aborted) and started again while clients keep writing: /readyz fails then recovers,
 * every request in between gets a clean 503, and afterwards every lead is whole (it has all
 * of its secondary contacts) and every lead answered 200 is there. The server here is the
 * test's own, so stopping it touches no other test file.
 */
let server: OwnCluster;
let app: TestApp;
let account: TestAccount;

beforeAll(async () => {
  server = await startOwnCluster();
  app = await startTestApp({}, { adminUrl: server.adminUrl });
  account = await app.account();
}, 60_000);

afterAll(async () => {
  await app?.close().catch(() => {});
  await server?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('answers 503 while the server is down, recovers when it is up, and leaves nothing half-written', async () => {
  let phone = 0;
  let running = true;
  const answered: { phone: string; res: HttpResult }[] = [];
  const client = async () => {
    while (running) {
      const number = `+55119877${String(10000 + phone++).padStart(5, '0')}`;
      const res = await app.request('POST', '/api/user/lead', {
        token: account.token,
        body: {
          phone_number: number,
          campaign_id: account.campaignId,
          secondary_contacts: [{ phone_number: '+5511912340001' }, { phone_number: '+5511912340002' }, { phone_number: '+5511912340003' }],
        },
      });
      answered.push({ phone: number, res });
    }
  };
  const load = Promise.all(Array.from({ length: 6 }, client));

  await sleep(300);
  await server.run('stop');
  const readyWhileDown = await app.request('GET', '/readyz');
  await sleep(500);
  await server.run('start');
  const deadline = Date.now() + 20_000;
  while ((await app.request('GET', '/readyz')).status !== 200) {
    if (Date.now() > deadline) throw new Error('never ready again');
    await sleep(100);
  }
  await sleep(300);
  running = false;
  await load;

  expect(readyWhileDown.status).toBe(503);
  const statuses = new Set(answered.map((a) => a.res.status));
  // What the server logged is the outage itself, nothing else (checked first: it names the cause of any 500).
  const unexpected = app.loggedErrors.filter((error) => !isDatabaseUnavailable(error)).map((e: any) => [String(e?.message).slice(0, 200), e?.code, e?.originalError?.message, e?.cause?.message]);
  expect(unexpected).toEqual([]);
  expect([...statuses].sort()).toEqual([200, 503]);
  for (const { res } of answered.filter((a) => a.res.status === 503)) {
    expect(res.body).toEqual({ message: 'Serviço temporariamente indisponível.', code: 'UNAVAILABLE' });
    expect(res.headers.get('retry-after')).toBe('5');
  }
  // The load succeeded again once the server was back.
  expect(answered.at(-1)!.res.status).toBe(200);

  // The test's own SQL client lost its connection with the server: a new one.
  const check = new Client({ connectionString: app.databaseUrl });
  await check.connect();
  const { rows: leads } = await check.query<{ phone_number: string; contacts: number }>(
    `select l.phone_number, (select count(*)::int from secondary_contacts c where c.lead_id = l.id) as contacts
     from leads l where l.account_id = $1`,
    [account.accountId],
  );
  await check.end();
  for (const lead of leads) expect(lead).toEqual({ phone_number: lead.phone_number, contacts: 3 });
  const stored = new Set(leads.map((l) => l.phone_number));
  const ok = answered.filter((a) => a.res.status === 200).map((a) => a.phone);
  expect(ok.filter((p) => !stored.has(p))).toEqual([]);
  // What the server logged is the outage itself, nothing else.
  expect(app.loggedErrors.filter((error) => !isDatabaseUnavailable(error))).toEqual([]);
}, 60_000);
