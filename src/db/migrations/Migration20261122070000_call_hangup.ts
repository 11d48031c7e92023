import { Migration } from '@mikro-orm/migrations';

/** Why vozgate asked the provider to end a call (HANGUPS), read when the provider reports its end. */
export class Migration20261122070000_call_hangup extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table calls add column hangup_reason text null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table calls drop column if exists hangup_reason;`);
  }
}
