import { Entity, ManyToOne, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { Field, Int, ObjectType } from 'type-graphql';
import { IsoTimestampType } from '../../db/types';
import { KnowledgeBase, labelOf } from './knowledge-base.entity';
import { DOCUMENT_STATUSES, DOCUMENT_TYPES, type DocumentStatus, type DocumentType } from './knowledge.rules';

@ObjectType('KnowledgeDocumentLink', { simpleResolvers: true, description: 'A page a website document starts from.' })
export class KnowledgeDocumentLink {
  @Field(() => String)
  link!: string;
}

const TYPE_LABELS: Record<DocumentType, string> = { website: 'Website', text: 'Text', pdf: 'PDF', docx: 'DOCX', txt: 'TXT' };

/**
 * A document of a knowledge base. What it was made from (the `source` column: a text's content
 * or a file's bytes) is not mapped: lists never read it, ingestion reads it with SQL.
 */
@ObjectType('KnowledgeDocument', { simpleResolvers: true, description: 'A document of a knowledge base, split into chunks for search once ingested.' })
@Entity({ tableName: 'knowledge_documents' })
export class KnowledgeDocument {
  [OptionalProps]?: 'description' | 'url' | 'links' | 'relative_links_limit' | 'source_bytes' | 'status' | 'failure_reason' | 'chunks_count' | 'created_at' | 'updated_at' | 'knowledgebase_id' | 'type_label' | 'status_label';

  @Field(() => Int)
  @PrimaryKey()
  id!: number;

  @ManyToOne(() => KnowledgeBase, { deleteRule: 'cascade', fieldName: 'knowledge_base_id' })
  knowledge_base!: KnowledgeBase;

  @Field(() => Int)
  get knowledgebase_id(): number {
    return this.knowledge_base.id;
  }

  @Field(() => String, { description: '1 to 255 characters.' })
  @Property({ length: 255 })
  name!: string;

  @Field(() => String, { nullable: true, description: 'At most 255 characters.' })
  @Property({ length: 255, nullable: true })
  description: string | null = null;

  @Field(() => String, { description: `One of: ${DOCUMENT_TYPES.join(', ')}.` })
  @Property({ length: 16 })
  type!: DocumentType;

  @Field(() => String, { description: 'The type in words.' })
  get type_label(): string {
    return TYPE_LABELS[this.type];
  }

  @Field(() => String, { nullable: true, description: 'A website document: the page to start from.' })
  @Property({ length: 2048, nullable: true })
  url: string | null = null;

  @Field(() => [KnowledgeDocumentLink], { description: 'A website document: the pages to read.' })
  @Property({ type: 'json' })
  links: KnowledgeDocumentLink[] = [];

  @Field(() => Int, { nullable: true, description: 'A website document: how many same-host links to follow from `url`.' })
  @Property({ type: 'smallint', nullable: true })
  relative_links_limit: number | null = null;

  @Field(() => Int, { description: 'The size of what it was made from (the file, or the content as UTF-8), in bytes.' })
  @Property({ type: 'integer' })
  source_bytes = 0;

  @Field(() => String, { description: `One of: ${DOCUMENT_STATUSES.join(', ')}.` })
  @Property({ length: 16 })
  status: DocumentStatus = 'processing';

  @Field(() => String, { description: 'The status in words.' })
  get status_label(): string {
    return labelOf(this.status);
  }

  @Field(() => String, { nullable: true, description: 'Why its ingestion failed (status failed); null otherwise.' })
  @Property({ length: 500, nullable: true, fieldName: 'failure' })
  failure_reason: string | null = null;

  @Field(() => Int, { description: 'How many chunks it was split into (0 until ready).' })
  @Property({ type: 'integer' })
  chunks_count = 0;

  @Field(() => String, { description: 'ISO 8601.' })
  @Property({ type: IsoTimestampType, onCreate: () => new Date().toISOString() })
  created_at!: string;

  @Field(() => String, { description: 'ISO 8601.' })
  @Property({ type: IsoTimestampType, onCreate: () => new Date().toISOString(), onUpdate: () => new Date().toISOString() })
  updated_at!: string;
}
