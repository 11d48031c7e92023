import { Migration } from '@mikro-orm/migrations';

/**
 * SIP trunks (the original platform's): a trunk is one of the account's phone numbers (the
 * number or extension it carries, a row of phone_numbers) with the trunk's settings in
 * sip_trunks, keyed by that row's id. One id for both is what the original platform's
 * clients assume (its MCP server deletes a trunk with DELETE /user/phone-numbers/{id}), so
 * releasing the number deletes the trunk by the cascade, and an assistant or a campaign takes
 * a trunk's number like any other. The password is sealed (SecretBox), never stored in clear.
 */
export class Migration20261216000000_sip_trunks extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table sip_trunks (
        phone_number_id int primary key references phone_numbers (id) on delete cascade,
        account_id int not null references accounts (id) on delete cascade,
        sip_trunk_type varchar(16) not null check (sip_trunk_type in ('extension', 'number')),
        sip_username varchar(128) not null,
        sip_password_sealed text not null,
        sip_address varchar(255) not null,
        sip_calling_format varchar(8) not null check (sip_calling_format in ('+e164', 'e164', 'national')),
        inbound_authorization_type varchar(8) not null check (inbound_authorization_type in ('auth', 'ip')),
        allowed_inbound_ips jsonb not null default '[]',
        country_code varchar(2) not null,
        outbound_proxy boolean not null default false,
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now()
      );`);
    this.addSql(`create index sip_trunks_account_id_index on sip_trunks (account_id, phone_number_id);`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table sip_trunks;`);
  }
}
