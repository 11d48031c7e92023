import { Migration } from '@mikro-orm/migrations';

/**
 * Lead imports (issue 49): the file's text moves from one column of the import to pieces of
 * about a megabyte, written and read one at a time, so that neither the API process nor a
 * worker ever holds a whole file (a 20 MB file was a 20 MB string, a 40 MB parameter and a
 * 100,000-row array at once). Files of imports in flight move over as one piece each.
 */
export class Migration20261128000000_lead_import_chunks extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table lead_import_chunks (
        import_id int not null references lead_imports (id) on delete cascade,
        seq int not null,
        data text not null,
        primary key (import_id, seq)
      );`);
    this.addSql(`insert into lead_import_chunks (import_id, seq, data) select id, 0, csv from lead_imports where csv is not null;`);
    this.addSql(`alter table lead_imports drop column csv;`);
    // The cap on an account's imports in flight counts these.
    this.addSql(`create index lead_imports_in_flight_index on lead_imports (account_id) where status in ('queued', 'running');`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists lead_imports_in_flight_index;`);
    this.addSql(`alter table lead_imports add column csv text null;`);
    this.addSql(`update lead_imports i set csv = (select string_agg(data, '' order by seq) from lead_import_chunks c where c.import_id = i.id);`);
    this.addSql(`drop table if exists lead_import_chunks;`);
  }
}
