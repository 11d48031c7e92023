import type { EntityManager } from '@mikro-orm/postgresql';
import { latencyBucketSql } from './analytics.latency';

/**
 * The call rollups (Migration20261215000000_call_rollups): one row per account, UTC hour of the
 * call's start, campaign and assistant (0: none), summed from each settled call once. A call is
 * added by its settlement (`settleCall`), in that transaction; `calls.rolled_up` says it has
 * been, so a settlement run again, or on two workers at once, adds nothing the second time (the
 * second waits for the first's lock on the call's row, then finds it rolled up). Lock order: the
 * call, its lead, then its rollup rows, then the account (db/locks.ts).
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

/** The rollups of the calls `source` selects (as `c`), added to what the table holds. */
export function addRollupsSql(source: string): string {
  return `insert into call_rollups as r (${ROLLUP_COLUMNS.map(([column]) => column).join(', ')})
    select ${ROLLUP_COLUMNS.map(([column, value]) => (SUMS.includes(column) ? `sum(${value})` : value)).join(', ')}
      from ${source}
     group by ${KEY.map((column) => ROLLUP_COLUMNS.find(([name]) => name === column)![1]).join(', ')}
    on conflict (${KEY.join(', ')}) do update set ${SUMS.map((column) => `${column} = r.${column} + excluded.${column}`).join(', ')}`;
}

/** The latency histograms of the calls `source` selects (as `c`), added to what the table holds. */
export function addLatencySql(source: string): string {
  return `insert into call_latency_rollups as r (account_id, hour, campaign_id, assistant_id, bucket, turns)
    select c.account_id, date_trunc('hour', c.created_at, 'UTC'), coalesce(c.campaign_id, 0), coalesce(c.assistant_id, 0), ${latencyBucketSql(TURN_LATENCY)}, count(*)
      from ${source} join call_turns t on t.call_id = c.id
     where ${TURN_LATENCY} is not null
     group by 1, 2, 3, 4, 5
    on conflict (account_id, hour, campaign_id, assistant_id, bucket) do update set turns = r.turns + excluded.turns`;
}

const RECORD = `with marked as (
    update calls c set rolled_up = true where c.id = ? and not c.rolled_up and c.finished_at is not null returning c.*
  ),
  latency as (${addLatencySql('marked c')})
  ${addRollupsSql('marked c')}`;

/**
 * Adds a settled call to its rollups, once (see above); in the settlement's transaction, after
 * the call's final state and its lead's are written.
 */
export async function recordCallRollup(em: EntityManager, callId: number): Promise<void> {
  await em.execute(RECORD, [callId]);
}

/**
 * A transferred leg charged after its call was settled: its cost joins the call's rollup. In the
 * transaction that charged it, which holds the call's row (so the settlement is before or after
 * it, whole); a call not rolled up yet takes the cost in with the rest when it is.
 */
export async function addCostToRollup(em: EntityManager, callId: number, amount: string): Promise<void> {
  await em.execute(
    `update call_rollups r set cost = r.cost + ?::numeric
       from calls c
      where c.id = ? and c.rolled_up and r.account_id = c.account_id and r.hour = date_trunc('hour', c.created_at, 'UTC')
        and r.campaign_id = coalesce(c.campaign_id, 0) and r.assistant_id = coalesce(c.assistant_id, 0)`,
    [amount, callId],
  );
}
