import { Migration } from '@mikro-orm/migrations';

/**
 * Knowledge bases (design.md, "Knowledge bases"): a base per account, its documents, and the
 * documents' chunks. A document keeps what it was made from (`source`: a `text` document's
 * content or an uploaded file's bytes) until it is deleted, so that ingestion can run again.
 * A chunk carries its base's text-search configuration (`language`, a regconfig) so that its
 * `tsv` can be a generated column: `to_tsvector(regconfig, text)` is immutable, a cast from
 * the base's text is not. `embedding` is for the embeddings to come.
 */
export class Migration20261203000000_knowledge_bases extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table knowledge_bases (
        id serial primary key,
        account_id int not null references accounts (id) on delete cascade,
        name varchar(255) not null,
        description varchar(255),
        language varchar(32) not null default 'portuguese',
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now()
      );`);
    this.addSql(`create index knowledge_bases_account_id_index on knowledge_bases (account_id, id);`);
    this.addSql(`
      create table knowledge_documents (
        id serial primary key,
        knowledge_base_id int not null references knowledge_bases (id) on delete cascade,
        name varchar(255) not null,
        description varchar(255),
        type varchar(16) not null,
        url varchar(2048),
        links jsonb not null default '[]',
        relative_links_limit smallint,
        source bytea,
        source_bytes int not null default 0,
        status varchar(16) not null default 'processing',
        failure varchar(500),
        chunks_count int not null default 0,
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now(),
        constraint knowledge_documents_type_check check (type in ('website', 'text', 'pdf', 'docx', 'txt')),
        constraint knowledge_documents_status_check check (status in ('processing', 'ready', 'failed'))
      );`);
    this.addSql(`create index knowledge_documents_base_index on knowledge_documents (knowledge_base_id, id);`);
    this.addSql(`
      create table knowledge_chunks (
        id serial primary key,
        document_id int not null references knowledge_documents (id) on delete cascade,
        knowledge_base_id int not null references knowledge_bases (id) on delete cascade,
        ordinal int not null,
        content text not null,
        language regconfig not null,
        tsv tsvector generated always as (to_tsvector(language, content)) stored,
        embedding real[],
        unique (document_id, ordinal)
      );`);
    this.addSql(`create index knowledge_chunks_tsv_index on knowledge_chunks using gin (tsv);`);
    this.addSql(`create index knowledge_chunks_base_index on knowledge_chunks (knowledge_base_id);`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table knowledge_chunks;`);
    this.addSql(`drop table knowledge_documents;`);
    this.addSql(`drop table knowledge_bases;`);
  }
}
