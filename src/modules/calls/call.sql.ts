/**
 * The calls' SQL, named once (as graphile-worker names each statement): a reader finds "the
 * account's calls in flight" here, and every statement that needs it says it the same way.
 */

/** A call in flight: initiated, ringing or in progress; its final state sets `finished_at`. Of `calls` as `c`. */
export const CALL_IN_FLIGHT = 'c.finished_at is null';

/** How many calls of the account `?` are in flight (the plan's PLAN_MAX_PARALLEL_CALLS counts them): an int. */
export const ACCOUNT_CALLS_IN_FLIGHT = `(select count(*)::int from calls c where c.account_id = ? and ${CALL_IN_FLIGHT})`;
