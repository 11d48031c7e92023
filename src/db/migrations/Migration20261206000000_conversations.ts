import { Migration } from '@mikro-orm/migrations';

/**
 * Conversations over text (design.md, "Conversations"): an assistant's chats, each with its
 * messages in the order they were answered. A conversation outlives its assistant (as a call
 * does: assistant_id set null). An `api` conversation of POST /ai/generate-reply is its
 * assistant's one conversation with that customer_identifier (external_identifier), also when
 * two first messages race.
 */
export class Migration20261206000000_conversations extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table conversations (
        id bigserial primary key,
        uuid uuid not null unique,
        account_id int not null references accounts (id) on delete cascade,
        assistant_id int null references assistants (id) on delete set null,
        type varchar(16) not null check (type in ('test', 'widget', 'api', 'sms', 'whatsapp')),
        customer_phone varchar(32) null,
        external_identifier varchar(255) null,
        variables jsonb not null default '{}',
        ai_enabled boolean not null default true,
        llm_input_tokens bigint not null default 0,
        llm_output_tokens bigint not null default 0,
        total_cost numeric(18, 4) not null default 0,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );`);
    this.addSql('create index conversations_account_list on conversations (account_id, id desc);');
    this.addSql(
      `create unique index conversations_api_customer on conversations (assistant_id, external_identifier) where type = 'api' and external_identifier is not null;`,
    );
    this.addSql(`
      create table conversation_messages (
        id bigserial primary key,
        conversation_id bigint not null references conversations (id) on delete cascade,
        role varchar(16) not null check (role in ('user', 'assistant', 'human')),
        content text not null,
        created_at timestamptz not null default now()
      );`);
    this.addSql('create index conversation_messages_conversation on conversation_messages (conversation_id, id);');
  }

  override async down(): Promise<void> {
    this.addSql('drop table conversation_messages;');
    this.addSql('drop table conversations;');
  }
}
