import { Migration } from '@mikro-orm/migrations';

/**
 * Analytics (issue 58): the calls summed per account, UTC hour of the call's start, campaign and
 * assistant (0: none), kept by each call's settlement (modules/analytics/analytics.rollup.ts),
 * so a period's figures read a few thousand rows instead of a million calls; and the latency
 * histograms of the pipeline engine's answers the same way (fixed buckets: analytics.latency.ts).
 *
 * `calls.rolled_up` marks a call that has been added. Added with the default true, every
 * existing call is marked at once without rewriting the table; the calls not settled yet (in
 * flight, or waiting for their post-call work) are unmarked, and the settled ones backfilled.
 * The backfill is the module's roll-up as it was written then (ANSWERED, the flags and the
 * latency buckets of analytics.rollup.ts and analytics.latency.ts), frozen here: a migration
 * does what it did on the day it was written, whatever the module becomes.
 */
export class Migration20261215000000_call_rollups extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table call_rollups (
        account_id int not null references accounts (id) on delete cascade,
        hour timestamptz not null,
        campaign_id int not null,
        assistant_id int not null,
        calls int not null,
        answered int not null,
        voicemail int not null,
        no_answer int not null,
        busy int not null,
        failed int not null,
        connected int not null,
        duration_seconds bigint not null,
        billed_minutes bigint not null,
        cost numeric(20, 4) not null,
        transfers int not null,
        pipeline_calls int not null,
        dialled_leads int not null,
        answered_leads int not null,
        completed_leads int not null,
        transferred_leads int not null,
        primary key (account_id, hour, campaign_id, assistant_id)
      );`);
    this.addSql(`
      create table call_latency_rollups (
        account_id int not null references accounts (id) on delete cascade,
        hour timestamptz not null,
        campaign_id int not null,
        assistant_id int not null,
        bucket smallint not null,
        turns int not null,
        primary key (account_id, hour, campaign_id, assistant_id, bucket)
      );`);
    this.addSql('alter table calls add column rolled_up boolean not null default true;');
    this.addSql('alter table calls alter column rolled_up set default false;');
    this.addSql('update calls set rolled_up = false where finished_at is null or post_call_pending;');
    this.addSql(BACKFILL_ROLLUPS);
    this.addSql(BACKFILL_LATENCY);
  }

  override async down(): Promise<void> {
    this.addSql('alter table calls drop column rolled_up;');
    this.addSql('drop table call_latency_rollups;');
    this.addSql('drop table call_rollups;');
  }
}

const ANSWERED = (c: string) => `(${c}.answered_at is not null and coalesce(${c}.answered_by, 'unknown') not in ('machine', 'unavailable'))`;
const FIRST_AUDIO = `(t.timing -> 'latency' ->> 'first_audio_ms')::numeric`;

const BACKFILL_ROLLUPS = `
  insert into call_rollups as r (account_id, hour, campaign_id, assistant_id, calls, answered, voicemail, no_answer, busy, failed, connected,
                                 duration_seconds, billed_minutes, cost, transfers, pipeline_calls, dialled_leads, answered_leads, completed_leads, transferred_leads)
  select c.account_id, date_trunc('hour', c.created_at, 'UTC'), coalesce(c.campaign_id, 0), coalesce(c.assistant_id, 0),
         count(*),
         sum(coalesce(${ANSWERED('c')}, false)::int),
         sum(coalesce(c.answered_at is not null and c.answered_by = 'machine', false)::int),
         sum(coalesce(c.status = 'no-answer', false)::int),
         sum(coalesce(c.status = 'busy', false)::int),
         sum(coalesce(c.status = 'failed', false)::int),
         sum(coalesce(c.answered_at is not null, false)::int),
         sum(c.duration),
         sum(case when c.answered_at is not null and c.duration > 0 then (c.duration + 59) / 60 else 0 end),
         sum(c.total_cost),
         sum(coalesce(c.transferred_to is not null, false)::int),
         sum(coalesce(exists (select 1 from call_turns t where t.call_id = c.id and ${FIRST_AUDIO} is not null), false)::int),
         sum(coalesce(c.lead_id is not null and c.attempt = 1, false)::int),
         sum(coalesce(c.lead_id is not null and ${ANSWERED('c')}
                      and not exists (select 1 from calls p where p.lead_id = c.lead_id and p.id < c.id and ${ANSWERED('p')}), false)::int),
         sum(coalesce(c.lead_id is not null and exists (select 1 from leads l where l.id = c.lead_id and l.status = 'completed' and l.attempts = c.attempt), false)::int),
         sum(coalesce(c.lead_id is not null and c.transferred_to is not null, false)::int)
    from calls c
   where c.rolled_up
   group by 1, 2, 3, 4`;

const BACKFILL_LATENCY = `
  insert into call_latency_rollups (account_id, hour, campaign_id, assistant_id, bucket, turns)
  select c.account_id, date_trunc('hour', c.created_at, 'UTC'), coalesce(c.campaign_id, 0), coalesce(c.assistant_id, 0),
         (case when ${FIRST_AUDIO} < 1000 then floor(greatest(${FIRST_AUDIO}, 0) / 25)
               when ${FIRST_AUDIO} < 3000 then 40 + floor((${FIRST_AUDIO} - 1000) / 100)
               when ${FIRST_AUDIO} < 10000 then 60 + floor((${FIRST_AUDIO} - 3000) / 500)
               else 74 end)::smallint,
         count(*)
    from calls c join call_turns t on t.call_id = c.id
   where c.rolled_up and ${FIRST_AUDIO} is not null
   group by 1, 2, 3, 4, 5`;
