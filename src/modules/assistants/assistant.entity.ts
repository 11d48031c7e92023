import { Entity, ManyToOne, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, Float, Int, ObjectType } from 'type-graphql';
import { SpecTimestampType } from '../../db/types';
import { nowSpecTimestamp } from '../../lib/time';
import { Account } from '../accounts/account.entity';
import { PhoneNumber } from '../accounts/phone-number.entity';
import { Voice, type EngineType } from '../catalog/voice.entity';

export const CALLS_DIRECTIONS = ['receive', 'make'] as const;
export type CallsDirection = (typeof CALLS_DIRECTIONS)[number];
export const ENDPOINT_TYPES = ['vad', 'ai'] as const;
export const WHO_SPEAKS_FIRST = ['AI assistant', 'Customer'] as const;
export const POST_CALL_TYPES = ['string', 'number', 'bool'] as const;
/** How `transfer_call` hands the caller over (design.md, "Calls that act"). */
export const TRANSFER_MODES = ['cold', 'warm'] as const;
/** How an assistant uses its knowledge base: a function the model calls, or the caller's turn searched and its chunks put in the model's context (pipeline only). */
export const KNOWLEDGE_BASE_MODES = ['function_call', 'prompt'] as const;
export type KnowledgeBaseMode = (typeof KNOWLEDGE_BASE_MODES)[number];
export type TransferMode = (typeof TRANSFER_MODES)[number];

@ObjectType('PostCallSchemaItem', { simpleResolvers: true, description: 'A value to extract from the conversation after the call.' })
export class PostCallSchemaItem {
  @Field(() => String, { description: 'Letters, digits and underscores.' })
  name!: string;

  @Field(() => String, { description: `One of: ${POST_CALL_TYPES.join(', ')}.` })
  type!: (typeof POST_CALL_TYPES)[number];

  @Field(() => String)
  description!: string;
}

@ObjectType('EndCallTool', { simpleResolvers: true, description: 'The built-in tool the assistant uses to hang up.' })
export class EndCallTool {
  @Field(() => String, { nullable: true, description: 'When the assistant should end the call; at most 500 characters.' })
  description!: string | null;
}

@ObjectType('Pronunciation', { simpleResolvers: true, description: 'A word the voice says another way: the whole word, any case, replaced before TTS.' })
export class Pronunciation {
  @Field(() => String, { description: 'The word (or words) as the model writes it.' })
  word!: string;

  @Field(() => String, { description: 'What TTS is given instead (a spelling that sounds right).' })
  say_as!: string;
}

@ObjectType('TransferNumber', { simpleResolvers: true, description: 'A person or team the assistant may transfer the call to.' })
export class TransferNumber {
  @Field(() => String, { description: 'E.164.' })
  number!: string;

  @Field(() => String, { description: 'Who answers there and when to transfer to them, as the model is told.' })
  description!: string;
}

/** Every configurable field that has a default, and the fields' shape in one place. */
export interface AssistantSettings {
  endpoint_type: (typeof ENDPOINT_TYPES)[number];
  endpoint_sensitivity: number;
  interrupt_sensitivity: number;
  ambient_sound_volume: number;
  post_call_evaluation: boolean;
  send_webhook_only_on_completed: boolean;
  include_recording_in_webhook: boolean;
  is_webhook_active: boolean;
  webhook_url: string | null;
  use_min_interrupt_words: boolean;
  min_interrupt_words: number;
  variables: Record<string, unknown>;
  post_call_schema: PostCallSchemaItem[];
  end_call_tool_description: string | null;
  llm_temperature: number;
  voice_stability: number;
  voice_similarity: number;
  speech_speed: number;
  allow_interruptions: boolean;
  filler_audios: boolean;
  re_engagement_interval: number;
  max_call_duration: number;
  max_silence_duration: number;
  end_call_on_voicemail: boolean;
  noise_cancellation: boolean;
  record_call: boolean;
  who_speaks_first: (typeof WHO_SPEAKS_FIRST)[number];
  keyterms: string[];
  fallback_models: string[];
  fallback_voice_id: number | null;
  transcriber: string;
  pronunciations: Pronunciation[];
  backchannel_words: string[] | null;
  false_interruption_timeout_ms: number;
  voicemail_message: string | null;
  voicemail_beep_timeout_seconds: number;
  transfer_numbers: TransferNumber[];
  transfer_mode: TransferMode;
  transfer_message: string | null;
  knowledgebase_id: number | null;
  knowledgebase_mode: KnowledgeBaseMode;
}

