import { countRanges, dayAfter, firstOfNextMonth, type DateRange } from './call.count-ranges';

/**
 * The call list's SQL, shared by the service and the benchmark's floor (which runs it by hand
 * over `pg`). The list is newest first, `created_at desc, id desc`, and every filter has an
 * account-led index in that order, so that a date range is a range of the index.
 */

/** A statement with `?` placeholders. */
export interface Statement {
  sql: string;
  params: unknown[];
}

/** The list's filters as SQL over `calls`, and over the counters when they can answer. */
export interface CallFilter {
  where: string;
  params: unknown[];
  /**
   * null when a filter is not counted (the customer's number): the rows are counted. The
   * groups' conditions, and the UTC days [from, to) of a date range (unbounded where null).
   */
  counters: Counters | null;
}

export interface Counters {
  where: string;
  params: unknown[];
  from: string | null;
  to: string | null;
  /** Whether a group is filtered (status, type, assistant or campaign), else the account's counters answer. */
  grouped: boolean;
}

/** The counters by day, by month and all-time: per group, or per account when no group is filtered. */
const GROUP_COUNTERS = { day: 'call_counts', month: 'call_counts_monthly', allTime: 'call_totals' };
const ACCOUNT_COUNTERS = { day: 'account_call_counts', month: 'account_call_counts_monthly', allTime: 'account_call_totals' };
const tablesOf = (counters: Counters) => (counters.grouped ? GROUP_COUNTERS : ACCOUNT_COUNTERS);

/** Calls on a day, or in a month (`start` is its first day), as the counters hold them. */
export interface Period {
  start: string;
  n: number;
}

/** Conditions on a counter table's date column for [from, to), unbounded where null. */
function within(column: string, [from, to]: DateRange): { sql: string; params: string[] } {
  const sql = [from === null ? '' : ` and ${column} >= ?::date`, to === null ? '' : ` and ${column} < ?::date`].join('');
  return { sql, params: [from, to].filter((date): date is string => date !== null) };
}

/** `select <what> from <table> where <groups><range>`, one part of a union over the counters. */
function part(counters: Counters, what: string, table: string, range: { sql: string; params: string[] } | null): Statement {
  return { sql: `select ${what} from ${table} where ${counters.where}${range?.sql ?? ''}`, params: [...counters.params, ...(range?.params ?? [])] };
}

function union(parts: Statement[]): Statement {
  return { sql: parts.map((p) => p.sql).join(' union all '), params: parts.flatMap((p) => p.params) };
}

/**
 * The counter rows of the filter's date range (countRanges): months from the monthly
 * counters, days from the daily ones, the days a month is taken less of as negative rows, and
 * the changes not folded yet. `byMonth` also selects, as `start`, the first day of the month
 * each row counts in.
 */
function rangeParts(counters: Counters, byMonth: boolean): Statement[] {
  const { months, days, less } = countRanges(counters.from, counters.to);
  const tables = tablesOf(counters);
  const dayRows = (n: string) => (byMonth ? `date_trunc('month', day)::date as start, ${n} as n` : `${n} as n`);
  const parts: Statement[] = [];
  if (months) parts.push(part(counters, byMonth ? 'month as start, n' : 'n', tables.month, within('month', months)));
  for (const range of days) parts.push(part(counters, dayRows('n'), tables.day, within('day', range)));
  for (const range of less) parts.push(part(counters, dayRows('-n'), tables.day, within('day', range)));
  parts.push(part(counters, dayRows('n'), 'call_count_deltas', within('day', [counters.from, counters.to])));
  return parts;
}

/**
 * The exact number of calls the filter matches (`total`): from the counters and the changes
 * not folded into them yet, else counted. Without a date range, the all-time totals (a row a
 * group); with one, the whole months inside it by month and the days at its ends by day.
 */
function countStatement(filter: CallFilter): Statement {
  const counters = filter.counters;
  if (!counters) return { sql: `select count(*)::int as total from calls where ${filter.where}`, params: filter.params };
  const parts =
    counters.from === null && counters.to === null
      ? [part(counters, 'n', tablesOf(counters).allTime, null), part(counters, 'n', 'call_count_deltas', null)]
      : rangeParts(counters, false);
  const counted = union(parts);
  return { sql: `select coalesce(sum(n), 0)::int as total from (${counted.sql}) counted`, params: counted.params };
}

/**
 * The filter's calls by month, newest first (`start` is the month's first day; their sum is
 * the total).
 */
function monthsStatement(counters: Counters): Statement {
  const counted = union(rangeParts(counters, true));
  return { sql: periodsOf(counted.sql), params: counted.params };
}

