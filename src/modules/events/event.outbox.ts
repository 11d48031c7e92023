import type { EntityManager } from '@mikro-orm/postgresql';
import { WEBHOOK_FANOUT, WEBHOOK_FANOUT_JOBS } from '../webhooks/webhook.fanout';

/**
 * The event stream: every state change that matters is written to the `events` table in the
 * transaction of its cause (an outbox) with a NOTIFY that PostgreSQL delivers at commit, so
 * an event exists exactly when its change does. API processes LISTEN and hand the events to
 * their subscribers (event.bus.ts). `data` is the resource's state at the event, in the REST
 * API's field vocabulary, so a receiver can tell a stale event from a fresh one.
 */
export const EVENT_TYPES = [
  'call.initiated',
  'call.ringing',
  'call.answered',
  'call.transferred',
  'call.finished',
  'lead.status_changed',
  'campaign.status_changed',
  'campaign.completed',
  'balance.low',
  'sms.sent',
  'sms.failed',
  'phone_number.expired',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const EVENTS_CHANNEL = 'vozgate_events';

export interface EventInput {
  accountId: number;
  type: EventType;
  data: Record<string, unknown>;
}

/**
 * Writes events in the caller's transaction, in one statement: the event rows; a delivery,
 * and its first attempt on the job queue, for each enabled webhook endpoint of the account
 * that wants the event's type (its webhook-id, `msg_<event>_<endpoint>`, stays the same on
 * every retry); and the NOTIFY that tells every API process at commit. A rollback takes all
 * of it back; a commit keeps all of it, whatever happens to this process afterwards.
 */
export async function emitEvents(em: EntityManager, events: EventInput[]): Promise<void> {
  if (!events.length) return;
  await em.execute(
    `with ev as (
       insert into events (account_id, type, data) values ${events.map(() => '(?, ?, ?::jsonb)').join(', ')}
       returning id, account_id, type, data, created_at),
     ${WEBHOOK_FANOUT}
     select pg_notify(?, (select string_agg(id::text, ',') from ev)), (select count(*) from ${WEBHOOK_FANOUT_JOBS}) as deliveries`,
    [...events.flatMap((event) => [event.accountId, event.type, JSON.stringify(event.data)]), EVENTS_CHANNEL],
  );
}

/**
 * Forgets events older than a day (the sweeper calls it): subscribers have had them, and a
 * webhook delivery keeps its own copy of its payload.
 */
export async function forgetOldEvents(em: EntityManager): Promise<void> {
  await em.execute(`delete from events where created_at < now() - interval '1 day'`);
}
