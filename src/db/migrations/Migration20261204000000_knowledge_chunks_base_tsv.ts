import { Migration } from '@mikro-orm/migrations';

/**
 * A search reads one base's chunks, but the GIN index over `tsv` alone holds every account's:
 * its scan returned each matching chunk of every base, ANDed after with the base's index
 * (bench/results/kb.md: 60,000 entries read for 20,000 of the base's). With btree_gin the
 * base's id is the index's first column, and the scan reads that base's entries only.
 * btree_gin ships with PostgreSQL (contrib) and is a trusted extension: a database's owner
 * may create it.
 */
export class Migration20261204000000_knowledge_chunks_base_tsv extends Migration {
  override async up(): Promise<void> {
    this.addSql('create extension if not exists btree_gin;');
    this.addSql('create index knowledge_chunks_base_tsv_index on knowledge_chunks using gin (knowledge_base_id, tsv);');
    this.addSql('drop index knowledge_chunks_tsv_index;');
  }

  override async down(): Promise<void> {
    this.addSql('create index knowledge_chunks_tsv_index on knowledge_chunks using gin (tsv);');
    this.addSql('drop index knowledge_chunks_base_tsv_index;');
  }
}
