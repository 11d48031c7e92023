import { OptionalProps, Collection, Entity, ManyToOne, OneToMany, PrimaryKey, Property } from '@mikro-orm/core';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, Int, ObjectType } from 'type-graphql';
import { SpecTimestampType } from '../../db/types';
import { nowSpecTimestamp } from '../../lib/time';
import { Account } from '../accounts/account.entity';
import { Campaign } from '../campaigns/campaign.entity';
import { SecondaryContact } from './secondary-contact.entity';

/** Every status a lead can be in (design.md, "Campaigns and the dialer"); the list filters accept all. */
export const LEAD_STATUSES = ['created', 'scheduled', 'processing', 'rescheduled', 'completed', 'reached-max-retries', 'blacklisted'] as const;
export type LeadStatus = (typeof LEAD_STATUSES)[number];
/** The statuses a client may set: `created` makes a lead dialable again, the others take it out of the dialer. */
export const CLIENT_LEAD_STATUSES = ['created', 'completed', 'reached-max-retries'] as const;

@ObjectType('Lead', { simpleResolvers: true, description: 'A contact of a campaign, with free-form variables and secondary contacts.' })
@Entity({ tableName: 'leads' })
export class Lead {
  [OptionalProps]?: 'variables' | 'status' | 'attempts' | 'next_attempt_at' | 'contact_index' | 'contact_attempts' | 'created_at' | 'updated_at';

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

  @Field(() => Int, { description: 'Calls the dialer has placed for this lead, every contact included.' })
  @Property({ type: 'integer' })
  attempts: number = 0;

  @Field(() => String, { nullable: true, description: 'While rescheduled: when the dialer may call again (YYYY-MM-DD HH:MM:SS, UTC).' })
  @Property({ type: SpecTimestampType, nullable: true })
  next_attempt_at: string | null = null;

  /** The number being tried: 0 the lead's own, n its n-th secondary contact (in id order). */
  @Property({ type: 'integer' })
  contact_index: number = 0;

  /** Attempts on that number: a contact is exhausted after 1 + the campaign's max_retries. */
  @Property({ type: 'integer' })
  contact_attempts: number = 0;

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
