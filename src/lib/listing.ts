import { FieldErrorCollector, FieldMessages } from '../errors';
import { DEFAULT_PER_PAGE, MAX_PER_PAGE } from '../graphql/pagination';
import { checkDate, checkIntRange, checkPositiveInt } from './checks';
import { addDays, formatSpecTimestamp } from './time';

/** The arguments every list of the API shares. */
export interface ListArgs {
  page?: number | null;
  per_page?: number | null;
  date_from?: string | null;
  date_to?: string | null;
}

export interface Paging {
  page: number;
  perPage: number;
  /** A `created_at` condition for `date_from`/`date_to` (UTC days, inclusive), or undefined. */
  createdAt: { $gte?: string; $lt?: string } | undefined;
}

/** Checks `page`, `per_page` (1-100, default 15) and the date range, adding errors to `errors`. */
export function checkPaging(errors: FieldErrorCollector, args: ListArgs): Paging {
  const page = args.page ?? 1;
  const perPage = args.per_page ?? DEFAULT_PER_PAGE;
  checkPositiveInt(errors, 'page', page);
  checkIntRange(errors, 'per_page', perPage, 1, MAX_PER_PAGE);
  const from = args.date_from != null ? checkDate(errors, 'date_from', args.date_from) : null;
  const to = args.date_to != null ? checkDate(errors, 'date_to', args.date_to) : null;
  if (from && to && to < from) errors.add('date_to', FieldMessages.dateAfterOrEqual('date_to', 'date_from'));
  const createdAt =
    from || to
      ? { ...(from ? { $gte: formatSpecTimestamp(from) } : {}), ...(to ? { $lt: formatSpecTimestamp(addDays(to, 1)) } : {}) }
      : undefined;
  return { page, perPage, createdAt };
}
