/**
 * The periods the analytics page offers, as the `analytics` query takes them: `from` inclusive
 * and `to` exclusive, both on a whole hour, buckets in UTC (accounts have no time zone, so the
 * page's days are UTC days too).
 */
export type PeriodKind = 'today' | '7d' | '30d' | 'custom';

export const PERIODS: { kind: PeriodKind; label: string }[] = [
  { kind: 'today', label: 'Today' },
  { kind: '7d', label: '7 days' },
  { kind: '30d', label: '30 days' },
  { kind: 'custom', label: 'Custom range' },
];

export interface Period {
  from: string;
  to: string;
  bucket: 'hour' | 'day';
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A UTC day as the date inputs hold it (YYYY-MM-DD). */
export const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * The last `days` UTC days up to the end of the current hour: today alone by hour, longer
 * periods by day. The end is the next whole hour, so calls of the last minutes are in.
 */
function lastDays(days: number, now: number): Period {
  const midnight = Math.floor(now / DAY) * DAY;
  return {
    from: new Date(midnight - (days - 1) * DAY).toISOString(),
    to: new Date(Math.floor(now / HOUR) * HOUR + HOUR).toISOString(),
    bucket: days === 1 ? 'hour' : 'day',
  };
}

/**
 * The period to ask for, or null while a custom range is incomplete. A custom range is whole
 * UTC days, both inclusive; one that runs backwards or is too long is asked as it is, so that
 * the API's message says what is wrong.
 */
export function periodOf(kind: PeriodKind, range: { from: string; to: string }, now = Date.now()): Period | null {
  if (kind === 'today') return lastDays(1, now);
  if (kind === '7d') return lastDays(7, now);
  if (kind === '30d') return lastDays(30, now);
  const from = Date.parse(`${range.from}T00:00:00Z`);
  const to = Date.parse(`${range.to}T00:00:00Z`);
  if (Number.isNaN(from) || Number.isNaN(to)) return null;
  return { from: new Date(from).toISOString(), to: new Date(to + DAY).toISOString(), bucket: 'day' };
}

/** A bucket's start as its label: the UTC day, or the UTC day and hour. */
export function bucketLabel(start: string, bucket: string): string {
  const iso = new Date(start).toISOString();
  return bucket === 'hour' ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}` : iso.slice(0, 10);
}
