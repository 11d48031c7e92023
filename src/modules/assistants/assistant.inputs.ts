import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, Float, InputType, Int } from 'type-graphql';
import { POST_CALL_TYPES, TRANSFER_MODES, WHO_SPEAKS_FIRST } from './assistant.entity';

@InputType('PostCallSchemaItemInput')
export class PostCallSchemaItemInput {
  @Field(() => String, { description: 'Letters, digits and underscores.' })
  name!: string;

  @Field(() => String, { description: `One of: ${POST_CALL_TYPES.join(', ')}.` })
  type!: string;

  @Field(() => String)
  description!: string;
}

@InputType('EndCallToolInput')
export class EndCallToolInput {
  @Field(() => String, { nullable: true, description: 'At most 500 characters.' })
  description?: string | null;
}

@InputType('PronunciationInput')
export class PronunciationInput {
  @Field(() => String, { description: 'The word (or words) as the model writes it; at most 100 characters.' })
  word!: string;

  @Field(() => String, { description: 'What TTS is given instead; at most 200 characters.' })
  say_as!: string;
}

@InputType('TransferNumberInput')
export class TransferNumberInput {
  @Field(() => String, { description: 'A phone number (E.164, or national in the default region).' })
  number!: string;

  @Field(() => String, { description: 'Who answers there and when to transfer to them; 1 to 200 characters.' })
  description!: string;
}

/** The fields that are optional on create and on update. */
@InputType()
abstract class AssistantOptionalInput {
  @Field(() => Int, { nullable: true, description: 'The id of a language from `languages`, instead of `language` (the same one if both are sent).' })
  language_id?: number | null;

  @Field(() => Int, { nullable: true, description: 'The id of a model from `models`, instead of `llm_model` (the same one if both are sent).' })
  llm_model_id?: number | null;

  @Field(() => Int, { nullable: true, description: 'One of the account’s phone numbers; null on update removes it.' })
  phone_number_id?: number | null;

  @Field(() => [Int], { nullable: true, description: 'Tools of the account; replaces every assignment ([] removes all).' })
  tool_ids?: number[] | null;

  @Field(() => String, { nullable: true, description: 'vad or ai.' })
  endpoint_type?: string | null;

  @Field(() => Float, { nullable: true, description: '0 to 5.' })
  endpoint_sensitivity?: number | null;

  @Field(() => Float, { nullable: true, description: '0 to 5.' })
  interrupt_sensitivity?: number | null;

  @Field(() => Float, { nullable: true, description: '0 to 1.' })
  ambient_sound_volume?: number | null;

  @Field(() => Boolean, { nullable: true })
  post_call_evaluation?: boolean | null;

  @Field(() => Boolean, { nullable: true })
  send_webhook_only_on_completed?: boolean | null;

  @Field(() => Boolean, { nullable: true })
  include_recording_in_webhook?: boolean | null;

  @Field(() => Boolean, { nullable: true })
  is_webhook_active?: boolean | null;

  @Field(() => String, { nullable: true, description: 'Required when is_webhook_active is true; null on update disables the webhook.' })
  webhook_url?: string | null;

  @Field(() => Boolean, { nullable: true })
  use_min_interrupt_words?: boolean | null;

  @Field(() => Int, { nullable: true, description: '0 to 10.' })
  min_interrupt_words?: number | null;

  @Field(() => GraphQLJSONObject, { nullable: true })
  variables?: Record<string, unknown> | null;

  @Field(() => [PostCallSchemaItemInput], { nullable: true })
  post_call_schema?: PostCallSchemaItemInput[] | null;

  @Field(() => EndCallToolInput, { nullable: true, description: 'The REST body may also write `end_call_tool.description`.' })
  end_call_tool?: EndCallToolInput | null;

  @Field(() => Float, { nullable: true, description: '0 to 1.' })
  llm_temperature?: number | null;

  @Field(() => Float, { nullable: true, description: '0 to 1.' })
  voice_stability?: number | null;

  @Field(() => Float, { nullable: true, description: '0 to 1.' })
  voice_similarity?: number | null;

  @Field(() => Float, { nullable: true, description: '0.7 to 1.2.' })
  speech_speed?: number | null;

  @Field(() => Boolean, { nullable: true })
  allow_interruptions?: boolean | null;

  @Field(() => Boolean, { nullable: true })
  filler_audios?: boolean | null;

  @Field(() => Int, { nullable: true, description: 'Seconds, 7 to 600.' })
  re_engagement_interval?: number | null;

  @Field(() => Int, { nullable: true, description: 'Seconds, 20 to 1200.' })
  max_call_duration?: number | null;

  @Field(() => Int, { nullable: true, description: 'Seconds, 1 to 120.' })
  max_silence_duration?: number | null;

  @Field(() => Boolean, { nullable: true })
  end_call_on_voicemail?: boolean | null;

  @Field(() => Boolean, { nullable: true })
  noise_cancellation?: boolean | null;

