import { Migration } from '@mikro-orm/migrations';

/**
 * Who hears the caller on the pipeline engine (design.md, "Vendors you host"): Deepgram by
 * default (OpenAI's transcriber when only OPENAI_API_KEY is set), `openai`, or a name of the
 * server's STT_PROVIDERS. The name is checked on write against what the server knows then; one
 * removed from the configuration later is a missing variable, not a bad row. A voice may name
 * a hosted TTS server (TTS_PROVIDERS) as its provider: the column takes any name of the form the
 * configuration allows, checked against the configuration when the voice is added.
 */
export class Migration20261202030000_transcriber extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table assistants add column transcriber varchar(32) not null default 'deepgram';`);
    this.addSql(`alter table voices drop constraint voices_provider_check;`);
    this.addSql(`alter table voices add constraint voices_provider_check check (provider ~ '^[a-z0-9][a-z0-9_-]{0,31}$');`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table assistants drop column transcriber;`);
    this.addSql(`update voices set provider = null, provider_voice_id = null where provider not in ('elevenlabs', 'cartesia', 'openai');`);
    this.addSql(`alter table voices drop constraint voices_provider_check;`);
    this.addSql(`alter table voices add constraint voices_provider_check check (provider in ('elevenlabs', 'cartesia', 'openai'));`);
  }
}
