import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * A voice vendor retried or replaced during a call (design.md, "Vendors that never end a call
 * by themselves"), kept among the call's events (`Call.events`: status `vendor_retried` or
 * `vendor_switched`, the rest in its detail).
 */
export type VendorPart = 'stt' | 'llm' | 'tts';

export type VendorEvent =
  | { type: 'vendor_retried'; part: VendorPart; vendor: string; reason: string }
  | { type: 'vendor_switched'; part: VendorPart; from: string; to: string; reason: string };

/** The statuses that may repeat on a call (the partial unique index of call_events leaves them out). */
export const VENDOR_STATUSES = ['vendor_retried', 'vendor_switched'] as const;

/** The conflict target of the statuses kept once a call: the partial unique index, named by its predicate. */
export const ONCE_A_CALL = `(call_id, status) where status not in ('vendor_retried', 'vendor_switched')`;

/** How many vendor events a call keeps: a flapping vendor cannot grow its rows without bound. */
export const MAX_VENDOR_EVENTS = 50;

/** The longest reason kept (a sentence the server composed). */
const REASON_CHARS = 300;

/** Records one vendor event, unless the call already keeps MAX_VENDOR_EVENTS of them. */
export async function recordVendorEvent(em: EntityManager, callId: number, event: VendorEvent): Promise<void> {
  const { type, ...detail } = event;
  detail.reason = detail.reason.slice(0, REASON_CHARS);
  await em.execute(
    `insert into call_events (call_id, status, detail)
     select ?, ?, ?::jsonb
     where (select count(*) from call_events where call_id = ? and status in ('vendor_retried', 'vendor_switched')) < ${MAX_VENDOR_EVENTS}`,
    [callId, type, JSON.stringify(detail), callId],
  );
}
