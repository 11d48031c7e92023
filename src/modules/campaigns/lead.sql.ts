import { CALL_IN_FLIGHT } from '../calls/call.sql';

/**
 * The leads' SQL the dialer and its neighbours share, named once: "a dialable lead" means the
 * same thing in every statement that asks for one.
 */

/** The statuses of a lead the dialer may still call (`created`, `rescheduled`); the others are in flight or settled. */
export const DIALABLE_STATUSES = ['created', 'rescheduled'] as const;

/** The statuses of a lead the campaign is not done with: dialable, or with a call placed or in flight. */
export const OPEN_STATUSES = [...DIALABLE_STATUSES, 'scheduled', 'processing'] as const;

/** A lead whose status lets the dialer call it. Of `leads` as `l`. */
const inList = (statuses: readonly string[]) => statuses.map((status) => `'${status}'`).join(', ');

export const LEAD_DIALABLE = `l.status in (${inList(DIALABLE_STATUSES)})`;

/** A lead the campaign is not done with. Of `leads` as `l`. */
export const LEAD_OPEN = `l.status in (${inList(OPEN_STATUSES)})`;

/** The order the dialer takes due leads in, and the value it compares with now: first attempts first, then by due time. */
export const LEAD_DUE_AT = `coalesce(l.next_attempt_at, '-infinity')`;

/** A dialable lead due by `?` (a timestamp) with no call of it in flight: the dialer may call it now. Of `leads` as `l`. */
export const LEAD_DUE = `${LEAD_DIALABLE} and ${LEAD_DUE_AT} <= ?
  and not exists (select 1 from calls c where c.lead_id = l.id and ${CALL_IN_FLIGHT})`;
