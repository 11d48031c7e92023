import { Migration } from '@mikro-orm/migrations';

/**
 * Exact totals of the call list without counting calls: per account, UTC day, status, type,
 * assistant and campaign, the number of calls (0 stands for no assistant or campaign).
 *
 * A statement-level trigger records every insert, update and delete of calls, in its
 * transaction, as rows of changes (`call_count_deltas`), added up by key per statement: rows
 * only ever inserted, so concurrent writers never wait on each other or deadlock over a
 * counter. The sweeper folds the changes into `call_counts` (one row a key); a total is the
 * sum of both. The listing's pages read account-led indexes of each filter in the list's
 * order (id desc).
 */
const LIST_INDEXES: [string, string | null][] = [
  ['calls_account_id_id_index', null],
  ['calls_account_id_status_index', 'status'],
  ['calls_account_id_type_index', 'type'],
  ['calls_account_id_client_phone_number_index', 'client_phone_number'],
  ['calls_account_id_assistant_id_index', 'assistant_id'],
  ['calls_account_id_campaign_id_index', 'campaign_id'],
];

export class Migration20261122090000_call_counters extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table call_counts (
        account_id int not null,
        day date not null,
        status varchar(32) not null,
        type varchar(16) not null,
        assistant_id int not null,
        campaign_id int not null,
        n bigint not null,
        primary key (account_id, day, status, type, assistant_id, campaign_id)
      );`);
    this.addSql(`create table call_count_deltas (like call_counts);`); // the same columns, no key: rows are only inserted
    this.addSql(`create index call_count_deltas_account_id_day_index on call_count_deltas (account_id, day);`);
    this.addSql(`
      create function call_counts_record() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          insert into call_count_deltas
          select account_id, (created_at at time zone 'UTC')::date, status, type, coalesce(assistant_id, 0), coalesce(campaign_id, 0), count(*)
          from new_rows group by 1, 2, 3, 4, 5, 6;
        elsif tg_op = 'DELETE' then
          insert into call_count_deltas
          select account_id, (created_at at time zone 'UTC')::date, status, type, coalesce(assistant_id, 0), coalesce(campaign_id, 0), -count(*)
          from old_rows group by 1, 2, 3, 4, 5, 6;
        else
          insert into call_count_deltas
          select account_id, day, status, type, assistant_id, campaign_id, sum(delta)
          from (
            select account_id, (created_at at time zone 'UTC')::date as day, status, type, coalesce(assistant_id, 0) as assistant_id, coalesce(campaign_id, 0) as campaign_id, -1 as delta from old_rows
            union all
            select account_id, (created_at at time zone 'UTC')::date, status, type, coalesce(assistant_id, 0), coalesce(campaign_id, 0), 1 from new_rows
          ) changes
          group by 1, 2, 3, 4, 5, 6 having sum(delta) <> 0;
        end if;
        return null;
      end $$;`);
    this.addSql(`create trigger calls_count_insert after insert on calls referencing new table as new_rows for each statement execute function call_counts_record();`);
    this.addSql(`create trigger calls_count_update after update on calls referencing old table as old_rows new table as new_rows for each statement execute function call_counts_record();`);
    this.addSql(`create trigger calls_count_delete after delete on calls referencing old table as old_rows for each statement execute function call_counts_record();`);
    this.addSql(`
      insert into call_counts (account_id, day, status, type, assistant_id, campaign_id, n)
      select account_id, (created_at at time zone 'UTC')::date, status, type, coalesce(assistant_id, 0), coalesce(campaign_id, 0), count(*)
      from calls group by 1, 2, 3, 4, 5, 6;`);
    // Each filter's index leads with the account and follows the list's order, and carries
    // created_at, so that a date range is checked in the index: a page (and the offset of a
    // deep one) is read from the index alone.
    for (const [name, column] of LIST_INDEXES) {
      this.addSql(`drop index if exists ${name};`);
      this.addSql(`create index ${name} on calls (account_id, ${column ? `${column}, ` : ''}id desc) include (created_at);`);
    }
  }

  override async down(): Promise<void> {
    for (const [name, column] of LIST_INDEXES) {
      this.addSql(`drop index if exists ${name};`);
      if (column === 'assistant_id' || column === 'campaign_id') continue; // new here
      this.addSql(`create index ${name} on calls (account_id, ${column ? `${column}, ` : ''}id desc);`);
    }
    this.addSql(`drop trigger if exists calls_count_delete on calls;`);
    this.addSql(`drop trigger if exists calls_count_update on calls;`);
    this.addSql(`drop trigger if exists calls_count_insert on calls;`);
    this.addSql(`drop function if exists call_counts_record();`);
    this.addSql(`drop table if exists call_count_deltas;`);
    this.addSql(`drop table if exists call_counts;`);
  }
}
