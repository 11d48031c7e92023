import { Migration } from '@mikro-orm/migrations';

/**
 * The call list in `created_at desc, id desc` order, which a date range (on `created_at`) can
 * read as a range of the index: in id order, a range's page stepped over every call of the
 * filter outside the range first. Each filter's account-led index follows the new order; they
 * also cover what the two `created_at` indexes of the first migrations served (read backwards).
 */
const LIST_INDEXES: [string, string | null][] = [
  ['calls_account_id_id_index', null],
  ['calls_account_id_status_index', 'status'],
  ['calls_account_id_type_index', 'type'],
  ['calls_account_id_client_phone_number_index', 'client_phone_number'],
  ['calls_account_id_assistant_id_index', 'assistant_id'],
  ['calls_account_id_campaign_id_index', 'campaign_id'],
];

const key = (column: string | null) => `account_id, ${column ? `${column}, ` : ''}`;
const listIndex = (column: string | null) => `calls_list${column ? `_${column}` : ''}_index`;

export class Migration20261122140000_calls_list_order extends Migration {
  override async up(): Promise<void> {
    this.addSql('drop index if exists calls_account_id_created_at_index;');
    this.addSql('drop index if exists calls_account_id_status_created_at_index;');
    for (const [name, column] of LIST_INDEXES) {
      this.addSql(`drop index if exists ${name};`);
      this.addSql(`create index ${listIndex(column)} on calls (${key(column)}created_at desc, id desc);`);
    }
  }

  override async down(): Promise<void> {
    for (const [name, column] of LIST_INDEXES) {
      this.addSql(`drop index if exists ${listIndex(column)};`);
      this.addSql(`create index ${name} on calls (${key(column)}id desc) include (created_at);`);
    }
    this.addSql('create index calls_account_id_status_created_at_index on calls (account_id, status, created_at);');
    this.addSql('create index calls_account_id_created_at_index on calls (account_id, created_at, id);');
  }
}
