import { Entity, ManyToOne, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { Field, Int, ObjectType } from 'type-graphql';
import { SpecTimestampType } from '../../db/types';
import { nowSpecTimestamp } from '../../lib/time';
import { Account } from '../accounts/account.entity';

export const ENGINE_TYPES = ['pipeline', 'multimodal'] as const;
export type EngineType = (typeof ENGINE_TYPES)[number];

@ObjectType('Voice', { simpleResolvers: true, description: 'A voice; public, or private to the account that added it.' })
@Entity({ tableName: 'voices' })
export class Voice {
  [OptionalProps]?: 'account' | 'created_at';

  @Field(() => Int, { description: "Use as an assistant's voice_id." })
  @PrimaryKey()
  id!: number;

  /** The owner of a private voice; null for a public one. */
  @ManyToOne(() => Account, { nullable: true, deleteRule: 'cascade' })
  account: Account | null = null;

  @Field(() => String)
  @Property({ length: 100 })
  name!: string;

  @Field(() => String, { description: `The engine the voice works with: ${ENGINE_TYPES.join(' or ')}.` })
  @Property({ length: 16 })
  mode!: EngineType;

  @Property({ type: SpecTimestampType, onCreate: () => nowSpecTimestamp() })
  created_at!: string;
}
