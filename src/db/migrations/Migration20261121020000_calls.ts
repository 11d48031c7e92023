import { Migration } from '@mikro-orm/migrations';

/** Calls, the log of their state changes, and idempotency keys for requests that start work. */
export class Migration20261121020000_calls extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table calls (
        id serial primary key,
        account_id int not null references accounts (id) on delete cascade,
        assistant_id int null references assistants (id) on delete set null,
        assistant_name varchar(255) not null,
        lead_id int null references leads (id) on delete set null,
        campaign_id int null references campaigns (id) on delete set null,
        campaign_name varchar(255) null,
        type varchar(16) not null,
        status varchar(32) not null,
        assistant_phone_number varchar(20) not null,
        client_phone_number varchar(20) not null,
        duration int not null default 0,
        answered_by varchar(16) null,
        transcript text not null default '',
        input_variables jsonb not null default '{}',
        variables jsonb not null default '{}',
        evaluation jsonb null,
        webhook_response jsonb null,
        carrier_cost numeric(18,4) not null default 0,
        total_cost numeric(18,4) not null default 0,
        recording_url varchar(2048) null,
        provider varchar(32) not null,
        provider_call_id varchar(128) null,
        answered_at timestamptz(3) null,
        finished_at timestamptz(0) null,
        deadline_at timestamptz(3) not null,
        created_at timestamptz(0) not null default now(),
        updated_at timestamptz(0) not null default now()
      );`);
    this.addSql(`create index calls_account_id_id_index on calls (account_id, id desc);`);
    this.addSql(`create index calls_account_id_created_at_index on calls (account_id, created_at, id);`);
    this.addSql(`create index calls_account_id_status_index on calls (account_id, status, id desc);`);
    this.addSql(`create index calls_account_id_type_index on calls (account_id, type, id desc);`);
    this.addSql(`create index calls_account_id_client_phone_number_index on calls (account_id, client_phone_number, id desc);`);
    this.addSql(`create index calls_assistant_id_index on calls (assistant_id, id desc);`);
    this.addSql(`create index calls_campaign_id_index on calls (campaign_id, id desc);`);
    // The sweeper looks only at calls that have not reached a final state.
    this.addSql(`create index calls_open_deadline_index on calls (deadline_at) where finished_at is null;`);

    this.addSql(`
      create table call_events (
        id bigserial primary key,
        call_id int not null references calls (id) on delete cascade,
        status varchar(32) not null,
        detail jsonb null,
        created_at timestamptz(3) not null default now(),
        unique (call_id, status)
      );`);

    this.addSql(`
      create table idempotency_keys (
        account_id int not null references accounts (id) on delete cascade,
        operation varchar(32) not null,
        key varchar(255) not null,
        request_hash char(64) not null,
        response jsonb null,
        created_at timestamptz(3) not null default now(),
        primary key (account_id, operation, key)
      );`);

    // Job-queue workers say they are alive; the jobs of one that stops saying so are released.
    this.addSql(`
      create table worker_heartbeats (
        worker_id varchar(64) primary key,
        beat_at timestamptz(3) not null default now()
      );`);
  }

  override async down(): Promise<void> {
    for (const table of ['worker_heartbeats', 'idempotency_keys', 'call_events', 'calls']) this.addSql(`drop table if exists ${table} cascade;`);
  }
}
