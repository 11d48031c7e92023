import { Migration } from '@mikro-orm/migrations';

/**
 * The model catalogue: current models of the major providers, by the names their APIs take.
 * `llm` models drive pipeline assistants; `multimodal` ones are speech-to-speech models for
 * multimodal assistants (the built-in engine runs OpenAI's Realtime models).
 */
const MODELS: [name: string, provider: string, type: 'llm' | 'multimodal'][] = [
  ['gpt-4o', 'openai', 'llm'],
  ['gpt-4o-mini', 'openai', 'llm'],
  ['gpt-4.1', 'openai', 'llm'],
  ['gpt-4.1-mini', 'openai', 'llm'],
  ['gpt-4.1-nano', 'openai', 'llm'],
  ['gpt-5', 'openai', 'llm'],
  ['gpt-5-mini', 'openai', 'llm'],
  ['gpt-5-nano', 'openai', 'llm'],
  ['claude-opus-4-1', 'anthropic', 'llm'],
  ['claude-sonnet-4-5', 'anthropic', 'llm'],
  ['claude-haiku-4-5', 'anthropic', 'llm'],
  ['gemini-2.5-pro', 'google', 'llm'],
  ['gemini-2.5-flash', 'google', 'llm'],
  ['gemini-2.5-flash-lite', 'google', 'llm'],
  ['mistral-large-latest', 'mistral', 'llm'],
  ['mistral-small-latest', 'mistral', 'llm'],
  ['llama-3.3-70b-versatile', 'meta', 'llm'],
  ['gpt-realtime', 'openai', 'multimodal'],
  ['gpt-realtime-mini', 'openai', 'multimodal'],
  ['gpt-4o-realtime-preview', 'openai', 'multimodal'],
  ['gpt-4o-mini-realtime-preview', 'openai', 'multimodal'],
  ['gemini-2.5-flash-native-audio-preview-09-2025', 'google', 'multimodal'],
];

export class Migration20261122100000_models extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table models (
        id serial primary key,
        name varchar(100) not null unique,
        provider varchar(32) not null,
        type varchar(16) not null check (type in ('llm', 'multimodal')),
        created_at timestamptz(0) not null default now()
      );`);
    for (const [name, provider, type] of MODELS) this.addSql(`insert into models (name, provider, type) values ('${name}', '${provider}', '${type}');`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists models;');
  }
}
