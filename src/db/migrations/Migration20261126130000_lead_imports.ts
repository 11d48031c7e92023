import { Migration } from '@mikro-orm/migrations';

/**
 * Lead imports (issue 45): a CSV file imported into a campaign by a job, batch by batch. The
 * file's text is kept in the row until the import ends (then cleared); `rows_done` is how many
 * of its records the committed batches have settled, so that a job that dies mid-import
 * resumes after the last committed batch, and a batch it was writing is rolled back whole.
 */
export class Migration20261126130000_lead_imports extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table lead_imports (
        id serial primary key,
        account_id int not null references accounts (id) on delete cascade,
        campaign_id int not null references campaigns (id) on delete cascade,
        status varchar(16) not null default 'queued',
        csv text null,
        mapping jsonb null,
        rows_total int not null default 0,
        rows_done int not null default 0,
        created int not null default 0,
        duplicates int not null default 0,
        invalid int not null default 0,
        blacklisted int not null default 0,
        errors jsonb not null default '[]'::jsonb,
        failure text null,
        created_at timestamptz(0) not null default now(),
        updated_at timestamptz(0) not null default now(),
        finished_at timestamptz(0) null
      );`);
    this.addSql(`create index lead_imports_account_id_index on lead_imports (account_id, id);`);
    this.addSql(`create index lead_imports_campaign_id_index on lead_imports (campaign_id);`);
    this.addSql(`create index lead_imports_finished_at_index on lead_imports (finished_at) where finished_at is not null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists lead_imports;`);
  }
}
