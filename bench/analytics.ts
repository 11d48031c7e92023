import { loadavg } from 'node:os';
import { Client } from 'pg';
import { DAILY_FROM_HOURLY } from '../src/db/migrations/Migration20261218000000_analytics_days';
import { initOrm } from '../src/db/orm';
import { addPhoneNumber, createAccount } from '../src/modules/accounts/account.service';
import { addLatencySql, addRollupsSql } from '../src/modules/analytics/analytics.rollup';
import { dropDatabase, freshDatabase, percentile, startVozgate } from './process';

/**
 * The analytics query at a million calls (issue 58): `npm run bench -- --only analytics`. One
 * account's calls over 35 days, seeded with SQL (generate_series, not the ORM), across four
 * campaigns (each with its assistant, 50,000 leads) and an inbound assistant; about 8% of them
 * answered on the pipeline engine with four measured answers each. The rollups are then built by
 * the migrations' own backfill statements (timed: the hourly rows from the calls, the daily ones
 * from the hourly), and the GraphQL query is asked in sequence through one API process, each
 * request timed by the client: warm-up, then `requests` a case in three rounds (the machine is
 * shared: the rounds' spread and the load average say how noisy it was).
 * Target: p99 <= 50 ms for 30 days by day.
 */
export interface AnalyticsCase {
  name: string;
  buckets: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  /** Each round's p99. */
  round_p99_ms: number[];
  /** The 1-minute load average before and after the case. */
  load: [number, number];
  /** The slowest statements' mean time, from pg_stat_statements. */
  statements: string[];
}

export interface AnalyticsResult {
  calls: number;
  turns: number;
  seed_s: number;
  backfill_s: number;
  rollup_rows: number;
  latency_rows: number;
  daily_rows: number;
  daily_latency_rows: number;
  requests: number;
  cases: AnalyticsCase[];
}

const DAY = 86_400_000;

