import fc from 'fast-check';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';
import { startFakeTwilio, type FakeTwilio, type PostBehaviour } from '../helpers/twilio-sms';

/**
 * SMS whose outcome the provider leaves unknown (a stalled or cut answer, an answer after
 * the timeout, a 5xx) are settled by asking the provider afterwards: every message ends
 * `sent` and charged once, or `failed` and refunded, never both and never stuck, and an
 * idempotency key replays the final answer.
 */
let app: TestApp;
let twilio: FakeTwilio;
let seq = 0;

beforeAll(async () => {
  twilio = await startFakeTwilio();
  twilio.delayMs = 600;
  app = await startTestApp(
    {
      sms: {
        provider: 'twilio',
        prices: { '*': '0.10' },
        timeoutMs: 300,
        reconcileAfterMs: 100,
        twilio: { accountSid: 'AC0123', authToken: 'token', apiBase: twilio.url },
      },
    },
    { workers: true },
  );
});
afterAll(async () => {
  await app?.close();
  await twilio?.close();
});

async function senderOf(account: TestAccount): Promise<number> {
  return app.phoneNumber(account.accountId, `+55119330${String(10000 + seq++)}`, { sms: true });
}

interface SmsRequest {
  from: number;
  to: string;
  body: string;
}

const request = (from: number): SmsRequest => ({ from, to: `+55119876${String(50000 + seq++)}`, body: 'Seu pedido saiu para entrega.' });
const send = (account: TestAccount, body: SmsRequest, key: string) =>
  app.request('POST', '/api/user/sms', { token: account.token, body, headers: { 'idempotency-key': key } });

async function settled(id: number, timeoutMs = 15_000): Promise<{ status: string; sms_sid: string | null }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await app.sql('select status, sms_sid from sms_messages where id = $1', [id]);
    if (row.status !== 'sending') return row;
    if (Date.now() > deadline) throw new Error(`sms ${id} is still sending`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const ledgerOf = (id: number) => app.sql(`select kind, amount::text from ledger_entries where reference = $1 order by id`, [`sms:${id}`]);

async function money(accountId: number) {
  const [row] = await app.sql(
    `select a.balance::text, (select coalesce(sum(amount), 0)::text from ledger_entries where account_id = a.id) as ledger from accounts a where a.id = $1`,
    [accountId],
  );
  return row;
}

describe('an SMS whose outcome is unknown', () => {
  it.each<[PostBehaviour, number, 'sent' | 'failed']>([
    ['accept', 200, 'sent'],
    ['accept-then-stall', 202, 'sent'],
    ['accept-late', 202, 'sent'],
    ['accept-then-cut', 202, 'sent'],
    ['accept-then-503', 202, 'sent'],
    ['refuse-500', 202, 'failed'],
    ['refuse-400', 502, 'failed'],
  ])('%s: answers %i, then ends %s, charged once or refunded', async (behaviour, status, final) => {
    twilio.behaviour = () => behaviour;
    const account = await app.account({ balance: '1' });
    const from = await senderOf(account);
    const key = `k-${behaviour}`;
    const body = request(from);
    const first = await send(account, body, key);
    expect(first.status).toBe(status);
    const [{ id }] = await app.sql('select max(id)::int as id from sms_messages where account_id = $1', [account.accountId]);
    if (status === 202) expect(first.body).toMatchObject({ message: 'SMS handed to the provider; its confirmation is pending', data: { status: 'sending' } });

    const row = await settled(id);
    expect(row.status).toBe(final);
    if (final === 'sent') {
      const kept = twilio.messages.filter((m) => m.sid === row.sms_sid);
      expect(kept).toHaveLength(1);
      expect(await ledgerOf(id)).toEqual([{ kind: 'sms', amount: '-0.1000' }]);
      expect((await money(account.accountId)).balance).toBe('0.9000');
    } else {
      expect(await ledgerOf(id)).toEqual([{ kind: 'sms', amount: '-0.1000' }, { kind: 'sms_refund', amount: '0.1000' }]);
      expect((await money(account.accountId)).balance).toBe('1.0000');
    }
    // The key now replays the final answer, at once, without sending or charging again.
    const posts = twilio.receiver.requests.filter((r) => r.method === 'POST').length;
    const replay = await send(account, body, key);
    expect(replay.status).toBe(final === 'sent' ? 200 : 502);
    if (final === 'sent') expect(replay.body.data).toMatchObject({ id, status: 'sent', sms_sid: row.sms_sid });
    else expect(replay.body).toMatchObject({ message: 'Falha ao enviar SMS', error: expect.any(String) });
    expect(twilio.receiver.requests.filter((r) => r.method === 'POST').length).toBe(posts);
    const after = await money(account.accountId);
    expect(after.balance).toBe(after.ledger);
  });
});

describe('money under any mix of concurrent SMS outcomes', () => {
  const BEHAVIOURS: PostBehaviour[] = ['accept', 'accept-then-stall', 'accept-late', 'accept-then-cut', 'accept-then-503', 'refuse-500', 'refuse-400'];

  it('every message ends sent and charged once, or failed and refunded; balance == ledger, never below zero', async () => {
    // The fake reads each message's fate from its text, whatever order the POSTs arrive in.
    twilio.behaviour = (form) => (form.get('Body') ?? '').split(' ')[0] as PostBehaviour;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ behaviour: fc.constantFrom(...BEHAVIOURS), replays: fc.integer({ min: 0, max: 2 }) }), { minLength: 4, maxLength: 12 }),
        fc.integer({ min: 2, max: 12 }),
        async (sends, affordable) => {
          const account = await app.account({ balance: (affordable * 0.1).toFixed(2) });
          const from = await senderOf(account);
          const requests = sends.map((s, i) => ({ ...s, key: `p-${seq}-${i}`, body: { ...request(from), body: `${s.behaviour} pedido ${i}` } }));
          const answers = await Promise.all(
            requests.flatMap((r) => Array.from({ length: 1 + r.replays }, () => send(account, r.body, r.key))),
          );
          expect(answers.every((a) => [200, 202, 402, 502].includes(a.status))).toBe(true);

          const rows = await app.sql('select id from sms_messages where account_id = $1', [account.accountId]);
          // One message per key, however many times it was sent.
          expect(rows.length).toBeLessThanOrEqual(requests.length);
          for (const { id } of rows) {
            const row = await settled(id);
            const ledger = await ledgerOf(id);
            if (row.status === 'sent') {
              expect(ledger.map((l) => l.kind)).toEqual(['sms']);
              expect(twilio.messages.filter((m) => m.sid === row.sms_sid)).toHaveLength(1);
            } else {
              expect(row.status).toBe('failed');
              expect(ledger.map((l) => l.kind)).toEqual(['sms', 'sms_refund']);
            }
          }
          const after = await money(account.accountId);
          expect(after.balance).toBe(after.ledger);
          expect(Number(after.balance)).toBeGreaterThanOrEqual(0);
          const [{ lowest }] = await app.sql('select min(balance_after)::float as lowest from ledger_entries where account_id = $1', [account.accountId]);
          expect(lowest).toBeGreaterThanOrEqual(0);
        },
      ),
      { numRuns: 5 },
    );
  });
});
