import { Migration } from '@mikro-orm/migrations';

/**
 * What each call holds of its account's balance while it runs, the calls in flight per
 * account (the parallel-call cap counts them), and the lease of a call's mid-call tools,
 * which run off the job queue's worker slots.
 */
export class Migration20261122000000_reliability extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table calls add column reserved_amount numeric(18,4) not null default 0;`);
    this.addSql(`alter table calls add column tools_lease_until timestamptz(3) null;`);
    this.addSql(`create index calls_account_id_in_flight_index on calls (account_id) where finished_at is null;`);
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists calls_account_id_in_flight_index;');
    this.addSql('alter table calls drop column if exists tools_lease_until;');
    this.addSql('alter table calls drop column if exists reserved_amount;');
  }
}