export async function runAnalyticsScenario(adminUrl: string, root: string, options: { calls: number; requests: number }, log: (line: string) => void, node = process.execPath): Promise<AnalyticsResult> {
  const database = 'vozgate_bench_analytics';
  const databaseUrl = await freshDatabase(adminUrl, database);
  const orm = await initOrm({ databaseUrl });
  const { account, token } = await createAccount(orm.em.fork(), { name: 'Analytics', balance: '100' });
  const numbers: number[] = [];
  for (let i = 0; i < 4; i++) numbers.push((await addPhoneNumber(orm.em.fork(), { accountId: account.id, number: `+551195500010${i}`, smsEnabled: false, whatsappEnabled: false, expiresAt: null })).id);
  await orm.close();
  // The API process from the start: the account's assistants and campaigns are made through it, as a user makes them.
  const server = await startVozgate(root, databaseUrl, {}, [], node);
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  const api = async (path: string, body: unknown) => {
    const res = await fetch(`http://127.0.0.1:${server.port}/api${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const json = (await res.json()) as { data: { id: number } };
    if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json.data.id;
  };
  try {
    let started = performance.now();
    const assistants: number[] = [];
    for (const [i, direction] of ['make', 'make', 'make', 'receive'].entries()) {
      assistants.push(
        await api('/user/assistant', {
          assistant_name: `Assistente ${i + 1}`,
          voice_id: 1,
          language: 'Portuguese',
          llm_model: 'gpt-4o-mini',
          calls_direction: direction,
          engine_type: 'pipeline',
          timezone: 'America/Sao_Paulo',
          initial_message: 'Olá!',
          system_prompt: 'Você é um assistente.',
          phone_number_id: numbers[i],
        }),
      );
    }
    const campaigns: number[] = [];
    for (let i = 0; i < 4; i++) {
      const id = await api('/user/campaigns', { name: `Campanha ${i + 1}`, assistant_id: assistants[i % 3] });
      campaigns.push(id);
      await db.query(
        `insert into leads (account_id, campaign_id, phone_number, status, attempts, created_at, updated_at)
         select $1, $2, '+55119' || lpad(($3 * 100000 + g)::text, 8, '0'), case when g % 3 = 0 then 'completed' else 'reached-max-retries' end, 1, now(), now()
           from generate_series(1, 50000) g`,
        [account.id, id, i],
      );
    }
    const firstLead = (await db.query('select min(id)::int as id from leads')).rows[0].id;
    // Outcomes by a fixed draw per call: 45% a person, 15% voicemail, 20% no answer, 10% busy,
    // 5% failed, 5% a person then a transfer; a fifth of the calls inbound (no campaign).
    await db.query(
      `insert into calls (account_id, assistant_id, assistant_name, lead_id, attempt, campaign_id, campaign_name, type, duration, assistant_phone_number,
                          client_phone_number, status, answered_by, answered_at, finished_at, total_cost, carrier_cost, transferred_to, provider, deadline_at, created_at, updated_at)
       select $1, a.assistant_id, 'Assistente', a.lead_id, a.attempt, a.campaign_id, a.campaign_name, a.type, a.duration, '+5511955000000',
              '+5511988' || lpad((g % 1000000)::text, 6, '0'), a.status, a.answered_by, case when a.answered_by is not null then a.at end,
              a.at + make_interval(secs => a.duration + 5), case when a.duration > 0 then ceil(a.duration / 60.0) * 0.05 else 0 end,
              case when a.duration > 0 then ceil(a.duration / 60.0) * 0.03 else 0 end, a.transferred_to, 'simulator', a.at + interval '1 hour', a.at, a.at
         from generate_series(1, $2::int) g,
         lateral (select (hashint4(g)::bigint + 2147483648) / 4294967296.0 as r, now() - (g::float8 / $2) * interval '35 days' as at) d,
         lateral (select
              case when g % 5 = 0 then ($3::int[])[4] else ($3::int[])[1 + (g % 5 - 1) % 3] end as assistant_id,
              case when g % 5 = 0 then null else ($4::int[])[g % 5] end as campaign_id,
              case when g % 5 = 0 then null else 'Campanha ' || (g % 5) end as campaign_name,
              case when g % 5 = 0 then null else $5::int + ((g % 5) - 1) * 50000 + (g / 5) % 50000 end as lead_id,
              case when g % 5 = 0 then null else 1 + (g / 250000) end as attempt,
              case when g % 5 = 0 then 'inbound' else 'outbound' end as type,
              case when d.r < 0.45 or d.r >= 0.95 then 30 + (g % 270) when d.r < 0.60 then 15 + (g % 25) else 0 end as duration,
              case when d.r < 0.45 or d.r >= 0.95 then 'completed' when d.r < 0.60 then 'ended' when d.r < 0.80 then 'no-answer' when d.r < 0.90 then 'busy' else 'failed' end as status,
              case when d.r < 0.45 or d.r >= 0.95 then 'human' when d.r < 0.60 then 'machine' end as answered_by,
              case when d.r >= 0.95 then '+5511955000999' end as transferred_to,
              d.at) a`,
      [account.id, options.calls, `{${assistants.join(',')}}`, `{${campaigns.join(',')}}`, firstLead],
    );
    // Four measured answers on each of half the answered calls of the first assistant (the pipeline's).
    await db.query(
      `insert into call_turns (call_id, seq, account_id, speaker, text, at_ms, timing)
       select c.id, s, c.account_id, 'assistant', 'Resposta.', s * 5000,
              json_build_object('latency', json_build_object('first_audio_ms', round(450 + 2500 * ((hashint4(c.id * 4 + s)::bigint + 2147483648) / 4294967296.0) ^ 3)))
         from calls c, generate_series(1, 4) s
        where c.assistant_id = $1 and c.answered_by = 'human' and c.id % 2 = 0`,
      [assistants[0]],
    );
    const turns = (await db.query('select count(*)::int as n from call_turns')).rows[0].n;
    await db.query('vacuum analyze');
    await db.query('create extension if not exists pg_stat_statements').catch(() => undefined);
    const seed = (performance.now() - started) / 1000;
    log(`analytics: seeded ${options.calls} calls and ${turns} measured answers in ${seed.toFixed(1)} s`);

    // The bulk insert bypassed the settlement, as calls made before the migration did: the migration's backfill rolls them up.
    started = performance.now();
    await db.query('update calls set rolled_up = true');
    const backfillStarted = performance.now();
    await db.query(addRollupsSql('(select * from calls where rolled_up) c'));
    await db.query(addLatencySql('(select * from calls where rolled_up) c'));
    for (const statement of DAILY_FROM_HOURLY) await db.query(statement);
    const backfill = (performance.now() - backfillStarted) / 1000;
    await db.query('vacuum analyze call_rollups, call_latency_rollups, call_rollups_daily, call_latency_rollups_daily');
    const count = async (table: string): Promise<number> => (await db.query(`select count(*)::int as n from ${table}`)).rows[0].n;
    const [rollupRows, latencyRows, dailyRows, dailyLatencyRows] = [await count('call_rollups'), await count('call_latency_rollups'), await count('call_rollups_daily'), await count('call_latency_rollups_daily')];
    log(
      `analytics: backfill in ${backfill.toFixed(1)} s: ${rollupRows} rollup rows, ${latencyRows} latency rows; daily ${dailyRows} and ${dailyLatencyRows} (marking ${((backfillStarted - started) / 1000).toFixed(1)} s)`,
    );

    {
      const url = `http://127.0.0.1:${server.port}/graphql`;
      const to = Math.ceil(Date.now() / 3_600_000) * 3_600_000;
      const iso = (ms: number) => new Date(ms).toISOString();
      const today = Math.floor(Date.now() / DAY) * DAY;
      const cases: { name: string; variables: Record<string, unknown> }[] = [
        { name: '30 days by day', variables: { from: iso(to - 30 * DAY), to: iso(to), bucket: 'day' } },
        { name: '30 days by day, one campaign', variables: { from: iso(to - 30 * DAY), to: iso(to), bucket: 'day', campaign_id: campaigns[0] } },
        { name: '30 days by day, one assistant', variables: { from: iso(to - 30 * DAY), to: iso(to), bucket: 'day', assistant_id: assistants[0] } },
        { name: '30 days by hour', variables: { from: iso(to - 30 * DAY), to: iso(to), bucket: 'hour' } },
        { name: '7 days by hour', variables: { from: iso(to - 7 * DAY), to: iso(to), bucket: 'hour' } },
        { name: 'today by hour', variables: { from: iso(today), to: iso(to), bucket: 'hour' } },
      ];
      const query = `query($from: DateTime!, $to: DateTime!, $bucket: String, $campaign_id: Int, $assistant_id: Int) {
        analytics(from: $from, to: $to, bucket: $bucket, campaign_id: $campaign_id, assistant_id: $assistant_id) {
          buckets { start calls minutes answered voicemail no_answer answer_rate voicemail_rate no_answer_rate average_duration cost cost_per_answered_call transfers }
          totals { calls minutes answered answer_rate voicemail_rate no_answer_rate average_duration cost cost_per_answered_call transfers }
          funnels { campaign_id campaign_name leads dialled answered completed transferred }
          latency { assistant_id calls turns p50_ms p95_ms } } }`;
      const results: AnalyticsCase[] = [];
      for (const c of cases) {
        const ask = async () => {
          const t0 = performance.now();
          const res = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ query, variables: c.variables }) });
          const body = (await res.json()) as { data?: { analytics: { buckets: unknown[]; totals: { calls: number } } }; errors?: unknown };
          const ms = performance.now() - t0;
          if (res.status !== 200 || body.errors) throw new Error(`analytics ${c.name}: ${res.status} ${JSON.stringify(body.errors)}`);
          return { ms, body: body.data!.analytics };
        };
        let last = (await ask()).body;
        for (let i = 0; i < 50; i++) last = (await ask()).body;
        await db.query('select pg_stat_statements_reset()').catch(() => undefined);
        const times: number[] = [];
        const roundP99: number[] = [];
        const loadBefore = loadavg()[0];
        for (let round = 0; round < 3; round++) {
          const these: number[] = [];
          for (let i = 0; i < Math.ceil(options.requests / 3); i++) these.push((await ask()).ms);
          roundP99.push(Math.round(percentile([...these].sort((a, b) => a - b), 99) * 10) / 10);
          times.push(...these);
        }
        const load: [number, number] = [Math.round(loadBefore * 10) / 10, Math.round(loadavg()[0] * 10) / 10];
        // Where the time goes in the database: each statement's mean execution time.
        const statements = await db
          .query(`select left(regexp_replace(query, '\\s+', ' ', 'g'), 70) as query, calls, round(mean_exec_time::numeric, 2) as ms from pg_stat_statements where calls >= $1 order by mean_exec_time desc limit 5`, [times.length])
          .then((res) => res.rows, () => []);
        for (const row of statements) log(`  ${row.ms} ms x ${row.calls}: ${row.query}`);
        times.sort((a, b) => a - b);
        const round = (ms: number) => Math.round(ms * 10) / 10;
        results.push({
          name: c.name,
          buckets: last.buckets.length,
          p50_ms: round(percentile(times, 50)),
          p99_ms: round(percentile(times, 99)),
          max_ms: round(times[times.length - 1]),
          round_p99_ms: roundP99,
          load,
          statements: statements.map((row) => `${row.ms} ms x ${row.calls}: ${row.query}`),
        });
        log(
          `analytics: ${c.name} (${last.buckets.length} buckets, ${last.totals.calls} calls): p50 ${round(percentile(times, 50))} ms, p99 ${round(percentile(times, 99))} ms (rounds ${roundP99.join(', ')}; load ${load.join(' -> ')})`,
        );
      }
      return {
        calls: options.calls,
        turns,
        seed_s: Math.round(seed),
        backfill_s: Math.round(backfill * 10) / 10,
        rollup_rows: rollupRows,
        latency_rows: latencyRows,
        daily_rows: dailyRows,
        daily_latency_rows: dailyLatencyRows,
        requests: Math.ceil(options.requests / 3) * 3,
        cases: results,
      };
    }
  } finally {
    server.child.kill('SIGTERM');
    await new Promise((resolve) => (server.child.exitCode !== null ? resolve(null) : server.child.once('exit', resolve)));
    await db.end();
    await dropDatabase(adminUrl, database);
  }
}

