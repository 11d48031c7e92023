import { Migration } from '@mikro-orm/migrations';
import { addLatencySql, addRollupsSql } from '../../modules/analytics/analytics.rollup';

/**
 * Analytics (issue 58): the calls summed per account, UTC hour of the call's start, campaign and
 * assistant (0: none), kept by each call's settlement (modules/analytics/analytics.rollup.ts),
 * so a period's figures read a few thousand rows instead of a million calls; and the latency
 * histograms of the pipeline engine's answers the same way (fixed buckets: analytics.latency.ts).
 *
 * `calls.rolled_up` marks a call that has been added. Added with the default true, every
 * existing call is marked at once without rewriting the table; the calls not settled yet (in
 * flight, or waiting for their post-call work) are unmarked, and the settled ones backfilled.
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
    this.addSql(addRollupsSql('(select * from calls where rolled_up) c'));
    this.addSql(addLatencySql('(select * from calls where rolled_up) c'));
  }

  override async down(): Promise<void> {
    this.addSql('alter table calls drop column rolled_up;');
    this.addSql('drop table call_latency_rollups;');
    this.addSql('drop table call_rollups;');
  }
}
