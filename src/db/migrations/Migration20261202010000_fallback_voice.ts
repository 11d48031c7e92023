import { Migration } from '@mikro-orm/migrations';

/**
 * The voice a pipeline assistant's call switches to when its voice's TTS vendor fails
 * (design.md, "Vendors that never end a call by themselves"); a voice deleted leaves the
 * assistant with the next vendor's default voice.
 */
export class Migration20261202010000_fallback_voice extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table assistants add column fallback_voice_id integer null references voices (id) on delete set null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table assistants drop column fallback_voice_id;`);
  }
}
