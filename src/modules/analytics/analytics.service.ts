import Decimal from 'decimal.js';
import { FieldErrorCollector, FieldMessages, Messages, NotFoundError } from '../../errors';
import type { Scope } from '../scope';
import { leadCountSql } from './analytics.lead-counts';
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
 * (analytics.rollup.ts), a few hundred rows for a month of a million calls, never the calls,
 * and each campaign's lead count kept (analytics.lead-counts.ts), never counted. Buckets are UTC
 * hours or days: accounts have no time zone. The finest rollups are hourly, so a period starts
 * and ends on whole hours (from inclusive, to exclusive).
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

/** Rows of the period and filters, as a union of selects of `r` (the text and its parameters). */
interface PeriodRows {
  sql: string;
  params: unknown[];
}

const TABLES = {
  rollups: { hourly: 'call_rollups', daily: 'call_rollups_daily' },
  latency: { hourly: 'call_latency_rollups', daily: 'call_latency_rollups_daily' },
} as const;

/**
 * The rollup rows of the period and filters, `select` of each (as `r`) with its start as `at`.
 * With `days`, the period's whole UTC days are read from the daily rows and only its edge hours
 * (before its first midnight, after its last) from the hourly ones: a month reads 30 rows a key
 * instead of 720. The two are added to by one statement (analytics.rollup.ts), so the sums are
 * the hourly rows' exactly.
 */
function periodRows(accountId: number, period: Period, tables: (typeof TABLES)[keyof typeof TABLES], days: boolean, select: string, where = ''): PeriodRows {
  const from = period.from.getTime();
  const to = period.to.getTime();
  const firstDay = Math.ceil(from / DAY_MS) * DAY_MS;
  const lastDay = Math.floor(to / DAY_MS) * DAY_MS;
  const ranges: { table: string; time: 'hour' | 'day'; from: number; to: number }[] = [];
  if (days && firstDay < lastDay) {
    if (from < firstDay) ranges.push({ table: tables.hourly, time: 'hour', from, to: firstDay });
    ranges.push({ table: tables.daily, time: 'day', from: firstDay, to: lastDay });
    if (lastDay < to) ranges.push({ table: tables.hourly, time: 'hour', from: lastDay, to });
  } else {
    ranges.push({ table: tables.hourly, time: 'hour', from, to });
  }
  let filters = '';
  const filterParams: unknown[] = [];
  if (period.campaignId !== null) {
    filters += ' and r.campaign_id = ?';
    filterParams.push(period.campaignId);
  }
  if (period.assistantId !== null) {
    filters += ' and r.assistant_id = ?';
    filterParams.push(period.assistantId);
  }
  return {
    sql: ranges.map((range) => `select r.${range.time} as at, ${select} from ${range.table} r where r.account_id = ? and r.${range.time} >= ? and r.${range.time} < ?${filters}${where}`).join('\n union all '),
    params: ranges.flatMap((range) => [accountId, new Date(range.from).toISOString(), new Date(range.to).toISOString(), ...filterParams]),
  };
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

const SUMMED = ['calls', 'billed_minutes', 'duration_seconds', 'answered', 'voicemail', 'no_answer', 'busy', 'failed', 'connected', 'cost', 'transfers'];
const SUMS = `sum(x.calls)::int as calls, sum(x.billed_minutes)::float8 as minutes, sum(x.duration_seconds)::float8 as duration_seconds,
  sum(x.answered)::int as answered, sum(x.voicemail)::int as voicemail, sum(x.no_answer)::int as no_answer, sum(x.busy)::int as busy,
  sum(x.failed)::int as failed, sum(x.connected)::int as connected, sum(x.cost)::text as cost, sum(x.transfers)::int as transfers`;
const FUNNEL = ['campaign_id', 'dialled_leads', 'answered_leads', 'completed_leads', 'transferred_leads'];

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
  const col = (columns: string[]) => columns.map((column) => `r.${column}`).join(', ');
  const buckets = periodRows(scope.accountId, period, TABLES.rollups, period.bucket === 'day', col(SUMMED));
  // The funnels and latency are the period's totals: its whole days from the daily rows whatever the bucket.
  const funnelRows = periodRows(scope.accountId, period, TABLES.rollups, true, col(FUNNEL), ' and r.campaign_id <> 0');
  const latencyRows = periodRows(scope.accountId, period, TABLES.latency, true, col(['assistant_id', 'bucket', 'turns']), ' and r.assistant_id <> 0');
  const pipelineRows = periodRows(scope.accountId, period, TABLES.rollups, true, col(['assistant_id', 'pipeline_calls']), ' and r.assistant_id <> 0 and r.pipeline_calls > 0');
  const [sums, funnels, latency] = await Promise.all([
    scope.em.execute<SumsRow[]>(`select extract(epoch from date_trunc('${period.bucket}', x.at, 'UTC'))::float8 * 1000 as start, ${SUMS} from (${buckets.sql}) x group by 1`, buckets.params),
    scope.em.execute<CampaignFunnel[]>(
      `with f as (
         select x.campaign_id, sum(x.dialled_leads)::int as dialled, sum(x.answered_leads)::int as answered,
                sum(x.completed_leads)::int as completed, sum(x.transferred_leads)::int as transferred
           from (${funnelRows.sql}) x group by x.campaign_id
       )
       select c.id as campaign_id, c.name as campaign_name, ${leadCountSql('c.id')} as leads,
              coalesce(f.dialled, 0) as dialled, coalesce(f.answered, 0) as answered, coalesce(f.completed, 0) as completed, coalesce(f.transferred, 0) as transferred
         from campaigns c left join f on f.campaign_id = c.id
        where c.account_id = ? and (f.campaign_id is not null or c.id = ?)
        order by c.id`,
      [...funnelRows.params, scope.accountId, period.campaignId ?? 0],
    ),
    scope.em.execute<{ assistant_id: number; bucket: number | null; n: number }[]>(
      `select x.assistant_id, x.bucket, sum(x.turns)::int as n from (${latencyRows.sql}) x group by 1, 2
       union all
       select x.assistant_id, null, sum(x.pipeline_calls)::int from (${pipelineRows.sql}) x group by 1`,
      [...latencyRows.params, ...pipelineRows.params],
    ),
  ]);

  const byStart = new Map(sums.map((row) => [row.start!, row]));
  let total = NOTHING;
  const figuresByBucket: AnalyticsBucket[] = bucketStarts(period).map((start) => {
    const row = byStart.get(start) ?? NOTHING;
    total = add(total, row);
    return { start: new Date(start), ...figures(row) };
  });
  return {
    from: period.from,
    to: period.to,
    bucket: period.bucket,
    timezone: 'UTC',
    buckets: figuresByBucket,
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
