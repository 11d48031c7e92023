import { Migration } from '@mikro-orm/migrations';

/** Requests per token per minute, counted in the database so that every process sees them. */
export class Migration20261121060000_rate_limits extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table rate_limit_windows (
        token_hash varchar(64) not null,
        window_start timestamptz(0) not null,
        requests int not null,
        primary key (token_hash, window_start)
      );`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists rate_limit_windows;');
  }
}
