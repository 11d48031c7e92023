import type { EntityManager } from '@mikro-orm/postgresql';
import { latencyBucketSql } from './analytics.latency';

/**
 * The call rollups (Migration20261215000000_call_rollups): one row per account, UTC hour of the
 * call's start, campaign and assistant (0: none), summed from each settled call once; and the
 * same per UTC day (Migration20261218000000_analytics_days), so that a month reads 30 rows a key,
 * not 720. Both are added to by one statement, so they never disagree.
 *
 * A settled call is rolled up after its settlement has committed, never in it: the rollup rows
 * of an account are few and hot, and a settlement that locked them would hold every concurrent
 * settlement of the account (and their pooled connections) until it commits. The settlement
 * leaves the call `rolled_up = false`; right after its commit the call is rolled up (best
 * effort), and the periodic `analytics:rollup` job rolls up whatever that missed (the process
 * died in between, a call row that was busy). `calls.rolled_up` is set in the statement that
 * adds the call, so a call is counted once however many roll-ups see it.
 *
 * What each figure counts is written once, here (README, "Analytics"): the migration's backfill
 * and the settlement use these same expressions.
 */

/** A person (or nobody could tell: no detection) answered. Of `calls` as `c`. */
const ANSWERED = `(c.answered_at is not null and coalesce(c.answered_by, 'unknown') not in ('machine', 'unavailable'))`;
/** A turn's measured voice-to-voice latency (the pipeline engine's), ms, or null. Of `call_turns` as `t`. */
const TURN_LATENCY = `(t.timing -> 'latency' ->> 'first_audio_ms')::numeric`;

/** 1 when `condition` holds, else 0: a null (a lead without an attempt number, say) is 0, never a null sum. */
const flag = (condition: string) => `coalesce(${condition}, false)::int`;

/** Each rollup column and what one call adds to it. Of `calls` as `c`. */
export const ROLLUP_COLUMNS: readonly (readonly [string, string])[] = [
  ['account_id', 'c.account_id'],
  ['hour', `date_trunc('hour', c.created_at, 'UTC')`],
  ['campaign_id', 'coalesce(c.campaign_id, 0)'],
  ['assistant_id', 'coalesce(c.assistant_id, 0)'],
  ['calls', '1'],
  ['answered', flag(ANSWERED)],
  ['voicemail', flag(`c.answered_at is not null and c.answered_by = 'machine'`)],
  ['no_answer', flag(`c.status = 'no-answer'`)],
  ['busy', flag(`c.status = 'busy'`)],
  ['failed', flag(`c.status = 'failed'`)],
  ['connected', flag('c.answered_at is not null')],
  ['duration_seconds', 'c.duration'],
  // Per started minute, as calls are charged (call.pricing.ts).
  ['billed_minutes', 'case when c.answered_at is not null and c.duration > 0 then (c.duration + 59) / 60 else 0 end'],
  ['cost', 'c.total_cost'],
  ['transfers', flag('c.transferred_to is not null')],
  ['pipeline_calls', flag(`exists (select 1 from call_turns t where t.call_id = c.id and ${TURN_LATENCY} is not null)`)],
  // The funnel, in leads: the lead's first attempt; its first call a person answered; the
  // call after which it was completed; a call of it that was transferred.
  ['dialled_leads', flag('c.lead_id is not null and c.attempt = 1')],
  [
    'answered_leads',
    flag(`c.lead_id is not null and ${ANSWERED} and not exists (select 1 from calls p where p.lead_id = c.lead_id and p.id < c.id and ${ANSWERED.replace(/c\./g, 'p.')})`),
  ],
  ['completed_leads', flag(`c.lead_id is not null and exists (select 1 from leads l where l.id = c.lead_id and l.status = 'completed' and l.attempts = c.attempt)`)],
  ['transferred_leads', flag('c.lead_id is not null and c.transferred_to is not null')],
];

