import { Field, InputType, Int } from 'type-graphql';
import { CAMPAIGN_DEFAULTS as DEFAULTS, CAMPAIGN_RULES as RULES } from './campaign.rules';

/** The campaign fields a client sets; every one but `name` is optional (defaults in design.md). */
@InputType('UpdateCampaignInput', { description: 'Only the fields sent change; also while the campaign runs.' })
export class UpdateCampaignInput {
  @Field(() => String, { nullable: true, description: `${RULES.name.min} to ${RULES.name.max} characters.` })
  name?: string | null;

  @Field(() => Int, { nullable: true, description: 'An outbound (calls_direction make) assistant of the account; null removes it.' })
  assistant_id?: number | null;

  @Field(() => String, { nullable: true, description: 'IANA Area/City; default the assistant’s timezone, else UTC.' })
  timezone?: string | null;

  @Field(() => Int, { nullable: true, description: `${RULES.max_calls_in_parallel.min} to PLAN_MAX_PARALLEL_CALLS; default ${DEFAULTS.max_calls_in_parallel}.` })
  max_calls_in_parallel?: number | null;

  @Field(() => String, { nullable: true, description: `HH:MM; default ${DEFAULTS.allowed_hours_start_time}.` })
  allowed_hours_start_time?: string | null;

  @Field(() => String, { nullable: true, description: `HH:MM; default ${DEFAULTS.allowed_hours_end_time}. Before the start: the window spans midnight.` })
  allowed_hours_end_time?: string | null;

  @Field(() => [String], { nullable: true, description: `monday..sunday; default ${DEFAULTS.allowed_days.join(', ')}.` })
  allowed_days?: string[] | null;

  @Field(() => Int, { nullable: true, description: `${RULES.max_retries.min}-${RULES.max_retries.max}: attempts after the first, per contact; default ${DEFAULTS.max_retries}.` })
  max_retries?: number | null;

  @Field(() => Int, { nullable: true, description: `Minutes, ${RULES.retry_interval.min}-${RULES.retry_interval.max}; default ${DEFAULTS.retry_interval}.` })
  retry_interval?: number | null;

  @Field(() => Boolean, { nullable: true, description: `Default ${DEFAULTS.retry_on_voicemail}.` })
  retry_on_voicemail?: boolean | null;

  @Field(() => Boolean, { nullable: true, description: `Default ${DEFAULTS.retry_on_goal_incomplete}.` })
  retry_on_goal_incomplete?: boolean | null;

  @Field(() => String, { nullable: true, description: 'A post_call_schema name of the assistant; required with retry_on_goal_incomplete.' })
  goal_completion_variable?: string | null;

  @Field(() => Boolean, { nullable: true, description: `Default ${DEFAULTS.mark_complete_when_no_leads}.` })
  mark_complete_when_no_leads?: boolean | null;

  @Field(() => [Int], { nullable: true, description: 'The account’s numbers, in rotation as caller id; default the assistant’s number.' })
  phone_number_ids?: number[] | null;
}

@InputType('CreateCampaignInput', { description: 'Only `name` is required.' })
export class CreateCampaignInput extends UpdateCampaignInput {
  @Field(() => String, { description: `${RULES.name.min} to ${RULES.name.max} characters.` })
  declare name: string;
}
