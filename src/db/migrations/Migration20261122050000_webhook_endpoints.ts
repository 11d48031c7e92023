import { Migration } from '@mikro-orm/migrations';

/**
 * Account webhook endpoints: a URL, the event types it wants and its own signing secret. Their
 * deliveries share the assistant webhooks' table (attempts, retries, redelivery), with the
 * endpoint and the event type instead of an assistant.
 */
export class Migration20261122050000_webhook_endpoints extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table webhook_endpoints (
        id serial primary key,
        account_id int not null references accounts (id) on delete cascade,
        url varchar(2048) not null,
        events jsonb not null,
        secret_sealed text not null,
        disabled_at timestamptz(0) null,
        created_at timestamptz(0) not null default now()
      );`);
    this.addSql(`create index webhook_endpoints_account_id_index on webhook_endpoints (account_id, id);`);
    this.addSql(`
      alter table webhook_deliveries
        alter column call_id drop not null,
        add column endpoint_id int null references webhook_endpoints (id) on delete cascade,
        add column event_type varchar(64) null;`);
    this.addSql(`create index webhook_deliveries_endpoint_id_index on webhook_deliveries (endpoint_id, created_at);`);
  }

  override async down(): Promise<void> {
    this.addSql(`delete from webhook_deliveries where endpoint_id is not null;`);
    this.addSql(`alter table webhook_deliveries drop column if exists event_type, drop column if exists endpoint_id, alter column call_id set not null;`);
    this.addSql(`drop table if exists webhook_endpoints;`);
  }
}
