import { Pool } from 'pg';
import { Call } from '../../src/modules/calls/call.entity';
import { foldCallCounts, listCalls, readCall } from '../../src/modules/calls/call.service';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';

/**
 * The call list's exact totals come from counters (per day, month, and all-time, by group and by
 * account) kept by a trigger (issue 19). They must equal count(*) for every filter, whatever
 * writes ran, however many at once.
 */
let app: TestApp;
let pool: Pool;
let accounts: TestAccount[];
let assistants: number[];
let campaigns: number[];

beforeAll(async () => {
  app = await startTestApp();
  pool = new Pool({ connectionString: app.databaseUrl, max: 12 });
  accounts = [await app.account({ balance: '10' }), await app.account({ balance: '10' })];
  assistants = [await app.outboundAssistant(accounts[0]), await app.outboundAssistant(accounts[0]), await app.outboundAssistant(accounts[1])];
  campaigns = [accounts[0].campaignId, await app.campaign(accounts[0].accountId, 'Outono'), accounts[1].campaignId];
});
afterAll(async () => {
  await pool?.end();
  await app?.close();
});

const STATUSES = ['initiated', 'ringing', 'in-progress', 'completed', 'busy', 'no-answer', 'failed', 'ended'];
const pick = <T>(list: T[], i: number) => list[i % list.length];

/** The counters (folded and not) that are not zero, and what counting the calls says, in the same shape. */
async function countersAndTruth() {
  const key = 'account_id, day::text, status, type, assistant_id, campaign_id';
  const counters = await app.sql(
    `select ${key}, sum(n)::int as n from (select * from call_counts union all select * from call_count_deltas) c group by 1, 2, 3, 4, 5, 6 having sum(n) <> 0 order by 1, 2, 3, 4, 5, 6`,
  );
  const truth = await app.sql(
    `select account_id, ((created_at at time zone 'UTC')::date)::text as day, status, type, coalesce(assistant_id, 0) as assistant_id, coalesce(campaign_id, 0) as campaign_id, count(*)::int as n
     from calls group by 1, 2, 3, 4, 5, 6 order by 1, 2, 3, 4, 5, 6`,
  );
  // The all-time totals, with the changes not folded yet, against the same truth without the day.
  const allTime = 'account_id, status, type, assistant_id, campaign_id';
  const totals = await app.sql(
    `select ${allTime}, sum(n)::int as n from (select ${allTime}, n from call_totals union all select ${allTime}, n from call_count_deltas) c
     group by 1, 2, 3, 4, 5 having sum(n) <> 0 order by 1, 2, 3, 4, 5`,
  );
  const totalsTruth = await app.sql(
    `select account_id, status, type, coalesce(assistant_id, 0) as assistant_id, coalesce(campaign_id, 0) as campaign_id, count(*)::int as n
     from calls group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5`,
  );
  const byMonth = 'account_id, month::text, status, type, assistant_id, campaign_id';
  const monthly = await app.sql(
    `select ${byMonth}, sum(n)::int as n from (select account_id, month, status, type, assistant_id, campaign_id, n from call_counts_monthly
     union all select account_id, date_trunc('month', day)::date, status, type, assistant_id, campaign_id, n from call_count_deltas) c
     group by 1, 2, 3, 4, 5, 6 having sum(n) <> 0 order by 1, 2, 3, 4, 5, 6`,
  );
  const monthlyTruth = await app.sql(
    `select account_id, date_trunc('month', created_at at time zone 'UTC')::date::text as month, status, type, coalesce(assistant_id, 0) as assistant_id,
            coalesce(campaign_id, 0) as campaign_id, count(*)::int as n
     from calls group by 1, 2, 3, 4, 5, 6 order by 1, 2, 3, 4, 5, 6`,
  );
  // The account's counters, with no group (a filter of the date range alone), in the same way.
  const account = async (table: string, key: string, deltaKey: string) =>
    app.sql(
      `select account_id, key::text, sum(n)::int as n from (select account_id, ${key} as key, n from ${table}
       union all select account_id, ${deltaKey}, n from call_count_deltas) c group by 1, 2 having sum(n) <> 0 order by 1, 2`,
    );
  const accountTruth = (key: string) =>
    app.sql(`select account_id, ${key}::text as key, count(*)::int as n from calls group by 1, 2 order by 1, 2`);
  const utcDay = "(created_at at time zone 'UTC')::date";
  return {
    counters: {
      byDay: counters,
      byMonth: monthly,
      allTime: totals,
      accountByDay: await account('account_call_counts', 'day', 'day'),
      accountByMonth: await account('account_call_counts_monthly', 'month', "date_trunc('month', day)::date"),
      accountAllTime: await account('account_call_totals', "'all'", "'all'"),
    },
    truth: {
      byDay: truth,
      byMonth: monthlyTruth,
      allTime: totalsTruth,
      accountByDay: await accountTruth(utcDay),
      accountByMonth: await accountTruth(`date_trunc('month', ${utcDay})::date`),
      accountAllTime: await accountTruth("'all'"),
    },
  };
}

