import { Migration } from '@mikro-orm/migrations';

/** What the pipeline engine's vendors report a call used (STT seconds, LLM tokens, TTS characters). */
export class Migration20261126000000_call_usage extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table calls add column usage jsonb null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table calls drop column if exists usage;`);
  }
}
