import { Migration } from '@mikro-orm/migrations';

/** Campaigns as the dialer's unit: their assistant, window, pacing, retry policy and state. */
export class Migration20261122020000_campaigns extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table campaigns
        add column assistant_id int null references assistants (id) on delete set null,
        add column timezone varchar(64) not null default 'UTC',
        add column max_calls_in_parallel int not null default 3,
        add column allowed_hours_start_time varchar(5) not null default '09:00',
        add column allowed_hours_end_time varchar(5) not null default '18:00',
        add column allowed_days jsonb not null default '["monday","tuesday","wednesday","thursday","friday"]',
        add column max_retries int not null default 3,
        add column retry_interval int not null default 60,
        add column retry_on_voicemail boolean not null default true,
        add column retry_on_goal_incomplete boolean not null default false,
        add column goal_completion_variable varchar(64) null,
        add column mark_complete_when_no_leads boolean not null default true,
        add column phone_number_ids jsonb not null default '[]',
        add column status varchar(16) not null default 'draft',
        add column paused_reason varchar(32) null;`);
  }

  override async down(): Promise<void> {
    for (const column of [
      'assistant_id', 'timezone', 'max_calls_in_parallel', 'allowed_hours_start_time', 'allowed_hours_end_time', 'allowed_days', 'max_retries',
      'retry_interval', 'retry_on_voicemail', 'retry_on_goal_incomplete', 'goal_completion_variable', 'mark_complete_when_no_leads',
      'phone_number_ids', 'status', 'paused_reason',
    ]) {
      this.addSql(`alter table campaigns drop column if exists ${column};`);
    }
  }
}
