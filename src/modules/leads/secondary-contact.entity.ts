import { OptionalProps, Entity, ManyToOne, PrimaryKey, Property } from '@mikro-orm/core';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, Int, ObjectType } from 'type-graphql';
import { SpecTimestampType } from '../../db/types';
import { nowSpecTimestamp } from '../../lib/time';
import type { Lead } from './lead.entity';

@ObjectType('SecondaryContact', { simpleResolvers: true, description: 'Another number at which a lead can be reached.' })
@Entity({ tableName: 'secondary_contacts' })
export class SecondaryContact {
  [OptionalProps]?: 'variables' | 'status' | 'created_at' | 'updated_at';

  @Field(() => Int)
  @PrimaryKey()
  id!: number;

  @ManyToOne('Lead', { deleteRule: 'cascade' })
  lead!: Lead;

  @Field(() => String, { description: 'E.164.' })
  @Property({ length: 20 })
  phone_number!: string;

  @Field(() => GraphQLJSONObject)
  @Property({ type: 'json' })
  variables: Record<string, unknown> = {};

  @Field(() => String)
  @Property({ length: 32 })
  status: string = 'created';

  @Field(() => String, { description: 'YYYY-MM-DD HH:MM:SS, UTC.' })
  @Property({ type: SpecTimestampType, onCreate: () => nowSpecTimestamp() })
  created_at!: string;

  @Field(() => String, { description: 'YYYY-MM-DD HH:MM:SS, UTC.' })
  @Property({ type: SpecTimestampType, onCreate: () => nowSpecTimestamp(), onUpdate: () => nowSpecTimestamp() })
  updated_at!: string;
}
