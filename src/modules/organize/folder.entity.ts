import { Entity, ManyToOne, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { Field, Int, ObjectType } from 'type-graphql';
import { IsoTimestampType } from '../../db/types';
import { Account } from '../accounts/account.entity';
import { BADGE_COLORS, MAX_BADGE_NAME, type BadgeColor } from './organize.rules';

@ObjectType('Folder', { simpleResolvers: true, description: 'A group of the account’s assistants (per customer or brand, say): an assistant is in at most one.' })
@Entity({ tableName: 'folders' })
export class Folder {
  [OptionalProps]?: 'color' | 'created_at' | 'updated_at' | 'assistants_count';

  @Field(() => Int)
  @PrimaryKey()
  id!: number;

  @ManyToOne(() => Account, { deleteRule: 'cascade' })
  account!: Account;

  @Field(() => String, { description: `1 to ${MAX_BADGE_NAME} characters; unique in the account, case aside.` })
  @Property({ length: MAX_BADGE_NAME })
  name!: string;

  @Field(() => String, { nullable: true, description: `The badge's colour: one of ${BADGE_COLORS.join(', ')}; null: none.` })
  @Property({ type: 'string', length: 16, nullable: true })
  color: BadgeColor | null = null;

  @Field(() => String, { description: 'ISO 8601.' })
  @Property({ type: IsoTimestampType, onCreate: () => new Date().toISOString() })
  created_at!: string;

  @Field(() => String, { description: 'ISO 8601.' })
  @Property({ type: IsoTimestampType, onCreate: () => new Date().toISOString(), onUpdate: () => new Date().toISOString() })
  updated_at!: string;

  /** Not a column: filled by the service. */
  @Field(() => Int, { description: 'Assistants in it.' })
  assistants_count = 0;
}
