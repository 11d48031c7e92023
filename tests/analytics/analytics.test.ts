import type { Turn } from '../../src/modules/calls/call.conversation';
import { Call } from '../../src/modules/calls/call.entity';
import { applyCallEvent, settleCall } from '../../src/modules/calls/call.lifecycle';
import { transferEnded } from '../../src/modules/calls/call.transfer-leg';
import { Migration20261215000000_call_rollups } from '../../src/db/migrations/Migration20261215000000_call_rollups';
import { rollUpCalls, rollUpPendingCalls } from '../../src/modules/analytics/analytics.rollup';
import { analyticsRollupTask } from '../../src/jobs/tasks/analytics-rollup';
import { foldLeadCounts } from '../../src/modules/analytics/analytics.lead-counts';
import { bucketOf, bucketUpperEdge } from '../../src/modules/analytics/analytics.latency';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';
import { dialerKit, type DialerSetup } from '../helpers/dialer';

/**
 * The analytics query (issue 58) against a SQL count over the same calls: calls settled through
 * the dialer (a simulated campaign run) and through the state machine with chosen start times
 * (a second assistant, no campaign), for each bucket size and filter, at the period's edges
 * (from inclusive, to exclusive), with another account's calls beside them; the roll-up after
 * the settlement's commit and the periodic one, each call counted once; the daily rows equal to
 * the hourly ones; the lead counts kept.
 */
let app: TestApp;
let me: DialerSetup;
let other: DialerSetup;
/** The second assistant of `me`, whose calls are crafted at chosen times. */
let second: number;
/** The start of the hour two days ago: the crafted calls' reference. */
let base: number;
const HOUR = 3_600_000;

beforeAll(async () => {
  app = await startTestApp({ maxParallelCalls: 10, dialerTimeScale: 600 }, { workers: true });
}, 60_000);
afterAll(() => app?.close());

const { phone, setup, addLead, setStatus, finished } = dialerKit(() => app);

const QUERY = `query($from: DateTime!, $to: DateTime!, $bucket: String, $campaign_id: Int, $assistant_id: Int) {
  analytics(from: $from, to: $to, bucket: $bucket, campaign_id: $campaign_id, assistant_id: $assistant_id) {
    from to bucket timezone
    buckets { start calls minutes duration_seconds answered voicemail no_answer busy failed answer_rate voicemail_rate no_answer_rate average_duration cost cost_per_answered_call transfers }
    totals { calls minutes duration_seconds answered voicemail no_answer busy failed answer_rate voicemail_rate no_answer_rate average_duration cost cost_per_answered_call transfers }
    funnels { campaign_id campaign_name leads dialled answered completed transferred }
    latency { assistant_id assistant_name calls turns p50_ms p95_ms }
  } }`;

async function ask(account: TestAccount, variables: Record<string, unknown>) {
  const res = await app.graphql(QUERY, variables, account.token);
  return res.body;
}

const latencyTurns = (values: number[]): Turn[] =>
  values.map((ms, i) => ({ speaker: 'assistant', text: `Resposta ${i}`, latency: { stt_final_ms: null, llm_first_token_ms: null, tts_first_byte_ms: null, first_audio_ms: ms } }));

/** A call of `second` started at `at`, taken to its end through the state machine. */
async function craft(at: number, outcome: { answeredBy?: 'human' | 'machine'; status?: 'busy' | 'no-answer' | 'failed'; duration?: number; latency?: number[]; transfer?: 'before' | 'after' }) {
  const [{ id }] = await app.sql(
    `insert into calls (account_id, assistant_id, assistant_name, type, status, assistant_phone_number, client_phone_number, provider, deadline_at, created_at)
     values ($1, $2, 'Segunda', 'outbound', 'initiated', '+5511955000000', $3, 'simulator', now() + interval '1 hour', $4) returning id`,
    [me.account.accountId, second, phone('human'), new Date(at).toISOString()],
  );
  const event = (e: Parameters<typeof applyCallEvent>[3]) => app.orm.em.fork().transactional((tx) => applyCallEvent(tx, app.runtime.lifecycle, id, e));
  if (outcome.status) {
    await event({ type: 'not-answered', status: outcome.status });
    return id;
  }
  await event({ type: 'answered', answeredBy: outcome.answeredBy ?? 'human' });
  if (outcome.transfer) {
    await app.sql(`update calls set transferred_to = '+5511955000999', transfer_duration = $2 where id = $1`, [id, outcome.transfer === 'before' ? 70 : null]);
  }
  await event({ type: 'ended', status: 'completed', duration: outcome.duration ?? 65, turns: latencyTurns(outcome.latency ?? []) });
  if (outcome.transfer === 'after') await transferEnded(app.orm.em.fork(), app.config, id, 'completed', 130);
  return id;
}

