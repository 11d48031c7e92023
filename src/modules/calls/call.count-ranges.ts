import { addDays } from '../../lib/time';

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
  // The month at each end that the range covers in part: its days inside, and outside.
  const ends: { inside: [string, string]; outside: [string, string]; side: 0 | 1 }[] = [];
  if (from !== null && monthsFrom !== null && from < monthsFrom) ends.push({ inside: [from, monthsFrom], outside: [firstOfMonth(from), from], side: 0 });
  if (to !== null && monthsTo !== null && monthsTo < to) ends.push({ inside: [monthsTo, to], outside: [to, firstOfNextMonth(to)], side: 1 });
  for (const { inside, outside, side } of ends) {
    if (daysBetween(...outside) < daysBetween(...inside)) {
      months[side] = outside[side];
      less.push(outside);
    } else {
      days.push(inside);
    }
  }
  return { months, days, less };
}
