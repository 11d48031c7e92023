import { Migration } from '@mikro-orm/migrations';

/**
 * What a request to each model may carry (modules/catalog/model.params.ts). OpenAI's gpt-5
 * models refuse a `temperature` (HTTP 400 `unsupported_value`) and take a `reasoning_effort`:
 * `minimal`, the soonest first token, as a caller waits on the line.
 */
export class Migration20261129010000_model_params extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table models add column params jsonb not null default '{"supports_temperature": true, "reasoning_effort": null}';`);
    this.addSql(
      `update models set params = '{"supports_temperature": false, "reasoning_effort": "minimal"}' where name in ('gpt-5', 'gpt-5-mini', 'gpt-5-nano');`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('alter table models drop column if exists params;');
  }
}