/** The figures as SQL counts them over the calls themselves (the README's definitions). */
async function counted(accountId: number, from: number, to: number, trunc: 'hour' | 'day', filters: { campaign_id?: number; assistant_id?: number } = {}) {
  const rows = await app.sql(
    `select date_trunc($4, created_at, 'UTC') as start, count(*)::int as calls,
        coalesce(sum(case when answered_at is not null and duration > 0 then ceil(duration / 60.0) else 0 end), 0)::int as minutes,
        coalesce(sum(duration), 0)::int as duration_seconds,
        count(*) filter (where answered_at is not null and answered_by not in ('machine', 'unavailable'))::int as answered,
        count(*) filter (where answered_by = 'machine')::int as voicemail,
        count(*) filter (where status = 'no-answer')::int as no_answer,
        count(*) filter (where status = 'busy')::int as busy,
        count(*) filter (where status = 'failed')::int as failed,
        count(*) filter (where answered_at is not null)::int as connected,
        coalesce(sum(total_cost), 0)::numeric as cost,
        count(*) filter (where transferred_to is not null)::int as transfers
       from calls where account_id = $1 and finished_at is not null and created_at >= $2 and created_at < $3
        and ($5::int is null or campaign_id = $5) and ($6::int is null or assistant_id = $6)
      group by 1 order by 1`,
    [accountId, new Date(from).toISOString(), new Date(to).toISOString(), trunc, filters.campaign_id ?? null, filters.assistant_id ?? null],
  );
  return rows.map((row: any) => ({
    start: new Date(row.start).toISOString(),
    calls: row.calls,
    minutes: row.minutes,
    duration_seconds: row.duration_seconds,
    answered: row.answered,
    voicemail: row.voicemail,
    no_answer: row.no_answer,
    busy: row.busy,
    failed: row.failed,
    answer_rate: Math.round((row.answered / row.calls) * 10_000) / 10_000,
    voicemail_rate: Math.round((row.voicemail / row.calls) * 10_000) / 10_000,
    no_answer_rate: Math.round((row.no_answer / row.calls) * 10_000) / 10_000,
    average_duration: row.connected ? Math.round((row.duration_seconds / row.connected) * 10) / 10 : null,
    cost: Number(row.cost),
    cost_per_answered_call: row.answered ? Number((Number(row.cost) / row.answered).toFixed(4)) : null,
    transfers: row.transfers,
  }));
}

const EMPTY = { calls: 0, minutes: 0, duration_seconds: 0, answered: 0, voicemail: 0, no_answer: 0, busy: 0, failed: 0, answer_rate: null, voicemail_rate: null, no_answer_rate: null, average_duration: null, cost: 0, cost_per_answered_call: null, transfers: 0 };

