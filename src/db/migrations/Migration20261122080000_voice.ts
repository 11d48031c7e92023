import { Migration } from '@mikro-orm/migrations';

/**
 * Calls that run on a voice engine: when their media stream was taken, the turns heard so
 * far, and whether their post-call work (extraction, evaluation, webhook) is still to do.
 */
export class Migration20261122080000_voice extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table calls add column media_started_at timestamptz(3) null, add column turns jsonb not null default '[]', add column post_call_pending boolean not null default false;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table calls drop column if exists media_started_at, drop column if exists turns, drop column if exists post_call_pending;`);
  }
}
