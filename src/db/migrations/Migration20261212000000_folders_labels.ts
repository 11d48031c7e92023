import { Migration } from '@mikro-orm/migrations';

/**
 * Folders and labels of assistants (the original platform's): a name unique in the account,
 * case aside, by an index that decides between two creates at once; an assistant in at most
 * one folder (deleting the folder leaves it in none) and with any of the account's labels
 * (deleting a label takes it off).
 */
export class Migration20261212000000_folders_labels extends Migration {
  override async up(): Promise<void> {
    for (const table of ['folders', 'labels']) {
      this.addSql(`
        create table ${table} (
          id serial primary key,
          account_id int not null references accounts (id) on delete cascade,
          name varchar(255) not null,
          color varchar(16) null check (color in ('gray', 'slate', 'red', 'orange', 'amber', 'green', 'teal', 'blue', 'purple', 'pink')),
          created_at timestamptz(3) not null default now(),
          updated_at timestamptz(3) not null default now()
        );`);
      this.addSql(`create unique index ${table}_account_id_name_unique on ${table} (account_id, lower(name));`);
      this.addSql(`create index ${table}_account_id_index on ${table} (account_id, id);`);
    }
    this.addSql(`alter table assistants add column folder_id int null references folders (id) on delete set null;`);
    this.addSql(`create index assistants_folder_id_index on assistants (folder_id) where folder_id is not null;`);
    this.addSql(`
      create table assistant_labels (
        assistant_id int not null references assistants (id) on delete cascade,
        label_id int not null references labels (id) on delete cascade,
        primary key (assistant_id, label_id)
      );`);
    this.addSql(`create index assistant_labels_label_id_index on assistant_labels (label_id, assistant_id);`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table assistant_labels;`);
    this.addSql(`alter table assistants drop column folder_id;`);
    this.addSql(`drop table labels;`);
    this.addSql(`drop table folders;`);
  }
}
