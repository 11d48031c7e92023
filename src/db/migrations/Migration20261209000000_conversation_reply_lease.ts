import { Migration } from '@mikro-orm/migrations';

/**
 * A conversation's reply is written without a database connection held while the model
 * answers (conversation.service.ts): the process writing it holds the conversation's lease
 * (`reply_lease`, until `reply_lease_until`) instead of its row lock, so a message to the
 * same conversation on another process waits for the reply, and a process that died while
 * writing one holds it no longer than the lease.
 */
export class Migration20261209000000_conversation_reply_lease extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table conversations add column reply_lease uuid null, add column reply_lease_until timestamptz null;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table conversations drop column reply_lease, drop column reply_lease_until;');
  }
}
