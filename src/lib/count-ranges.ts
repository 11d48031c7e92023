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

/**
 * How the counters answer a count over days [from, to): the whole months inside it from the
 * monthly counters, the days at its ends from the daily ones. A year costs twelve rows a
 * group and at most two partial months of days, instead of a row a day.
 */
export function countRanges(from: string | null, to: string | null): { months: DateRange | null; days: DateRange[] } {
  const monthsFrom = from === null ? null : from.endsWith('-01') ? from : firstOfNextMonth(from);
  const monthsTo = to === null ? null : firstOfMonth(to);
  if (monthsFrom !== null && monthsTo !== null && monthsFrom >= monthsTo) return { months: null, days: [[from, to]] };
  const days: DateRange[] = [];
  if (from !== null && monthsFrom !== null && from < monthsFrom) days.push([from, monthsFrom]);
  if (to !== null && monthsTo !== null && monthsTo < to) days.push([monthsTo, to]);
  return { months: [monthsFrom, monthsTo], days };
}
