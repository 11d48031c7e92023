import { Migration } from '@mikro-orm/migrations';

/**
 * The call list's totals without a date range, from one row a group: per account, status,
 * type, assistant and campaign, every day together. A total of the per-day counters costs a
 * row a day and group (32,000 rows for a year of a call centre's calls); this one costs the
 * groups alone. The sweeper folds the recorded changes into both tables in one statement.
 */
export class Migration20261122110000_call_totals extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table call_totals (
        account_id int not null,
        status varchar(32) not null,
        type varchar(16) not null,
        assistant_id int not null,
        campaign_id int not null,
        n bigint not null,
        primary key (account_id, status, type, assistant_id, campaign_id)
      );`);
    // The changes not folded yet stay in call_count_deltas, and are folded into both.
    this.addSql(`
      insert into call_totals (account_id, status, type, assistant_id, campaign_id, n)
      select account_id, status, type, assistant_id, campaign_id, sum(n) from call_counts group by 1, 2, 3, 4, 5;`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists call_totals;');
  }
}
