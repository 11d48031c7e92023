import { Migration } from '@mikro-orm/migrations';

/**
 * SMS and WhatsApp in (design.md, "Conversations"): a customer's message that came through
 * Twilio's messaging webhook keeps Twilio's MessageSid, unique, so that a retried or raced
 * webhook stores it once; `handled_at` says its reply (or the decision not to send one) is
 * done, so that a job run again answers nothing twice. A reply that went out as an SMS names
 * it (`sms_messages.conversation_id`): the conversation's cost is the sum of those that stand.
 * One open sms/whatsapp conversation per assistant and customer, also when two first messages
 * race. A do-not-call entry says why it is there (an opt-out by text is `sms_stop`).
 */
export class Migration20261208000000_inbound_messages extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table conversation_messages
        add column provider_message_id varchar(64) null,
        add column handled_at timestamptz null;`);
    this.addSql('create unique index conversation_messages_provider_id on conversation_messages (provider_message_id) where provider_message_id is not null;');
    this.addSql(
      `create unique index conversations_channel_customer on conversations (assistant_id, type, customer_phone) where type in ('sms', 'whatsapp') and closed_at is null;`,
    );
    this.addSql(`
      alter table sms_messages
        add column channel varchar(16) not null default 'sms' check (channel in ('sms', 'whatsapp')),
        add column conversation_id bigint null references conversations (id) on delete set null;`);
    this.addSql('create index sms_messages_conversation on sms_messages (conversation_id) where conversation_id is not null;');
    this.addSql('alter table dnc_numbers add column reason varchar(32) null;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table dnc_numbers drop column reason;');
    this.addSql('drop index sms_messages_conversation;');
    this.addSql('alter table sms_messages drop column conversation_id, drop column channel;');
    this.addSql('drop index conversations_channel_customer;');
    this.addSql('drop index conversation_messages_provider_id;');
    this.addSql('alter table conversation_messages drop column handled_at, drop column provider_message_id;');
  }
}
