import { Migration } from '@mikro-orm/migrations';

/**
 * Web calls (design.md, "Web calls"): the digest of the single-use token a browser connects
 * with, and when it expires. The token is spent (the digest cleared) by the connection it lets in.
 */
export class Migration20261126120000_web_calls extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table calls add column web_token_hash text null, add column web_token_expires_at timestamptz null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table calls drop column if exists web_token_hash, drop column if exists web_token_expires_at;`);
  }
}
