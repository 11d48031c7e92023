import { Migration } from '@mikro-orm/migrations';

/**
 * A conversation's close (design.md, "Conversations"): when it closed, its post-call work
 * (pending until done, then the extracted values and evaluation), and its conversation-ended
 * webhook's attempts and the receiver's last answer; the assistant's conversation-ended
 * webhook URL. A closed api conversation no longer holds its customer_identifier: the
 * customer's next message opens a new one.
 */
export class Migration20261207000000_conversation_close extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table conversations
        add column closed_at timestamptz null,
        add column post_call_pending boolean not null default false,
        add column extracted_variables jsonb null,
        add column evaluation jsonb null,
        add column webhook_attempts int not null default 0,
        add column webhook_response jsonb null;`);
    this.addSql('alter table assistants add column conversation_ended_webhook_url varchar(2048) null;');
    this.addSql('drop index conversations_api_customer;');
    this.addSql(
      `create unique index conversations_api_customer on conversations (assistant_id, external_identifier) where type = 'api' and external_identifier is not null and closed_at is null;`,
    );
    // The idle sweep's open conversations, oldest message first.
    this.addSql('create index conversations_open_idle on conversations (updated_at) where closed_at is null;');
  }

  override async down(): Promise<void> {
    this.addSql('drop index conversations_open_idle;');
    this.addSql('drop index conversations_api_customer;');
    this.addSql(
      `create unique index conversations_api_customer on conversations (assistant_id, external_identifier) where type = 'api' and external_identifier is not null;`,
    );
    this.addSql('alter table assistants drop column conversation_ended_webhook_url;');
    this.addSql(`alter table conversations drop column closed_at, drop column post_call_pending, drop column extracted_variables,
      drop column evaluation, drop column webhook_attempts, drop column webhook_response;`);
  }
}
