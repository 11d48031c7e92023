import { Migration } from '@mikro-orm/migrations';

/** Each account's do-not-call list: numbers no call and no SMS of the account may reach. */
export class Migration20261122010000_dnc extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table dnc_numbers (
        account_id int not null references accounts (id) on delete cascade,
        phone_number varchar(20) not null,
        created_at timestamptz(0) not null default now(),
        primary key (account_id, phone_number)
      );`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists dnc_numbers;');
  }
}
