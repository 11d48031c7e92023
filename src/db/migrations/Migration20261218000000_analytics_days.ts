import { Migration } from '@mikro-orm/migrations';

/**
 * Analytics, round 2 (issue 58): the rollups per UTC day beside the hourly ones, each campaign's
 * lead count kept, and the calls waiting for their roll-up indexed.
 *
 * - `call_rollups_daily` and `call_latency_rollups_daily`: the hourly tables' columns with `day`
 *   (UTC midnight) for `hour`, added to in the same statement as the hourly rows
 *   (modules/analytics/analytics.rollup.ts), and built here from them: a period's whole days
 *   read 30 rows a key for a month instead of 720.
 * - `campaign_lead_counts`: each campaign's leads, for the funnels, without counting them. A
 *   trigger records every insert, delete and move of leads, in its transaction,
 *   as rows of changes (`campaign_lead_count_deltas`), only ever inserted, so that imports and
 *   other writers never wait on a counter; the periodic roll-up folds them in; a count is the
 *   sum of both (as call_counts, Migration20261122090000_call_counters).
 * - `calls_rollup_pending_index`: the calls not rolled up yet (in flight, or settled and waiting
 *   for the roll-up that follows their settlement), which the periodic roll-up looks for.
 */
/** The daily rollups built from the hourly ones (also the benchmark's, after its own backfill). */
export const DAILY_FROM_HOURLY = [
  `insert into call_rollups_daily
   select account_id, date_trunc('day', hour, 'UTC'), campaign_id, assistant_id, sum(calls), sum(answered), sum(voicemail), sum(no_answer), sum(busy),
          sum(failed), sum(connected), sum(duration_seconds), sum(billed_minutes), sum(cost), sum(transfers), sum(pipeline_calls), sum(dialled_leads),
          sum(answered_leads), sum(completed_leads), sum(transferred_leads)
     from call_rollups group by 1, 2, 3, 4;`,
  `insert into call_latency_rollups_daily
   select account_id, date_trunc('day', hour, 'UTC'), campaign_id, assistant_id, bucket, sum(turns)
     from call_latency_rollups group by 1, 2, 3, 4, 5;`,
];

export class Migration20261218000000_analytics_days extends Migration {
  override async up(): Promise<void> {
    for (const [daily, hourly] of [
      ['call_rollups_daily', 'call_rollups'],
      ['call_latency_rollups_daily', 'call_latency_rollups'],
    ]) {
      this.addSql(`create table ${daily} (like ${hourly} including all);`);
      this.addSql(`alter table ${daily} rename column hour to day;`);
      this.addSql(`alter table ${daily} add foreign key (account_id) references accounts (id) on delete cascade;`);
    }
    for (const statement of DAILY_FROM_HOURLY) this.addSql(statement);
    this.addSql('create index calls_rollup_pending_index on calls (id) where not rolled_up;');

    this.addSql('create table campaign_lead_counts (campaign_id int primary key, n bigint not null);');
    this.addSql('create table campaign_lead_count_deltas (campaign_id int not null, n bigint not null);');
    this.addSql('create index campaign_lead_count_deltas_campaign_id_index on campaign_lead_count_deltas (campaign_id);');
    this.addSql(`
      create function campaign_lead_counts_record() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          insert into campaign_lead_count_deltas select campaign_id, count(*) from new_rows group by 1;
        else
          insert into campaign_lead_count_deltas select campaign_id, -count(*) from old_rows group by 1;
        end if;
        return null;
      end $$;`);
    this.addSql('create trigger leads_count_insert after insert on leads referencing new table as new_rows for each statement execute function campaign_lead_counts_record();');
    this.addSql('create trigger leads_count_delete after delete on leads referencing old table as old_rows for each statement execute function campaign_lead_counts_record();');
    // A lead moved to another campaign (nothing does today): row by row, and only then, so that
    // the dialer's many updates of leads cost nothing here (a statement-level trigger with
    // transition tables cannot be limited to a column).
    this.addSql(`
      create function campaign_lead_counts_move() returns trigger language plpgsql as $$
      begin
        insert into campaign_lead_count_deltas values (old.campaign_id, -1), (new.campaign_id, 1);
        return null;
      end $$;`);
    this.addSql(
      'create trigger leads_count_move after update of campaign_id on leads for each row when (old.campaign_id is distinct from new.campaign_id) execute function campaign_lead_counts_move();',
    );
    this.addSql('insert into campaign_lead_counts (campaign_id, n) select campaign_id, count(*) from leads group by 1;');
  }

  override async down(): Promise<void> {
    this.addSql('drop trigger leads_count_move on leads;');
    this.addSql('drop function campaign_lead_counts_move();');
    this.addSql('drop trigger leads_count_delete on leads;');
    this.addSql('drop trigger leads_count_insert on leads;');
    this.addSql('drop function campaign_lead_counts_record();');
    this.addSql('drop table campaign_lead_count_deltas;');
    this.addSql('drop table campaign_lead_counts;');
    this.addSql('drop index calls_rollup_pending_index;');
    this.addSql('drop table call_latency_rollups_daily;');
    this.addSql('drop table call_rollups_daily;');
  }
}
