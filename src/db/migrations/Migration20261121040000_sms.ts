import { Migration } from '@mikro-orm/migrations';

/** SMS messages sent from the accounts' numbers. */
export class Migration20261121040000_sms extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table sms_messages (
        id serial primary key,
        account_id int not null references accounts (id) on delete cascade,
        phone_number_id int null references phone_numbers (id) on delete set null,
        "from" varchar(20) not null,
        "to" varchar(20) not null,
        body text not null,
        encoding varchar(8) not null,
        segments int not null,
        segment_price numeric(18,4) not null,
        total_cost numeric(18,4) not null,
        status varchar(16) not null,
        provider varchar(32) not null,
        sms_sid varchar(64) null,
        error varchar(512) null,
        created_at timestamptz(0) not null default now(),
        updated_at timestamptz(0) not null default now()
      );`);
    this.addSql(`create index sms_messages_account_id_id_index on sms_messages (account_id, id desc);`);
    this.addSql(`create index sms_messages_account_id_created_at_index on sms_messages (account_id, created_at);`);
    this.addSql(`create index sms_messages_account_id_to_index on sms_messages (account_id, "to", id desc);`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists sms_messages cascade;');
  }
}
