import { Field, InputType, Int } from 'type-graphql';

/** The campaign fields a client sets; every one but `name` is optional (defaults in design.md). */
@InputType('UpdateCampaignInput', { description: 'Only the fields sent change; also while the campaign runs.' })
export class UpdateCampaignInput {
  @Field(() => String, { nullable: true, description: '1 to 255 characters.' })
  name?: string | null;

  @Field(() => Int, { nullable: true, description: 'An outbound (calls_direction make) assistant of the account; null removes it.' })
  assistant_id?: number | null;

  @Field(() => String, { nullable: true, description: 'IANA Area/City; default the assistant’s timezone, else UTC.' })
  timezone?: string | null;

  @Field(() => Int, { nullable: true, description: '1 to PLAN_MAX_PARALLEL_CALLS; default 3.' })
  max_calls_in_parallel?: number | null;

  @Field(() => String, { nullable: true, description: 'HH:MM; default 09:00.' })
  allowed_hours_start_time?: string | null;

  @Field(() => String, { nullable: true, description: 'HH:MM; default 18:00. Before the start: the window spans midnight.' })
  allowed_hours_end_time?: string | null;

  @Field(() => [String], { nullable: true, description: 'monday..sunday; default monday to friday.' })
  allowed_days?: string[] | null;

  @Field(() => Int, { nullable: true, description: '0-10: attempts after the first, per contact; default 3.' })
  max_retries?: number | null;

  @Field(() => Int, { nullable: true, description: 'Minutes, 1-4320; default 60.' })
  retry_interval?: number | null;

  @Field(() => Boolean, { nullable: true, description: 'Default true.' })
  retry_on_voicemail?: boolean | null;

  @Field(() => Boolean, { nullable: true, description: 'Default false.' })
  retry_on_goal_incomplete?: boolean | null;

  @Field(() => String, { nullable: true, description: 'A post_call_schema name of the assistant; required with retry_on_goal_incomplete.' })
  goal_completion_variable?: string | null;

  @Field(() => Boolean, { nullable: true, description: 'Default true.' })
  mark_complete_when_no_leads?: boolean | null;

  @Field(() => [Int], { nullable: true, description: 'The account’s numbers, in rotation as caller id; default the assistant’s number.' })
  phone_number_ids?: number[] | null;
}

@InputType('CreateCampaignInput', { description: 'Only `name` is required.' })
export class CreateCampaignInput extends UpdateCampaignInput {
  @Field(() => String, { description: '1 to 255 characters.' })
  declare name: string;
}
