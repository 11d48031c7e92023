import { OptionalProps, Entity, ManyToOne, PrimaryKey, Property } from '@mikro-orm/core';
import { Field, Int, ObjectType } from 'type-graphql';
import { SpecTimestampType } from '../../db/types';
import { nowSpecTimestamp } from '../../lib/time';
import { Account } from '../accounts/account.entity';
import { CAMPAIGN_DEFAULTS, CAMPAIGN_RULES, WEEKDAYS, type Weekday } from './campaign.rules';

export const CAMPAIGN_STATUSES = ['draft', 'running', 'paused', 'completed'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
/** Why a campaign is paused: a client stopped it, or the dialer could not go on. */
export const PAUSED_REASONS = ['manual', 'insufficient_balance', 'no_assistant', 'no_phone_number'] as const;
export type PausedReason = (typeof PAUSED_REASONS)[number];

@ObjectType('Campaign', { simpleResolvers: true, description: 'A campaign: its leads, the assistant that calls them, and when and how often.' })
@Entity({ tableName: 'campaigns' })
export class Campaign {
  [OptionalProps]?: 'created_at' | 'updated_at' | keyof typeof CAMPAIGN_DEFAULTS | 'timezone' | 'status' | 'paused_reason' | 'assistant_id' | 'goal_completion_variable' | 'phone_number_ids';

  @Field(() => Int)
  @PrimaryKey()
  id!: number;

  @ManyToOne(() => Account, { deleteRule: 'cascade' })
  account!: Account;

  @Field(() => String)
  @Property({ length: 255 })
  name!: string;

  @Field(() => Int, { nullable: true, description: 'The outbound assistant that makes the calls; required to start.' })
  @Property({ type: 'integer', nullable: true })
  assistant_id: number | null = null;

  @Field(() => String, { description: 'IANA Area/City: the window is read in it.' })
  @Property({ length: 64 })
  timezone: string = 'UTC';

  @Field(() => Int)
  @Property({ type: 'integer' })
  max_calls_in_parallel: number = CAMPAIGN_DEFAULTS.max_calls_in_parallel;

  @Field(() => String, { description: 'HH:MM (24 h).' })
  @Property({ length: 5 })
  allowed_hours_start_time: string = CAMPAIGN_DEFAULTS.allowed_hours_start_time;

  @Field(() => String, { description: 'HH:MM (24 h); before the start, the window spans midnight.' })
  @Property({ length: 5 })
  allowed_hours_end_time: string = CAMPAIGN_DEFAULTS.allowed_hours_end_time;

  @Field(() => [String], { description: `Any of: ${WEEKDAYS.join(', ')}.` })
  @Property({ type: 'json' })
  allowed_days: Weekday[] = [...CAMPAIGN_DEFAULTS.allowed_days];

  @Field(() => Int, { description: `Attempts after the first, per contact (${CAMPAIGN_RULES.max_retries.min}-${CAMPAIGN_RULES.max_retries.max}).` })
  @Property({ type: 'integer' })
  max_retries: number = CAMPAIGN_DEFAULTS.max_retries;

  @Field(() => Int, { description: `Minutes between attempts (${CAMPAIGN_RULES.retry_interval.min}-${CAMPAIGN_RULES.retry_interval.max}).` })
  @Property({ type: 'integer' })
  retry_interval: number = CAMPAIGN_DEFAULTS.retry_interval;

  @Field(() => Boolean)
  @Property()
  retry_on_voicemail: boolean = CAMPAIGN_DEFAULTS.retry_on_voicemail;

  @Field(() => Boolean)
  @Property()
  retry_on_goal_incomplete: boolean = CAMPAIGN_DEFAULTS.retry_on_goal_incomplete;

  @Field(() => String, { nullable: true, description: 'A post_call_schema name of the assistant.' })
  @Property({ length: 64, nullable: true })
  goal_completion_variable: string | null = null;

  @Field(() => Boolean)
  @Property()
  mark_complete_when_no_leads: boolean = CAMPAIGN_DEFAULTS.mark_complete_when_no_leads;

  @Field(() => [Int], { description: 'The account’s numbers, used in rotation as caller id.' })
  @Property({ type: 'json' })
  phone_number_ids: number[] = [];

  @Field(() => String, { description: `One of: ${CAMPAIGN_STATUSES.join(', ')}.` })
  @Property({ length: 16 })
  status: CampaignStatus = 'draft';

  @Field(() => String, { nullable: true, description: `While paused: ${PAUSED_REASONS.join(', ')}.` })
  @Property({ length: 32, nullable: true })
  paused_reason: PausedReason | null = null;

  @Field(() => String, { description: 'YYYY-MM-DD HH:MM:SS, UTC.' })
  @Property({ type: SpecTimestampType, onCreate: () => nowSpecTimestamp() })
  created_at!: string;

  @Field(() => String, { description: 'YYYY-MM-DD HH:MM:SS, UTC.' })
  @Property({ type: SpecTimestampType, onCreate: () => nowSpecTimestamp(), onUpdate: () => nowSpecTimestamp() })
  updated_at!: string;
}
