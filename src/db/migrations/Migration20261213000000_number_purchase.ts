import { Migration } from '@mikro-orm/migrations';

/**
 * Numbers bought through the telephony provider (design: README "Phone numbers"): the
 * provider's id of the number (Twilio's PN sid), the price it renews at each month (the price
 * when it was bought), whether it still renews, and the account's own name for it.
 */
export class Migration20261213000000_number_purchase extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table phone_numbers
        add column nickname varchar(255) null,
        add column provider varchar(16) null,
        add column provider_sid varchar(64) null,
        add column monthly_price numeric(18,4) null,
        add column renews boolean not null default false;`);
    // The renewal job's claim: numbers that renew, by the day their month ends.
    this.addSql(`create index phone_numbers_renewal_index on phone_numbers (subscription_expires_at) where renews;`);
  }

  override async down(): Promise<void> {
    this.addSql('drop index phone_numbers_renewal_index;');
    this.addSql('alter table phone_numbers drop column nickname, drop column provider, drop column provider_sid, drop column monthly_price, drop column renews;');
  }
}
