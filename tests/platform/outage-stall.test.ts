import { isDatabaseUnavailable } from '../../src/db/availability';
import { startTestApp, type HttpResult, type TestAccount, type TestApp } from '../helpers/app';
import { startOwnCluster, type OwnCluster } from '../helpers/own-cluster';

/**
 * A stalled database (every process of the server stopped with SIGSTOP: open connections and
 * new ones alike go unanswered) must not hang requests without bound: each gets a 503 with Retry-After within the
 * documented bound (DATABASE_TIMEOUT_MS, 2 s here, plus a second), as a refused database does, and all is well once it answers again.
 */
let server: OwnCluster;
let app: TestApp;
let account: TestAccount;
let assistantId: number;

beforeAll(async () => {
  server = await startOwnCluster();
  app = await startTestApp({ databaseTimeoutMs: 2000 }, { adminUrl: server.adminUrl });
  account = await app.account({ balance: '100' });
  assistantId = await app.outboundAssistant(account);
}, 60_000);

afterAll(async () => {
  await server?.run('resume').catch(() => {});
  await app?.close().catch(() => {});
  await server?.close();
});

async function timed(request: Promise<HttpResult>): Promise<HttpResult & { ms: number }> {
  const start = Date.now();
  const res = await request;
  return { ...res, ms: Date.now() - start };
}

it('answers 503 with Retry-After within the bound while the database is stalled, and recovers', async () => {
  await server.run('stall');
  let answers: (HttpResult & { ms: number })[];
  try {
    answers = await Promise.all([
      timed(app.request('GET', '/api/user/me', { token: account.token })),
      timed(app.request('POST', '/api/user/make_call', { token: account.token, body: { phone_number: '+5511976540000', assistant_id: assistantId } })),
      timed(app.request('GET', '/readyz')),
      ...Array.from({ length: 10 }, () => timed(app.request('GET', '/api/user/leads', { token: account.token }))),
    ]);
  } finally {
    await server.run('resume');
  }
  for (const res of answers) {
    expect({ status: res.status, fast: res.ms < 4_500 }).toEqual({ status: 503, fast: true });
  }
  expect(answers[0].headers.get('retry-after')).toBe('5');
  expect(answers[0].body).toEqual({ message: 'Serviço temporariamente indisponível.', code: 'UNAVAILABLE' });

  const deadline = Date.now() + 20_000;
  while ((await app.request('GET', '/api/user/me', { token: account.token })).status !== 200) {
    if (Date.now() > deadline) throw new Error('never answered again');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // What was logged is the stall itself; and no connection that was given up on serves again
  // (one could still be inside a transaction): a write after it is whole and committed.
  expect(app.loggedErrors.filter((error) => !isDatabaseUnavailable(error))).toEqual([]);
  const lead = await app.request('POST', '/api/user/lead', { token: account.token, body: { phone_number: '+5511976541111', campaign_id: account.campaignId } });
  expect(lead.status).toBe(200);
  expect(await app.sql('select phone_number from leads where account_id = $1', [account.accountId])).toEqual([{ phone_number: '+5511976541111' }]);
}, 90_000);