const KEY = ['account_id', 'hour', 'campaign_id', 'assistant_id'];
const SUMS = ROLLUP_COLUMNS.map(([column]) => column).filter((column) => !KEY.includes(column));

/** The hourly rollups of the calls `source` selects (as `c`), added to what the table holds: Migration20261215000000's backfill (Migration20261218000000 builds the daily rows from them). */
export function addRollupsSql(source: string): string {
  return `insert into call_rollups as r (${ROLLUP_COLUMNS.map(([column]) => column).join(', ')})
    select ${ROLLUP_COLUMNS.map(([column, value]) => (SUMS.includes(column) ? `sum(${value})` : value)).join(', ')}
      from ${source}
     group by ${KEY.map((column) => ROLLUP_COLUMNS.find(([name]) => name === column)![1]).join(', ')}
    on conflict (${KEY.join(', ')}) do update set ${SUMS.map((column) => `${column} = r.${column} + excluded.${column}`).join(', ')}`;
}

/** The hourly latency histograms of the calls `source` selects (as `c`), added to what the table holds (the same backfill). */
export function addLatencySql(source: string): string {
  return `insert into call_latency_rollups as r (account_id, hour, campaign_id, assistant_id, bucket, turns)
    select c.account_id, date_trunc('hour', c.created_at, 'UTC'), coalesce(c.campaign_id, 0), coalesce(c.assistant_id, 0), ${latencyBucketSql(TURN_LATENCY)}, count(*)
      from ${source} join call_turns t on t.call_id = c.id
     where ${TURN_LATENCY} is not null
     group by 1, 2, 3, 4, 5
    on conflict (account_id, hour, campaign_id, assistant_id, bucket) do update set turns = r.turns + excluded.turns`;
}

/** The per-day twins of the hourly rollups: the same columns, `day` (UTC midnight) for `hour`. */
const GRAINS = [
  { rollups: 'call_rollups', latency: 'call_latency_rollups', time: 'hour', of: (hour: string) => hour },
  { rollups: 'call_rollups_daily', latency: 'call_latency_rollups_daily', time: 'day', of: (hour: string) => `date_trunc('day', ${hour}, 'UTC')` },
] as const;

/**
 * A settled call: finished, its post-call work done (its lead's attempt is settled then, which the
 * funnel reads), not rolled up yet. Of `calls` as `c`; the partial index calls_rollup_pending_index
 * holds the calls not rolled up.
 */
export const PENDING = 'not c.rolled_up and c.finished_at is not null and not c.post_call_pending';

/** How many calls one roll-up statement takes at most. */
export const ROLLUP_BATCH = 1000;

/**
 * One statement: takes up to `ROLLUP_BATCH` settled calls not rolled up (of `ids` when given),
 * marks them rolled up and adds them to the hourly and daily rollups and latency histograms. The
 * calls are taken with SKIP LOCKED (a call another roll-up or a transfer's charge holds is left
 * to the next roll-up) and the rollup rows written in key order, so two roll-ups at once never
 * wait on each other in a circle, and count each call once: the second one's UPDATE finds the
 * call rolled up. Lock order: the calls, then their rollup rows (db/locks.ts).
 */
