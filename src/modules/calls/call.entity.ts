import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, Float, Int, ObjectType } from 'type-graphql';
import { IsoTimestampType, SpecTimestampType } from '../../db/types';
import type { Turn } from './call.conversation';
import { nowSpecTimestamp } from '../../lib/time';

export const CALL_STATUSES = [
  'initiated',
  'ringing',
  'busy',
  'in-progress',
  'ended',
  'completed',
  'ended_by_customer',
  'ended_by_assistant',
  'no-answer',
  'failed',
] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];
export const FINAL_CALL_STATUSES: readonly CallStatus[] = ['busy', 'ended', 'completed', 'ended_by_customer', 'ended_by_assistant', 'no-answer', 'failed'];
export const CALL_TYPES = ['inbound', 'outbound', 'web'] as const;
export type CallType = (typeof CALL_TYPES)[number];
/** `unavailable`: a carrier's intercept (the phone off, the number not in service), found by the engine's detector. */
export type AnsweredBy = 'human' | 'machine' | 'unavailable' | 'unknown';

@ObjectType('CallUsage', { simpleResolvers: true, description: 'What the pipeline engine’s vendors report the call used.' })
export class CallUsage {
  @Field(() => Float, { description: 'Seconds of audio the speech-to-text vendor processed.' })
  stt_seconds!: number;

  @Field(() => Int)
  llm_input_tokens!: number;

  @Field(() => Int)
  llm_output_tokens!: number;

  @Field(() => Int, { description: 'Characters sent to the text-to-speech vendor.' })
  tts_characters!: number;
}

@ObjectType('CallLatency', { simpleResolvers: true, description: 'Voice to voice: from the caller’s end of speech to the first audio of the answer, endpointing included.' })
export class CallLatency {
  @Field(() => Int, { description: 'Answers measured.' })
  turns!: number;

  @Field(() => Int)
  p50_ms!: number;

  @Field(() => Int)
  p95_ms!: number;
}

/** The call's voice-to-voice latency over its measured turns (nearest rank); null before any. */
export function callLatency(turns: Turn[]): CallLatency | null {
  const measured = turns
    .map((turn) => turn.latency?.first_audio_ms)
    .filter((ms): ms is number => typeof ms === 'number')
    .sort((a, b) => a - b);
  if (measured.length === 0) return null;
  const rank = (p: number) => measured[Math.max(0, Math.ceil((p / 100) * measured.length) - 1)];
  return { turns: measured.length, p50_ms: rank(50), p95_ms: rank(95) };
}

/** One request of a mid-call tool during a call. */
export interface ToolCallRecord {
  tool_id: number;
  name: string;
  method: string;
  url: string;
  parameters: Record<string, unknown>;
  status: number | null;
  /** The start of the response body (bounded), or null when there was none. */
  response: string | null;
  error: string | null;
  latency_ms: number;
}

@ObjectType('Call', { simpleResolvers: true, description: 'A phone call of one of the account’s assistants.' })
@Entity({ tableName: 'calls' })
export class Call {
  [OptionalProps]?:
    | 'duration'
    | 'answered_by'
    | 'transcript'
    | 'input_variables'
    | 'variables'
    | 'evaluation'
    | 'webhook_response'
    | 'carrier_cost'
    | 'total_cost'
    | 'recording_url'
    | 'tool_calls'
    | 'provider_call_id'
    | 'provider_requested_at'
    | 'hangup_reason'
    | 'hangup_detail'
    | 'transferred_to'
    | 'transfer_status'
    | 'transfer_duration'
    | 'transfer_call_sid'
    | 'media_resumed_at'
    | 'usage'
    | 'media_started_at'
    | 'post_call_pending'
    | 'answered_at'
    | 'finished_at'
    | 'assistant_id'
    | 'lead_id'
    | 'attempt'
    | 'campaign_id'
    | 'campaign_name'
    | 'created_at'
    | 'updated_at';

  @Field(() => Int)
  @PrimaryKey()
  id!: number;

  /**
   * The owning account as a plain id, not a relation: nothing navigates from a call to its
   * account, and a relation makes the ORM install tracking accessors on every call it reads.
   */
  @Property({ type: 'integer' })
  account_id!: number;

  /** Kept as plain ids: the call outlives its assistant, lead and campaign (set null on delete). */
  @Field(() => Int, { nullable: true })
  @Property({ type: 'integer', nullable: true })
  assistant_id: number | null = null;

  @Field(() => String)
  @Property({ length: 255 })
  assistant_name!: string;

  @Field(() => Int, { nullable: true, description: 'The campaign lead the call was made to, when there is one.' })
  @Property({ type: 'integer', nullable: true })
  lead_id: number | null = null;

  @Field(() => Int, { nullable: true, description: "Which of the lead's attempts this call was (1 = the first); null when the dialer did not place it." })
  @Property({ type: 'integer', nullable: true })
  attempt: number | null = null;

  @Field(() => Int, { nullable: true })
  @Property({ type: 'integer', nullable: true })
  campaign_id: number | null = null;

  @Field(() => String, { nullable: true, description: 'When the call belongs to a campaign.' })
  @Property({ length: 255, nullable: true })
  campaign_name: string | null = null;

  @Field(() => String, { description: `One of: ${CALL_TYPES.join(', ')}.` })
  @Property({ length: 16 })
  type!: CallType;

  @Field(() => Int, { description: 'Seconds.' })
  @Property({ type: 'integer' })
  duration: number = 0;

  @Field(() => String)
  @Property({ length: 20 })
  assistant_phone_number!: string;

  @Field(() => String)
  @Property({ length: 20 })
  client_phone_number!: string;

