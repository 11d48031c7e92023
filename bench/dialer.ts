import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { run, Logger as QueueLogger, type TaskList } from 'graphile-worker';
import { Client, Pool } from 'pg';
import { loadConfig, type Config } from '../src/config';
import { initOrm } from '../src/db/orm';
import { taskList } from '../src/jobs/tasks';
import { SecretBox } from '../src/lib/secrets';
import { addPhoneNumber, createAccount } from '../src/modules/accounts/account.service';
import { createAssistant } from '../src/modules/assistants/assistant.service';
import { createCampaign, setCampaignStatus } from '../src/modules/campaigns/campaign.service';
import { createRuntime } from '../src/boot';
import type { Logger } from '../src/log';
import { demoAssistantInput } from '../src/seed';
import { dropDatabase, freshDatabase, percentile } from './process';

/**
 * The dialer scenario: one campaign of `leads` leads at `parallel` calls in parallel, on the
 * simulator, in a database of its own on the benchmark's cluster, with the job queue's workers
 * in this process. Measured from the calls' own event times once the campaign completes:
 * - how busy the slots were while leads remained (from the first call's start to the last's);
 * - the time from a call's end to the start of the call that took its slot (the k-th end
 *   frees the slot of the (parallel + k)-th start);
 * - the dialer's SQL statements per attempt (those its runs send), and every statement of the
 *   database per attempt (the simulator's steps, the calls' ends, the job queue) when
 *   pg_stat_statements is there.
 */
export interface DialerResult {
  leads: number;
  parallel: number;
  attempts: number;
  wall_s: number;
  max_in_flight: number;
  busy_share: number;
  gap_p50_ms: number;
  gap_p99_ms: number;
  dialer_sql_per_attempt: number;
  all_sql_per_attempt: number | null;
}

/**
 * Simulated seconds run this much faster. A person's call lasts about two minutes (2.4 s
 * here), as on a real line; much faster and a 2-core machine spends the run queueing.
 */
const SIMULATOR_SPEED = 50;
export const DIALER_CALL_NOTE = `SIMULATOR_SPEED ${SIMULATOR_SPEED}: a person's call lasts about 2.4 s, one in five is busy, unanswered or voicemail`;
const WORKER_CONCURRENCY = 32;

const silent: Logger = { access: () => {}, info: () => {}, debug: () => {}, warn: () => {}, error: (message, error) => process.stderr.write(`${message}: ${String(error)}\n`) };



