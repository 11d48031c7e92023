import { addJobSql } from '../../jobs/queue';

/**
 * The account webhook endpoints' share of an event (design.md, "Events"): the statement that
 * writes events (events/event.outbox.ts) names its inserted rows `ev`, and these CTEs add a
 * delivery, and its first attempt on the job queue, for each enabled endpoint of the account
 * that wants the event's type. A delivery's webhook-id, `msg_<event>_<endpoint>`, stays the
 * same on every retry.
 */
export const WEBHOOK_FANOUT = `delivery as (
       insert into webhook_deliveries (id, account_id, endpoint_id, call_id, event_type, status, payload)
       select 'msg_' || ev.id || '_' || e.id, ev.account_id, e.id, case when ev.type like 'call.%' then (ev.data->>'id')::int end, ev.type, 'pending',
         jsonb_build_object('type', ev.type, 'timestamp', to_char(ev.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'data', ev.data)
       from ev join webhook_endpoints e on e.account_id = ev.account_id and e.disabled_at is null and jsonb_exists(e.events, ev.type)
       returning id),
     delivery_job as (
       select ${addJobSql('webhook:deliver', 'delivery.id')} from delivery)`;

/** The CTE of WEBHOOK_FANOUT whose rows are the jobs it added: counting it makes PostgreSQL run them. */
export const WEBHOOK_FANOUT_JOBS = 'delivery_job';
