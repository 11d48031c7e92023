import { Entity, ManyToOne, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { Field, Int, ObjectType } from 'type-graphql';
import { IsoTimestampType } from '../../db/types';
import { Account } from '../accounts/account.entity';
import { BADGE_COLORS, MAX_BADGE_NAME, type BadgeColor } from './organize.rules';

@ObjectType('Label', { simpleResolvers: true, description: 'A tag of the account’s assistants: an assistant may carry several.' })
@Entity({ tableName: 'labels' })
export class Label {
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
  @Field(() => Int, { description: 'Assistants that carry it.' })
  assistants_count = 0;
}
