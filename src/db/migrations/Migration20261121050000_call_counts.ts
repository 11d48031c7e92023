import { Migration } from '@mikro-orm/migrations';

/**
 * The call list filters by status and a date range and counts the matches: with the date in
 * the index the count is an index-only scan instead of a visit to every matching row.
 */
export class Migration20261121050000_call_counts extends Migration {
  override async up(): Promise<void> {
    this.addSql('create index calls_account_id_status_created_at_index on calls (account_id, status, created_at);');
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists calls_account_id_status_created_at_index;');
  }
}