  @Field(() => String, { description: `One of: ${CALL_STATUSES.join(', ')}.` })
  @Property({ length: 32 })
  status!: CallStatus;

  @Field(() => String)
  @Property({ type: 'text' })
  transcript: string = '';

  /** The variables given when the call was started. */
  @Property({ type: 'json' })
  input_variables: Record<string, unknown> = {};

  @Field(() => GraphQLJSONObject, { description: 'Values collected during the call (the post-call schema).' })
  @Property({ type: 'json' })
  variables: Record<string, unknown> = {};

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'sentiment, outcome, score; when post_call_evaluation is on.' })
  @Property({ type: 'json', nullable: true })
  evaluation: Record<string, unknown> | null = null;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'The last response of the webhook receiver.' })
  @Property({ type: 'json', nullable: true })
  webhook_response: Record<string, unknown> | null = null;

  @Field(() => Float)
  @Property({ type: 'decimal', precision: 18, scale: 4 })
  carrier_cost: string = '0';

  @Field(() => Float, { description: 'Carrier cost plus the platform fee.' })
  @Property({ type: 'decimal', precision: 18, scale: 4 })
  total_cost: string = '0';

  @Field(() => String, { nullable: true, description: 'human, machine, unavailable (a carrier’s intercept: the phone off, the number not in service) or unknown; null until answered.' })
  @Property({ length: 16, nullable: true })
  answered_by: AnsweredBy | null = null;

  @Field(() => String, { nullable: true, description: 'When recorded (record_call).' })
  @Property({ length: 2048, nullable: true })
  recording_url: string | null = null;

  /** What the mid-call tools were asked and answered; the transcript tells it too. */
  @Property({ type: 'json' })
  tool_calls: ToolCallRecord[] = [];

  /** When the call's media stream was taken by the voice engine (once: its token is then spent). */
  @Property({ type: IsoTimestampType, nullable: true })
  media_started_at: string | null = null;

  /** Extraction, evaluation and the post-call webhook wait for the post-call job (calls on a voice engine). */
  @Property()
  post_call_pending: boolean = false;

  @Property({ length: 32 })
  provider!: string;

  @Property({ length: 128, nullable: true })
  provider_call_id: string | null = null;

  /** When the provider was last asked to place the call (a retry looks the call up first). */
  @Property({ type: IsoTimestampType, nullable: true })
  provider_requested_at: string | null = null;

  @Field(() => String, {
    nullable: true,
    description: 'Why vozgate ended the call: api, end-call-tool, transferred, time-limit, silence, voicemail, voicemail-message (the voicemail_message left), unavailable (a carrier’s intercept), media-lost, engine-failed, stt-failed, llm-failed, tts-failed, or customer (the caller hung up on a voice engine).',
  })
  @Property({ type: 'text', nullable: true })
  hangup_reason: string | null = null;

  @Field(() => String, {
    nullable: true,
    description: 'Why the call’s engine failed, in the server’s words (for example `Deepgram refused the stream: HTTP 401`), when hangup_reason is engine-failed, stt-failed, llm-failed or tts-failed; null otherwise.',
  })
  @Property({ type: 'text', nullable: true })
  hangup_detail: string | null = null;

  @Field(() => String, { nullable: true, description: 'Where the assistant transferred the call (E.164), once the transfer was made; null otherwise.' })
  @Property({ length: 20, nullable: true })
  transferred_to: string | null = null;

  @Field(() => String, {
    nullable: true,
    description: 'How the transferred leg ended, as Twilio’s DialCallStatus says: completed, answered, busy, no-answer, failed or canceled; null until it ends.',
  })
  @Property({ length: 16, nullable: true })
  transfer_status: string | null = null;

  @Field(() => Int, { nullable: true, description: 'Seconds the transferred leg lasted (charged like a call’s minutes to its number); null until it ends.' })
  @Property({ type: 'integer', nullable: true })
  transfer_duration: number | null = null;

  /** A warm transfer's leg to the person: its own Twilio call, whose status callbacks say how it went. */
  @Property({ length: 64, nullable: true })
  transfer_call_sid: string | null = null;

  /** When the assistant's media came back after a warm transfer nobody answered (once a call). */
  @Property({ type: IsoTimestampType, nullable: true })
  media_resumed_at: string | null = null;

  @Field(() => CallUsage, { nullable: true, description: 'What the pipeline engine’s vendors report the call used; null on other engines.' })
  @Property({ type: 'json', nullable: true })
  usage: CallUsage | null = null;

  @Property({ type: IsoTimestampType, nullable: true })
  answered_at: string | null = null;

  @Property({ type: SpecTimestampType, nullable: true })
  finished_at: string | null = null;

  /** What the call holds of the balance while it runs (its first minute); released when it ends. */
  @Property({ type: 'decimal', precision: 18, scale: 4 })
  reserved_amount: string = '0';

  /** While set and ahead, one process is running the call's mid-call tools. */
  @Property({ type: IsoTimestampType, nullable: true })
  tools_lease_until: string | null = null;

  /** After this moment the sweeper ends the call if nothing else has. */
  @Property({ type: IsoTimestampType })
  deadline_at!: string;

  @Field(() => String, { description: 'YYYY-MM-DD HH:MM:SS, UTC.' })
  @Property({ type: SpecTimestampType, onCreate: () => nowSpecTimestamp() })
  created_at!: string;

  @Field(() => String, { description: 'YYYY-MM-DD HH:MM:SS, UTC.' })
  @Property({ type: SpecTimestampType, onCreate: () => nowSpecTimestamp(), onUpdate: () => nowSpecTimestamp() })
  updated_at!: string;
}
