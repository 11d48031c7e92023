import { Migration } from '@mikro-orm/migrations';

/**
 * An assistant's knowledge base (design.md, "Knowledge bases"): a base of the account's, and
 * how the assistant uses it. Deleting the base leaves its assistants without one.
 */
export class Migration20261205000000_assistant_knowledge extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table assistants add column knowledgebase_id int null references knowledge_bases (id) on delete set null;`);
    this.addSql(`alter table assistants add column knowledgebase_mode varchar(16) not null default 'function_call' check (knowledgebase_mode in ('function_call', 'prompt'));`);
    this.addSql(`create index assistants_knowledgebase_id_index on assistants (knowledgebase_id) where knowledgebase_id is not null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table assistants drop column knowledgebase_mode;`);
    this.addSql(`alter table assistants drop column knowledgebase_id;`);
  }
}
