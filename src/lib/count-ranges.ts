import { addDays } from './time';

/** A half-open range of dates (YYYY-MM-DD), unbounded where null. */
export type DateRange = [from: string | null, to: string | null];

const firstOfMonth = (date: string) => `${date.slice(0, 7)}-01`;
/** The first day of the month after `date`'s. */
export const firstOfNextMonth = (date: string) => {
  const [year, month] = date.split('-').map(Number);
  return month === 12 ? `${year + 1}-01-01` : `${year}-${String(month + 1).padStart(2, '0')}-01`;
};

/** The day after `date`. */
export const dayAfter = (date: string) => addDays(new Date(`${date}T00:00:00Z`), 1).toISOString().slice(0, 10);

/** Days from `from` to `to` (YYYY-MM-DD). */
const daysBetween = (from: string, to: string) => (Date.parse(to) - Date.parse(from)) / 86_400_000;

/**
 * How the counters answer a count over days [from, to): the whole months inside it from the
 * monthly counters, and each month it covers in part either by its days inside the range
 * (`days`) or, when fewer days of it are outside, as a whole month less those (`less`). A
 * year costs twelve rows a group and at most a month of days, instead of a row a day; a
 * range that ends today costs its month's row, less days that have no calls yet.
 */
export function countRanges(from: string | null, to: string | null): { months: DateRange | null; days: DateRange[]; less: DateRange[] } {
  const monthsFrom = from === null ? null : from.endsWith('-01') ? from : firstOfNextMonth(from);
  const monthsTo = to === null ? null : firstOfMonth(to);
  if (monthsFrom !== null && monthsTo !== null && monthsFrom >= monthsTo) return { months: null, days: [[from, to]], less: [] };
  const months: DateRange = [monthsFrom, monthsTo];
  const days: DateRange[] = [];
  const less: DateRange[] = [];
  if (from !== null && monthsFrom !== null && from < monthsFrom) {
    const start = firstOfMonth(from);
    if (daysBetween(start, from) < daysBetween(from, monthsFrom)) {
      months[0] = start;
      less.push([start, from]);
    } else {
      days.push([from, monthsFrom]);
    }
  }
  if (to !== null && monthsTo !== null && monthsTo < to) {
    const end = firstOfNextMonth(to);
    if (daysBetween(to, end) < daysBetween(monthsTo, to)) {
      months[1] = end;
      less.push([to, end]);
    } else {
      days.push([monthsTo, to]);
    }
  }
  return { months, days, less };
}
