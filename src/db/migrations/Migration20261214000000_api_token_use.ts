import { Migration } from '@mikro-orm/migrations';

/** Tokens made in the console (issue 58): the account's name for each, and when it was last used. */
export class Migration20261214000000_api_token_use extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table api_tokens add column name varchar(100) null, add column last_used_at timestamptz(3) null;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table api_tokens drop column name, drop column last_used_at;');
  }
}