beforeAll(async () => {
  // The dialer: a person twice, busy (retried once), no answer, voicemail; the other account alike.
  me = await setup({ max_retries: 1, retry_on_voicemail: false });
  other = await setup({ max_retries: 0 });
  for (const outcome of ['human', 'human', 'busy', 'no-answer', 'machine'] as const) await addLead(me, phone(outcome));
  for (const outcome of ['human', 'machine'] as const) await addLead(other, phone(outcome));
  await setStatus(me, 'start');
  await setStatus(other, 'start');
  await finished(me, 60_000);
  await finished(other, 60_000);

  second = await app.outboundAssistant(me.account, { assistant_name: 'Segunda' });
  base = Math.floor(Date.now() / HOUR) * HOUR - 48 * HOUR;
  await craft(base - 30 * 60_000, { duration: 30 });
  await craft(base, { duration: 125, latency: [400, 610, 900, 1450] });
  await craft(base + HOUR - 1000, { answeredBy: 'machine', duration: 20 });
  await craft(base + HOUR, { status: 'no-answer' });
  await craft(base + HOUR + 5000, { status: 'busy' });
  await craft(base + 2 * HOUR, { status: 'failed' });
  await craft(base + 25 * HOUR, { duration: 61, latency: [700, 720, 2600, 5200, 12_000], transfer: 'before' });
  await craft(base + 26 * HOUR, { duration: 59, latency: [300], transfer: 'after' });
  // Each settlement's own roll-up runs after its commit, without the test waiting for it: what it has not done yet, this does.
  await rollUpPendingCalls(app.orm.em.fork());
}, 180_000);

/** The account's rollup sums, hourly and daily. */
async function rolledUp(accountId: number) {
  const [row] = await app.sql(
    `select (select coalesce(sum(calls), 0)::int from call_rollups where account_id = $1) as calls,
            (select coalesce(sum(cost), 0)::numeric::text from call_rollups where account_id = $1) as cost,
            (select coalesce(sum(calls), 0)::int from call_rollups_daily where account_id = $1) as daily_calls,
            (select coalesce(sum(cost), 0)::numeric::text from call_rollups_daily where account_id = $1) as daily_cost`,
    [accountId],
  );
  return row;
}

/** A call of `second` at `at` that has ended and is not settled yet, as SQL leaves it (no roll-up ran). */
async function endedCall(at: number, cost = '0.5') {
  const [{ id }] = await app.sql(
    `insert into calls (account_id, assistant_id, assistant_name, type, status, assistant_phone_number, client_phone_number, provider, deadline_at, answered_at, answered_by, finished_at, duration, total_cost, created_at)
     values ($1, $2, 'Segunda', 'outbound', 'completed', '+5511955000000', '+5511988000001', 'simulator', now(), $3, 'human', now(), 90, $4, $3) returning id`,
    [me.account.accountId, second, new Date(at).toISOString(), cost],
  );
  return id as number;
}