  @Field(() => Boolean, { nullable: true })
  record_call?: boolean | null;

  @Field(() => String, { nullable: true, description: `${WHO_SPEAKS_FIRST.join(' or ')}.` })
  who_speaks_first?: string | null;

  @Field(() => [String], { nullable: true, description: 'At most 50, each 1 to 100 characters; `{{variables}}` are filled per call. Null or [] clears them.' })
  keyterms?: string[] | null;

  @Field(() => [String], { nullable: true, description: 'At most 3 names of `models` of type llm, tried in order when `llm_model` fails. Null or [] clears them.' })
  fallback_models?: string[] | null;

  @Field(() => Int, { nullable: true, description: 'A voice of the catalogue visible to the account whose provider is a text-to-speech vendor: it speaks when the voice’s vendor fails. Null clears it.' })
  fallback_voice_id?: number | null;

  @Field(() => String, { nullable: true, description: 'deepgram, openai, or a name of this server’s STT_PROVIDERS (see transcriberProviders).' })
  transcriber?: string | null;

  @Field(() => [PronunciationInput], { nullable: true, description: 'At most 100. Null or [] clears them.' })
  pronunciations?: PronunciationInput[] | null;

  @Field(() => [String], { nullable: true, description: 'At most 50, each 1 to 50 characters; null: the defaults of the language.' })
  backchannel_words?: string[] | null;

  @Field(() => Int, { nullable: true, description: 'Milliseconds, 0 to 10000; 0: a pause is always a cancel.' })
  false_interruption_timeout_ms?: number | null;

  @Field(() => String, { nullable: true, description: 'At most 1000 characters, `{{variables}}` filled per call; null or blank: none (end_call_on_voicemail decides).' })
  voicemail_message?: string | null;

  @Field(() => Int, { nullable: true, description: 'Seconds, 1 to 60.' })
  voicemail_beep_timeout_seconds?: number | null;
  @Field(() => [TransferNumberInput], { nullable: true, description: 'At most 10, each number once. Null or [] clears them (transfer_call is then not offered).' })
  transfer_numbers?: TransferNumberInput[] | null;

  @Field(() => String, { nullable: true, description: `${TRANSFER_MODES.join(' or ')}.` })
  transfer_mode?: string | null;

  @Field(() => Int, { nullable: true, description: 'A knowledge base of the account’s (knowledgeBases). Null clears it.' })
  knowledgebase_id?: number | null;

  @Field(() => String, { nullable: true, description: 'function_call (the default) or prompt (pipeline assistants only).' })
  knowledgebase_mode?: string | null;

  @Field(() => String, { nullable: true, description: 'At most 500 characters; null or blank: the model says it in its own words.' })
  transfer_message?: string | null;

  @Field(() => Int, { nullable: true, description: 'A folder of the account’s (folders); an assistant is in at most one. Null takes it out.' })
  folder_id?: number | null;

  @Field(() => [Int], { nullable: true, description: 'Labels of the account’s (labels); replaces every one ([] or null removes all).' })
  label_ids?: number[] | null;
}

@InputType('CreateAssistantInput')
export class CreateAssistantInput extends AssistantOptionalInput {
  @Field(() => String, { description: 'At most 255 characters.' })
  assistant_name!: string;

  @Field(() => Int, { description: 'A public voice or one of the account’s, of the same engine.' })
  voice_id!: number;

  @Field(() => String, { nullable: true, description: 'A name from the languages list; required unless language_id is sent.' })
  language?: string | null;

  @Field(() => String, { nullable: true, description: 'At most 100 characters (a name from `models`, or another); required unless llm_model_id is sent.' })
  llm_model?: string | null;

  @Field(() => String, { description: 'receive or make.' })
  calls_direction!: string;

  @Field(() => String, { description: 'pipeline or multimodal.' })
  engine_type!: string;

  @Field(() => String, { description: 'IANA time zone, Area/City.' })
  timezone!: string;

  @Field(() => String, { description: 'The first thing the assistant says.' })
  initial_message!: string;

  @Field(() => String, { description: 'Behaviour and personality.' })
  system_prompt!: string;
}

@InputType('UpdateAssistantInput', { description: 'Only the fields sent change.' })
export class UpdateAssistantInput extends AssistantOptionalInput {
  @Field(() => String, { nullable: true })
  assistant_name?: string | null;

  @Field(() => Int, { nullable: true })
  voice_id?: number | null;

  @Field(() => String, { nullable: true })
  language?: string | null;

  @Field(() => String, { nullable: true })
  llm_model?: string | null;

  @Field(() => String, { nullable: true })
  calls_direction?: string | null;

  @Field(() => String, { nullable: true })
  engine_type?: string | null;

  @Field(() => String, { nullable: true })
  timezone?: string | null;

  @Field(() => String, { nullable: true })
  initial_message?: string | null;

  @Field(() => String, { nullable: true })
  system_prompt?: string | null;
}
