import { Migration } from '@mikro-orm/migrations';

/** Accounts, tokens, phone numbers, the balance ledger, campaigns, leads and their contacts. */
export class Migration20261121000000_foundation extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table accounts (
        id serial primary key,
        name varchar(255) not null,
        email varchar(255) null,
        balance numeric(18,4) not null default 0,
        created_at timestamptz(0) not null default now(),
        updated_at timestamptz(0) not null default now()
      );`);
    this.addSql(`
      create table api_tokens (
        id serial primary key,
        account_id int not null references accounts (id) on delete cascade,
        token_hash varchar(64) not null unique,
        prefix varchar(16) not null,
        created_at timestamptz(3) not null default now()
      );`);
    this.addSql(`create index api_tokens_account_id_index on api_tokens (account_id);`);
    this.addSql(`
      create table phone_numbers (
        id serial primary key,
        account_id int not null references accounts (id) on delete cascade,
        number varchar(20) not null unique,
        sms_enabled boolean not null default false,
        subscription_expires_at date null,
        created_at timestamptz(0) not null default now(),
        updated_at timestamptz(0) not null default now()
      );`);
    this.addSql(`create index phone_numbers_account_id_index on phone_numbers (account_id);`);
    this.addSql(`
      create table ledger_entries (
        id bigserial primary key,
        account_id int not null references accounts (id) on delete cascade,
        amount numeric(18,4) not null,
        balance_after numeric(18,4) not null,
        kind varchar(32) not null,
        reference varchar(255) null,
        created_at timestamptz(3) not null default now()
      );`);
    this.addSql(`create index ledger_entries_account_id_id_index on ledger_entries (account_id, id);`);
    this.addSql(`
      create table campaigns (
        id serial primary key,
        account_id int not null references accounts (id) on delete cascade,
        name varchar(255) not null,
        created_at timestamptz(0) not null default now(),
        updated_at timestamptz(0) not null default now()
      );`);
    this.addSql(`create index campaigns_account_id_index on campaigns (account_id, id);`);
    this.addSql(`
      create table leads (
        id serial primary key,
        account_id int not null references accounts (id) on delete cascade,
        campaign_id int not null references campaigns (id) on delete cascade,
        phone_number varchar(20) not null,
        variables jsonb not null default '{}',
        status varchar(32) not null default 'created',
        created_at timestamptz(0) not null default now(),
        updated_at timestamptz(0) not null default now()
      );`);
    this.addSql(`create index leads_account_id_id_index on leads (account_id, id);`);
    this.addSql(`create index leads_account_id_created_at_index on leads (account_id, created_at);`);
    this.addSql(`create index leads_campaign_id_phone_number_index on leads (campaign_id, phone_number);`);
    this.addSql(`create index leads_account_id_phone_number_index on leads (account_id, phone_number);`);
    this.addSql(`
      create table secondary_contacts (
        id serial primary key,
        lead_id int not null references leads (id) on delete cascade,
        phone_number varchar(20) not null,
        variables jsonb not null default '{}',
        status varchar(32) not null default 'created',
        created_at timestamptz(0) not null default now(),
        updated_at timestamptz(0) not null default now()
      );`);
    this.addSql(`create index secondary_contacts_lead_id_index on secondary_contacts (lead_id, id);`);
  }

  override async down(): Promise<void> {
    for (const table of ['secondary_contacts', 'leads', 'campaigns', 'ledger_entries', 'phone_numbers', 'api_tokens', 'accounts']) {
      this.addSql(`drop table if exists ${table} cascade;`);
    }
  }
}
