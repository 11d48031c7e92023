import { Migration } from '@mikro-orm/migrations';

/**
 * The event outbox: every state change that matters writes a row here in the transaction of
 * its cause, and a NOTIFY on `vozgate_events` (delivered at commit, never for a rollback)
 * tells every API process to read it.
 */
export class Migration20261122040000_events extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table events (
        id bigserial primary key,
        account_id int not null references accounts (id) on delete cascade,
        type varchar(64) not null,
        data jsonb not null,
        created_at timestamptz(3) not null default now()
      );`);
    this.addSql(`create index events_created_at_index on events (created_at);`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists events;`);
  }
}
