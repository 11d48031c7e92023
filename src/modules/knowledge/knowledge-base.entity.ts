import { Entity, ManyToOne, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { Field, Int, ObjectType } from 'type-graphql';
import { IsoTimestampType } from '../../db/types';
import { Account } from '../accounts/account.entity';
import { KNOWLEDGE_BASE_STATUSES, SEARCH_LANGUAGES, type KnowledgeBaseStatus } from './knowledge.rules';

@ObjectType('KnowledgeBase', { simpleResolvers: true, description: 'Documents an assistant can look things up in.' })
@Entity({ tableName: 'knowledge_bases' })
export class KnowledgeBase {
  [OptionalProps]?: 'description' | 'language' | 'created_at' | 'updated_at' | 'status' | 'status_label' | 'documents_count' | 'assistants_count';

  @Field(() => Int)
  @PrimaryKey()
  id!: number;

  @ManyToOne(() => Account, { deleteRule: 'cascade' })
  account!: Account;

  @Field(() => String, { description: '1 to 255 characters.' })
  @Property({ length: 255 })
  name!: string;

  @Field(() => String, { nullable: true, description: 'At most 255 characters.' })
  @Property({ length: 255, nullable: true })
  description: string | null = null;

  @Field(() => String, { description: `The text-search configuration its documents are searched with; one of: ${SEARCH_LANGUAGES.join(', ')}.` })
  @Property({ length: 32 })
  language: string = 'portuguese';

  @Field(() => String, { description: 'ISO 8601.' })
  @Property({ type: IsoTimestampType, onCreate: () => new Date().toISOString() })
  created_at!: string;

  @Field(() => String, { description: 'ISO 8601.' })
  @Property({ type: IsoTimestampType, onCreate: () => new Date().toISOString(), onUpdate: () => new Date().toISOString() })
  updated_at!: string;

  /** Not a column: filled by the service from its documents. */
  @Field(() => String, { description: `One of: ${KNOWLEDGE_BASE_STATUSES.join(', ')} (from its documents: any processing, else any failed, else ready; empty without documents).` })
  status: KnowledgeBaseStatus = 'empty';

  @Field(() => String, { description: 'The status in words.' })
  get status_label(): string {
    return labelOf(this.status);
  }

  /** Not a column: filled by the service. */
  @Field(() => Int)
  documents_count = 0;

  /** Not a column: filled by the service. */
  @Field(() => Int, { description: 'The account’s assistants that use it.' })
  assistants_count = 0;
}

export const labelOf = (value: string): string => value.charAt(0).toUpperCase() + value.slice(1);