it('keeps the counters equal to count(*) under concurrent inserts, status changes, moves, deletes and folds', async () => {
  /** `count` random calls of the account, locked in id order (so that two steps never wait on each other in a cycle). */
  const random = (count: number) =>
    `(select id from calls where id in (select id from calls where account_id = $1 order by random() limit ${count}) order by id for update)`;
  /** One transaction a step, one statement on calls in it (two when it changes the calls it just made). */
  const step = async (worker: number, round: number) => {
    const i = worker * 100 + round;
    const a = i % 3 === 2 ? 1 : 0;
    const account = accounts[a].accountId;
    const statements: [string, unknown[]][] = [];
    switch (round % 6) {
      case 0:
      case 1:
        statements.push([
          `insert into calls (account_id, assistant_id, assistant_name, campaign_id, campaign_name, type, status, assistant_phone_number, client_phone_number, provider, deadline_at, created_at)
           select $1, $2, 'Ana', case when g % 2 = 0 then $3::int end, null, case when g % 4 = 0 then 'inbound' else 'outbound' end, 'initiated',
             '+551140040000', '+55119876' || lpad(($4 * 10 + g)::text, 5, '0'), 'simulator', now(), timestamptz '2026-06-01 23:00:00+00' + ((g * 7 + $4) || ' hours')::interval
           from generate_series(1, 3) g`,
          [account, a === 1 ? assistants[2] : pick(assistants.slice(0, 2), i), a === 1 ? campaigns[2] : pick(campaigns.slice(0, 2), i), i % 1000],
        ]);
        if (round % 6 === 1) statements.push([`update calls set status = 'ringing' where id in (select max(id) from calls where account_id = $1)`, [account]]);
        break;
      case 2:
        statements.push([`update calls set status = $2 where id in ${random(3)}`, [account, pick(STATUSES, i)]]);
        break;
      case 3:
        statements.push([`update calls set transcript = 'x' where id in ${random(2)}`, [account]]); // moves no counter
        break;
      case 4:
        statements.push([`delete from calls where id in ${random(2)}`, [account]]);
        break;
      case 5:
        statements.push([`update calls set assistant_id = null, campaign_id = null, status = 'failed' where id in ${random(1)}`, [account]]);
        break;
    }
    const client = await pool.connect();
    try {
      await client.query('begin');
      for (const [sql, params] of statements) await client.query(sql, params);
      await client.query(i % 7 === 6 ? 'rollback' : 'commit');
    } catch (error) {
      await client.query('rollback');
      throw error;
    } finally {
      client.release();
    }
  };
  const work: Promise<unknown>[] = [];
  for (let worker = 0; worker < 10; worker++) {
    work.push((async () => {
      for (let round = 0; round < 24; round++) await step(worker, round);
    })());
  }
  // The sweeper folding at the same time, from two processes.
  const folding = (async () => {
    for (let n = 0; n < 20; n++) await Promise.all([foldCallCounts(app.orm.em.fork()), foldCallCounts(app.orm.em.fork())]);
  })();
  await Promise.all([...work, folding]);
  let { counters, truth } = await countersAndTruth();
  expect(truth.byDay.length).toBeGreaterThan(20);
  expect(counters).toEqual(truth);

  await foldCallCounts(app.orm.em.fork());
  expect(await app.sql('select count(*)::int as n from call_count_deltas')).toEqual([{ n: 0 }]);
  ({ counters, truth } = await countersAndTruth());
  expect(counters).toEqual(truth);
});