/** What an assistant gets for each optional field left out on create (the README lists them too). */
export const ASSISTANT_DEFAULTS: Readonly<AssistantSettings> = Object.freeze({
  endpoint_type: 'vad',
  endpoint_sensitivity: 2.5,
  interrupt_sensitivity: 2.5,
  ambient_sound_volume: 0,
  post_call_evaluation: false,
  send_webhook_only_on_completed: false,
  include_recording_in_webhook: false,
  is_webhook_active: false,
  webhook_url: null,
  use_min_interrupt_words: false,
  min_interrupt_words: 2,
  variables: {},
  post_call_schema: [],
  end_call_tool_description: null,
  llm_temperature: 0.7,
  voice_stability: 0.5,
  voice_similarity: 0.75,
  speech_speed: 1,
  allow_interruptions: true,
  filler_audios: false,
  re_engagement_interval: 30,
  max_call_duration: 600,
  max_silence_duration: 30,
  end_call_on_voicemail: true,
  noise_cancellation: true,
  record_call: true,
  who_speaks_first: 'AI assistant',
  keyterms: [],
  fallback_models: [],
  fallback_voice_id: null,
  transcriber: 'deepgram',
  pronunciations: [],
  backchannel_words: null,
  false_interruption_timeout_ms: 2000,
  voicemail_message: null,
  voicemail_beep_timeout_seconds: 20,
  transfer_numbers: [],
  transfer_mode: 'cold',
  transfer_message: null,
  knowledgebase_id: null,
  knowledgebase_mode: 'function_call',
});

@ObjectType('Assistant', { simpleResolvers: true, description: 'An AI voice assistant and its whole configuration.' })
@Entity({ tableName: 'assistants' })
export class Assistant implements AssistantSettings {
  [OptionalProps]?: 'status' | 'phone_number' | 'created_at' | 'updated_at' | 'name' | 'type' | 'mode' | 'end_call_tool' | 'folder_id';

  @Field(() => Int)
  @PrimaryKey()
  id!: number;

  @ManyToOne(() => Account, { deleteRule: 'cascade' })
  account!: Account;

  @Field(() => String, { description: 'active.' })
  @Property({ length: 16 })
  status: string = 'active';

  @Field(() => String, { description: 'The assistant_name (summary field).' })
  get name(): string {
    return this.assistant_name;
  }

  @Field(() => String, { description: 'inbound (calls_direction receive) or outbound (make).' })
  get type(): 'inbound' | 'outbound' {
    return this.calls_direction === 'receive' ? 'inbound' : 'outbound';
  }

  @Field(() => String, { description: 'pipeline or multimodal: the engine_type (summary field).' })
  get mode(): EngineType {
    return this.engine_type;
  }

  @Field(() => String)
  @Property({ length: 255 })
  assistant_name!: string;

  /** Exposed as `voice_id` and `voice` by the resolver. */
  @ManyToOne(() => Voice)
  voice!: Voice;

  @Field(() => String, { description: 'A name from the languages list.' })
  @Property({ length: 100 })
  language!: string;

  @Field(() => String)
  @Property({ length: 100 })
  llm_model!: string;

  @Field(() => String, { description: 'receive or make.' })
  @Property({ length: 16 })
  calls_direction!: CallsDirection;

  @Field(() => String, { description: 'pipeline or multimodal.' })
  @Property({ length: 16 })
  engine_type!: EngineType;

  @Field(() => String, { description: 'IANA time zone, Area/City.' })
  @Property({ length: 64 })
  timezone!: string;

  @Field(() => String)
  @Property({ type: 'text' })
  initial_message!: string;

