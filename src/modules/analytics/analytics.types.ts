import { GraphQLDateTime } from 'graphql-scalars';
import { ArgsType, Field, Float, Int, ObjectType } from 'type-graphql';

export const ANALYTICS_BUCKETS = ['hour', 'day'] as const;
export type AnalyticsBucketSize = (typeof ANALYTICS_BUCKETS)[number];

@ArgsType()
export class AnalyticsArgs {
  @Field(() => GraphQLDateTime, { description: 'The period’s start, inclusive: a whole hour (UTC), for example 2026-12-01T00:00:00Z or 2026-12-01T00:00:00-03:00.' })
  from!: Date;

  @Field(() => GraphQLDateTime, { description: 'The period’s end, exclusive: a whole hour after `from`.' })
  to!: Date;

  @Field(() => Int, { nullable: true, description: 'Only this campaign’s calls.' })
  campaign_id?: number | null;

  @Field(() => Int, { nullable: true, description: 'Only this assistant’s calls.' })
  assistant_id?: number | null;

  @Field(() => String, { nullable: true, description: `One of: ${ANALYTICS_BUCKETS.join(', ')} (UTC hours or days); default day. At most 31 days by hour, 400 by day.` })
  bucket?: string | null;
}

@ObjectType('AnalyticsFigures', { simpleResolvers: true, description: 'What the settled calls of a bucket or a period add up to (README, "Analytics").' })
export class AnalyticsFigures {
  @Field(() => Int, { description: 'Settled calls (every type: outbound, inbound, web), by the hour they started.' })
  calls!: number;

  @Field(() => Int, { description: 'Billed minutes: each connected call’s duration rounded up to the minute, as calls are charged (transferred legs not included).' })
  minutes!: number;

  @Field(() => Float, { description: 'Whole seconds talked, summed (a Float: a year of a large account’s calls passes a 32-bit Int).' })
  duration_seconds!: number;

  @Field(() => Int, { description: 'Answered by a person (answered_by human, or unknown when not detected); not a machine or a carrier’s intercept.' })
  answered!: number;

  @Field(() => Int, { description: 'Answered by a machine (answered_by machine): voicemail.' })
  voicemail!: number;

  @Field(() => Int, { description: 'Ended with status no-answer.' })
  no_answer!: number;

  @Field(() => Int, { description: 'Ended with status busy.' })
  busy!: number;

  @Field(() => Int, { description: 'Ended with status failed.' })
  failed!: number;

  @Field(() => Float, { nullable: true, description: 'answered / calls (0 to 1, four decimals); null without calls.' })
  answer_rate!: number | null;

  @Field(() => Float, { nullable: true, description: 'voicemail / calls.' })
  voicemail_rate!: number | null;

  @Field(() => Float, { nullable: true, description: 'no_answer / calls.' })
  no_answer_rate!: number | null;

  @Field(() => Float, { nullable: true, description: 'Seconds, over the calls that connected (a person or a machine answered), one decimal; null without any.' })
  average_duration!: number | null;

  @Field(() => Float, { description: 'What the calls cost (total_cost summed, transferred legs included), exact to 4 decimals.' })
  cost!: string;

  @Field(() => Float, { nullable: true, description: 'cost / answered, rounded to 4 decimals; null without answered calls.' })
  cost_per_answered_call!: string | null;

  @Field(() => Int, { description: 'Calls the assistant transferred (transferred_to set).' })
  transfers!: number;
}

@ObjectType('AnalyticsBucket', { simpleResolvers: true })
export class AnalyticsBucket extends AnalyticsFigures {
  @Field(() => GraphQLDateTime, { description: 'The bucket’s start (UTC hour or day); the first and last may be cut by the period.' })
  start!: Date;
}

@ObjectType('CampaignFunnel', { simpleResolvers: true, description: 'A campaign’s leads through the period: how far they got.' })
export class CampaignFunnel {
  @Field(() => Int)
  campaign_id!: number;

  @Field(() => String)
  campaign_name!: string;

  @Field(() => Int, { description: 'The campaign’s leads now, every status (not bound to the period).' })
  leads!: number;

  @Field(() => Int, { description: 'Leads whose first call started in the period.' })
  dialled!: number;

  @Field(() => Int, { description: 'Leads whose first call a person answered started in the period.' })
  answered!: number;

  @Field(() => Int, { description: 'Leads completed after a call that started in the period.' })
  completed!: number;

  @Field(() => Int, { description: 'Leads with a call, started in the period, that the assistant transferred.' })
  transferred!: number;
}

@ObjectType('AssistantLatency', {
  simpleResolvers: true,
  description: 'Voice to voice on the pipeline engine (the caller’s end of speech to the first audio of the answer), over the period’s calls. Read from a histogram: each percentile is the upper edge of its bucket (25 ms wide below 1 s, 100 ms to 3 s, 500 ms to 10 s; 10000 past it).',
})
export class AssistantLatency {
  @Field(() => Int)
  assistant_id!: number;

  @Field(() => String, { nullable: true, description: 'Null when the assistant was deleted.' })
  assistant_name!: string | null;

  @Field(() => Int, { description: 'Pipeline calls with at least one answer measured.' })
  calls!: number;

  @Field(() => Int, { description: 'Answers measured.' })
  turns!: number;

  @Field(() => Int)
  p50_ms!: number;

  @Field(() => Int)
  p95_ms!: number;
}

@ObjectType('Analytics', { simpleResolvers: true, description: 'The account’s calls over a period, by hour or day (UTC: accounts have no time zone).' })
export class Analytics {
  @Field(() => GraphQLDateTime)
  from!: Date;

  @Field(() => GraphQLDateTime)
  to!: Date;

  @Field(() => String)
  bucket!: AnalyticsBucketSize;

  @Field(() => String, { description: 'The time zone of the buckets: UTC.' })
  timezone!: string;

  @Field(() => [AnalyticsBucket], { description: 'Every bucket of the period, oldest first, empty ones included.' })
  buckets!: AnalyticsBucket[];

  @Field(() => AnalyticsFigures, { description: 'The whole period.' })
  totals!: AnalyticsFigures;

  @Field(() => [CampaignFunnel], { description: 'The campaigns with calls in the period (and the campaign asked for), by id.' })
  funnels!: CampaignFunnel[];

  @Field(() => [AssistantLatency], { description: 'The assistants with measured pipeline answers in the period, by id.' })
  latency!: AssistantLatency[];
}