export async function runDialerScenario(adminUrl: string, leads: number, parallel: number, log: (line: string) => void): Promise<DialerResult> {
  const database = 'vozgate_bench_dialer';
  const databaseUrl = await freshDatabase(adminUrl, database);

  const statements = new AsyncLocalStorage<{ count: number }>();
  const dialer = { count: 0 };
  const orm = await initOrm({
    databaseUrl,
    poolMax: WORKER_CONCURRENCY + 8,
    onQuery: (message) => {
      if (message.startsWith('[query]')) {
        const store = statements.getStore();
        if (store) store.count++;
      }
    },
  });
  const base = loadConfig({});
  const config: Config = {
    ...base,
    seedDemo: false,
    maxParallelCalls: parallel,
    dialerTimeScale: 1,
    telephony: { provider: 'simulator', simulatorSpeed: SIMULATOR_SPEED, twilio: null },
    workers: { ...base.workers, inProcess: false, concurrency: WORKER_CONCURRENCY, pollIntervalMs: 20 },
  };
  const runtime = createRuntime({ orm, config, secrets: new SecretBox(randomBytes(32)), logger: silent });
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  const pool = new Pool({ connectionString: databaseUrl, max: WORKER_CONCURRENCY + 2 });
  try {
    const em = orm.em.fork();
    const { account } = await createAccount(em, { name: 'Dialer benchmark', balance: '10000000' });
    const phone = await addPhoneNumber(em, { accountId: account.id, number: '+5511955000001', smsEnabled: false, expiresAt: null });
    const scope = { em: orm.em.fork(), accountId: account.id, config };
    const assistant = await createAssistant(scope, demoAssistantInput(phone.id));
    const campaign = await createCampaign(scope, {
      name: 'Benchmark',
      assistant_id: assistant.id,
      max_calls_in_parallel: parallel,
      max_retries: 0,
      allowed_days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'],
      allowed_hours_start_time: '00:00',
      allowed_hours_end_time: '00:00',
    });
    // Four in five answer and talk; the rest are busy, unanswered or voicemail.
    await db.query(
      `insert into leads (account_id, campaign_id, phone_number)
       select $1, $2, '+55119' || lpad(g::text, 4, '0') || (array['7000','7000','7000','7000','7000','7000','7000','7000','0001','0002','0004','7000','7000','7000','7000'])[1 + g % 15]
       from generate_series(1000, 999 + $3::int) g`,
      [account.id, campaign.id, leads],
    );
    await db.query('vacuum analyze leads');

    const tasks: TaskList = { ...taskList(runtime) };
    const dial = tasks['dialer:campaign']!;
    tasks['dialer:campaign'] = (payload, helpers) => statements.run(dialer, () => dial(payload, helpers));
    const runner = await run({ pgPool: pool, concurrency: WORKER_CONCURRENCY, pollInterval: 20, noHandleSignals: true, taskList: tasks, logger: new QueueLogger(() => () => {}) });
    await db.query('create extension if not exists pg_stat_statements').catch(() => {});
    const stats = await db.query('select 1 from pg_stat_statements limit 1').then(
      () => true,
      () => false,
    );
    if (stats) await db.query('select pg_stat_statements_reset()');

    log(`dialer: ${leads} leads at ${parallel} in parallel`);
    const started = Date.now();
    await setCampaignStatus({ ...scope, em: orm.em.fork() }, campaign.id, 'start');
    let maxInFlight = 0;
    for (;;) {
      const { rows } = await db.query(
        `select status, (select count(*)::int from calls where campaign_id = $1 and finished_at is null) as in_flight,
           (select count(*)::int from calls where campaign_id = $1) as calls from campaigns where id = $1`,
        [campaign.id],
      );
      maxInFlight = Math.max(maxInFlight, rows[0].in_flight);
      if (rows[0].status === 'completed') break;
      if (Date.now() - started > 30 * 60_000) throw new Error(`the dialer scenario did not finish: ${JSON.stringify(rows[0])}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const wall = (Date.now() - started) / 1000;
    const all = stats
      ? Number((await db.query('select sum(calls)::bigint as n from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database())')).rows[0].n)
      : null;
    await runner.stop();

    const spans: { started: number; ended: number }[] = (
      await db.query(
        `select extract(epoch from min(e.created_at)) * 1000 as started, extract(epoch from max(e.created_at)) * 1000 as ended
         from calls c join call_events e on e.call_id = c.id where c.campaign_id = $1 group by c.id`,
        [campaign.id],
      )
    ).rows.map((row) => ({ started: Number(row.started), ended: Number(row.ended) }));
    const starts = spans.map((span) => span.started).sort((a, b) => a - b);
    const ends = spans.map((span) => span.ended).sort((a, b) => a - b);
    // Slot-time used between the first start and the last, against what `parallel` slots offer.
    const from = starts[0];
    const to = starts.at(-1)!;
    const used = spans.reduce((sum, span) => sum + Math.max(0, Math.min(span.ended, to) - Math.max(span.started, from)), 0);
    const gaps = starts
      .slice(parallel)
      .map((start, k) => start - ends[k])
      .sort((a, b) => a - b);
    return {
      leads,
      parallel,
      attempts: spans.length,
      wall_s: Math.round(wall * 10) / 10,
      max_in_flight: maxInFlight,
      busy_share: to > from ? Math.round((used / ((to - from) * parallel)) * 1000) / 1000 : 0,
      gap_p50_ms: Math.round(percentile(gaps, 50)),
      gap_p99_ms: Math.round(percentile(gaps, 99)),
      dialer_sql_per_attempt: Math.round((dialer.count / spans.length) * 100) / 100,
      all_sql_per_attempt: all === null ? null : Math.round((all / spans.length) * 100) / 100,
    };
  } finally {
    await runtime.telephony.stop?.(1000);
    await pool.end().catch(() => {});
    await db.end().catch(() => {});
    await orm.close();
    await dropDatabase(adminUrl, database);
  }
}
