import { Migration } from '@mikro-orm/migrations';

/**
 * Vendor events on a call (design.md, "Vendors that never end a call by themselves"): a call
 * may retry or switch a vendor many times, so `vendor_retried` and `vendor_switched` rows are
 * left out of the one-row-per-status rule, which now holds through a partial unique index (the
 * `on conflict` statements name its predicate). The fallback models an assistant's pipeline
 * tries, in order, when its model fails (at most 3 catalogue names).
 */
export class Migration20261202000000_vendor_events extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table call_events drop constraint call_events_call_id_status_key;`);
    this.addSql(`
      create unique index call_events_call_id_status_key on call_events (call_id, status)
        where status not in ('vendor_retried', 'vendor_switched');`);
    this.addSql(`alter table assistants add column fallback_models jsonb not null default '[]';`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table assistants drop column fallback_models;`);
    this.addSql(`delete from call_events where status in ('vendor_retried', 'vendor_switched');`);
    this.addSql(`drop index call_events_call_id_status_key;`);
    this.addSql(`alter table call_events add constraint call_events_call_id_status_key unique (call_id, status);`);
  }
}
