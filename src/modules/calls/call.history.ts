import type { EntityManager } from '@mikro-orm/postgresql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, Float, Int, ObjectType } from 'type-graphql';
import type { Turn, TurnLatency, TurnRetrieval } from './call.conversation';

/**
 * What happened on a call, for a call's page: its status changes (the call_events rows) and
 * its turns with their times.
 */

@ObjectType('CallStatusEvent', {
  simpleResolvers: true,
  description:
    'A change of a call’s status, as the state machine recorded it; or the voice engine’s verdict on who answered (status `answered-by`); or a voice vendor retried or replaced (`vendor_retried`, `vendor_switched`: several a call, at most 50).',
})
export class CallStatusEvent {
  @Field(() => String, {
    description:
      'The status the call reached; `answered-by`: the voice engine’s verdict, its detail `{answered_by, source (phrase, twilio or timing), reason, at_ms}`; `vendor_retried`: detail `{part (stt, llm or tts), vendor, reason}`; `vendor_switched`: detail `{part, from, to, reason}`.',
  })
  status!: string;

  @Field(() => String, { description: 'When, ISO 8601 with milliseconds (UTC).' })
  at!: string;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'What caused it: the provider’s event and, for a call not answered, its reason; null for the start.' })
  detail!: Record<string, unknown> | null;
}

@ObjectType('CallTurnLatency', { simpleResolvers: true, description: 'Milliseconds after the caller’s end of speech at which each step of the answer came; null where a step did not happen.' })
export class CallTurnLatency implements TurnLatency {
  @Field(() => Int, { nullable: true })
  stt_final_ms!: number | null;

  @Field(() => Int, { nullable: true })
  llm_first_token_ms!: number | null;

  @Field(() => Int, { nullable: true })
  tts_first_byte_ms!: number | null;

  @Field(() => Int, { nullable: true, description: 'Voice to voice: the first audio of the answer sent to the caller.' })
  first_audio_ms!: number | null;
}

@ObjectType('CallTurnRetrievedChunk', { simpleResolvers: true, description: 'A chunk a knowledge-base search found, with its score (higher is better).' })
export class CallTurnRetrievedChunk {
  @Field(() => Int)
  chunk_id!: number;

  @Field(() => Int)
  document_id!: number;

  @Field(() => Float)
  score!: number;
}

@ObjectType('CallTurnRetrieval', { simpleResolvers: true, description: 'A search of the assistant’s knowledge base that the turn was answered with.' })
export class CallTurnRetrieval implements TurnRetrieval {
  @Field(() => Int)
  knowledgebase_id!: number;

  @Field(() => String, { description: 'function_call: the model’s search_knowledge_base; prompt: the caller’s turn, searched before the model answered.' })
  mode!: TurnRetrieval['mode'];

  @Field(() => String, { description: 'What was searched for.' })
  query!: string;

  @Field(() => [CallTurnRetrievedChunk], { description: 'Best first; empty when nothing matched.' })
  chunks!: CallTurnRetrievedChunk[];
}

@ObjectType('CallTurn', { simpleResolvers: true, description: 'One turn of the conversation, in the order it was said.' })
export class CallTurn {
  @Field(() => String, { description: 'assistant, customer or system.' })
  speaker!: Turn['speaker'];

  @Field(() => String)
  text!: string;

  @Field(() => Int, {
    nullable: true,
    description: 'Milliseconds from the call’s answer (the start of its recording) to when the turn began; null where not known (calls recorded before turns had times).',
  })
  at_ms!: number | null;

  @Field(() => Int, { nullable: true, description: 'How long the turn lasted, in milliseconds, where known.' })
  duration_ms!: number | null;

  @Field(() => CallTurnLatency, { nullable: true, description: 'The pipeline engine’s answers: when each step of it came.' })
  latency!: TurnLatency | null;

  @Field(() => [CallTurnRetrieval], { description: 'The knowledge-base searches this answer was written with; empty for most turns.' })
  retrievals!: TurnRetrieval[];
}

export function turnView(turn: Turn): CallTurn {
  return {
    speaker: turn.speaker,
    text: turn.text,
    at_ms: typeof turn.at_ms === 'number' ? turn.at_ms : null,
    duration_ms: typeof turn.duration_ms === 'number' ? turn.duration_ms : null,
    latency: turn.latency ?? null,
    retrievals: turn.retrievals ?? [],
  };
}

const EVENTS_OF_CALLS = `select e.call_id, e.status, e.detail,
    to_char(e.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at
  from call_events e join calls c on c.id = e.call_id
  where e.call_id = any(?::int[]) and c.account_id = ?
  order by e.call_id, e.created_at, e.id`;

/** The status changes of the account's calls, oldest first, in one statement for them all. */
export async function eventsOfCalls(em: EntityManager, accountId: number, callIds: readonly number[]): Promise<Map<number, CallStatusEvent[]>> {
  const byCall = new Map<number, CallStatusEvent[]>(callIds.map((id) => [id, []]));
  if (callIds.length === 0) return byCall;
  // The ids as PostgreSQL's array literal: the driver builds one from an array character by character.
  const rows: { call_id: number; status: string; detail: Record<string, unknown> | null; at: string }[] = await em.execute(EVENTS_OF_CALLS, [
    `{${callIds.join(',')}}`,
    accountId,
  ]);
  for (const row of rows) byCall.get(row.call_id)?.push({ status: row.status, at: row.at, detail: row.detail });
  return byCall;
}
