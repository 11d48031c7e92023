import { Migration } from '@mikro-orm/migrations';

/**
 * A conversation's reply is streamed piece by piece only while someone follows it
 * (`conversationUpdated`): each subscription, on any API process, renews `watched_until`
 * while it lasts. A reply nobody follows is stored whole, without its pieces' statements.
 */
export class Migration20261217000000_conversation_watchers extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table conversations add column watched_until timestamptz null;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table conversations drop column watched_until;');
  }
}
