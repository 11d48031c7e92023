import Decimal from 'decimal.js';
import { FieldErrorCollector, FieldMessages, Messages, NotFoundError } from '../../errors';
import type { Scope } from '../scope';
import { histogramPercentile } from './analytics.latency';
import {
  ANALYTICS_BUCKETS,
  type Analytics,
  type AnalyticsArgs,
  type AnalyticsBucket,
  type AnalyticsBucketSize,
  type AnalyticsFigures,
  type AssistantLatency,
  type CampaignFunnel,
} from './analytics.types';

/**
 * The analytics query (README, "Analytics"): every figure is read from the call rollups
 * (analytics.rollup.ts), a few thousand rows for a month of a million calls, never the calls.
 * Buckets are UTC hours or days: accounts have no time zone. The rollups are hourly, so a
 * period starts and ends on whole hours (from inclusive, to exclusive).
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** The longest period of each bucket size: a chart of at most about 750 buckets. */
const MAX_DAYS: Record<AnalyticsBucketSize, number> = { hour: 31, day: 400 };

interface Period {
  from: Date;
  to: Date;
  bucket: AnalyticsBucketSize;
  campaignId: number | null;
  assistantId: number | null;
}

function checkPeriod(args: AnalyticsArgs): Period {
  const errors = new FieldErrorCollector();
  const bucket = (args.bucket ?? 'day') as AnalyticsBucketSize;
  if (!ANALYTICS_BUCKETS.includes(bucket)) errors.add('bucket', FieldMessages.oneOf('bucket', ANALYTICS_BUCKETS));
  for (const field of ['from', 'to'] as const) {
    if (args[field].getTime() % HOUR_MS !== 0) errors.add(field, FieldMessages.wholeHour(field));
  }
  if (!errors.has('from') && !errors.has('to')) {
    const length = args.to.getTime() - args.from.getTime();
    if (length <= 0) errors.add('to', FieldMessages.periodOrder);
    else if (!errors.has('bucket') && length > MAX_DAYS[bucket] * DAY_MS) errors.add('to', FieldMessages.periodTooLong(bucket, MAX_DAYS[bucket]));
  }
  for (const field of ['campaign_id', 'assistant_id'] as const) {
    const id = args[field];
    if (id !== null && id !== undefined && id < 1) errors.add(field, FieldMessages.min(field, 1));
  }
  errors.throwIfAny();
  return { from: args.from, to: args.to, bucket, campaignId: args.campaign_id ?? null, assistantId: args.assistant_id ?? null };
}

/** The rollup rows of the period and filters, of `r`: the text and its parameters. */
function rollupFilter(accountId: number, period: Period): { where: string; params: unknown[] } {
  let where = 'r.account_id = ? and r.hour >= ? and r.hour < ?';
  const params: unknown[] = [accountId, period.from.toISOString(), period.to.toISOString()];
  if (period.campaignId !== null) {
    where += ' and r.campaign_id = ?';
    params.push(period.campaignId);
  }
  if (period.assistantId !== null) {
    where += ' and r.assistant_id = ?';
    params.push(period.assistantId);
  }
  return { where, params };
}

interface SumsRow {
  /** ms since the epoch. */
  start?: number;
  calls: number;
  minutes: number;
  duration_seconds: number;
  answered: number;
  voicemail: number;
  no_answer: number;
  busy: number;
  failed: number;
  connected: number;
  cost: string;
  transfers: number;
}

const SUMS = `sum(r.calls)::int as calls, sum(r.billed_minutes)::float8 as minutes, sum(r.duration_seconds)::float8 as duration_seconds,
  sum(r.answered)::int as answered, sum(r.voicemail)::int as voicemail, sum(r.no_answer)::int as no_answer, sum(r.busy)::int as busy,
  sum(r.failed)::int as failed, sum(r.connected)::int as connected, sum(r.cost)::text as cost, sum(r.transfers)::int as transfers`;

const rate = (part: number, whole: number) => (whole === 0 ? null : Math.round((part / whole) * 10_000) / 10_000);

function figures(sums: Omit<SumsRow, 'start'>): AnalyticsFigures {
  return {
    calls: sums.calls,
    minutes: sums.minutes,
    duration_seconds: sums.duration_seconds,
    answered: sums.answered,
    voicemail: sums.voicemail,
    no_answer: sums.no_answer,
    busy: sums.busy,
    failed: sums.failed,
    answer_rate: rate(sums.answered, sums.calls),
    voicemail_rate: rate(sums.voicemail, sums.calls),
    no_answer_rate: rate(sums.no_answer, sums.calls),
    average_duration: sums.connected === 0 ? null : Math.round((sums.duration_seconds / sums.connected) * 10) / 10,
    cost: new Decimal(sums.cost).toFixed(4),
    cost_per_answered_call: sums.answered === 0 ? null : new Decimal(sums.cost).div(sums.answered).toDecimalPlaces(4, Decimal.ROUND_HALF_UP).toFixed(4),
    transfers: sums.transfers,
  };
}

const NOTHING: Omit<SumsRow, 'start'> = { calls: 0, minutes: 0, duration_seconds: 0, answered: 0, voicemail: 0, no_answer: 0, busy: 0, failed: 0, connected: 0, cost: '0', transfers: 0 };

