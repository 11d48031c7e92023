import { Migration } from '@mikro-orm/migrations';

/**
 * Answering machines found by the engine (design.md, "Calls that act"): per assistant the
 * `voicemail_message` left on a mailbox after its beep (null: none) and how long it waits for
 * the beep. Existing rows get what a new assistant gets (ASSISTANT_DEFAULTS).
 */
export class Migration20261201000000_voicemail extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table assistants
        add column voicemail_message text null,
        add column voicemail_beep_timeout_seconds smallint not null default 20;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table assistants drop column voicemail_beep_timeout_seconds, drop column voicemail_message;`);
  }
}
