import { Migration } from '@mikro-orm/migrations';

/**
 * Facts a server records about itself at start, for the processes that share its database
 * (the CLI runs with a configuration of its own): first, the telephony provider its workers run.
 */
export class Migration20261126100000_server_settings extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table server_settings (
      name text primary key,
      value text not null,
      recorded_at timestamptz not null default now()
    );`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists server_settings;`);
  }
}
