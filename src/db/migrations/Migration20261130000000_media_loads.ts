import { Migration } from '@mikro-orm/migrations';

/**
 * What each process that takes calls' media last measured of its load (src/voice/load.report.ts):
 * the dialer holds its next dials while a fresh report says a process is overloaded. A report
 * older than the heartbeat's staleness is ignored, so a process that died overloaded holds
 * nothing for long.
 */
export class Migration20261130000000_media_loads extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table media_loads (
        process_id text primary key,
        overloaded boolean not null,
        loop_delay_ms real not null,
        vad_lag_ms real not null,
        reported_at timestamptz not null default now()
      );`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists media_loads;');
  }
}
