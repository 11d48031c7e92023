import { applyCallEvent } from '../../src/modules/calls/call.lifecycle';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';

/**
 * Calls and money under concurrency: the parallel-call cap, the reservation of each call's
 * first minute, and no call that happened going unbilled.
 */
let app: TestApp;
let seq = 0;

/** A Brazilian mobile number (R$ 0.06 + 0.05 a minute); the last four digits pick the simulator's outcome. */
const number = (lastFour = '7777') => `+55119${String(1000 + seq++).padStart(4, '0')}${lastFour}`;

const MAKE_CALL = 'mutation($input: MakeCallInput!) { makeCall(input: $input) { call_id status } }';

/** One make_call, over REST or GraphQL, answered as `{status, code}`. */
async function makeCall(account: TestAccount, assistantId: number, over: 'rest' | 'graphql', phone = number()) {
  if (over === 'rest') {
    const res = await app.request('POST', '/api/user/make_call', { token: account.token, body: { phone_number: phone, assistant_id: assistantId } });
    return { status: res.status, callId: res.body.call_id as number | undefined, message: res.body.message as string };
  }
  const res = await app.graphql(MAKE_CALL, { input: { phone_number: phone, assistant_id: assistantId } }, account.token);
  const error = res.body.errors?.[0];
  return { status: error ? error.extensions.status : 200, callId: res.body.data?.makeCall?.call_id as number | undefined, message: error?.message };
}

async function moneyOf(accountId: number) {
  const [row] = await app.sql(
    `select a.balance::text, (select coalesce(sum(amount), 0)::text from ledger_entries where account_id = a.id) as ledger,
            (select coalesce(min(balance_after), 0)::text from ledger_entries where account_id = a.id) as lowest
     from accounts a where a.id = $1`,
    [accountId],
  );
  return { balance: Number(row.balance), ledger: Number(row.ledger), lowest: Number(row.lowest) };
}

async function allFinished(accountId: number, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [{ open }] = await app.sql(`select count(*)::int as open from calls where account_id = $1 and finished_at is null`, [accountId]);
    if (open === 0) return;
    if (Date.now() > deadline) throw new Error(`${open} calls still open`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  app = await startTestApp({ maxParallelCalls: 100 }, { workers: true });
});
afterAll(() => app?.close());

describe('a call in flight', () => {
  it('cannot be deleted, and is charged when it ends; then it can be deleted', async () => {
    const account = await app.account({ balance: '10' });
    const assistantId = await app.outboundAssistant(account);
    const started = await makeCall(account, assistantId, 'rest');
    expect(started.status).toBe(200);
    const id = started.callId!;

    const rest = await app.request('DELETE', `/api/user/calls/${id}`, { token: account.token });
    expect(rest).toMatchObject({ status: 409, body: { message: 'A chamada ainda está em andamento e não pode ser excluída; tente novamente quando ela terminar.' } });
    const gql = await app.graphql('mutation($id: Int!) { deleteCall(id: $id) }', { id }, account.token);
    expect(gql.body.errors[0].extensions).toMatchObject({ code: 'CONFLICT', status: 409 });

    const call = await app.finishedCall(id, account.token);
    expect(call.total_cost).toBeGreaterThan(0);
    const ledger = await app.sql(`select kind, amount::text from ledger_entries where reference = $1 order by id`, [`call:${id}`]);
    expect(ledger).toEqual([
      { kind: 'call_reservation', amount: '-0.1100' },
      { kind: 'call_reservation_release', amount: '0.1100' },
      { kind: 'call', amount: `-${call.total_cost.toFixed(4)}` },
    ]);
    expect(await app.request('DELETE', `/api/user/calls/${id}`, { token: account.token })).toMatchObject({ status: 200 });
    const money = await moneyOf(account.accountId);
    expect(money.balance).toBeCloseTo(money.ledger, 4);
  });
});

describe('the balance under concurrent calls', () => {
  it('30 concurrent make_call on R$ 1.00 start only what the balance reserves, REST and GraphQL mixed', async () => {
    const account = await app.account({ balance: '1.00' });
    // Calls of at most 60 s cost exactly their reservation: the balance cannot go below zero.
    const assistantId = await app.outboundAssistant(account, { max_call_duration: 60 });
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => makeCall(account, assistantId, i % 2 ? 'graphql' : 'rest')));
    const started = results.filter((r) => r.status === 200);
    expect(started).toHaveLength(9); // 9 x 0.11 = 0.99
    expect(results.filter((r) => r.status === 402).every((r) => r.message === 'Saldo insuficiente')).toBe(true);
    expect(results.filter((r) => r.status !== 200 && r.status !== 402)).toEqual([]);

    await allFinished(account.accountId);
    const money = await moneyOf(account.accountId);
    expect(money.balance).toBeCloseTo(money.ledger, 4);
    expect(money.lowest).toBeGreaterThanOrEqual(0);
    expect(money.balance).toBeGreaterThanOrEqual(0);
  });

  it('PLAN_MAX_PARALLEL_CALLS holds under 12 concurrent starts, and frees up as calls end', async () => {
    // No workers: the calls stay in flight until the test ends them.
    const capped = await startTestApp({ maxParallelCalls: 3 });
    try {
      const account = await capped.account({ balance: '100' });
      const assistantId = await capped.outboundAssistant(account);
      const start = (i: number) =>
        capped.request('POST', '/api/user/make_call', { token: account.token, body: { phone_number: number(), assistant_id: assistantId } });
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => start(i)));
      expect(results.filter((r) => r.status === 200)).toHaveLength(3);
      const refused = results.filter((r) => r.status !== 200);
      expect(refused.every((r) => r.status === 422 && r.body.message.includes('limite de 3 chamadas simultâneas'))).toBe(true);
      const [first] = results.filter((r) => r.status === 200);
      await capped.orm.em.fork().transactional((tx) => applyCallEvent(tx, capped.runtime.lifecycle, first.body.call_id, { type: 'not-answered', status: 'busy' }));
      expect((await start(99)).status).toBe(200);
      expect((await start(100)).status).toBe(422);
    } finally {
      await capped.close();
    }
  });
});
