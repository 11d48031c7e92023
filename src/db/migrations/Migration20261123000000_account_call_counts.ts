import { Migration } from '@mikro-orm/migrations';

/**
 * The call list's totals when no group is filtered (no status, type, assistant or campaign):
 * per account by day, by month and all-time, with no group. A date range over a call
 * centre's year summed a row a month and group (88 groups, 1,300 rows) where it now sums a row
 * a month. The sweeper folds the recorded changes into them with the grouped counters, in one
 * statement; the changes not folded yet stay in `call_count_deltas`, and are added as before.
 */
export class Migration20261123000000_account_call_counts extends Migration {
  override async up(): Promise<void> {
    // No fold runs while the counters are copied: it would add changes to the grouped
    // counters that the copy has not seen, and never to these.
    this.addSql('lock table call_count_deltas in share row exclusive mode;');
    this.addSql(`
      create table account_call_counts (
        account_id int not null,
        day date not null,
        n bigint not null,
        primary key (account_id, day)
      );`);
    this.addSql(`
      create table account_call_counts_monthly (
        account_id int not null,
        month date not null,
        n bigint not null,
        primary key (account_id, month)
      );`);
    this.addSql(`
      create table account_call_totals (
        account_id int not null,
        n bigint not null,
        primary key (account_id)
      );`);
    this.addSql(`insert into account_call_counts (account_id, day, n) select account_id, day, sum(n) from call_counts group by 1, 2;`);
    this.addSql(`insert into account_call_counts_monthly (account_id, month, n) select account_id, month, sum(n) from call_counts_monthly group by 1, 2;`);
    this.addSql(`insert into account_call_totals (account_id, n) select account_id, sum(n) from call_totals group by 1;`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists account_call_counts, account_call_counts_monthly, account_call_totals;');
  }
}
