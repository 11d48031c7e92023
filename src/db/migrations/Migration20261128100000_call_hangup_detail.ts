import { Migration } from '@mikro-orm/migrations';

/**
 * Why a call's engine failed, in the server's words (`Deepgram refused the stream: HTTP 401`),
 * beside its `hangup_reason`: what the console, /talk and the API show after a failed call.
 */
export class Migration20261128100000_call_hangup_detail extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table calls add column hangup_detail text null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table calls drop column if exists hangup_detail;`);
  }
}