export function analyticsMarkdown(r: AnalyticsResult): string {
  return [
    `${r.calls.toLocaleString('en')} calls over 35 days (one account, 4 campaigns of 50,000 leads, 4 assistants), ${r.turns.toLocaleString('en')} measured pipeline answers; rollups built by the migrations' backfill in ${r.backfill_s} s (${r.rollup_rows.toLocaleString('en')} hourly rollup rows, ${r.latency_rows.toLocaleString('en')} hourly latency rows; ${r.daily_rows.toLocaleString('en')} and ${r.daily_latency_rows.toLocaleString('en')} daily). ${r.requests} requests a case in three rounds, in sequence, through POST /graphql, timed by the client; the 1-minute load average of this shared 2-core machine before and after each case.`,
    '',
    '| analytics query | buckets | p50 ms | p99 ms | p99 of each round | max ms | load |',
    '|---|---:|---:|---:|---|---:|---|',
    ...r.cases.map((c) => `| ${c.name} | ${c.buckets} | ${c.p50_ms} | ${c.p99_ms} | ${c.round_p99_ms.join(', ')} | ${c.max_ms} | ${c.load.join(' -> ')} |`),
    '',
    "Each statement's mean execution time per case (pg_stat_statements; the query runs its three reads at once):",
    '',
    '```',
    ...r.cases.flatMap((c) => [`${c.name}:`, ...c.statements.map((line) => `  ${line}`)]),
    '```',
  ].join('\n');
}
