import { Migration } from '@mikro-orm/migrations';

/**
 * Which embeddings model made a document's vectors (EMBEDDINGS_MODEL when it was ingested; null:
 * its chunks have none). Search compares the question's vector with the chunks of documents of
 * the model that embedded the question only: vectors of two models are not comparable, so after
 * a change of EMBEDDINGS_MODEL a document is searched by full text until it is ingested again.
 */
export class Migration20261205010000_knowledge_embeddings_model extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table knowledge_documents add column embeddings_model varchar(200);');
  }

  override async down(): Promise<void> {
    this.addSql('alter table knowledge_documents drop column embeddings_model;');
  }
}