  @Field(() => String)
  @Property({ type: 'text' })
  system_prompt!: string;

  /** Exposed as `phone_number_id` and `phone_number` by the resolver. */
  @ManyToOne(() => PhoneNumber, { nullable: true, deleteRule: 'set null' })
  phone_number: PhoneNumber | null = null;

  @Field(() => String, { description: 'vad or ai.' })
  @Property({ length: 8 })
  endpoint_type!: AssistantSettings['endpoint_type'];

  @Field(() => Float, { description: '0 to 5.' })
  @Property({ type: 'double' })
  endpoint_sensitivity!: number;

  @Field(() => Float, { description: '0 to 5.' })
  @Property({ type: 'double' })
  interrupt_sensitivity!: number;

  @Field(() => Float, { description: '0 to 1.' })
  @Property({ type: 'double' })
  ambient_sound_volume!: number;

  @Field(() => Boolean)
  @Property()
  post_call_evaluation!: boolean;

  @Field(() => Boolean)
  @Property()
  send_webhook_only_on_completed!: boolean;

  @Field(() => Boolean)
  @Property()
  include_recording_in_webhook!: boolean;

  @Field(() => Boolean)
  @Property()
  is_webhook_active!: boolean;

  @Field(() => String, { nullable: true })
  @Property({ length: 2048, nullable: true })
  webhook_url!: string | null;

  @Field(() => Boolean)
  @Property()
  use_min_interrupt_words!: boolean;

  @Field(() => Int, { description: '0 to 10.' })
  @Property({ type: 'smallint' })
  min_interrupt_words!: number;

  @Field(() => GraphQLJSONObject)
  @Property({ type: 'json' })
  variables!: Record<string, unknown>;

  @Field(() => [PostCallSchemaItem])
  @Property({ type: 'json' })
  post_call_schema!: PostCallSchemaItem[];

  /** Exposed as `end_call_tool { description }`; the REST body may say `end_call_tool.description`. */
  @Property({ length: 500, nullable: true })
  end_call_tool_description!: string | null;

  @Field(() => EndCallTool)
  get end_call_tool(): EndCallTool {
    return { description: this.end_call_tool_description };
  }

  @Field(() => Float, { description: '0 to 1.' })
  @Property({ type: 'double' })
  llm_temperature!: number;

  @Field(() => Float, { description: '0 to 1.' })
  @Property({ type: 'double' })
  voice_stability!: number;

  @Field(() => Float, { description: '0 to 1.' })
  @Property({ type: 'double' })
  voice_similarity!: number;

  @Field(() => Float, { description: '0.7 to 1.2 (multiplier).' })
  @Property({ type: 'double' })
  speech_speed!: number;

  @Field(() => Boolean)
  @Property()
  allow_interruptions!: boolean;

  @Field(() => Boolean)
  @Property()
  filler_audios!: boolean;

  @Field(() => Int, { description: 'Seconds, 7 to 600.' })
  @Property({ type: 'smallint' })
  re_engagement_interval!: number;

  @Field(() => Int, { description: 'Seconds, 20 to 1200.' })
  @Property({ type: 'smallint' })
  max_call_duration!: number;

  @Field(() => Int, { description: 'Seconds, 1 to 120.' })
  @Property({ type: 'smallint' })
  max_silence_duration!: number;

  @Field(() => Boolean)
  @Property()
  end_call_on_voicemail!: boolean;

  @Field(() => Boolean)
  @Property()
  noise_cancellation!: boolean;

  @Field(() => Boolean)
  @Property()
  record_call!: boolean;

  @Field(() => String, { description: `${WHO_SPEAKS_FIRST.join(' or ')}.` })
  @Property({ length: 16 })
  who_speaks_first!: AssistantSettings['who_speaks_first'];

  @Field(() => [String], { description: 'Words and phrases Deepgram listens for (its keyterm prompting); `{{variables}}` are filled per call.' })
  @Property({ type: 'json' })
  keyterms!: string[];

