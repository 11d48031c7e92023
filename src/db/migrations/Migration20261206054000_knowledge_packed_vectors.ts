import { Migration } from '@mikro-orm/migrations';

/**
 * The chunks' vectors packed: `embedding` becomes a `bytea` of float32 values, big-endian as
 * float4send writes them (4 bytes a value), instead of `real[]` (knowledge.vectors.ts says
 * why: writing a `real[]` as text and reading it back as `array_send` made ingestion with
 * vectors and the read of a base's vectors several times slower, bench/results/kb.md). The
 * vectors already written are converted here, value for value; an array with a null left
 * shorter than its model's length is then left out of the searches, as it was.
 * The chunks' GIN index keeps a pending list of at most 256 kB (the default is 4 MB): the
 * chunks an ingestion writes wait there until a vacuum, or the list's limit, merges them, and
 * every search reads the whole list meanwhile (bench/results/kb.md: p50 24 ms with a full 4 MB
 * list of 2,500 chunks, 13 ms after the vacuum; a 256 kB list is within the noise). Without a
 * list (fastupdate off) ingestion was 40% slower, each chunk's hundred words inserted one by one.
 * Down: the vectors are dropped (and the documents' model with them, so they are searched by
 * full text until ingested again): PostgreSQL has no function from float32 bytes back to real.
 */
export class Migration20261206054000_knowledge_packed_vectors extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table knowledge_chunks add column embedding_packed bytea;');
    this.addSql(`
      update knowledge_chunks c
         set embedding_packed = (select string_agg(float4send(u.value), ''::bytea order by u.n) from unnest(c.embedding) with ordinality u(value, n))
       where c.embedding is not null;`);
    this.addSql('alter table knowledge_chunks drop column embedding;');
    this.addSql('alter table knowledge_chunks rename column embedding_packed to embedding;');
    this.addSql('alter index knowledge_chunks_base_tsv_index set (gin_pending_list_limit = 256);');
  }

  override async down(): Promise<void> {
    this.addSql('alter index knowledge_chunks_base_tsv_index reset (gin_pending_list_limit);');
    this.addSql('alter table knowledge_chunks drop column embedding;');
    this.addSql('alter table knowledge_chunks add column embedding real[];');
    this.addSql('update knowledge_documents set embeddings_model = null where embeddings_model is not null;');
  }
}