it('answers every filter’s exact total from the counters, and pages and slices in the list’s order', async () => {
  const [me] = accounts;
  // Folded calls late in June and into July: a month taken as a whole less its last days has
  // calls in those days to take away.
  await app.sql(
    `insert into calls (account_id, assistant_id, assistant_name, campaign_id, type, status, assistant_phone_number, client_phone_number, provider, deadline_at, created_at)
     select $1, $2, 'Ana', $3, 'outbound', case when g % 2 = 0 then 'completed' else 'busy' end, '+551140040000', '+55119877000' || lpad(g::text, 2, '0'),
       'simulator', now(), timestamptz '2026-06-25 08:00:00+00' + ((g * 13) || ' hours')::interval
     from generate_series(1, 12) g`,
    [me.accountId, assistants[0], campaigns[0]],
  );
  await foldCallCounts(app.orm.em.fork());
  // Calls not folded into the counters yet, on days that have folded calls too, and a day and
  // a month of their own; their ids do not follow their created_at.
  await app.sql(
    `insert into calls (account_id, assistant_id, assistant_name, campaign_id, type, status, assistant_phone_number, client_phone_number, provider, deadline_at, created_at)
     select $1, $2, 'Ana', $3, case when g % 3 = 0 then 'inbound' else 'outbound' end, 'completed', '+551140040000', '+55119876000' || lpad(g::text, 2, '0'),
       'simulator', now(), timestamptz '2026-06-03 12:00:00+00' + ((g * 37 % 11) || ' days')::interval - (g || ' minutes')::interval
     from generate_series(1, 30) g`,
    [me.accountId, assistants[1], campaigns[1]],
  );
  expect((await app.sql('select count(*)::int as n from call_count_deltas where account_id = $1', [me.accountId]))[0].n).toBeGreaterThan(0);
  const cases: Record<string, string>[] = [
    {},
    { status: 'completed' },
    { type: 'inbound' },
    { assistant_id: String(assistants[1]) },
    { campaign_id: String(campaigns[1]) },
    { date_from: '2026-06-03' },
    { date_to: '2026-06-02' },
    { date_from: '2026-06-02', date_to: '2026-06-04' },
    { status: 'initiated', type: 'outbound', date_from: '2026-06-02' },
    // Whole months from the monthly counters, their ends by day.
    { date_from: '2026-06-01', date_to: '2026-06-30' },
    { date_from: '2026-05-20', date_to: '2026-07-31' },
    { date_from: '2026-06-15', date_to: '2026-07-10' },
    // A month in part as the whole month less its days outside the range, at either end.
    { date_from: '2026-05-03', date_to: '2026-06-27' },
    { status: 'completed', date_from: '2026-05-30', date_to: '2026-07-27' },
    { status: 'completed', date_to: '2026-07-05' },
    { type: 'inbound', date_from: '2026-06-20' },
    { phone_number: '+5511987600012' },
    { date_from: '2031-01-01' }, // no call
  ];
  for (const query of cases) {
    const where = ['account_id = $1'];
    const params: unknown[] = [me.accountId];
    for (const [name, value] of Object.entries(query)) {
      params.push(name === 'date_from' || name === 'date_to' ? `${value} 00:00:00+00` : value);
      const column = { phone_number: 'client_phone_number' }[name] ?? name;
      where.push(
        name === 'date_from' ? `created_at >= $${params.length}` : name === 'date_to' ? `created_at < $${params.length}::timestamptz + interval '1 day'` : `${column} = $${params.length}`,
      );
    }
    const ids = (await app.sql(`select id from calls where ${where.join(' and ')} order by created_at desc, id desc`, params)).map((row) => row.id);
    // Page 1 and its total in one statement after the token's.
    app.resetQueries();
    const first = await app.request('GET', `/api/user/calls?${new URLSearchParams({ ...query, per_page: '7' })}`, { token: me.token });
    expect({ query, total: first.body.total, ids: first.body.data.map((call: { id: number }) => call.id) }).toEqual({ query, total: ids.length, ids: ids.slice(0, 7) });
    expect(app.queries).toHaveLength(2);
    const res = await app.request('GET', `/api/user/calls?${new URLSearchParams({ ...query, per_page: '7', page: '2' })}`, { token: me.token });
    expect({ query, status: res.status, total: res.body.total }).toEqual({ query, status: 200, total: ids.length });
    expect(res.body.data.map((call: { id: number }) => call.id)).toEqual(ids.slice(7, 14));
    // Every page, each found by its day from the counters, and one past the last.
    const last = Math.max(1, Math.ceil(ids.length / 7));
    for (let page = 3; page <= last + 1; page++) {
      const res = await app.request('GET', `/api/user/calls?${new URLSearchParams({ ...query, per_page: '7', page: String(page) })}`, { token: me.token });
      expect({ query, page, total: res.body.total, ids: res.body.data.map((call: { id: number }) => call.id) }).toEqual({
        query,
        page,
        total: ids.length,
        ids: ids.slice((page - 1) * 7, page * 7),
      });
    }

    // The cursor form walks the same list, slice by slice.
    const walked: number[] = [];
    let after: number | null = null;
    do {
      const feed: any = await app.graphql(
        `query($after: Int, $status: String, $type: String, $assistant: Int, $campaign: Int, $from: String, $to: String, $phone: String) {
           callFeed(after: $after, per_page: 6, status: $status, type: $type, assistant_id: $assistant, campaign_id: $campaign, date_from: $from, date_to: $to, phone_number: $phone) { data { id } next_after }
         }`,
        {
          after,
          status: query.status,
          type: query.type,
          assistant: query.assistant_id ? Number(query.assistant_id) : undefined,
          campaign: query.campaign_id ? Number(query.campaign_id) : undefined,
          from: query.date_from,
          to: query.date_to,
          phone: query.phone_number,
        },
        me.token,
      );
      expect(feed.body.errors).toBeUndefined();
      walked.push(...feed.body.data.callFeed.data.map((call: { id: number }) => call.id));
      after = feed.body.data.callFeed.next_after;
    } while (after !== null);
    expect(walked).toEqual(ids);
  }
});