function add(a: Omit<SumsRow, 'start'>, b: Omit<SumsRow, 'start'>): Omit<SumsRow, 'start'> {
  const sum = { ...a };
  for (const key of Object.keys(NOTHING) as (keyof typeof NOTHING)[]) {
    if (key === 'cost') sum.cost = new Decimal(a.cost).plus(b.cost).toString();
    else sum[key] = a[key] + b[key];
  }
  return sum;
}

/** The first instant of every bucket of the period (the first one's may be before `from`). */
function bucketStarts(period: Period): number[] {
  const step = period.bucket === 'hour' ? HOUR_MS : DAY_MS;
  const starts: number[] = [];
  for (let start = Math.floor(period.from.getTime() / step) * step; start < period.to.getTime(); start += step) starts.push(start);
  return starts;
}

/** A campaign or assistant of another account is exactly a missing one: the NOT_FOUND of campaign(id) and assistant(id). */
async function requireOwned(scope: Scope, period: Period): Promise<void> {
  if (period.campaignId === null && period.assistantId === null) return;
  const [owned] = await scope.em.execute<{ campaign: boolean; assistant: boolean }[]>(
    `select (?::int is null or exists (select 1 from campaigns where id = ? and account_id = ?)) as campaign,
            (?::int is null or exists (select 1 from assistants where id = ? and account_id = ?)) as assistant`,
    [period.campaignId, period.campaignId, scope.accountId, period.assistantId, period.assistantId, scope.accountId],
  );
  if (!owned.campaign) throw new NotFoundError(Messages.campaignNotFound);
  if (!owned.assistant) throw new NotFoundError(Messages.assistantNotFound);
}

export async function analytics(scope: Scope, args: AnalyticsArgs): Promise<Analytics> {
  const period = checkPeriod(args);
  await requireOwned(scope, period);
  const { where, params } = rollupFilter(scope.accountId, period);
  const [sums, funnels, latency] = await Promise.all([
    scope.em.execute<SumsRow[]>(`select extract(epoch from date_trunc('${period.bucket}', r.hour, 'UTC'))::float8 * 1000 as start, ${SUMS} from call_rollups r where ${where} group by 1`, params),
    scope.em.execute<CampaignFunnel[]>(
      `with f as (
         select r.campaign_id, sum(r.dialled_leads)::int as dialled, sum(r.answered_leads)::int as answered,
                sum(r.completed_leads)::int as completed, sum(r.transferred_leads)::int as transferred
           from call_rollups r where ${where} and r.campaign_id <> 0 group by r.campaign_id
       )
       select c.id as campaign_id, c.name as campaign_name, (select count(*)::int from leads l where l.campaign_id = c.id) as leads,
              coalesce(f.dialled, 0) as dialled, coalesce(f.answered, 0) as answered, coalesce(f.completed, 0) as completed, coalesce(f.transferred, 0) as transferred
         from campaigns c left join f on f.campaign_id = c.id
        where c.account_id = ? and (f.campaign_id is not null or c.id = ?)
        order by c.id`,
      [...params, scope.accountId, period.campaignId ?? 0],
    ),
    scope.em.execute<{ assistant_id: number; bucket: number | null; n: number }[]>(
      `select r.assistant_id, r.bucket, sum(r.turns)::int as n from call_latency_rollups r where ${where} and r.assistant_id <> 0 group by 1, 2
       union all
       select r.assistant_id, null, sum(r.pipeline_calls)::int from call_rollups r where ${where} and r.assistant_id <> 0 and r.pipeline_calls > 0 group by 1`,
      [...params, ...params],
    ),
  ]);

  const byStart = new Map(sums.map((row) => [row.start!, row]));
  let total = NOTHING;
  const buckets: AnalyticsBucket[] = bucketStarts(period).map((start) => {
    const row = byStart.get(start) ?? NOTHING;
    total = add(total, row);
    return { start: new Date(start), ...figures(row) };
  });
  return {
    from: period.from,
    to: period.to,
    bucket: period.bucket,
    timezone: 'UTC',
    buckets,
    totals: figures(total),
    funnels,
    latency: await assistantLatency(scope, latency),
  };
}

/** Each assistant's histogram (rows with a bucket) and measured calls (the row without), as percentiles. */
async function assistantLatency(scope: Scope, rows: { assistant_id: number; bucket: number | null; n: number }[]): Promise<AssistantLatency[]> {
  const histograms = new Map<number, { calls: number; counts: Map<number, number> }>();
  for (const row of rows) {
    const entry = histograms.get(row.assistant_id) ?? { calls: 0, counts: new Map<number, number>() };
    histograms.set(row.assistant_id, entry);
    if (row.bucket === null) entry.calls = row.n;
    else entry.counts.set(row.bucket, row.n);
  }
  const ids = [...histograms.keys()].filter((id) => histograms.get(id)!.counts.size > 0).sort((a, b) => a - b);
  if (ids.length === 0) return [];
  const names = new Map(
    (await scope.em.execute<{ id: number; name: string }[]>('select id, assistant_name as name from assistants where account_id = ? and id = any(?::int[])', [scope.accountId, `{${ids.join(',')}}`])).map(
      (row) => [row.id, row.name],
    ),
  );
  return ids.map((id) => {
    const { calls, counts } = histograms.get(id)!;
    return {
      assistant_id: id,
      assistant_name: names.get(id) ?? null,
      calls,
      turns: [...counts.values()].reduce((sum, n) => sum + n, 0),
      p50_ms: histogramPercentile(counts, 50)!,
      p95_ms: histogramPercentile(counts, 95)!,
    };
  });
}
