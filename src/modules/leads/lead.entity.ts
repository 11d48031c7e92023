import { OptionalProps, Collection, Entity, ManyToOne, OneToMany, PrimaryKey, Property } from '@mikro-orm/core';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, Int, ObjectType } from 'type-graphql';
import { SpecTimestampType } from '../../db/types';
import { nowSpecTimestamp } from '../../lib/time';
import { Account } from '../accounts/account.entity';
import { Campaign } from '../campaigns/campaign.entity';
import { SecondaryContact } from './secondary-contact.entity';

export const LEAD_STATUSES = ['created', 'completed', 'reached-max-retries'] as const;
export type LeadStatus = (typeof LEAD_STATUSES)[number];

@ObjectType('Lead', { simpleResolvers: true, description: 'A contact of a campaign, with free-form variables and secondary contacts.' })
@Entity({ tableName: 'leads' })
export class Lead {
  [OptionalProps]?: 'variables' | 'status' | 'created_at' | 'updated_at';

  @Field(() => Int)
  @PrimaryKey()
  id!: number;

  @ManyToOne(() => Account, { deleteRule: 'cascade' })
  account!: Account;

  /** Exposed as `campaign` and `campaign_id` by the lead resolver. */
  @ManyToOne(() => Campaign, { deleteRule: 'cascade' })
  campaign!: Campaign;

  @Field(() => String, { description: 'E.164.' })
  @Property({ length: 20 })
  phone_number!: string;

  @Field(() => GraphQLJSONObject)
  @Property({ type: 'json' })
  variables: Record<string, unknown> = {};

  @Field(() => String, { description: `One of: ${LEAD_STATUSES.join(', ')}.` })
  @Property({ length: 32 })
  status: LeadStatus = 'created';

  @Field(() => String, { description: 'YYYY-MM-DD HH:MM:SS, UTC.' })
  @Property({ type: SpecTimestampType, onCreate: () => nowSpecTimestamp() })
  created_at!: string;

  @Field(() => String, { description: 'YYYY-MM-DD HH:MM:SS, UTC.' })
  @Property({ type: SpecTimestampType, onCreate: () => nowSpecTimestamp(), onUpdate: () => nowSpecTimestamp() })
  updated_at!: string;

  /** Exposed as `secondary_contacts` by the lead resolver, through a DataLoader. */
  @OneToMany(() => SecondaryContact, (contact) => contact.lead)
  secondary_contacts = new Collection<SecondaryContact>(this);
}
