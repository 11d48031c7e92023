import { Migration } from '@mikro-orm/migrations';

/**
 * WhatsApp senders and templates (design.md, "Conversations"): a number marked `whatsapp`
 * is one of the account's WhatsApp senders. A template is Twilio's Content resource; the
 * original platform's clients name it by an integer id, so each account keeps the templates
 * it has been shown (one row per Content SID), with the text and variables a send renders.
 */
export class Migration20261210000000_whatsapp extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table phone_numbers add column whatsapp_enabled boolean not null default false;');
    this.addSql(`
      create table whatsapp_templates (
        id serial primary key,
        account_id int not null references accounts (id) on delete cascade,
        content_sid varchar(34) not null,
        name varchar(255) not null,
        language varchar(16) null,
        body text null,
        variables jsonb not null default '{}',
        category varchar(32) null,
        status varchar(32) not null,
        updated_at timestamptz not null default now(),
        unique (account_id, content_sid)
      );`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table whatsapp_templates;');
    this.addSql('alter table phone_numbers drop column whatsapp_enabled;');
  }
}