describe('the figures', () => {
  const filters = () => ({
    none: {},
    campaign: { campaign_id: me.campaign },
    'dialer assistant': { assistant_id: me.assistant },
    'second assistant': { assistant_id: second },
    'campaign and second assistant': { campaign_id: me.campaign, assistant_id: second },
  });

  it.each(['hour', 'day'] as const)('equal a SQL count over the same calls, bucket by bucket and in total, for each filter (by %s)', async (bucket) => {
    const from = base - 2 * HOUR;
    const to = Math.floor(Date.now() / HOUR) * HOUR + 2 * HOUR;
    for (const [name, filter] of Object.entries(filters())) {
      const body = await ask(me.account, { from: new Date(from).toISOString(), to: new Date(to).toISOString(), bucket, ...filter });
      expect([name, body.errors]).toEqual([name, undefined]);
      const expected = await counted(me.account.accountId, from, to, bucket, filter);
      const got = body.data.analytics;
      expect(got.timezone).toBe('UTC');
      const step = bucket === 'hour' ? HOUR : 24 * HOUR;
      expect(got.buckets).toHaveLength(Math.ceil(to / step) - Math.floor(from / step));
      const nonEmpty = got.buckets.filter((b: any) => b.calls > 0).map((b: any) => ({ ...b, start: new Date(b.start).toISOString() }));
      expect([name, nonEmpty]).toEqual([name, expected]);
      for (const b of got.buckets.filter((b: any) => b.calls === 0)) expect({ ...b, start: undefined }).toEqual({ ...EMPTY, start: undefined });
      const [total] = await counted(me.account.accountId, from, to, 'day', filter).then(async () =>
        app.sql(
          `select count(*)::int as calls, coalesce(sum(total_cost), 0)::numeric as cost, count(*) filter (where transferred_to is not null)::int as transfers
             from calls where account_id = $1 and finished_at is not null and created_at >= $2 and created_at < $3
              and ($4::int is null or campaign_id = $4) and ($5::int is null or assistant_id = $5)`,
          [me.account.accountId, new Date(from).toISOString(), new Date(to).toISOString(), (filter as any).campaign_id ?? null, (filter as any).assistant_id ?? null],
        ),
      );
      expect([name, got.totals.calls, got.totals.cost, got.totals.transfers]).toEqual([name, total.calls, Number(total.cost), total.transfers]);
      expect(got.totals.answered).toBe(expected.reduce((sum: number, b: any) => sum + b.answered, 0));
    }
  });

  it('counts from inclusive and to exclusive', async () => {
    const body = await ask(me.account, { from: new Date(base).toISOString(), to: new Date(base + HOUR).toISOString(), bucket: 'hour' });
    // The calls at base and one second before its end; not the one half an hour before, nor the one at its end.
    expect(body.data.analytics.totals).toMatchObject({ calls: 2, answered: 1, voicemail: 1, no_answer: 0 });
    expect(body.data.analytics.buckets).toHaveLength(1);
    const next = await ask(me.account, { from: new Date(base + HOUR).toISOString(), to: new Date(base + 2 * HOUR).toISOString(), bucket: 'day' });
    expect(next.data.analytics.totals).toMatchObject({ calls: 2, no_answer: 1, busy: 1 });
  });

  it('charges a transferred leg to its call’s bucket, whether it ended before the call or after', async () => {
    const [{ cost }] = await app.sql(`select coalesce(sum(total_cost), 0)::numeric as cost from calls where assistant_id = $1 and transferred_to is not null`, [second]);
    const body = await ask(me.account, { from: new Date(base + 24 * HOUR).toISOString(), to: new Date(base + 27 * HOUR).toISOString(), assistant_id: second });
    expect(body.data.analytics.totals.transfers).toBe(2);
    expect(body.data.analytics.totals.cost).toBe(Number(cost));
    // The leg of 130 s that ended after the call: 3 minutes at the default rates, in the call's cost.
    expect(Number(cost)).toBeGreaterThan(0);
  });

  it('keeps each campaign’s lead count as leads come and go, before and after its changes are folded', async () => {
    const funnelLeads = async () => {
      const body = await ask(me.account, { from: new Date(base).toISOString(), to: new Date(Date.now() + HOUR).toISOString().slice(0, 13) + ':00:00Z', campaign_id: me.campaign });
      return body.data.analytics.funnels[0].leads;
    };
    const count = async () => (await app.sql('select count(*)::int as n from leads where campaign_id = $1', [me.campaign]))[0].n;
    await app.sql(`insert into leads (account_id, campaign_id, phone_number, status, created_at, updated_at) select $1, $2, '+55119770000' || g, 'completed', now(), now() from generate_series(10, 13) g`, [me.account.accountId, me.campaign]);
    await app.sql(`delete from leads where campaign_id = $1 and phone_number = '+5511977000010'`, [me.campaign]);
    expect(await funnelLeads()).toBe(await count());
    await foldLeadCounts(app.orm.em.fork());
    expect((await app.sql('select count(*)::int as n from campaign_lead_count_deltas'))[0].n).toBe(0);
    expect(await funnelLeads()).toBe(await count());
    await app.sql(`delete from leads where campaign_id = $1 and phone_number like '+5511977000%'`, [me.campaign]);
    expect(await funnelLeads()).toBe(await count());
    expect(await count()).toBe(5);
  });

  it('gives each campaign’s funnel in leads', async () => {
    const body = await ask(me.account, { from: new Date(base).toISOString(), to: new Date(Date.now() + HOUR).toISOString().slice(0, 13) + ':00:00Z' });
    const [expected] = await app.sql(
      `select (select count(*)::int from leads where campaign_id = $1) as leads,
              count(distinct lead_id) filter (where attempt = 1)::int as dialled,
              count(distinct lead_id) filter (where answered_by = 'human')::int as answered,
              (select count(*)::int from leads where campaign_id = $1 and status = 'completed') as completed,
              count(distinct lead_id) filter (where transferred_to is not null)::int as transferred
         from calls where campaign_id = $1`,
      [me.campaign],
    );
    expect(body.data.analytics.funnels).toEqual([{ campaign_id: me.campaign, campaign_name: 'Discador', ...expected }]);
    expect(expected).toMatchObject({ leads: 5, dialled: 5, answered: 2 });
    // The busy and no-answer leads were called twice and count once.
    expect((await app.sql('select count(*)::int as n from calls where campaign_id = $1', [me.campaign]))[0].n).toBe(7);
  });

  it('gives p50/p95 per assistant from the histogram, each the upper edge of the exact value’s bucket', async () => {
    const from = base - 2 * HOUR;
    const to = base + 30 * HOUR;
    const body = await ask(me.account, { from: new Date(from).toISOString(), to: new Date(to).toISOString() });
    const measured = [400, 610, 900, 1450, 700, 720, 2600, 5200, 12_000, 300].sort((a, b) => a - b);
    const rank = (p: number) => measured[Math.ceil((p / 100) * measured.length) - 1];
    expect(body.data.analytics.latency).toEqual([
      { assistant_id: second, assistant_name: 'Segunda', calls: 3, turns: 10, p50_ms: bucketUpperEdge(bucketOf(rank(50))), p95_ms: bucketUpperEdge(bucketOf(rank(95))) },
    ]);
    expect(body.data.analytics.latency[0]).toMatchObject({ p50_ms: 725, p95_ms: 10_000 });
    const one = await ask(me.account, { from: new Date(base).toISOString(), to: new Date(base + HOUR).toISOString() });
    expect(one.data.analytics.latency[0]).toMatchObject({ calls: 1, turns: 4, p50_ms: 625, p95_ms: 1500 });
  });
});

