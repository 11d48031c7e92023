import { Migration } from '@mikro-orm/migrations';

/**
 * The call list's totals over a date range by month: a count over a range reads the whole
 * months inside it here (a row a month and group) and only the days at its ends from the
 * per-day counters. A 300-day range read 26,000 per-day rows for a call centre's account.
 * The sweeper folds the recorded changes into it with the other counters.
 */
export class Migration20261122130000_call_counts_monthly extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table call_counts_monthly (
        account_id int not null,
        month date not null,
        status varchar(32) not null,
        type varchar(16) not null,
        assistant_id int not null,
        campaign_id int not null,
        n bigint not null,
        primary key (account_id, month, status, type, assistant_id, campaign_id)
      );`);
    this.addSql(`
      insert into call_counts_monthly (account_id, month, status, type, assistant_id, campaign_id, n)
      select account_id, date_trunc('month', day)::date, status, type, assistant_id, campaign_id, sum(n) from call_counts group by 1, 2, 3, 4, 5, 6;`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists call_counts_monthly;');
  }
}