  @Field(() => [String], { description: 'Models of the catalogue (type llm) the pipeline engine tries in order when `llm_model` fails before its answer begins (after one retry).' })
  @Property({ type: 'json' })
  fallback_models!: string[];

  @Field(() => Int, {
    nullable: true,
    description: 'A voice (public or the account’s) of a text-to-speech vendor that speaks the rest of a pipeline call when the voice’s vendor fails before an utterance’s audio; null: the next configured vendor’s default voice.',
  })
  @Property({ type: 'integer', nullable: true })
  fallback_voice_id: number | null = null;

  @Field(() => String, {
    description:
      'Who hears the caller on the pipeline engine: deepgram (streamed; OpenAI’s when only OPENAI_API_KEY is set), openai, or a name of the server’s STT_PROVIDERS (each turn the VAD finds is sent whole).',
  })
  @Property({ length: 32 })
  transcriber!: string;

  @Field(() => [Pronunciation], { description: 'Whole-word replacements in what TTS is given; the transcript keeps what the model wrote.' })
  @Property({ type: 'json' })
  pronunciations!: Pronunciation[];

  @Field(() => [String], { nullable: true, description: 'Acknowledgements that never interrupt the assistant; null: the defaults of its language.' })
  @Property({ type: 'json', nullable: true })
  backchannel_words!: string[] | null;

  @Field(() => Int, { description: 'Milliseconds, 0 to 10000: how long a reply paused by the caller waits for a word before it resumes; 0: a pause is a cancel.' })
  @Property({ type: 'integer' })
  false_interruption_timeout_ms!: number;

  @Field(() => String, {
    nullable: true,
    description: 'Left on a mailbox (outbound calls on a built-in engine) once its beep has ended, in the assistant’s voice, then the call is hung up; `{{variables}}` are filled per call. Null: end_call_on_voicemail decides.',
  })
  @Property({ type: 'text', nullable: true })
  voicemail_message!: string | null;

  @Field(() => Int, { description: 'Seconds, 1 to 60: how long the voicemail message waits for the mailbox’s beep before it is left anyway.' })
  @Property({ type: 'smallint' })
  voicemail_beep_timeout_seconds!: number;
  @Field(() => [TransferNumber], { description: 'Where the built-in transfer_call may hand the caller over (phone calls only); none: it is not offered.' })
  @Property({ type: 'json' })
  transfer_numbers!: TransferNumber[];

  @Field(() => String, { description: `${TRANSFER_MODES.join(' or ')}: cold hands the caller straight to the number; warm has the assistant brief the person first.` })
  @Property({ length: 8 })
  transfer_mode!: TransferMode;

  @Field(() => String, { nullable: true, description: 'Said to the caller, as written, before the transfer; null: the model says it in its own words.' })
  @Property({ type: 'text', nullable: true })
  transfer_message!: string | null;

  @Field(() => Int, { nullable: true, description: 'A knowledge base of the account’s that the assistant looks things up in during its calls; null: none.' })
  @Property({ type: 'integer', nullable: true })
  knowledgebase_id: number | null = null;

  @Field(() => Int, { nullable: true, description: 'The folder of the account’s it is in; null: none.' })
  @Property({ type: 'integer', nullable: true })
  folder_id: number | null = null;

  @Field(() => String, {
    description: `${KNOWLEDGE_BASE_MODES.join(' or ')}: the model calls search_knowledge_base when it needs to, or (pipeline only) each of the caller’s turns is searched and the best chunks are put in the model’s context.`,
  })
  @Property({ length: 16 })
  knowledgebase_mode!: KnowledgeBaseMode;

  @Field(() => String, { description: 'YYYY-MM-DD HH:MM:SS, UTC.' })
  @Property({ type: SpecTimestampType, onCreate: () => nowSpecTimestamp() })
  created_at!: string;

  @Field(() => String, { description: 'YYYY-MM-DD HH:MM:SS, UTC.' })
  @Property({ type: SpecTimestampType, onCreate: () => nowSpecTimestamp(), onUpdate: () => nowSpecTimestamp() })
  updated_at!: string;
}