describe('tenancy', () => {
  it('never counts another account’s calls, and answers its campaign or assistant as missing', async () => {
    const from = new Date(base - 2 * HOUR).toISOString();
    const to = new Date(Math.floor(Date.now() / HOUR) * HOUR + HOUR).toISOString();
    const mine = await ask(other.account, { from, to });
    const [{ n }] = await app.sql('select count(*)::int as n from calls where account_id = $1', [other.account.accountId]);
    expect(mine.data.analytics.totals.calls).toBe(n);
    expect(n).toBe(2);
    expect(mine.data.analytics.funnels.map((f: any) => f.campaign_id)).toEqual([other.campaign]);
    const campaign = await ask(other.account, { from, to, campaign_id: me.campaign });
    const own = await app.graphql('query($id: Int!) { campaign(id: $id) { id } }', { id: 999_999 }, other.account.token);
    expect(campaign.errors[0].message).toBe(own.body.errors[0].message);
    expect(campaign.errors[0].extensions.code).toBe('NOT_FOUND');
    const assistant = await ask(other.account, { from, to, assistant_id: second });
    expect(assistant.errors[0].extensions.code).toBe('NOT_FOUND');
    expect(assistant.data).toBeNull();
  });
});

describe('settlement and roll-up', () => {
  it('settles a call without touching the rollup rows, rolls it up right after the commit, and the periodic job then adds nothing', async () => {
    const start = await rolledUp(me.account.accountId);
    const id = await endedCall(base, '0.25');
    await app.orm.em.fork().transactional(async (tx) => {
      const call = (await tx.findOne(Call, { id }))!;
      await settleCall(tx, app.runtime.lifecycle, call, null);
      // Another settlement of the account may write the same rollup rows now: the settlement holds none of them.
      const other = await app.orm.em.getConnection().getKnex().client.acquireConnection();
      try {
        await other.query('begin');
        const locked = await other.query(`select 1 from call_rollups where account_id = $1 for update nowait`, [me.account.accountId]);
        expect(locked.rowCount).toBeGreaterThan(0);
        await other.query(`select 1 from call_rollups_daily where account_id = $1 for update nowait`, [me.account.accountId]);
      } finally {
        await other.query('rollback');
        await app.orm.em.getConnection().getKnex().client.releaseConnection(other);
      }
      expect((await tx.execute('select rolled_up from calls where id = ?', [id]))[0].rolled_up).toBe(false);
    });
    // After the commit, without the job.
    for (let i = 0; i < 100 && !(await app.sql('select rolled_up from calls where id = $1', [id]))[0].rolled_up; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    const after = await rolledUp(me.account.accountId);
    expect(after.calls).toBe(start.calls + 1);
    expect(after.daily_calls).toBe(start.daily_calls + 1);
    expect(Number(after.cost)).toBeCloseTo(Number(start.cost) + 0.25, 4);
    await analyticsRollupTask.run(app.runtime, {}, null as never);
    expect(await rolledUp(me.account.accountId)).toEqual(after);
    // A settlement run again adds nothing either.
    await app.orm.em.fork().transactional(async (tx) => settleCall(tx, app.runtime.lifecycle, (await tx.findOne(Call, { id }))!, null));
    await rollUpPendingCalls(app.orm.em.fork());
    expect(await rolledUp(me.account.accountId)).toEqual(after);
  });

  it('counts calls once when roll-ups of them run at once', async () => {
    const start = await rolledUp(me.account.accountId);
    const ids: number[] = [];
    for (let i = 0; i < 6; i++) ids.push(await endedCall(base + i * 20 * 60_000));
    const added = await Promise.all([rollUpPendingCalls(app.orm.em.fork()), rollUpPendingCalls(app.orm.em.fork()), rollUpCalls(app.orm.em.fork(), ids), rollUpCalls(app.orm.em.fork(), ids.slice(2))]);
    const after = await rolledUp(me.account.accountId);
    expect(after.calls).toBe(start.calls + 6);
    expect(after.daily_calls).toBe(start.daily_calls + 6);
    expect(Number(after.cost)).toBeCloseTo(Number(start.cost) + 3, 4);
    // Every call taken by exactly one of them (a call another one held was skipped, not waited for).
    expect(added.reduce((sum, n) => sum + n, 0)).toBe(6);
  });

  it('rolls up, in the periodic job, a settled call whose roll-up after its settlement did not happen', async () => {
    // The settlement committed and the process died before its roll-up: the call is settled, not rolled up.
    const id = await endedCall(base + 30 * 60_000, '0.75');
    const start = await rolledUp(me.account.accountId);
    await analyticsRollupTask.run(app.runtime, {}, null as never);
    const after = await rolledUp(me.account.accountId);
    expect(after.calls).toBe(start.calls + 1);
    expect(after.daily_calls).toBe(start.daily_calls + 1);
    expect((await app.sql('select rolled_up from calls where id = $1', [id]))[0].rolled_up).toBe(true);
    const body = await ask(me.account, { from: new Date(base).toISOString(), to: new Date(base + HOUR).toISOString(), bucket: 'hour' });
    const [expected] = await counted(me.account.accountId, base, base + HOUR, 'hour');
    expect(body.data.analytics.totals.calls).toBe(expected.calls);
    expect(body.data.analytics.totals.cost).toBe(expected.cost);
  });

  it('keeps the daily rows equal to the hourly ones summed by UTC day', async () => {
    const byDay = (table: string, time: string, columns: string) =>
      app.sql(`select row_to_json(x)::text as row from (select account_id, ${time} as day, campaign_id, assistant_id, ${columns} from ${table} group by 1, 2, 3, 4${columns.includes('bucket') ? ', bucket' : ''} order by 1, 2, 3, 4${columns.includes('bucket') ? ', bucket' : ''}) x`);
    const sums = 'sum(calls) as calls, sum(answered) as answered, sum(voicemail) as voicemail, sum(no_answer) as no_answer, sum(busy) as busy, sum(failed) as failed, sum(connected) as connected, sum(duration_seconds) as duration_seconds, sum(billed_minutes) as billed_minutes, sum(cost) as cost, sum(transfers) as transfers, sum(pipeline_calls) as pipeline_calls, sum(dialled_leads) as dialled_leads, sum(answered_leads) as answered_leads, sum(completed_leads) as completed_leads, sum(transferred_leads) as transferred_leads';
    const hourly = await byDay('call_rollups', `date_trunc('day', hour, 'UTC')`, sums);
    expect(hourly.length).toBeGreaterThan(2);
    expect(await byDay('call_rollups_daily', 'day', sums)).toEqual(hourly);
    const latency = await byDay('call_latency_rollups', `date_trunc('day', hour, 'UTC')`, 'bucket, sum(turns) as turns');
    expect(latency.length).toBeGreaterThan(2);
    expect(await byDay('call_latency_rollups_daily', 'day', 'bucket, sum(turns) as turns')).toEqual(latency);
  });

  it('rolls up a call to a lead that the dialer did not place (no attempt number) as a call, not as a dialled lead', async () => {
    const sums = async () => (await app.sql(`select sum(calls)::int as calls, sum(dialled_leads)::int as dialled from call_rollups where account_id = $1`, [me.account.accountId]))[0];
    const start = await sums();
    const [{ id: lead }] = await app.sql('select id from leads where campaign_id = $1 order by id limit 1', [me.campaign]);
    const [{ id }] = await app.sql(
      `insert into calls (account_id, assistant_id, assistant_name, lead_id, campaign_id, type, status, assistant_phone_number, client_phone_number, provider, deadline_at, finished_at)
       values ($1, $2, 'Ana', $3, $4, 'outbound', 'busy', '+5511955000000', '+5511988000002', 'simulator', now(), now()) returning id`,
      [me.account.accountId, me.assistant, lead, me.campaign],
    );
    await rollUpCalls(app.orm.em.fork(), [id]);
    expect(await sums()).toEqual({ calls: start.calls + 1, dialled: start.dialled });
  });

  it('backfills the same rollups from the calls as the settlements kept (the migration’s own frozen statements)', async () => {
    const migration = new Migration20261215000000_call_rollups(app.orm.em.getDriver(), app.orm.config);
    await migration.up();
    const backfill = migration.getQueries().slice(-2).map(String);
    expect(backfill[0]).toContain('insert into call_rollups');
    expect(backfill[1]).toContain('insert into call_latency_rollups');
    const ROLLUPS = 'select row_to_json(r)::text as row from call_rollups r order by account_id, hour, campaign_id, assistant_id';
    const LATENCY = 'select row_to_json(r)::text as row from call_latency_rollups r order by account_id, hour, campaign_id, assistant_id, bucket';
    const read = () => app.sql(ROLLUPS);
    const readLatency = () => app.sql(LATENCY);
    const kept = [await read(), await readLatency()];
    const client = await app.orm.em.getConnection().getKnex().client.acquireConnection();
    try {
      await client.query('begin');
      await client.query('delete from call_rollups; delete from call_latency_rollups');
      for (const statement of backfill) await client.query(statement);
      const rebuilt = [
        (await client.query(ROLLUPS)).rows,
        (await client.query(LATENCY)).rows,
      ];
      expect(rebuilt).toEqual(kept);
      expect(kept[0].length).toBeGreaterThan(3);
    } finally {
      await client.query('rollback');
      await app.orm.em.getConnection().getKnex().client.releaseConnection(client);
    }
  });
});

describe('bad input', () => {
  it('refuses a period off the hour, backwards or too long, and an unknown bucket, with the field named', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ from: '2026-12-01T00:30:00Z', to: '2026-12-02T00:00:00Z' }, 'from'],
      [{ from: '2026-12-02T00:00:00Z', to: '2026-12-01T00:00:00Z' }, 'to'],
      [{ from: '2026-01-01T00:00:00Z', to: '2026-03-01T00:00:00Z', bucket: 'hour' }, 'to'],
      [{ from: '2026-12-01T00:00:00Z', to: '2026-12-02T00:00:00Z', bucket: 'week' }, 'bucket'],
    ];
    for (const [variables, field] of cases) {
      const body = await ask(me.account, variables);
      expect([variables, body.errors[0].extensions.code, Object.keys(body.errors[0].extensions.errors)]).toEqual([variables, 'VALIDATION_FAILED', [field]]);
    }
    const notADate = await ask(me.account, { from: 'ontem', to: '2026-12-02T00:00:00Z' });
    expect(notADate.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(JSON.stringify(notADate)).not.toMatch(/at .*\.js/);
  });
});
