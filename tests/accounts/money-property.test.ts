import fc from 'fast-check';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';

/**
 * The money invariants under any mix of concurrent operations, over REST and GraphQL: calls
 * started and deleted, SMS sent and refunded (the simulator refuses numbers ending in 9999).
 * Afterwards every call and SMS is final, balance == sum(ledger), and no ledger row ever
 * took the balance below the documented floor: calls in flight (at most
 * PLAN_MAX_PARALLEL_CALLS) may cost past their reserved first minute, by at most
 * (⌈max_call_duration / 60⌉ - 1) minutes each.
 */
let app: TestApp;
let seq = 0;

const MAX_PARALLEL_CALLS = 4;
const MAX_CALL_SECONDS = 150; // three started minutes: two past the reservation
const PER_MINUTE = 0.11; // BR: carrier 0.06 + fee 0.05
const FLOOR = -MAX_PARALLEL_CALLS * (Math.ceil(MAX_CALL_SECONDS / 60) - 1) * PER_MINUTE;

beforeAll(async () => {
  app = await startTestApp({ maxParallelCalls: MAX_PARALLEL_CALLS }, { workers: true });
});
afterAll(() => app?.close());

type Op =
  | { kind: 'call'; over: 'rest' | 'graphql'; ending: string }
  | { kind: 'sms'; over: 'rest' | 'graphql'; refused: boolean }
  | { kind: 'delete-call'; over: 'rest' | 'graphql' };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('call' as const), over: fc.constantFrom('rest' as const, 'graphql' as const), ending: fc.constantFrom('7777', '0001', '0002', '0004', '0005') }),
  fc.record({ kind: fc.constant('sms' as const), over: fc.constantFrom('rest' as const, 'graphql' as const), refused: fc.boolean() }),
  fc.record({ kind: fc.constant('delete-call' as const), over: fc.constantFrom('rest' as const, 'graphql' as const) }),
);

async function setUp(balance: string) {
  const account = await app.account({ balance });
  const phone = await app.phoneNumber(account.accountId, `+551193${String(3000000 + seq++)}`, { sms: true });
  const assistantId = await app.outboundAssistant(account, { max_call_duration: MAX_CALL_SECONDS });
  return { account, phone, assistantId };
}

async function run(o: Op, ctx: { account: TestAccount; phone: number; assistantId: number }): Promise<number> {
  const { account, phone, assistantId } = ctx;
  const number = (ending: string) => `+55119${String(1000 + seq++).padStart(4, '0')}${ending}`;
  if (o.kind === 'call') {
    const input = { phone_number: number(o.ending), assistant_id: assistantId };
    if (o.over === 'rest') return (await app.request('POST', '/api/user/make_call', { token: account.token, body: input })).status;
    const res = await app.graphql('mutation($input: MakeCallInput!) { makeCall(input: $input) { call_id } }', { input }, account.token);
    return res.body.errors?.[0]?.extensions.status ?? 200;
  }
  if (o.kind === 'sms') {
    const input = { from: phone, to: number(o.refused ? '9999' : '4321'), body: 'Seu pedido chegou.' };
    if (o.over === 'rest') return (await app.request('POST', '/api/user/sms', { token: account.token, body: input })).status;
    const res = await app.graphql('mutation($input: SendSmsInput!) { sendSms(input: $input) { id } }', { input }, account.token);
    return res.body.errors?.[0]?.extensions.status ?? 200;
  }
  const [call] = await app.sql('select id from calls where account_id = $1 order by random() limit 1', [account.accountId]);
  if (!call) return 404;
  if (o.over === 'rest') return (await app.request('DELETE', `/api/user/calls/${call.id}`, { token: account.token })).status;
  const res = await app.graphql('mutation($id: Int!) { deleteCall(id: $id) }', { id: call.id }, account.token);
  return res.body.errors?.[0]?.extensions.status ?? 200;
}

async function quiet(accountId: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await app.sql(
      `select (select count(*)::int from calls where account_id = $1 and finished_at is null)
            + (select count(*)::int from sms_messages where account_id = $1 and status = 'sending') as open`,
      [accountId],
    );
    if (row.open === 0) return;
    if (Date.now() > deadline) throw new Error(`${row.open} calls or SMS still open`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

it('balance == sum(ledger), never below the floor, every call and SMS final, under any concurrent mix', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 30 }), fc.constantFrom('0.50', '1.00', '3.00'), async (ops, balance) => {
      const ctx = await setUp(balance);
      const statuses = await Promise.all(ops.map((o) => run(o, ctx)));
      // Refusals are the documented ones: no balance (402), the parallel cap (422), a call in flight (409), gone (404).
      expect(statuses.filter((s) => ![200, 402, 409, 404, 422, 502].includes(s))).toEqual([]);
      await quiet(ctx.account.accountId);

      const [money] = await app.sql(
        `select a.balance::float as balance, (select coalesce(sum(amount), 0)::float from ledger_entries where account_id = a.id) as ledger,
                (select min(balance_after)::float from ledger_entries where account_id = a.id) as lowest
         from accounts a where a.id = $1`,
        [ctx.account.accountId],
      );
      expect(money.balance).toBeCloseTo(money.ledger, 4);
      expect(money.lowest).toBeGreaterThanOrEqual(FLOOR - 1e-9);
      // Each SMS is charged once, and refunded once exactly when it failed.
      const sms = await app.sql(
        `select s.status, count(l.*) filter (where l.kind = 'sms')::int as charged, count(l.*) filter (where l.kind = 'sms_refund')::int as refunded
         from sms_messages s left join ledger_entries l on l.reference = 'sms:' || s.id where s.account_id = $1 group by s.id`,
        [ctx.account.accountId],
      );
      for (const row of sms) expect([row.status, row.charged, row.refunded]).toEqual(row.status === 'sent' ? ['sent', 1, 0] : ['failed', 1, 1]);
      // Each call that was reserved was released once, and charged once when it cost anything.
      const calls = await app.sql(
        `select c.total_cost::float as cost,
                count(l.*) filter (where l.kind = 'call_reservation')::int as reserved,
                count(l.*) filter (where l.kind = 'call_reservation_release')::int as released,
                coalesce(sum(-l.amount) filter (where l.kind = 'call'), 0)::float as charged
         from calls c left join ledger_entries l on l.reference = 'call:' || c.id where c.account_id = $1 group by c.id`,
        [ctx.account.accountId],
      );
      for (const row of calls) {
        expect(row.reserved).toBe(1);
        expect(row.released).toBe(1);
        expect(row.charged).toBeCloseTo(row.cost, 4);
      }
    }),
    { numRuns: 8 },
  );
});
