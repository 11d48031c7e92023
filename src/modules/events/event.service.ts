import type { EntityManager } from '@mikro-orm/postgresql';
import { SpecTimestampType } from '../../db/types';
import { addJobSql } from '../../jobs/queue';
import type { Call } from '../calls/call.entity';

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
  'call.finished',
  'lead.status_changed',
  'campaign.status_changed',
  'campaign.completed',
  'balance.low',
  'sms.sent',
  'sms.failed',
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
     delivery as (
       insert into webhook_deliveries (id, account_id, endpoint_id, call_id, event_type, status, payload)
       select 'msg_' || ev.id || '_' || e.id, ev.account_id, e.id, case when ev.type like 'call.%' then (ev.data->>'id')::int end, ev.type, 'pending',
         jsonb_build_object('type', ev.type, 'timestamp', to_char(ev.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'data', ev.data)
       from ev join webhook_endpoints e on e.account_id = ev.account_id and e.disabled_at is null and jsonb_exists(e.events, ev.type)
       returning id),
     job as (
       select ${addJobSql('webhook:deliver', 'delivery.id')} from delivery)
     select pg_notify(?, (select string_agg(id::text, ',') from ev)), (select count(*) from job) as deliveries`,
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

const timestamps = new SpecTimestampType();
/** A timestamp as the API writes it (`YYYY-MM-DD HH:MM:SS`, UTC), from the database's text or the entity's. */
function specTime(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' && SPEC_TIMESTAMP.test(value)) return value;
  return timestamps.convertToJSValue(value as string);
}
const SPEC_TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

/** A call's state, as GET /user/calls/{id} shows it, with the ids of its assistant and campaign. */
export function callSnapshot(call: Call): Record<string, unknown> {
  return {
    id: call.id,
    assistant_id: call.assistant_id,
    assistant_name: call.assistant_name,
    campaign_id: call.campaign_id,
    campaign_name: call.campaign_name,
    lead_id: call.lead_id,
    attempt: call.attempt,
    type: call.type,
    duration: call.duration,
    assistant_phone_number: call.assistant_phone_number,
    client_phone_number: call.client_phone_number,
    status: call.status,
    transcript: call.transcript,
    variables: call.variables,
    evaluation: call.evaluation,
    webhook_response: call.webhook_response,
    carrier_cost: Number(call.carrier_cost),
    total_cost: Number(call.total_cost),
    answered_by: call.answered_by,
    recording_url: call.recording_url,
    created_at: call.created_at,
    updated_at: call.updated_at,
  };
}

/** A lead's state, from a row of `leads` (RETURNING *) or an entity's values. */
export function leadSnapshot(row: Record<string, any>): Record<string, unknown> {
  return {
    id: row.id,
    campaign_id: row.campaign_id ?? row.campaign?.id,
    phone_number: row.phone_number,
    variables: row.variables,
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: specTime(row.next_attempt_at),
    created_at: specTime(row.created_at),
    updated_at: specTime(row.updated_at),
  };
}

const CAMPAIGN_FIELDS = [
  'id', 'name', 'assistant_id', 'timezone', 'max_calls_in_parallel', 'allowed_hours_start_time', 'allowed_hours_end_time', 'allowed_days',
  'max_retries', 'retry_interval', 'retry_on_voicemail', 'retry_on_goal_incomplete', 'goal_completion_variable', 'mark_complete_when_no_leads',
  'phone_number_ids', 'status', 'paused_reason',
] as const;

/** A campaign's settings and status, from a row of `campaigns` or an entity. */
export function campaignSnapshot(row: Record<string, any>): Record<string, unknown> {
  const snapshot: Record<string, unknown> = Object.fromEntries(CAMPAIGN_FIELDS.map((field) => [field, row[field]]));
  snapshot.created_at = specTime(row.created_at);
  snapshot.updated_at = specTime(row.updated_at);
  return snapshot;
}

/** `lead.status_changed` for each lead row (RETURNING * of the update that changed them). */
export function leadEvents(accountId: number, rows: Record<string, any>[]): EventInput[] {
  return rows.map((row) => ({ accountId, type: 'lead.status_changed' as const, data: leadSnapshot(row) }));
}

/** `campaign.status_changed` for each campaign row, and `campaign.completed` for those that completed. */
export function campaignEvents(rows: Record<string, any>[]): EventInput[] {
  return rows.flatMap((row) => {
    const accountId = row.account_id ?? row.account?.id;
    const data = campaignSnapshot(row);
    const changed: EventInput = { accountId, type: 'campaign.status_changed', data };
    return row.status === 'completed' ? [changed, { accountId, type: 'campaign.completed' as const, data }] : [changed];
  });
}
