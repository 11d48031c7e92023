import { Migration } from '@mikro-orm/migrations';

/**
 * Calls by lead, every call and not only those in flight: deleting a lead sets its calls'
 * lead_id to null (the foreign key's action), and without this index each deleted lead read
 * every call of the table (a campaign's delete, cascading to its leads, read them once a lead).
 */
export class Migration20261122120000_calls_lead_index extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index calls_lead_id_index on calls (lead_id) where lead_id is not null;`);
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists calls_lead_id_index;');
  }
}
