import { Migration } from '@mikro-orm/migrations';

/**
 * A conversation's messages update its row in place. Each message and each reply updates the
 * row (its `updated_at`, its reply's lease, its usage), and PostgreSQL updates a row in place,
 * in the page it is in and with no new entry in any index (a HOT update), only when no index
 * holds a column the update changes. The idle sweep's index held `updated_at`, so each update
 * wrote a new entry in every index of the table (five or six for an open conversation) and left
 * as many for vacuum.
 *
 * The sweep's index is now on `idle_checked_at`, which no message changes: when the row was
 * made, or when a sweep last found the conversation active (then set to its `updated_at`). It is
 * never after `updated_at`, so a conversation idle since a moment is due for the sweep by then.
 * Each page keeps a fifth of itself free for the updated rows.
 */
export class Migration20261219000000_conversation_hot_updates extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table conversations add column idle_checked_at timestamptz not null default now();');
    this.addSql('update conversations set idle_checked_at = updated_at where closed_at is null;');
    this.addSql('drop index conversations_open_idle;');
    this.addSql('create index conversations_open_idle on conversations (idle_checked_at) where closed_at is null;');
    this.addSql('alter table conversations set (fillfactor = 80);');
  }

  override async down(): Promise<void> {
    this.addSql('alter table conversations reset (fillfactor);');
    this.addSql('drop index conversations_open_idle;');
    this.addSql('create index conversations_open_idle on conversations (updated_at) where closed_at is null;');
    this.addSql('alter table conversations drop column idle_checked_at;');
  }
}
