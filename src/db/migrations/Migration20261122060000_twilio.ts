import { Migration } from '@mikro-orm/migrations';

/** Calls placed with Twilio: when it was asked, and its call's sid found from a callback. */
export class Migration20261122060000_twilio extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table calls add column provider_requested_at timestamptz(3) null;`);
    this.addSql(`create unique index calls_provider_call_id_index on calls (provider, provider_call_id) where provider_call_id is not null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists calls_provider_call_id_index;`);
    this.addSql(`alter table calls drop column if exists provider_requested_at;`);
  }
}
