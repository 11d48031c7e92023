import { Migration } from '@mikro-orm/migrations';

/** An account's open conversations, counted against CONVERSATION_MAX_OPEN each time one opens. */
export class Migration20261209010000_conversation_limits extends Migration {
  override async up(): Promise<void> {
    this.addSql('create index conversations_account_open on conversations (account_id) where closed_at is null;');
  }

  override async down(): Promise<void> {
    this.addSql('drop index conversations_account_open;');
  }
}
