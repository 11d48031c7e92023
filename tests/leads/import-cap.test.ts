import { startTestApp, type TestApp } from '../helpers/app';
import { startServer, type ServerProcess } from '../helpers/server';

/**
 * An account has at most LEAD_IMPORT_MAX_CONCURRENT (2) imports queued or running: the next
 * one answers 429 with Retry-After and the body of the other 429s. Requests at once on two API
 * processes over the same database: the cap holds, since it is counted in the database.
 */
let app: TestApp;
/** A second API process on the same database, with no workers: imports stay queued. */
let other: ServerProcess;

beforeAll(async () => {
  app = await startTestApp();
  other = await startServer(app, { RATE_LIMIT_PER_MINUTE: '0' });
}, 90_000);

afterAll(async () => {
  other?.child.kill('SIGTERM');
  await other?.exited;
  await app?.close();
});

const phone = (n: number) => `+55119${String(80000000 + n)}`;

async function upload(base: string, token: string, campaignId: number, rows: number) {
  const form = new FormData();
  form.append('campaign_id', String(campaignId));
  form.append('file', new Blob([`phone\n${Array.from({ length: rows }, (_, i) => phone(i)).join('\n')}`], { type: 'text/csv' }), 'leads.csv');
  const response = await fetch(`${base}/api/user/leads/import`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as any };
}

it('ten imports at once from one account on two processes: two are accepted, eight get 429 with Retry-After; one ending frees its place', async () => {
  const account = await app.account();
  const bases = [app.url, other.base];
  const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => upload(bases[i % 2], account.token, account.campaignId, 2000)));
  const accepted = answers.filter((answer) => answer.status === 202);
  const refused = answers.filter((answer) => answer.status === 429);
  expect({ accepted: accepted.length, refused: refused.length }).toEqual({ accepted: 2, refused: 8 });
  for (const answer of refused) {
    expect(answer.retryAfter).toBe('10');
    expect(answer.body).toEqual({
      message: 'Você já tem 2 importações de leads em andamento. Tente novamente em 10 segundos, ou quando uma terminar.',
      code: 'RATE_LIMITED',
      retry_after: 10,
    });
  }
  // Nothing of a refused import was written.
  expect(await app.sql('select count(*)::int as n from lead_imports where account_id = $1', [account.accountId])).toEqual([{ n: 2 }]);
  const [{ n: pieces }] = await app.sql('select count(*)::int as n from lead_import_chunks c join lead_imports i on i.id = c.import_id where i.account_id = $1', [account.accountId]);
  expect(pieces).toBe(2);

  // Another account is not held by this one's imports.
  const second = await app.account();
  expect((await upload(other.base, second.token, second.campaignId, 10)).status).toBe(202);

  // An import that ends (done, or failed) frees its place.
  await app.sql(`update lead_imports set status = 'done', finished_at = now() where id = $1`, [accepted[0].body.data.id]);
  expect((await upload(other.base, account.token, account.campaignId, 10)).status).toBe(202);
  expect((await upload(app.url, account.token, account.campaignId, 10)).status).toBe(429);
}, 60_000);
