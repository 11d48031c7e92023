import { Migration } from '@mikro-orm/migrations';

/**
 * The turn-taking settings of issue 51 (design.md, "Turn-taking that survives real callers"):
 * per assistant `keyterms` (Deepgram's keyterm prompting), `pronunciations` (whole-word
 * replacements before TTS), `backchannel_words` (null: the language's defaults) and
 * `false_interruption_timeout_ms`; per tool `speak_during`. Existing rows get what a new
 * assistant or tool gets when the field is left out (ASSISTANT_DEFAULTS).
 */
export class Migration20261130020000_turn_settings extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table assistants
        add column keyterms jsonb not null default '[]',
        add column pronunciations jsonb not null default '[]',
        add column backchannel_words jsonb null,
        add column false_interruption_timeout_ms integer not null default 2000;`);
    this.addSql(`alter table tools add column speak_during varchar(200) null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table tools drop column speak_during;`);
    this.addSql(`
      alter table assistants
        drop column false_interruption_timeout_ms,
        drop column backchannel_words,
        drop column pronunciations,
        drop column keyterms;`);
  }
}