function rollUpSql(onlyIds: boolean): string {
  const perCall = ROLLUP_COLUMNS.map(([column, value]) => `${value} as ${column}`).join(', ');
  const upserts = GRAINS.flatMap((grain) => [
    `${grain.rollups} as (insert into ${grain.rollups} as r (account_id, ${grain.time}, campaign_id, assistant_id, ${SUMS.join(', ')})
       select account_id, ${grain.of('hour')}, campaign_id, assistant_id, ${SUMS.map((column) => `sum(${column})`).join(', ')}
         from per_call group by 1, 2, 3, 4 order by 1, 2, 3, 4
       on conflict (account_id, ${grain.time}, campaign_id, assistant_id) do update set ${SUMS.map((column) => `${column} = r.${column} + excluded.${column}`).join(', ')})`,
    `${grain.latency} as (insert into ${grain.latency} as r (account_id, ${grain.time}, campaign_id, assistant_id, bucket, turns)
       select account_id, ${grain.of('hour')}, campaign_id, assistant_id, bucket, sum(turns)
         from per_turn_bucket group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5
       on conflict (account_id, ${grain.time}, campaign_id, assistant_id, bucket) do update set turns = r.turns + excluded.turns)`,
  ]);
  return `with picked as (
      select c.id from calls c where ${PENDING}${onlyIds ? ' and c.id = any(?::int[])' : ''}
       order by c.id limit ${ROLLUP_BATCH} for no key update skip locked
    ),
    marked as (update calls c set rolled_up = true from picked where c.id = picked.id and ${PENDING} returning c.*),
    per_call as materialized (select ${perCall} from marked c),
    per_turn_bucket as materialized (
      select c.account_id, date_trunc('hour', c.created_at, 'UTC') as hour, coalesce(c.campaign_id, 0) as campaign_id, coalesce(c.assistant_id, 0) as assistant_id,
             ${latencyBucketSql(TURN_LATENCY)} as bucket, count(*) as turns
        from marked c join call_turns t on t.call_id = c.id
       where ${TURN_LATENCY} is not null
       group by 1, 2, 3, 4, 5
    ),
    ${upserts.join(',\n    ')}
    select count(*)::int as n from marked`;
}

const ROLL_UP_SOME = rollUpSql(true);
const ROLL_UP_PENDING = rollUpSql(false);

/** Rolls up the calls of `ids` that are settled and not rolled up yet; answers how many it added. */
export async function rollUpCalls(em: EntityManager, ids: readonly number[]): Promise<number> {
  const [{ n }] = await em.execute<{ n: number }[]>(ROLL_UP_SOME, [`{${ids.join(',')}}`]);
  return n;
}

/** Rolls up every settled call not rolled up yet, a batch a statement (the periodic job's safety net); answers how many. */
export async function rollUpPendingCalls(em: EntityManager): Promise<number> {
  let total = 0;
  for (;;) {
    const [{ n }] = await em.execute<{ n: number }[]>(ROLL_UP_PENDING);
    total += n;
    if (n < ROLLUP_BATCH) return total;
  }
}

/**
 * Rolls up a call once the transaction `em` settled it in has committed (when `em` is in none,
 * at once), off that transaction and without waiting for it: best effort, as a failure or a
 * process that dies first leaves the call to the periodic roll-up. A rolled-back settlement
 * leaves nothing to roll up. (Inside a savepoint the outer transaction may not have committed
 * yet: the call's row is still locked then, and skipped.)
 */
export function rollUpAfterCommit(em: EntityManager, callId: number, failed: (error: unknown) => void): void {
  const run = () => rollUpCalls(em.fork(), [callId]).then(() => undefined, failed);
  // knex's transaction: `executionPromise` settles once it has committed or rolled back.
  const transaction = em.getTransactionContext<{ executionPromise?: Promise<unknown> }>();
  if (!transaction) void run();
  else void transaction.executionPromise?.then(run, () => undefined);
}

/**
 * A transferred leg charged after its call was settled: its cost joins the call's rollups, hourly
 * and daily. In the transaction that charged it, which holds the call's row: a roll-up that took
 * the call before commits first (and the call is then `rolled_up`), and one that comes after
 * skips the call until this transaction ends and then reads the call's new cost with the rest.
 */
export async function addCostToRollup(em: EntityManager, callId: number, amount: string): Promise<void> {
  for (const grain of GRAINS) {
    await em.execute(
      `update ${grain.rollups} r set cost = r.cost + ?::numeric
         from calls c
        where c.id = ? and c.rolled_up and r.account_id = c.account_id and r.${grain.time} = ${grain.of(`date_trunc('hour', c.created_at, 'UTC')`)}
          and r.campaign_id = coalesce(c.campaign_id, 0) and r.assistant_id = coalesce(c.assistant_id, 0)`,
      [amount, callId],
    );
  }
}
