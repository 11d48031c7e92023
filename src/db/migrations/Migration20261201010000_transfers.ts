import { Migration } from '@mikro-orm/migrations';

/**
 * Transfers (design.md, "Calls that act"): per assistant where `transfer_call` may hand the
 * caller over, how, and what is said first; per call where it went and how that leg ended
 * (the dialled leg's minutes are charged like a call's), the leg's Twilio call (a warm
 * transfer dials it apart) and when the assistant came back on a warm transfer nobody answered.
 */
export class Migration20261201010000_transfers extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table assistants
        add column transfer_numbers jsonb not null default '[]',
        add column transfer_mode varchar(8) not null default 'cold',
        add column transfer_message text null;`);
    this.addSql(`
      alter table calls
        add column transferred_to varchar(20) null,
        add column transfer_status varchar(16) null,
        add column transfer_duration integer null,
        add column transfer_call_sid varchar(64) null,
        add column media_resumed_at timestamptz(3) null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table calls drop column media_resumed_at, drop column transfer_call_sid, drop column transfer_duration, drop column transfer_status, drop column transferred_to;`);
    this.addSql(`alter table assistants drop column transfer_message, drop column transfer_mode, drop column transfer_numbers;`);
  }
}
