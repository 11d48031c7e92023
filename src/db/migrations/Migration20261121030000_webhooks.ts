import { Migration } from '@mikro-orm/migrations';

/** Webhook signing secrets, post-call deliveries and their attempts, and mid-call tool results. */
export class Migration20261121030000_webhooks extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table accounts add column webhook_secret_sealed text null;`);
    this.addSql(`alter table calls add column tool_calls jsonb not null default '[]';`);
    this.addSql(`
      create table webhook_deliveries (
        id varchar(40) primary key,
        account_id int not null references accounts (id) on delete cascade,
        call_id int not null references calls (id) on delete cascade,
        assistant_id int null references assistants (id) on delete set null,
        status varchar(16) not null,
        attempts int not null default 0,
        round_offset int not null default 0,
        payload jsonb not null,
        next_attempt_at timestamptz(3) null,
        last_error varchar(255) null,
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now()
      );`);
    this.addSql(`create index webhook_deliveries_call_id_index on webhook_deliveries (call_id);`);
    this.addSql(`
      create table webhook_attempts (
        id bigserial primary key,
        delivery_id varchar(40) not null references webhook_deliveries (id) on delete cascade,
        attempt int not null,
        url varchar(2048) not null,
        status_code int null,
        error varchar(255) null,
        latency_ms int not null,
        response_headers jsonb null,
        response_body text null,
        created_at timestamptz(3) not null default now(),
        unique (delivery_id, attempt)
      );`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists webhook_attempts cascade;');
    this.addSql('drop table if exists webhook_deliveries cascade;');
    this.addSql('alter table calls drop column if exists tool_calls;');
    this.addSql('alter table accounts drop column if exists webhook_secret_sealed;');
  }
}