it('refuses a feed cursor that names no call of the account, and ends the feed after the last call', async () => {
  const [me, other] = accounts;
  const feed = (after: number) =>
    app.graphql('query($after: Int) { callFeed(after: $after, per_page: 5) { data { id } next_after } }', { after }, me.token);
  const [theirs] = await app.sql('select max(id) as id from calls where account_id = $1', [other.accountId]);
  const [oldest] = await app.sql('select id from calls where account_id = $1 order by created_at, id limit 1', [me.accountId]);
  const [gone] = await app.sql("delete from calls where id = (select max(id) from calls where account_id = $1) returning id", [me.accountId]);
  for (const after of [theirs.id, gone.id]) {
    const res: any = await feed(after);
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', errors: { after: [expect.any(String)] } });
  }
  expect((await feed(oldest.id)).body).toEqual({ data: { callFeed: { data: [], next_after: null } } });
});

it('reads a later page and its total in one snapshot while calls are added', async () => {
  // One writer adds calls one transaction at a time, so every snapshot holds the oldest n of
  // them: the page numbered p of a snapshot with total n is then known from the ids alone.
  const me = accounts[1];
  const before = (await app.sql('select id from calls where account_id = $1 order by created_at, id', [me.accountId])).map((row) => row.id);
  let writing = true;
  const writer = (async () => {
    for (let i = 0; writing || i < 20; i++) {
      await pool.query(
        `insert into calls (account_id, assistant_id, assistant_name, type, status, assistant_phone_number, client_phone_number, provider, deadline_at)
         values ($1, $2, 'Ana', 'outbound', 'initiated', '+551140040000', '+5511987650000', 'simulator', now())`,
        [me.accountId, assistants[2]],
      );
    }
  })();
  const answers: { page: number; total: number; ids: number[] }[] = [];
  const reader = async (pages: number[]) => {
    for (let round = 0; round < 8; round++) {
      for (const page of pages) {
        const res = await app.request('GET', `/api/user/calls?per_page=5&page=${page}`, { token: me.token });
        expect(res.status).toBe(200);
        answers.push({ page, total: res.body.total, ids: res.body.data.map((call: { id: number }) => call.id) });
      }
    }
  };
  await Promise.all([reader([2, 3]), reader([4, 6]), reader([8, 9])]);
  writing = false;
  await writer;
  const all = (await app.sql('select id from calls where account_id = $1 order by created_at, id', [me.accountId])).map((row) => row.id);
  expect(all.slice(0, before.length)).toEqual(before);
  for (const { page, total, ids } of answers) {
    const newestFirst = all.slice(0, total).reverse();
    expect({ page, total, ids }).toEqual({ page, total, ids: newestFirst.slice((page - 1) * 5, page * 5) });
  }
  expect(new Set(answers.map((answer) => answer.total)).size).toBeGreaterThan(3); // the list grew while it was read
});