/** The filter's calls by day, newest first, in the month that starts on `month` (YYYY-MM-01). */
function daysStatement(counters: Counters, month: string): Statement {
  const [from, to] = [counters.from, counters.to];
  const next = firstOfNextMonth(month);
  const range: DateRange = [from !== null && from > month ? from : month, to !== null && to < next ? to : next];
  const counted = union([tablesOf(counters).day, 'call_count_deltas'].map((table) => part(counters, 'day as start, n', table, within('day', range))));
  return { sql: periodsOf(counted.sql), params: counted.params };
}

const periodsOf = (counted: string) =>
  `select start::text as start, sum(n)::int as n from (${counted}) counted group by start having sum(n) <> 0 order by start desc`;

/**
 * The period, of `periods` newest first, that holds the list's `offset`-th call (from 0), and
 * how many calls the newer periods hold; null past the last call.
 */
function locate(periods: Period[], offset: number): { start: string; before: number } | null {
  let before = 0;
  for (const { start, n } of periods) {
    if (offset < before + n) return { start, before };
    before += n;
  }
  return null;
}

/** Runs a statement, answering its rows (the service's connection, or the floor's). */
export type Run = <Row>(statement: Statement) => Promise<Row[]>;

/** The exact number of calls the filter matches (countStatement). */
export async function countCalls(run: Run, filter: CallFilter): Promise<number> {
  const [{ total }] = await run<{ total: number }>(countStatement(filter));
  return total;
}

/**
 * Page 1 of the list and its total in one statement (the total on every row, as `page_total`):
 * a round trip less than reading them apart, and both from one snapshot. Without a row no call
 * matches, so the total is 0.
 */
export async function firstPage<Row extends object>(run: Run, filter: CallFilter, limit: number, columns = 'c.*'): Promise<{ rows: Row[]; total: number }> {
  const count = countStatement(filter);
  const page = pageStatement(filter, limit, 0, undefined, `${columns}, (${count.sql}) as page_total`);
  const rows = await run<Row & { page_total: number }>({ sql: page.sql, params: [...count.params, ...page.params] });
  return { rows, total: rows.length ? rows[0].page_total : 0 };
}

/**
 * Where the page that starts at the list's `offset`-th call is read: the list's total, and the
 * calls to skip of those created on the day `through` or before. With counters, the day is
 * found by month and then by day, so a page however deep skips at most a day of calls in the
 * index; a filter the counters do not answer (the customer's number) skips from the start.
 * The caller reads it and the page in one snapshot.
 */
export async function seek(run: Run, filter: CallFilter, offset: number): Promise<{ total: number; skip: number; through?: Statement }> {
  if (!filter.counters) return { total: await countCalls(run, filter), skip: offset };
  const months = await run<Period>(monthsStatement(filter.counters));
  const total = months.reduce((sum, month) => sum + month.n, 0);
  const month = locate(months, offset);
  const day = month && locate(await run<Period>(daysStatement(filter.counters, month.start)), offset - month.before);
  if (!month || !day) return { total, skip: offset }; // past the last page (a day is found whenever its month is)
  return { total, skip: offset - month.before - day.before, through: throughDay(day.start) };
}

/** The list's calls created on the UTC day `day` (YYYY-MM-DD) or before. */
function throughDay(day: string): Statement {
  return { sql: 'created_at < ?', params: [`${dayAfter(day)} 00:00:00+00`] };
}

/** The list's calls after the account's call `id` (which comes before them in the list). */
export function afterCall(accountId: number, id: number): Statement {
  return { sql: '(created_at, id) < ((select created_at from calls where id = ? and account_id = ?), ?)', params: [id, accountId, id] };
}

/**
 * A page of the list: `limit` calls after the first `offset`, of those within `bound` when
 * given. The ids come first from the filter's index, then their rows (`columns` of `calls c`).
 *
 * The limit is written into the text, and the offset only when there is one. With the limit a
 * parameter, PostgreSQL costs a generic plan as if it read a tenth of the filter's calls, so it
 * never settles on one: it planned the page on every run, which took longer than running it.
 * A page size is one of a hundred or so integers, so the texts stay few.
 */
export function pageStatement(filter: CallFilter, limit: number, offset: number, bound?: Statement, columns = 'c.*'): Statement {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`a page's limit is a positive integer, not ${limit}`);
  const where = bound ? `${filter.where} and ${bound.sql}` : filter.where;
  return {
    sql: `select ${columns} from (select id from calls where ${where} order by created_at desc, id desc limit ${limit}${offset ? ' offset ?' : ''}) page
          join calls c using (id) order by c.created_at desc, c.id desc`,
    params: [...filter.params, ...(bound?.params ?? []), ...(offset ? [offset] : [])],
  };
}