it('maps a call read-only exactly as the ORM does, field for field', async () => {
  const [me] = accounts;
  await app.sql(
    `update calls set variables = '{"confirmed": true}', evaluation = '{"score": 7}', carrier_cost = 0.06, total_cost = 0.11, answered_by = 'human',
       answered_at = now(), finished_at = now(), tool_calls = '[{"name": "x"}]' where id = (select max(id) from calls where account_id = $1)`,
    [me.accountId],
  );
  const ids = (await app.sql('select id from calls where account_id = $1 order by id desc limit 5', [me.accountId])).map((row) => row.id);
  for (const id of ids) {
    const scope = { em: app.orm.em.fork(), accountId: me.accountId, config: app.config };
    const read = await readCall(scope as never, id);
    const managed = await app.orm.em.fork().findOneOrFail(Call, { id });
    expect(read).toBeInstanceOf(Call);
    for (const key of Object.keys(managed)) expect([key, (read as any)[key]]).toEqual([key, (managed as any)[key]]);
  }
});

it('lets PostgreSQL plan page 1 of every filter once, with its total, and not on every request', async () => {
  const me = await app.account();
  const [assistant, campaign] = [await app.outboundAssistant(me), await app.campaign(me.accountId, 'Planos')];
  // An account with most of the calls, and statistics that say so: a generic plan is then
  // costed from the average account, a custom plan from this one. Vacuumed, as autovacuum
  // leaves a table after a bulk insert.
  await app.sql(
    `insert into calls (account_id, assistant_id, assistant_name, campaign_id, type, status, assistant_phone_number, client_phone_number, provider, deadline_at, created_at)
     select $1, $2, 'Ana', $3, case when g % 4 = 0 then 'inbound' else 'outbound' end, case when g % 5 = 0 then 'busy' else 'completed' end,
       '+551140040000', '+5511987' || lpad((g % 1000)::text, 6, '0'), 'simulator', now(), now() - (g || ' minutes')::interval
     from generate_series(1, 20000) g`,
    [me.accountId, assistant, campaign],
  );
  await app.sql('vacuum analyze calls');
  const filters: Record<string, unknown>[] = [
    {},
    { status: 'busy' },
    { type: 'inbound' },
    { assistant_id: assistant },
    { campaign_id: campaign },
    { phone_number: '+5511987000007' },
    // Not the date range: its generic plan is costed from PostgreSQL's default share of rows in
    // a range (0.5%), so which plan it keeps depends on the account's size. At the benchmark's
    // scale it keeps the generic one; here, with 20,000 calls, it plans each run.
  ];
  // In a transaction, every statement runs on one connection, whose prepared statements it then
  // reads; a page size no other test uses sets them apart from those the connection ran before.
  const plans = await app.orm.em.fork().transactional(async (em) => {
    for (const filter of filters) {
      for (let i = 0; i < 8; i++) await listCalls({ em, accountId: me.accountId, config: app.config }, { ...filter, per_page: 13 });
    }
    return em.execute<{ statement: string; generic_plans: string; custom_plans: string }[]>(
      `select statement, generic_plans::text, custom_plans::text from pg_prepared_statements
       where statement like '%page_total%' and statement like '%limit 13)%' order by prepare_time`,
    );
  });
  expect(plans).toHaveLength(filters.length);
  // Five custom plans first, then PostgreSQL keeps the generic one.
  for (const plan of plans) expect({ statement: plan.statement, generic: plan.generic_plans, custom: plan.custom_plans }).toEqual({ statement: plan.statement, generic: '3', custom: '5' });
});

