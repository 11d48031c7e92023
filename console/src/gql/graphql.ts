/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
export type CreateAssistantInput = {
  allow_interruptions?: boolean | null | undefined;
  /** 0 to 1. */
  ambient_sound_volume?: number | null | undefined;
  /** At most 255 characters. */
  assistant_name: string;
  /** At most 50, each 1 to 50 characters; null: the defaults of the language. */
  backchannel_words?: Array<string> | null | undefined;
  /** receive or make. */
  calls_direction: string;
  end_call_on_voicemail?: boolean | null | undefined;
  /** The REST body may also write `end_call_tool.description`. */
  end_call_tool?: EndCallToolInput | null | undefined;
  /** 0 to 5. */
  endpoint_sensitivity?: number | null | undefined;
  /** vad or ai. */
  endpoint_type?: string | null | undefined;
  /** pipeline or multimodal. */
  engine_type: string;
  /** At most 3 names of `models` of type llm, tried in order when `llm_model` fails. Null or [] clears them. */
  fallback_models?: Array<string> | null | undefined;
  /** A voice of the catalogue visible to the account whose provider is a text-to-speech vendor: it speaks when the voice’s vendor fails. Null clears it. */
  fallback_voice_id?: number | null | undefined;
  /** Milliseconds, 0 to 10000; 0: a pause is always a cancel. */
  false_interruption_timeout_ms?: number | null | undefined;
  filler_audios?: boolean | null | undefined;
  /** A folder of the account’s (folders); an assistant is in at most one. Null takes it out. */
  folder_id?: number | null | undefined;
  include_recording_in_webhook?: boolean | null | undefined;
  /** The first thing the assistant says. */
  initial_message: string;
  /** 0 to 5. */
  interrupt_sensitivity?: number | null | undefined;
  is_webhook_active?: boolean | null | undefined;
  /** At most 50, each 1 to 100 characters; `{{variables}}` are filled per call. Null or [] clears them. */
  keyterms?: Array<string> | null | undefined;
  /** A knowledge base of the account’s (knowledgeBases). Null clears it. */
  knowledgebase_id?: number | null | undefined;
  /** function_call (the default) or prompt (pipeline assistants only). */
  knowledgebase_mode?: string | null | undefined;
  /** Labels of the account’s (labels); replaces every one ([] or null removes all). */
  label_ids?: Array<number> | null | undefined;
  /** A name from the languages list; required unless language_id is sent. */
  language?: string | null | undefined;
  /** The id of a language from `languages`, instead of `language` (the same one if both are sent). */
  language_id?: number | null | undefined;
  /** At most 100 characters (a name from `models`, or another); required unless llm_model_id is sent. */
  llm_model?: string | null | undefined;
  /** The id of a model from `models`, instead of `llm_model` (the same one if both are sent). */
  llm_model_id?: number | null | undefined;
  /** 0 to 1. */
  llm_temperature?: number | null | undefined;
  /** Seconds, 20 to 1200. */
  max_call_duration?: number | null | undefined;
  /** Seconds, 1 to 120. */
  max_silence_duration?: number | null | undefined;
  /** 0 to 10. */
  min_interrupt_words?: number | null | undefined;
  noise_cancellation?: boolean | null | undefined;
  /** One of the account’s phone numbers; null on update removes it. */
  phone_number_id?: number | null | undefined;
  post_call_evaluation?: boolean | null | undefined;
  post_call_schema?: Array<PostCallSchemaItemInput> | null | undefined;
  /** At most 100. Null or [] clears them. */
  pronunciations?: Array<PronunciationInput> | null | undefined;
  /** Seconds, 7 to 600. */
  re_engagement_interval?: number | null | undefined;
  record_call?: boolean | null | undefined;
  send_webhook_only_on_completed?: boolean | null | undefined;
  /** 0.7 to 1.2. */
  speech_speed?: number | null | undefined;
  /** Behaviour and personality. */
  system_prompt: string;
  /** IANA time zone, Area/City. */
  timezone: string;
  /** Tools of the account; replaces every assignment ([] removes all). */
  tool_ids?: Array<number> | null | undefined;
  /** deepgram, openai, or a name of this server’s STT_PROVIDERS (see transcriberProviders). */
  transcriber?: string | null | undefined;
  /** At most 500 characters; null or blank: the model says it in its own words. */
  transfer_message?: string | null | undefined;
  /** cold or warm. */
  transfer_mode?: string | null | undefined;
  /** At most 10, each number once. Null or [] clears them (transfer_call is then not offered). */
  transfer_numbers?: Array<TransferNumberInput> | null | undefined;
  use_min_interrupt_words?: boolean | null | undefined;
  variables?: Record<string, unknown> | null | undefined;
  /** A public voice or one of the account’s, of the same engine. */
  voice_id: number;
  /** 0 to 1. */
  voice_similarity?: number | null | undefined;
  /** 0 to 1. */
  voice_stability?: number | null | undefined;
  /** Seconds, 1 to 60. */
  voicemail_beep_timeout_seconds?: number | null | undefined;
  /** At most 1000 characters, `{{variables}}` filled per call; null or blank: none (end_call_on_voicemail decides). */
  voicemail_message?: string | null | undefined;
  /** Required when is_webhook_active is true; null on update disables the webhook. */
  webhook_url?: string | null | undefined;
  /** AI assistant or Customer. */
  who_speaks_first?: string | null | undefined;
};

export type CreateAssistantTestInput = {
  /** The test as its type says (design.md, "Assistant tests"). */
  config: Record<string, unknown>;
  /** 1 to 255 characters. */
  name: string;
  /** One of: reply, tool_call, simulation. */
  type: string;
};

/** Only `name` is required. */
export type CreateCampaignInput = {
  /** monday..sunday; default monday, tuesday, wednesday, thursday, friday. */
  allowed_days?: Array<string> | null | undefined;
  /** HH:MM; default 18:00. Before the start: the window spans midnight. */
  allowed_hours_end_time?: string | null | undefined;
  /** HH:MM; default 09:00. */
  allowed_hours_start_time?: string | null | undefined;
  /** An outbound (calls_direction make) assistant of the account; null removes it. */
  assistant_id?: number | null | undefined;
  /** A post_call_schema name of the assistant; required with retry_on_goal_incomplete. */
  goal_completion_variable?: string | null | undefined;
  /** Default true. */
  mark_complete_when_no_leads?: boolean | null | undefined;
  /** 1 to PLAN_MAX_PARALLEL_CALLS; default 3. */
  max_calls_in_parallel?: number | null | undefined;
  /** 0-10: attempts after the first, per contact; default 3. */
  max_retries?: number | null | undefined;
  /** 1 to 255 characters. */
  name: string;
  /** The account’s numbers, in rotation as caller id; default the assistant’s number. */
  phone_number_ids?: Array<number> | null | undefined;
  /** Minutes, 1-4320; default 60. */
  retry_interval?: number | null | undefined;
  /** Default false. */
  retry_on_goal_incomplete?: boolean | null | undefined;
  /** Default true. */
  retry_on_voicemail?: boolean | null | undefined;
  /** IANA Area/City; default the assistant’s timezone, else UTC. */
  timezone?: string | null | undefined;
};

export type CreateLeadInput = {
  /** Allow a lead whose phone number the campaign already has. Default false. (Spelled as the spec spells it.) */
  allow_dupplicate?: boolean | null | undefined;
  campaign_id: number;
  /** E.164, or national in DEFAULT_PHONE_REGION. */
  phone_number: string;
  secondary_contacts?: Array<SecondaryContactInput> | null | undefined;
  /** customer_name, email, or anything else. */
  variables?: Record<string, unknown> | null | undefined;
};

export type CreateToolInput = {
  /** At most 255 characters. */
  description: string;
  /** An http(s) URL. */
  endpoint: string;
  headers?: Array<ToolHeaderInput> | null | undefined;
  /** One of: GET, POST, PUT, PATCH, DELETE. */
  method: string;
  /** Lowercase letters and underscores, starting with a letter; at most 64 characters. */
  name: string;
  schema?: Array<ToolParameterInput> | null | undefined;
  /** Said while the tool runs longer than 1.2 s; at most 200 characters. */
  speak_during?: string | null | undefined;
  /** Seconds, 1 to 30; default 10. */
  timeout?: number | null | undefined;
};

export type EndCallToolInput = {
  /** At most 500 characters. */
  description?: string | null | undefined;
};

export type ImportLeadsInput = {
  campaign_id: number;
  /** The CSV file’s text (UTF-8, RFC 4180, a header row first). Over GraphQL it is bounded by MAX_BODY_BYTES; POST /user/leads/import takes the file as multipart up to MAX_IMPORT_BYTES. */
  csv: string;
  /** Column name -> phone_number, variables.<name>, secondary_contacts.<n>.phone_number, secondary_contacts.<n>.variables.<name>, or null (left out). Columns not named follow the default: phone_number or phone -> phone_number, any other -> variables.<column>. */
  mapping?: Record<string, unknown> | null | undefined;
};

export type MakeCallInput = {
  /** An outbound assistant of the account with a phone number. */
  assistant_id: number;
  /** The customer’s number, E.164. */
  phone_number: string;
  /** customer_name, email, or anything the assistant should know. */
  variables?: Record<string, unknown> | null | undefined;
};

export type PostCallSchemaItemInput = {
  description: string;
  /** Letters, digits and underscores. */
  name: string;
  /** One of: string, number, bool. */
  type: string;
};

export type PronunciationInput = {
  /** What TTS is given instead; at most 200 characters. */
  say_as: string;
  /** The word (or words) as the model writes it; at most 100 characters. */
  word: string;
};

export type PurchasePhoneNumberInput = {
  /** The number to buy, in international format (one of the search’s). */
  phone_number: string;
};

export type SecondaryContactInput = {
  /** E.164, or national in DEFAULT_PHONE_REGION. */
  phone_number: string;
  /** customer_name, email, or anything else. */
  variables?: Record<string, unknown> | null | undefined;
};

export type StartTestRunInput = {
  /** Each test's attempts, 1 to 10; default 1. */
  attempts?: number | null | undefined;
  /** The tests to run (of this assistant); default: all of them. */
  test_ids?: Array<number> | null | undefined;
};

export type ToolHeaderInput = {
  name: string;
  value: string;
};

export type ToolParameterInput = {
  /** 3 to 255 characters. */
  description: string;
  /** 2 to 32 letters and underscores, starting with a letter. */
  name: string;
  /** One of: string, number, boolean. */
  type: string;
};

export type TransferNumberInput = {
  /** Who answers there and when to transfer to them; 1 to 200 characters. */
  description: string;
  /** A phone number (E.164, or national in the default region). */
  number: string;
};

/** Only the fields sent change. */
export type UpdateAssistantInput = {
  allow_interruptions?: boolean | null | undefined;
  /** 0 to 1. */
  ambient_sound_volume?: number | null | undefined;
  assistant_name?: string | null | undefined;
  /** At most 50, each 1 to 50 characters; null: the defaults of the language. */
  backchannel_words?: Array<string> | null | undefined;
  calls_direction?: string | null | undefined;
  end_call_on_voicemail?: boolean | null | undefined;
  /** The REST body may also write `end_call_tool.description`. */
  end_call_tool?: EndCallToolInput | null | undefined;
  /** 0 to 5. */
  endpoint_sensitivity?: number | null | undefined;
  /** vad or ai. */
  endpoint_type?: string | null | undefined;
  engine_type?: string | null | undefined;
  /** At most 3 names of `models` of type llm, tried in order when `llm_model` fails. Null or [] clears them. */
  fallback_models?: Array<string> | null | undefined;
  /** A voice of the catalogue visible to the account whose provider is a text-to-speech vendor: it speaks when the voice’s vendor fails. Null clears it. */
  fallback_voice_id?: number | null | undefined;
  /** Milliseconds, 0 to 10000; 0: a pause is always a cancel. */
  false_interruption_timeout_ms?: number | null | undefined;
  filler_audios?: boolean | null | undefined;
  /** A folder of the account’s (folders); an assistant is in at most one. Null takes it out. */
  folder_id?: number | null | undefined;
  include_recording_in_webhook?: boolean | null | undefined;
  initial_message?: string | null | undefined;
  /** 0 to 5. */
  interrupt_sensitivity?: number | null | undefined;
  is_webhook_active?: boolean | null | undefined;
  /** At most 50, each 1 to 100 characters; `{{variables}}` are filled per call. Null or [] clears them. */
  keyterms?: Array<string> | null | undefined;
  /** A knowledge base of the account’s (knowledgeBases). Null clears it. */
  knowledgebase_id?: number | null | undefined;
  /** function_call (the default) or prompt (pipeline assistants only). */
  knowledgebase_mode?: string | null | undefined;
  /** Labels of the account’s (labels); replaces every one ([] or null removes all). */
  label_ids?: Array<number> | null | undefined;
  language?: string | null | undefined;
  /** The id of a language from `languages`, instead of `language` (the same one if both are sent). */
  language_id?: number | null | undefined;
  llm_model?: string | null | undefined;
  /** The id of a model from `models`, instead of `llm_model` (the same one if both are sent). */
  llm_model_id?: number | null | undefined;
  /** 0 to 1. */
  llm_temperature?: number | null | undefined;
  /** Seconds, 20 to 1200. */
  max_call_duration?: number | null | undefined;
  /** Seconds, 1 to 120. */
  max_silence_duration?: number | null | undefined;
  /** 0 to 10. */
  min_interrupt_words?: number | null | undefined;
  noise_cancellation?: boolean | null | undefined;
  /** One of the account’s phone numbers; null on update removes it. */
  phone_number_id?: number | null | undefined;
  post_call_evaluation?: boolean | null | undefined;
  post_call_schema?: Array<PostCallSchemaItemInput> | null | undefined;
  /** At most 100. Null or [] clears them. */
  pronunciations?: Array<PronunciationInput> | null | undefined;
  /** Seconds, 7 to 600. */
  re_engagement_interval?: number | null | undefined;
  record_call?: boolean | null | undefined;
  send_webhook_only_on_completed?: boolean | null | undefined;
  /** 0.7 to 1.2. */
  speech_speed?: number | null | undefined;
  system_prompt?: string | null | undefined;
  timezone?: string | null | undefined;
  /** Tools of the account; replaces every assignment ([] removes all). */
  tool_ids?: Array<number> | null | undefined;
  /** deepgram, openai, or a name of this server’s STT_PROVIDERS (see transcriberProviders). */
  transcriber?: string | null | undefined;
  /** At most 500 characters; null or blank: the model says it in its own words. */
  transfer_message?: string | null | undefined;
  /** cold or warm. */
  transfer_mode?: string | null | undefined;
  /** At most 10, each number once. Null or [] clears them (transfer_call is then not offered). */
  transfer_numbers?: Array<TransferNumberInput> | null | undefined;
  use_min_interrupt_words?: boolean | null | undefined;
  variables?: Record<string, unknown> | null | undefined;
  voice_id?: number | null | undefined;
  /** 0 to 1. */
  voice_similarity?: number | null | undefined;
  /** 0 to 1. */
  voice_stability?: number | null | undefined;
  /** Seconds, 1 to 60. */
  voicemail_beep_timeout_seconds?: number | null | undefined;
  /** At most 1000 characters, `{{variables}}` filled per call; null or blank: none (end_call_on_voicemail decides). */
  voicemail_message?: string | null | undefined;
  /** Required when is_webhook_active is true; null on update disables the webhook. */
  webhook_url?: string | null | undefined;
  /** AI assistant or Customer. */
  who_speaks_first?: string | null | undefined;
};

export type UpdateAssistantTestInput = {
  /** Replaces the config whole. */
  config?: Record<string, unknown> | null | undefined;
  name?: string | null | undefined;
  /** A new type needs its config. */
  type?: string | null | undefined;
};

/** Only the fields sent change; also while the campaign runs. */
export type UpdateCampaignInput = {
  /** monday..sunday; default monday, tuesday, wednesday, thursday, friday. */
  allowed_days?: Array<string> | null | undefined;
  /** HH:MM; default 18:00. Before the start: the window spans midnight. */
  allowed_hours_end_time?: string | null | undefined;
  /** HH:MM; default 09:00. */
  allowed_hours_start_time?: string | null | undefined;
  /** An outbound (calls_direction make) assistant of the account; null removes it. */
  assistant_id?: number | null | undefined;
  /** A post_call_schema name of the assistant; required with retry_on_goal_incomplete. */
  goal_completion_variable?: string | null | undefined;
  /** Default true. */
  mark_complete_when_no_leads?: boolean | null | undefined;
  /** 1 to PLAN_MAX_PARALLEL_CALLS; default 3. */
  max_calls_in_parallel?: number | null | undefined;
  /** 0-10: attempts after the first, per contact; default 3. */
  max_retries?: number | null | undefined;
  /** 1 to 255 characters. */
  name?: string | null | undefined;
  /** The account’s numbers, in rotation as caller id; default the assistant’s number. */
  phone_number_ids?: Array<number> | null | undefined;
  /** Minutes, 1-4320; default 60. */
  retry_interval?: number | null | undefined;
  /** Default false. */
  retry_on_goal_incomplete?: boolean | null | undefined;
  /** Default true. */
  retry_on_voicemail?: boolean | null | undefined;
  /** IANA Area/City; default the assistant’s timezone, else UTC. */
  timezone?: string | null | undefined;
};

export type UpdatePhoneNumberInput = {
  /** At most 255 characters; null or empty removes it. */
  nickname?: string | null | undefined;
};

/** Only the fields sent change; headers and schema, when sent, replace the old ones. */
export type UpdateToolInput = {
  description?: string | null | undefined;
  endpoint?: string | null | undefined;
  headers?: Array<ToolHeaderInput> | null | undefined;
  method?: string | null | undefined;
  name?: string | null | undefined;
  schema?: Array<ToolParameterInput> | null | undefined;
  /** Null or empty: the generic filler. */
  speak_during?: string | null | undefined;
  timeout?: number | null | undefined;
};

export type WebCallInput = {
  /** One of the account’s assistants, inbound or outbound. */
  assistant_id: number;
  /** customer_name, email, or anything the assistant should know ({{variables}} of its prompt). */
  variables?: Record<string, unknown> | null | undefined;
};

export type ConsoleMeQueryVariables = Exact<{ [key: string]: never; }>;


export type ConsoleMeQuery = { me: { id: number, name: string, email: string | null, balance: number, currency: string } };

export type ConsoleLedgerSliceQueryVariables = Exact<{
  after?: string | null | undefined;
  per_page?: number | null | undefined;
}>;


export type ConsoleLedgerSliceQuery = { me: { ledgerFeed: { next_after: string | null, data: Array<{ id: string, kind: string, amount: number, balance_after: number, reference: string | null, created_at: string }> } } };

export type ConsoleAccountCallsSubscriptionVariables = Exact<{ [key: string]: never; }>;


export type ConsoleAccountCallsSubscription = { callUpdated: { id: number, status: string } };

export type ConsoleAnalyticsQueryVariables = Exact<{
  from: unknown;
  to: unknown;
  bucket?: string | null | undefined;
  campaign_id?: number | null | undefined;
  assistant_id?: number | null | undefined;
}>;


export type ConsoleAnalyticsQuery = { analytics: { from: unknown, to: unknown, bucket: string, buckets: Array<{ start: unknown, calls: number, minutes: number, answered: number, voicemail: number, no_answer: number, answer_rate: number | null, voicemail_rate: number | null, no_answer_rate: number | null, average_duration: number | null, cost: number, cost_per_answered_call: number | null, transfers: number }>, totals: { calls: number, minutes: number, answered: number, voicemail: number, no_answer: number, answer_rate: number | null, voicemail_rate: number | null, no_answer_rate: number | null, average_duration: number | null, cost: number, cost_per_answered_call: number | null, transfers: number }, funnels: Array<{ campaign_id: number, campaign_name: string, leads: number, dialled: number, answered: number, completed: number, transferred: number }>, latency: Array<{ assistant_id: number, assistant_name: string | null, calls: number, turns: number, p50_ms: number, p95_ms: number }> } };

export type ConsoleAnalyticsFiltersQueryVariables = Exact<{ [key: string]: never; }>;


export type ConsoleAnalyticsFiltersQuery = { campaigns: Array<{ id: number, name: string }>, assistants: Array<{ id: number, assistant_name: string }> };

export type ConsoleAssistantsQueryVariables = Exact<{ [key: string]: never; }>;


export type ConsoleAssistantsQuery = { assistants: Array<{ id: number, assistant_name: string, type: string, engine_type: string, language: string, llm_model: string, phone_number: string | null, updated_at: string, voice: { id: number, name: string, provider: string | null } }> };

export type ConsoleAssistantFieldsFragment = { id: number, assistant_name: string, calls_direction: string, engine_type: string, voice_ready: boolean, voice_missing: Array<string>, status: string, phone_number_id: number | null, voice_id: number, language: string, llm_model: string, llm_temperature: number, timezone: string, who_speaks_first: string, initial_message: string, system_prompt: string, tool_ids: Array<number>, variables: Record<string, unknown>, post_call_evaluation: boolean, max_call_duration: number, max_silence_duration: number, re_engagement_interval: number, speech_speed: number, voice_stability: number, voice_similarity: number, allow_interruptions: boolean, interrupt_sensitivity: number, use_min_interrupt_words: boolean, min_interrupt_words: number, false_interruption_timeout_ms: number, keyterms: Array<string>, fallback_models: Array<string>, fallback_voice_id: number | null, transcriber: string, backchannel_words: Array<string> | null, transfer_mode: string, transfer_message: string | null, endpoint_type: string, endpoint_sensitivity: number, noise_cancellation: boolean, ambient_sound_volume: number, filler_audios: boolean, record_call: boolean, end_call_on_voicemail: boolean, voicemail_message: string | null, voicemail_beep_timeout_seconds: number, is_webhook_active: boolean, webhook_url: string | null, send_webhook_only_on_completed: boolean, include_recording_in_webhook: boolean, end_call_tool: { description: string | null }, post_call_schema: Array<{ name: string, type: string, description: string }>, pronunciations: Array<{ word: string, say_as: string }>, transfer_numbers: Array<{ number: string, description: string }> };

export type ConsoleAssistantQueryVariables = Exact<{
  id: number;
}>;


export type ConsoleAssistantQuery = { assistant: { id: number, assistant_name: string, calls_direction: string, engine_type: string, voice_ready: boolean, voice_missing: Array<string>, status: string, phone_number_id: number | null, voice_id: number, language: string, llm_model: string, llm_temperature: number, timezone: string, who_speaks_first: string, initial_message: string, system_prompt: string, tool_ids: Array<number>, variables: Record<string, unknown>, post_call_evaluation: boolean, max_call_duration: number, max_silence_duration: number, re_engagement_interval: number, speech_speed: number, voice_stability: number, voice_similarity: number, allow_interruptions: boolean, interrupt_sensitivity: number, use_min_interrupt_words: boolean, min_interrupt_words: number, false_interruption_timeout_ms: number, keyterms: Array<string>, fallback_models: Array<string>, fallback_voice_id: number | null, transcriber: string, backchannel_words: Array<string> | null, transfer_mode: string, transfer_message: string | null, endpoint_type: string, endpoint_sensitivity: number, noise_cancellation: boolean, ambient_sound_volume: number, filler_audios: boolean, record_call: boolean, end_call_on_voicemail: boolean, voicemail_message: string | null, voicemail_beep_timeout_seconds: number, is_webhook_active: boolean, webhook_url: string | null, send_webhook_only_on_completed: boolean, include_recording_in_webhook: boolean, end_call_tool: { description: string | null }, post_call_schema: Array<{ name: string, type: string, description: string }>, pronunciations: Array<{ word: string, say_as: string }>, transfer_numbers: Array<{ number: string, description: string }> } };

export type ConsoleAssistantChoicesQueryVariables = Exact<{ [key: string]: never; }>;


export type ConsoleAssistantChoicesQuery = { transcriberProviders: Array<{ name: string, code: string }>, voices: Array<{ id: number, name: string, mode: string, provider: string | null }>, languages: Array<{ id: number, name: string }>, models: Array<{ id: number, name: string, provider: string, type: string }>, tools: Array<{ id: number, name: string, description: string }>, phoneNumbers: Array<{ id: number, phone_number: string, assistant_id: number | null }> };

export type ConsoleCreateAssistantMutationVariables = Exact<{
  input: CreateAssistantInput;
}>;


export type ConsoleCreateAssistantMutation = { createAssistant: { id: number, assistant_name: string, calls_direction: string, engine_type: string, voice_ready: boolean, voice_missing: Array<string>, status: string, phone_number_id: number | null, voice_id: number, language: string, llm_model: string, llm_temperature: number, timezone: string, who_speaks_first: string, initial_message: string, system_prompt: string, tool_ids: Array<number>, variables: Record<string, unknown>, post_call_evaluation: boolean, max_call_duration: number, max_silence_duration: number, re_engagement_interval: number, speech_speed: number, voice_stability: number, voice_similarity: number, allow_interruptions: boolean, interrupt_sensitivity: number, use_min_interrupt_words: boolean, min_interrupt_words: number, false_interruption_timeout_ms: number, keyterms: Array<string>, fallback_models: Array<string>, fallback_voice_id: number | null, transcriber: string, backchannel_words: Array<string> | null, transfer_mode: string, transfer_message: string | null, endpoint_type: string, endpoint_sensitivity: number, noise_cancellation: boolean, ambient_sound_volume: number, filler_audios: boolean, record_call: boolean, end_call_on_voicemail: boolean, voicemail_message: string | null, voicemail_beep_timeout_seconds: number, is_webhook_active: boolean, webhook_url: string | null, send_webhook_only_on_completed: boolean, include_recording_in_webhook: boolean, end_call_tool: { description: string | null }, post_call_schema: Array<{ name: string, type: string, description: string }>, pronunciations: Array<{ word: string, say_as: string }>, transfer_numbers: Array<{ number: string, description: string }> } };

export type ConsoleUpdateAssistantMutationVariables = Exact<{
  id: number;
  input: UpdateAssistantInput;
}>;


export type ConsoleUpdateAssistantMutation = { updateAssistant: { id: number, assistant_name: string, calls_direction: string, engine_type: string, voice_ready: boolean, voice_missing: Array<string>, status: string, phone_number_id: number | null, voice_id: number, language: string, llm_model: string, llm_temperature: number, timezone: string, who_speaks_first: string, initial_message: string, system_prompt: string, tool_ids: Array<number>, variables: Record<string, unknown>, post_call_evaluation: boolean, max_call_duration: number, max_silence_duration: number, re_engagement_interval: number, speech_speed: number, voice_stability: number, voice_similarity: number, allow_interruptions: boolean, interrupt_sensitivity: number, use_min_interrupt_words: boolean, min_interrupt_words: number, false_interruption_timeout_ms: number, keyterms: Array<string>, fallback_models: Array<string>, fallback_voice_id: number | null, transcriber: string, backchannel_words: Array<string> | null, transfer_mode: string, transfer_message: string | null, endpoint_type: string, endpoint_sensitivity: number, noise_cancellation: boolean, ambient_sound_volume: number, filler_audios: boolean, record_call: boolean, end_call_on_voicemail: boolean, voicemail_message: string | null, voicemail_beep_timeout_seconds: number, is_webhook_active: boolean, webhook_url: string | null, send_webhook_only_on_completed: boolean, include_recording_in_webhook: boolean, end_call_tool: { description: string | null }, post_call_schema: Array<{ name: string, type: string, description: string }>, pronunciations: Array<{ word: string, say_as: string }>, transfer_numbers: Array<{ number: string, description: string }> } };

export type ConsoleDeleteAssistantMutationVariables = Exact<{
  id: number;
}>;


export type ConsoleDeleteAssistantMutation = { deleteAssistant: boolean };

export type ConsoleStartWebCallMutationVariables = Exact<{
  input: WebCallInput;
}>;


export type ConsoleStartWebCallMutation = { startWebCall: { call_id: number, url: string, expires_at: string } };

export type ConsoleCallMeMutationVariables = Exact<{
  input: MakeCallInput;
}>;


export type ConsoleCallMeMutation = { makeCall: { call_id: number, status: string } };

export type ConsoleTestRunSummaryFragment = { id: number, status: string, attempts: number, pass_rate: number | null, assistant_snapshot_hash: string, created_at: string, started_at: string | null, finished_at: string | null };

export type ConsoleTestResultFragment = { test_id: number, attempt: number, status: string, error: string | null, latency_ms: Array<number>, transcript: Array<{ role: string, content: string }>, criteria: Array<{ criterion: string, passed: boolean, reason: string }>, tool_calls: Array<{ name: string, arguments: Record<string, unknown>, mocked: boolean }> };

export type ConsoleAssistantTestsQueryVariables = Exact<{
  assistant_id: number;
}>;


export type ConsoleAssistantTestsQuery = { assistantTests: Array<{ id: number, name: string, type: string, config: Record<string, unknown>, updated_at: string }>, assistant: { id: number, tools: Array<{ id: number, name: string }> } };

export type ConsoleTestRunsQueryVariables = Exact<{
  assistant_id: number;
  page?: number | null | undefined;
}>;


export type ConsoleTestRunsQuery = { testRuns: { current_page: number, last_page: number, total: number, from: number | null, to: number | null, data: Array<{ id: number, status: string, attempts: number, pass_rate: number | null, assistant_snapshot_hash: string, created_at: string, started_at: string | null, finished_at: string | null, results: Array<{ test_id: number, status: string }> }> } };

export type ConsoleTestRunQueryVariables = Exact<{
  id: number;
}>;


export type ConsoleTestRunQuery = { testRun: { id: number, status: string, attempts: number, pass_rate: number | null, assistant_snapshot_hash: string, created_at: string, started_at: string | null, finished_at: string | null, results: Array<{ test_id: number, attempt: number, status: string, error: string | null, latency_ms: Array<number>, transcript: Array<{ role: string, content: string }>, criteria: Array<{ criterion: string, passed: boolean, reason: string }>, tool_calls: Array<{ name: string, arguments: Record<string, unknown>, mocked: boolean }> }> } };

export type ConsoleTestRunUpdatedSubscriptionVariables = Exact<{
  id: number;
}>;


export type ConsoleTestRunUpdatedSubscription = { testRunUpdated: { run: { id: number, status: string, attempts: number, pass_rate: number | null, assistant_snapshot_hash: string, created_at: string, started_at: string | null, finished_at: string | null, results: Array<{ test_id: number, attempt: number, status: string, error: string | null, latency_ms: Array<number>, transcript: Array<{ role: string, content: string }>, criteria: Array<{ criterion: string, passed: boolean, reason: string }>, tool_calls: Array<{ name: string, arguments: Record<string, unknown>, mocked: boolean }> }> } } };

export type ConsoleCreateAssistantTestMutationVariables = Exact<{
  assistant_id: number;
  input: CreateAssistantTestInput;
}>;


export type ConsoleCreateAssistantTestMutation = { createAssistantTest: { id: number } };

export type ConsoleUpdateAssistantTestMutationVariables = Exact<{
  id: number;
  input: UpdateAssistantTestInput;
}>;


export type ConsoleUpdateAssistantTestMutation = { updateAssistantTest: { id: number } };

export type ConsoleDeleteAssistantTestMutationVariables = Exact<{
  id: number;
}>;


export type ConsoleDeleteAssistantTestMutation = { deleteAssistantTest: boolean };

export type ConsoleStartTestRunMutationVariables = Exact<{
  assistant_id: number;
  input?: StartTestRunInput | null | undefined;
}>;


export type ConsoleStartTestRunMutation = { startTestRun: { id: number, status: string } };

export type ConsoleCallsQueryVariables = Exact<{
  page?: number | null | undefined;
  per_page?: number | null | undefined;
  status?: string | null | undefined;
  type?: string | null | undefined;
  phone_number?: string | null | undefined;
  assistant_id?: number | null | undefined;
  campaign_id?: number | null | undefined;
  date_from?: string | null | undefined;
  date_to?: string | null | undefined;
}>;


export type ConsoleCallsQuery = { calls: { current_page: number, last_page: number, per_page: number, total: number, from: number | null, to: number | null, data: Array<{ id: number, type: string, status: string, answered_by: string | null, hangup_reason: string | null, client_phone_number: string, assistant_name: string, campaign_name: string | null, duration: number, total_cost: number, created_at: string, evaluation: Record<string, unknown> | null }> } };

export type ConsoleCallsLiveSubscriptionVariables = Exact<{
  assistant_id?: number | null | undefined;
  campaign_id?: number | null | undefined;
}>;


export type ConsoleCallsLiveSubscription = { callUpdated: { id: number, status: string, answered_by: string | null, hangup_reason: string | null, duration: number, total_cost: number } };

export type ConsoleCallFilterChoicesQueryVariables = Exact<{ [key: string]: never; }>;


export type ConsoleCallFilterChoicesQuery = { assistants: Array<{ id: number, assistant_name: string }>, campaigns: Array<{ id: number, name: string }> };

export type ConsoleCallQueryVariables = Exact<{
  id: number;
}>;


export type ConsoleCallQuery = { call: { id: number, type: string, status: string, answered_by: string | null, hangup_reason: string | null, hangup_detail: string | null, transferred_to: string | null, transfer_status: string | null, transfer_duration: number | null, assistant_id: number | null, assistant_name: string, assistant_phone_number: string, client_phone_number: string, campaign_id: number | null, campaign_name: string | null, lead_id: number | null, attempt: number | null, duration: number, carrier_cost: number, total_cost: number, recording_url: string | null, transcript: string, variables: Record<string, unknown>, evaluation: Record<string, unknown> | null, webhook_response: Record<string, unknown> | null, created_at: string, updated_at: string, turns: Array<{ speaker: string, text: string, at_ms: number | null, duration_ms: number | null, latency: { stt_final_ms: number | null, llm_first_token_ms: number | null, tts_first_byte_ms: number | null, first_audio_ms: number | null } | null, retrievals: Array<{ mode: string, query: string, chunks: Array<{ chunk_id: number, document_id: number, score: number }> }> }>, events: Array<{ status: string, at: string, detail: Record<string, unknown> | null }>, latency: { p50_ms: number, p95_ms: number, turns: number } | null, usage: { llm_input_tokens: number, llm_output_tokens: number, stt_seconds: number, tts_characters: number } | null, webhook_deliveries: Array<{ id: string, status: string, event_type: string | null, created_at: string, next_attempt_at: string | null, attempts: Array<{ attempt: number, status_code: number | null, error: string | null, latency_ms: number, created_at: string }> }> } };

export type ConsoleCallLiveSubscriptionVariables = Exact<{
  id: number;
}>;


export type ConsoleCallLiveSubscription = { callUpdated: { id: number, status: string, updated_at: string } };

export type ConsoleHangupCallMutationVariables = Exact<{
  id: number;
}>;


export type ConsoleHangupCallMutation = { hangupCall: { id: number, status: string } };

export type ConsoleRedeliverMutationVariables = Exact<{
  delivery_id: string;
}>;


export type ConsoleRedeliverMutation = { redeliverWebhook: boolean };

export type ConsoleCampaignFieldsFragment = { id: number, name: string, status: string, paused_reason: string | null, assistant_id: number | null, phone_number_ids: Array<number>, allowed_days: Array<string>, allowed_hours_start_time: string, allowed_hours_end_time: string, timezone: string, window_open: boolean, next_window_at: string | null, max_calls_in_parallel: number, max_retries: number, retry_interval: number, retry_on_voicemail: boolean, retry_on_goal_incomplete: boolean, goal_completion_variable: string | null, mark_complete_when_no_leads: boolean, created_at: string, updated_at: string, stats: { leads: Record<string, unknown>, calls_in_progress: number, attempts: number, total_cost: number } };

export type ConsoleCampaignsQueryVariables = Exact<{ [key: string]: never; }>;


export type ConsoleCampaignsQuery = { campaigns: Array<{ id: number, name: string, status: string, paused_reason: string | null, assistant_id: number | null, phone_number_ids: Array<number>, allowed_days: Array<string>, allowed_hours_start_time: string, allowed_hours_end_time: string, timezone: string, window_open: boolean, next_window_at: string | null, max_calls_in_parallel: number, max_retries: number, retry_interval: number, retry_on_voicemail: boolean, retry_on_goal_incomplete: boolean, goal_completion_variable: string | null, mark_complete_when_no_leads: boolean, created_at: string, updated_at: string, stats: { leads: Record<string, unknown>, calls_in_progress: number, attempts: number, total_cost: number } }> };

export type ConsoleCampaignQueryVariables = Exact<{
  id: number;
}>;


export type ConsoleCampaignQuery = { campaign: { id: number, name: string, status: string, paused_reason: string | null, assistant_id: number | null, phone_number_ids: Array<number>, allowed_days: Array<string>, allowed_hours_start_time: string, allowed_hours_end_time: string, timezone: string, window_open: boolean, next_window_at: string | null, max_calls_in_parallel: number, max_retries: number, retry_interval: number, retry_on_voicemail: boolean, retry_on_goal_incomplete: boolean, goal_completion_variable: string | null, mark_complete_when_no_leads: boolean, created_at: string, updated_at: string, stats: { leads: Record<string, unknown>, calls_in_progress: number, attempts: number, total_cost: number } } };

export type ConsoleCampaignLiveSubscriptionVariables = Exact<{
  id: number;
}>;


export type ConsoleCampaignLiveSubscription = { campaignUpdated: { id: number, name: string, status: string, paused_reason: string | null, assistant_id: number | null, phone_number_ids: Array<number>, allowed_days: Array<string>, allowed_hours_start_time: string, allowed_hours_end_time: string, timezone: string, window_open: boolean, next_window_at: string | null, max_calls_in_parallel: number, max_retries: number, retry_interval: number, retry_on_voicemail: boolean, retry_on_goal_incomplete: boolean, goal_completion_variable: string | null, mark_complete_when_no_leads: boolean, created_at: string, updated_at: string, stats: { leads: Record<string, unknown>, calls_in_progress: number, attempts: number, total_cost: number } } };

export type ConsoleCampaignFormChoicesQueryVariables = Exact<{ [key: string]: never; }>;


export type ConsoleCampaignFormChoicesQuery = { assistants: Array<{ id: number, assistant_name: string, post_call_schema: Array<{ name: string }> }>, phoneNumbers: Array<{ id: number, phone_number: string }> };

export type ConsoleCreateCampaignMutationVariables = Exact<{
  input: CreateCampaignInput;
}>;


export type ConsoleCreateCampaignMutation = { createCampaign: { id: number, name: string, status: string, paused_reason: string | null, assistant_id: number | null, phone_number_ids: Array<number>, allowed_days: Array<string>, allowed_hours_start_time: string, allowed_hours_end_time: string, timezone: string, window_open: boolean, next_window_at: string | null, max_calls_in_parallel: number, max_retries: number, retry_interval: number, retry_on_voicemail: boolean, retry_on_goal_incomplete: boolean, goal_completion_variable: string | null, mark_complete_when_no_leads: boolean, created_at: string, updated_at: string, stats: { leads: Record<string, unknown>, calls_in_progress: number, attempts: number, total_cost: number } } };

export type ConsoleUpdateCampaignMutationVariables = Exact<{
  id: number;
  input: UpdateCampaignInput;
}>;


export type ConsoleUpdateCampaignMutation = { updateCampaign: { id: number, name: string, status: string, paused_reason: string | null, assistant_id: number | null, phone_number_ids: Array<number>, allowed_days: Array<string>, allowed_hours_start_time: string, allowed_hours_end_time: string, timezone: string, window_open: boolean, next_window_at: string | null, max_calls_in_parallel: number, max_retries: number, retry_interval: number, retry_on_voicemail: boolean, retry_on_goal_incomplete: boolean, goal_completion_variable: string | null, mark_complete_when_no_leads: boolean, created_at: string, updated_at: string, stats: { leads: Record<string, unknown>, calls_in_progress: number, attempts: number, total_cost: number } } };

export type ConsoleStartCampaignMutationVariables = Exact<{
  id: number;
}>;


export type ConsoleStartCampaignMutation = { startCampaign: { id: number, name: string, status: string, paused_reason: string | null, assistant_id: number | null, phone_number_ids: Array<number>, allowed_days: Array<string>, allowed_hours_start_time: string, allowed_hours_end_time: string, timezone: string, window_open: boolean, next_window_at: string | null, max_calls_in_parallel: number, max_retries: number, retry_interval: number, retry_on_voicemail: boolean, retry_on_goal_incomplete: boolean, goal_completion_variable: string | null, mark_complete_when_no_leads: boolean, created_at: string, updated_at: string, stats: { leads: Record<string, unknown>, calls_in_progress: number, attempts: number, total_cost: number } } };

export type ConsoleStopCampaignMutationVariables = Exact<{
  id: number;
}>;


export type ConsoleStopCampaignMutation = { stopCampaign: { id: number, name: string, status: string, paused_reason: string | null, assistant_id: number | null, phone_number_ids: Array<number>, allowed_days: Array<string>, allowed_hours_start_time: string, allowed_hours_end_time: string, timezone: string, window_open: boolean, next_window_at: string | null, max_calls_in_parallel: number, max_retries: number, retry_interval: number, retry_on_voicemail: boolean, retry_on_goal_incomplete: boolean, goal_completion_variable: string | null, mark_complete_when_no_leads: boolean, created_at: string, updated_at: string, stats: { leads: Record<string, unknown>, calls_in_progress: number, attempts: number, total_cost: number } } };

export type ConsoleDeleteCampaignMutationVariables = Exact<{
  id: number;
}>;


export type ConsoleDeleteCampaignMutation = { deleteCampaign: boolean };

export type ConsoleLeadImportFieldsFragment = { id: number, campaign_id: number, status: string, rows_total: number, rows_read: number, created: number, duplicates: number, blacklisted: number, invalid: number, failure: string | null, errors: Array<{ line: number, field: string | null, message: string }> };

export type ConsoleImportLeadsMutationVariables = Exact<{
  input: ImportLeadsInput;
}>;


export type ConsoleImportLeadsMutation = { importLeads: { id: number, campaign_id: number, status: string, rows_total: number, rows_read: number, created: number, duplicates: number, blacklisted: number, invalid: number, failure: string | null, errors: Array<{ line: number, field: string | null, message: string }> } };

export type ConsoleLeadImportLiveSubscriptionVariables = Exact<{
  id: number;
}>;


export type ConsoleLeadImportLiveSubscription = { leadImportUpdated: { id: number, campaign_id: number, status: string, rows_total: number, rows_read: number, created: number, duplicates: number, blacklisted: number, invalid: number, failure: string | null, errors: Array<{ line: number, field: string | null, message: string }> } };

export type ConsoleLeadsQueryVariables = Exact<{
  campaign_id: number;
  page?: number | null | undefined;
  per_page?: number | null | undefined;
  status?: string | null | undefined;
  phone_number?: string | null | undefined;
}>;


export type ConsoleLeadsQuery = { leads: { current_page: number, last_page: number, per_page: number, total: number, from: number | null, to: number | null, data: Array<{ id: number, phone_number: string, status: string, attempts: number, next_attempt_at: string | null, variables: Record<string, unknown>, updated_at: string }> } };

export type ConsoleLeadLiveSubscriptionVariables = Exact<{
  campaign_id?: number | null | undefined;
}>;


export type ConsoleLeadLiveSubscription = { leadUpdated: { id: number, status: string, attempts: number, next_attempt_at: string | null, updated_at: string } };

export type ConsoleLeadDetailQueryVariables = Exact<{
  id: number;
  campaign_id: number;
  phone_number: string;
}>;


export type ConsoleLeadDetailQuery = { lead: { id: number, phone_number: string, status: string, attempts: number, variables: Record<string, unknown>, secondary_contacts: Array<{ id: number, phone_number: string, status: string }> }, calls: { data: Array<{ id: number, attempt: number | null, status: string, duration: number, total_cost: number, created_at: string, client_phone_number: string, lead_id: number | null }> } };

export type ConsoleCreateLeadMutationVariables = Exact<{
  input: CreateLeadInput;
}>;


export type ConsoleCreateLeadMutation = { createLead: { id: number } };

export type ConsoleToolsQueryVariables = Exact<{ [key: string]: never; }>;


export type ConsoleToolsQuery = { tools: Array<{ id: number, name: string, description: string, endpoint: string, method: string, timeout: number, speak_during: string | null, updated_at: string, headers: Array<{ name: string, value: string }>, schema: Array<{ name: string, type: string, description: string }> }> };

export type ConsoleCreateToolMutationVariables = Exact<{
  input: CreateToolInput;
}>;


export type ConsoleCreateToolMutation = { createTool: { id: number } };

export type ConsoleUpdateToolMutationVariables = Exact<{
  id: number;
  input: UpdateToolInput;
}>;


export type ConsoleUpdateToolMutation = { updateTool: { id: number } };

export type ConsoleDeleteToolMutationVariables = Exact<{
  id: number;
}>;


export type ConsoleDeleteToolMutation = { deleteTool: boolean };

export type ConsolePhoneNumbersQueryVariables = Exact<{ [key: string]: never; }>;


export type ConsolePhoneNumbersQuery = { phoneNumbers: Array<{ id: number, phone_number: string, nickname: string | null, sms_capable: boolean, expires_at: string | null, assistant_id: number | null, monthly_price: number | null, renews: boolean }>, assistants: Array<{ id: number, assistant_name: string }>, me: { id: number, balance: number, currency: string } };

export type ConsoleAvailablePhoneNumbersQueryVariables = Exact<{
  country_code?: string | null | undefined;
  contains?: string | null | undefined;
}>;


export type ConsoleAvailablePhoneNumbersQuery = { availablePhoneNumbers: Array<{ phone_number: string, friendly_name: string, locality: string | null, region: string | null, iso_country: string, monthly_price: number, capabilities: { voice: boolean, sms: boolean, mms: boolean } }> };

export type ConsolePurchasePhoneNumberMutationVariables = Exact<{
  input: PurchasePhoneNumberInput;
}>;


export type ConsolePurchasePhoneNumberMutation = { purchasePhoneNumber: { id: number, phone_number: string } };

export type ConsoleUpdatePhoneNumberMutationVariables = Exact<{
  id: number;
  input: UpdatePhoneNumberInput;
}>;


export type ConsoleUpdatePhoneNumberMutation = { updatePhoneNumber: { id: number, nickname: string | null } };

export type ConsoleReleasePhoneNumberMutationVariables = Exact<{
  id: number;
}>;


export type ConsoleReleasePhoneNumberMutation = { releasePhoneNumber: boolean };

export type ConsoleDncQueryVariables = Exact<{ [key: string]: never; }>;


export type ConsoleDncQuery = { dncNumbers: Array<{ phone_number: string, created_at: string }> };

export type ConsoleAddDncMutationVariables = Exact<{
  phone_number: string;
}>;


export type ConsoleAddDncMutation = { addDncNumber: { phone_number: string } };

export type ConsoleRemoveDncMutationVariables = Exact<{
  phone_number: string;
}>;


export type ConsoleRemoveDncMutation = { removeDncNumber: boolean };

export type ConsoleWebhookEndpointsQueryVariables = Exact<{ [key: string]: never; }>;


export type ConsoleWebhookEndpointsQuery = { webhookEndpoints: Array<{ id: number, url: string, events: Array<string>, disabled_at: string | null, created_at: string }> };

export type ConsoleWebhookEndpointQueryVariables = Exact<{
  id: number;
}>;


export type ConsoleWebhookEndpointQuery = { webhookEndpoint: { id: number, url: string, events: Array<string>, disabled_at: string | null, created_at: string, deliveries: Array<{ id: string, event_type: string | null, status: string, created_at: string, next_attempt_at: string | null, payload: Record<string, unknown>, attempts: Array<{ attempt: number, status_code: number | null, error: string | null, latency_ms: number, created_at: string, response_body: string | null }> }> } };

export type ConsoleCreateWebhookEndpointMutationVariables = Exact<{
  url: string;
  events: Array<string> | string;
}>;


export type ConsoleCreateWebhookEndpointMutation = { createWebhookEndpoint: { id: number, secret: string, warning: string | null } };

export type ConsoleDeleteWebhookEndpointMutationVariables = Exact<{
  id: number;
}>;


export type ConsoleDeleteWebhookEndpointMutation = { deleteWebhookEndpoint: boolean };

export type ConsoleApiTokensQueryVariables = Exact<{ [key: string]: never; }>;


export type ConsoleApiTokensQuery = { apiTokens: Array<{ id: number, prefix: string, name: string | null, created_at: string, last_used_at: string | null }> };

export type ConsoleCreateApiTokenMutationVariables = Exact<{
  name?: string | null | undefined;
}>;


export type ConsoleCreateApiTokenMutation = { createApiToken: { token: string, api_token: { id: number, prefix: string } } };

export type ConsoleRevokeApiTokenMutationVariables = Exact<{
  id: number;
}>;


export type ConsoleRevokeApiTokenMutation = { revokeApiToken: number };

export type ConsoleVoiceVendorsQueryVariables = Exact<{ [key: string]: never; }>;


export type ConsoleVoiceVendorsQuery = { voiceVendors: Array<{ code: string, name: string, parts: Array<string>, configured: boolean, hosted: boolean, variables: Array<string> }> };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}
export const ConsoleAssistantFieldsFragmentDoc = new TypedDocumentString(`
    fragment ConsoleAssistantFields on Assistant {
  id
  assistant_name
  calls_direction
  engine_type
  voice_ready
  voice_missing
  status
  phone_number_id
  voice_id
  language
  llm_model
  llm_temperature
  timezone
  who_speaks_first
  initial_message
  system_prompt
  tool_ids
  end_call_tool {
    description
  }
  variables
  post_call_schema {
    name
    type
    description
  }
  post_call_evaluation
  max_call_duration
  max_silence_duration
  re_engagement_interval
  speech_speed
  voice_stability
  voice_similarity
  allow_interruptions
  interrupt_sensitivity
  use_min_interrupt_words
  min_interrupt_words
  false_interruption_timeout_ms
  keyterms
  fallback_models
  fallback_voice_id
  transcriber
  backchannel_words
  pronunciations {
    word
    say_as
  }
  transfer_numbers {
    number
    description
  }
  transfer_mode
  transfer_message
  endpoint_type
  endpoint_sensitivity
  noise_cancellation
  ambient_sound_volume
  filler_audios
  record_call
  end_call_on_voicemail
  voicemail_message
  voicemail_beep_timeout_seconds
  is_webhook_active
  webhook_url
  send_webhook_only_on_completed
  include_recording_in_webhook
}
    `, {"fragmentName":"ConsoleAssistantFields"}) as unknown as TypedDocumentString<ConsoleAssistantFieldsFragment, unknown>;
export const ConsoleTestRunSummaryFragmentDoc = new TypedDocumentString(`
    fragment ConsoleTestRunSummary on TestRun {
  id
  status
  attempts
  pass_rate
  assistant_snapshot_hash
  created_at
  started_at
  finished_at
}
    `, {"fragmentName":"ConsoleTestRunSummary"}) as unknown as TypedDocumentString<ConsoleTestRunSummaryFragment, unknown>;
export const ConsoleTestResultFragmentDoc = new TypedDocumentString(`
    fragment ConsoleTestResult on TestResult {
  test_id
  attempt
  status
  error
  latency_ms
  transcript {
    role
    content
  }
  criteria {
    criterion
    passed
    reason
  }
  tool_calls {
    name
    arguments
    mocked
  }
}
    `, {"fragmentName":"ConsoleTestResult"}) as unknown as TypedDocumentString<ConsoleTestResultFragment, unknown>;
export const ConsoleCampaignFieldsFragmentDoc = new TypedDocumentString(`
    fragment ConsoleCampaignFields on Campaign {
  id
  name
  status
  paused_reason
  assistant_id
  phone_number_ids
  allowed_days
  allowed_hours_start_time
  allowed_hours_end_time
  timezone
  window_open
  next_window_at
  max_calls_in_parallel
  max_retries
  retry_interval
  retry_on_voicemail
  retry_on_goal_incomplete
  goal_completion_variable
  mark_complete_when_no_leads
  created_at
  updated_at
  stats {
    leads
    calls_in_progress
    attempts
    total_cost
  }
}
    `, {"fragmentName":"ConsoleCampaignFields"}) as unknown as TypedDocumentString<ConsoleCampaignFieldsFragment, unknown>;
export const ConsoleLeadImportFieldsFragmentDoc = new TypedDocumentString(`
    fragment ConsoleLeadImportFields on LeadImport {
  id
  campaign_id
  status
  rows_total
  rows_read
  created
  duplicates
  blacklisted
  invalid
  failure
  errors {
    line
    field
    message
  }
}
    `, {"fragmentName":"ConsoleLeadImportFields"}) as unknown as TypedDocumentString<ConsoleLeadImportFieldsFragment, unknown>;
export const ConsoleMeDocument = new TypedDocumentString(`
    query ConsoleMe {
  me {
    id
    name
    email
    balance
    currency
  }
}
    `) as unknown as TypedDocumentString<ConsoleMeQuery, ConsoleMeQueryVariables>;
export const ConsoleLedgerSliceDocument = new TypedDocumentString(`
    query ConsoleLedgerSlice($after: String, $per_page: Int) {
  me {
    ledgerFeed(after: $after, per_page: $per_page) {
      data {
        id
        kind
        amount
        balance_after
        reference
        created_at
      }
      next_after
    }
  }
}
    `) as unknown as TypedDocumentString<ConsoleLedgerSliceQuery, ConsoleLedgerSliceQueryVariables>;
export const ConsoleAccountCallsDocument = new TypedDocumentString(`
    subscription ConsoleAccountCalls {
  callUpdated {
    id
    status
  }
}
    `) as unknown as TypedDocumentString<ConsoleAccountCallsSubscription, ConsoleAccountCallsSubscriptionVariables>;
export const ConsoleAnalyticsDocument = new TypedDocumentString(`
    query ConsoleAnalytics($from: DateTime!, $to: DateTime!, $bucket: String, $campaign_id: Int, $assistant_id: Int) {
  analytics(
    from: $from
    to: $to
    bucket: $bucket
    campaign_id: $campaign_id
    assistant_id: $assistant_id
  ) {
    from
    to
    bucket
    buckets {
      start
      calls
      minutes
      answered
      voicemail
      no_answer
      answer_rate
      voicemail_rate
      no_answer_rate
      average_duration
      cost
      cost_per_answered_call
      transfers
    }
    totals {
      calls
      minutes
      answered
      voicemail
      no_answer
      answer_rate
      voicemail_rate
      no_answer_rate
      average_duration
      cost
      cost_per_answered_call
      transfers
    }
    funnels {
      campaign_id
      campaign_name
      leads
      dialled
      answered
      completed
      transferred
    }
    latency {
      assistant_id
      assistant_name
      calls
      turns
      p50_ms
      p95_ms
    }
  }
}
    `) as unknown as TypedDocumentString<ConsoleAnalyticsQuery, ConsoleAnalyticsQueryVariables>;
export const ConsoleAnalyticsFiltersDocument = new TypedDocumentString(`
    query ConsoleAnalyticsFilters {
  campaigns {
    id
    name
  }
  assistants {
    id
    assistant_name
  }
}
    `) as unknown as TypedDocumentString<ConsoleAnalyticsFiltersQuery, ConsoleAnalyticsFiltersQueryVariables>;
export const ConsoleAssistantsDocument = new TypedDocumentString(`
    query ConsoleAssistants {
  assistants {
    id
    assistant_name
    type
    engine_type
    language
    llm_model
    phone_number
    voice {
      id
      name
      provider
    }
    updated_at
  }
}
    `) as unknown as TypedDocumentString<ConsoleAssistantsQuery, ConsoleAssistantsQueryVariables>;
export const ConsoleAssistantDocument = new TypedDocumentString(`
    query ConsoleAssistant($id: Int!) {
  assistant(id: $id) {
    ...ConsoleAssistantFields
  }
}
    fragment ConsoleAssistantFields on Assistant {
  id
  assistant_name
  calls_direction
  engine_type
  voice_ready
  voice_missing
  status
  phone_number_id
  voice_id
  language
  llm_model
  llm_temperature
  timezone
  who_speaks_first
  initial_message
  system_prompt
  tool_ids
  end_call_tool {
    description
  }
  variables
  post_call_schema {
    name
    type
    description
  }
  post_call_evaluation
  max_call_duration
  max_silence_duration
  re_engagement_interval
  speech_speed
  voice_stability
  voice_similarity
  allow_interruptions
  interrupt_sensitivity
  use_min_interrupt_words
  min_interrupt_words
  false_interruption_timeout_ms
  keyterms
  fallback_models
  fallback_voice_id
  transcriber
  backchannel_words
  pronunciations {
    word
    say_as
  }
  transfer_numbers {
    number
    description
  }
  transfer_mode
  transfer_message
  endpoint_type
  endpoint_sensitivity
  noise_cancellation
  ambient_sound_volume
  filler_audios
  record_call
  end_call_on_voicemail
  voicemail_message
  voicemail_beep_timeout_seconds
  is_webhook_active
  webhook_url
  send_webhook_only_on_completed
  include_recording_in_webhook
}`) as unknown as TypedDocumentString<ConsoleAssistantQuery, ConsoleAssistantQueryVariables>;
export const ConsoleAssistantChoicesDocument = new TypedDocumentString(`
    query ConsoleAssistantChoices {
  transcriberProviders {
    name
    code
  }
  voices {
    id
    name
    mode
    provider
  }
  languages {
    id
    name
  }
  models {
    id
    name
    provider
    type
  }
  tools {
    id
    name
    description
  }
  phoneNumbers {
    id
    phone_number
    assistant_id
  }
}
    `) as unknown as TypedDocumentString<ConsoleAssistantChoicesQuery, ConsoleAssistantChoicesQueryVariables>;
export const ConsoleCreateAssistantDocument = new TypedDocumentString(`
    mutation ConsoleCreateAssistant($input: CreateAssistantInput!) {
  createAssistant(input: $input) {
    ...ConsoleAssistantFields
  }
}
    fragment ConsoleAssistantFields on Assistant {
  id
  assistant_name
  calls_direction
  engine_type
  voice_ready
  voice_missing
  status
  phone_number_id
  voice_id
  language
  llm_model
  llm_temperature
  timezone
  who_speaks_first
  initial_message
  system_prompt
  tool_ids
  end_call_tool {
    description
  }
  variables
  post_call_schema {
    name
    type
    description
  }
  post_call_evaluation
  max_call_duration
  max_silence_duration
  re_engagement_interval
  speech_speed
  voice_stability
  voice_similarity
  allow_interruptions
  interrupt_sensitivity
  use_min_interrupt_words
  min_interrupt_words
  false_interruption_timeout_ms
  keyterms
  fallback_models
  fallback_voice_id
  transcriber
  backchannel_words
  pronunciations {
    word
    say_as
  }
  transfer_numbers {
    number
    description
  }
  transfer_mode
  transfer_message
  endpoint_type
  endpoint_sensitivity
  noise_cancellation
  ambient_sound_volume
  filler_audios
  record_call
  end_call_on_voicemail
  voicemail_message
  voicemail_beep_timeout_seconds
  is_webhook_active
  webhook_url
  send_webhook_only_on_completed
  include_recording_in_webhook
}`) as unknown as TypedDocumentString<ConsoleCreateAssistantMutation, ConsoleCreateAssistantMutationVariables>;
export const ConsoleUpdateAssistantDocument = new TypedDocumentString(`
    mutation ConsoleUpdateAssistant($id: Int!, $input: UpdateAssistantInput!) {
  updateAssistant(id: $id, input: $input) {
    ...ConsoleAssistantFields
  }
}
    fragment ConsoleAssistantFields on Assistant {
  id
  assistant_name
  calls_direction
  engine_type
  voice_ready
  voice_missing
  status
  phone_number_id
  voice_id
  language
  llm_model
  llm_temperature
  timezone
  who_speaks_first
  initial_message
  system_prompt
  tool_ids
  end_call_tool {
    description
  }
  variables
  post_call_schema {
    name
    type
    description
  }
  post_call_evaluation
  max_call_duration
  max_silence_duration
  re_engagement_interval
  speech_speed
  voice_stability
  voice_similarity
  allow_interruptions
  interrupt_sensitivity
  use_min_interrupt_words
  min_interrupt_words
  false_interruption_timeout_ms
  keyterms
  fallback_models
  fallback_voice_id
  transcriber
  backchannel_words
  pronunciations {
    word
    say_as
  }
  transfer_numbers {
    number
    description
  }
  transfer_mode
  transfer_message
  endpoint_type
  endpoint_sensitivity
  noise_cancellation
  ambient_sound_volume
  filler_audios
  record_call
  end_call_on_voicemail
  voicemail_message
  voicemail_beep_timeout_seconds
  is_webhook_active
  webhook_url
  send_webhook_only_on_completed
  include_recording_in_webhook
}`) as unknown as TypedDocumentString<ConsoleUpdateAssistantMutation, ConsoleUpdateAssistantMutationVariables>;
export const ConsoleDeleteAssistantDocument = new TypedDocumentString(`
    mutation ConsoleDeleteAssistant($id: Int!) {
  deleteAssistant(id: $id)
}
    `) as unknown as TypedDocumentString<ConsoleDeleteAssistantMutation, ConsoleDeleteAssistantMutationVariables>;
export const ConsoleStartWebCallDocument = new TypedDocumentString(`
    mutation ConsoleStartWebCall($input: WebCallInput!) {
  startWebCall(input: $input) {
    call_id
    url
    expires_at
  }
}
    `) as unknown as TypedDocumentString<ConsoleStartWebCallMutation, ConsoleStartWebCallMutationVariables>;
export const ConsoleCallMeDocument = new TypedDocumentString(`
    mutation ConsoleCallMe($input: MakeCallInput!) {
  makeCall(input: $input) {
    call_id
    status
  }
}
    `) as unknown as TypedDocumentString<ConsoleCallMeMutation, ConsoleCallMeMutationVariables>;
export const ConsoleAssistantTestsDocument = new TypedDocumentString(`
    query ConsoleAssistantTests($assistant_id: Int!) {
  assistantTests(assistant_id: $assistant_id) {
    id
    name
    type
    config
    updated_at
  }
  assistant(id: $assistant_id) {
    id
    tools {
      id
      name
    }
  }
}
    `) as unknown as TypedDocumentString<ConsoleAssistantTestsQuery, ConsoleAssistantTestsQueryVariables>;
export const ConsoleTestRunsDocument = new TypedDocumentString(`
    query ConsoleTestRuns($assistant_id: Int!, $page: Int) {
  testRuns(assistant_id: $assistant_id, page: $page, per_page: 10) {
    current_page
    last_page
    total
    from
    to
    data {
      ...ConsoleTestRunSummary
      results {
        test_id
        status
      }
    }
  }
}
    fragment ConsoleTestRunSummary on TestRun {
  id
  status
  attempts
  pass_rate
  assistant_snapshot_hash
  created_at
  started_at
  finished_at
}`) as unknown as TypedDocumentString<ConsoleTestRunsQuery, ConsoleTestRunsQueryVariables>;
export const ConsoleTestRunDocument = new TypedDocumentString(`
    query ConsoleTestRun($id: Int!) {
  testRun(id: $id) {
    ...ConsoleTestRunSummary
    results {
      ...ConsoleTestResult
    }
  }
}
    fragment ConsoleTestRunSummary on TestRun {
  id
  status
  attempts
  pass_rate
  assistant_snapshot_hash
  created_at
  started_at
  finished_at
}
fragment ConsoleTestResult on TestResult {
  test_id
  attempt
  status
  error
  latency_ms
  transcript {
    role
    content
  }
  criteria {
    criterion
    passed
    reason
  }
  tool_calls {
    name
    arguments
    mocked
  }
}`) as unknown as TypedDocumentString<ConsoleTestRunQuery, ConsoleTestRunQueryVariables>;
export const ConsoleTestRunUpdatedDocument = new TypedDocumentString(`
    subscription ConsoleTestRunUpdated($id: Int!) {
  testRunUpdated(id: $id) {
    run {
      ...ConsoleTestRunSummary
      results {
        ...ConsoleTestResult
      }
    }
  }
}
    fragment ConsoleTestRunSummary on TestRun {
  id
  status
  attempts
  pass_rate
  assistant_snapshot_hash
  created_at
  started_at
  finished_at
}
fragment ConsoleTestResult on TestResult {
  test_id
  attempt
  status
  error
  latency_ms
  transcript {
    role
    content
  }
  criteria {
    criterion
    passed
    reason
  }
  tool_calls {
    name
    arguments
    mocked
  }
}`) as unknown as TypedDocumentString<ConsoleTestRunUpdatedSubscription, ConsoleTestRunUpdatedSubscriptionVariables>;
export const ConsoleCreateAssistantTestDocument = new TypedDocumentString(`
    mutation ConsoleCreateAssistantTest($assistant_id: Int!, $input: CreateAssistantTestInput!) {
  createAssistantTest(assistant_id: $assistant_id, input: $input) {
    id
  }
}
    `) as unknown as TypedDocumentString<ConsoleCreateAssistantTestMutation, ConsoleCreateAssistantTestMutationVariables>;
export const ConsoleUpdateAssistantTestDocument = new TypedDocumentString(`
    mutation ConsoleUpdateAssistantTest($id: Int!, $input: UpdateAssistantTestInput!) {
  updateAssistantTest(id: $id, input: $input) {
    id
  }
}
    `) as unknown as TypedDocumentString<ConsoleUpdateAssistantTestMutation, ConsoleUpdateAssistantTestMutationVariables>;
export const ConsoleDeleteAssistantTestDocument = new TypedDocumentString(`
    mutation ConsoleDeleteAssistantTest($id: Int!) {
  deleteAssistantTest(id: $id)
}
    `) as unknown as TypedDocumentString<ConsoleDeleteAssistantTestMutation, ConsoleDeleteAssistantTestMutationVariables>;
export const ConsoleStartTestRunDocument = new TypedDocumentString(`
    mutation ConsoleStartTestRun($assistant_id: Int!, $input: StartTestRunInput) {
  startTestRun(assistant_id: $assistant_id, input: $input) {
    id
    status
  }
}
    `) as unknown as TypedDocumentString<ConsoleStartTestRunMutation, ConsoleStartTestRunMutationVariables>;
export const ConsoleCallsDocument = new TypedDocumentString(`
    query ConsoleCalls($page: Int, $per_page: Int, $status: String, $type: String, $phone_number: String, $assistant_id: Int, $campaign_id: Int, $date_from: String, $date_to: String) {
  calls(
    page: $page
    per_page: $per_page
    status: $status
    type: $type
    phone_number: $phone_number
    assistant_id: $assistant_id
    campaign_id: $campaign_id
    date_from: $date_from
    date_to: $date_to
  ) {
    current_page
    last_page
    per_page
    total
    from
    to
    data {
      id
      type
      status
      answered_by
      hangup_reason
      client_phone_number
      assistant_name
      campaign_name
      duration
      total_cost
      created_at
      evaluation
    }
  }
}
    `) as unknown as TypedDocumentString<ConsoleCallsQuery, ConsoleCallsQueryVariables>;
export const ConsoleCallsLiveDocument = new TypedDocumentString(`
    subscription ConsoleCallsLive($assistant_id: Int, $campaign_id: Int) {
  callUpdated(assistant_id: $assistant_id, campaign_id: $campaign_id) {
    id
    status
    answered_by
    hangup_reason
    duration
    total_cost
  }
}
    `) as unknown as TypedDocumentString<ConsoleCallsLiveSubscription, ConsoleCallsLiveSubscriptionVariables>;
export const ConsoleCallFilterChoicesDocument = new TypedDocumentString(`
    query ConsoleCallFilterChoices {
  assistants {
    id
    assistant_name
  }
  campaigns {
    id
    name
  }
}
    `) as unknown as TypedDocumentString<ConsoleCallFilterChoicesQuery, ConsoleCallFilterChoicesQueryVariables>;
export const ConsoleCallDocument = new TypedDocumentString(`
    query ConsoleCall($id: Int!) {
  call(id: $id) {
    id
    type
    status
    answered_by
    hangup_reason
    hangup_detail
    transferred_to
    transfer_status
    transfer_duration
    assistant_id
    assistant_name
    assistant_phone_number
    client_phone_number
    campaign_id
    campaign_name
    lead_id
    attempt
    duration
    carrier_cost
    total_cost
    recording_url
    transcript
    turns {
      speaker
      text
      at_ms
      duration_ms
      latency {
        stt_final_ms
        llm_first_token_ms
        tts_first_byte_ms
        first_audio_ms
      }
      retrievals {
        mode
        query
        chunks {
          chunk_id
          document_id
          score
        }
      }
    }
    events {
      status
      at
      detail
    }
    variables
    evaluation
    latency {
      p50_ms
      p95_ms
      turns
    }
    usage {
      llm_input_tokens
      llm_output_tokens
      stt_seconds
      tts_characters
    }
    webhook_response
    webhook_deliveries {
      id
      status
      event_type
      created_at
      next_attempt_at
      attempts {
        attempt
        status_code
        error
        latency_ms
        created_at
      }
    }
    created_at
    updated_at
  }
}
    `) as unknown as TypedDocumentString<ConsoleCallQuery, ConsoleCallQueryVariables>;
export const ConsoleCallLiveDocument = new TypedDocumentString(`
    subscription ConsoleCallLive($id: Int!) {
  callUpdated(id: $id, initial: true) {
    id
    status
    updated_at
  }
}
    `) as unknown as TypedDocumentString<ConsoleCallLiveSubscription, ConsoleCallLiveSubscriptionVariables>;
export const ConsoleHangupCallDocument = new TypedDocumentString(`
    mutation ConsoleHangupCall($id: Int!) {
  hangupCall(id: $id) {
    id
    status
  }
}
    `) as unknown as TypedDocumentString<ConsoleHangupCallMutation, ConsoleHangupCallMutationVariables>;
export const ConsoleRedeliverDocument = new TypedDocumentString(`
    mutation ConsoleRedeliver($delivery_id: String!) {
  redeliverWebhook(delivery_id: $delivery_id)
}
    `) as unknown as TypedDocumentString<ConsoleRedeliverMutation, ConsoleRedeliverMutationVariables>;
export const ConsoleCampaignsDocument = new TypedDocumentString(`
    query ConsoleCampaigns {
  campaigns {
    ...ConsoleCampaignFields
  }
}
    fragment ConsoleCampaignFields on Campaign {
  id
  name
  status
  paused_reason
  assistant_id
  phone_number_ids
  allowed_days
  allowed_hours_start_time
  allowed_hours_end_time
  timezone
  window_open
  next_window_at
  max_calls_in_parallel
  max_retries
  retry_interval
  retry_on_voicemail
  retry_on_goal_incomplete
  goal_completion_variable
  mark_complete_when_no_leads
  created_at
  updated_at
  stats {
    leads
    calls_in_progress
    attempts
    total_cost
  }
}`) as unknown as TypedDocumentString<ConsoleCampaignsQuery, ConsoleCampaignsQueryVariables>;
export const ConsoleCampaignDocument = new TypedDocumentString(`
    query ConsoleCampaign($id: Int!) {
  campaign(id: $id) {
    ...ConsoleCampaignFields
  }
}
    fragment ConsoleCampaignFields on Campaign {
  id
  name
  status
  paused_reason
  assistant_id
  phone_number_ids
  allowed_days
  allowed_hours_start_time
  allowed_hours_end_time
  timezone
  window_open
  next_window_at
  max_calls_in_parallel
  max_retries
  retry_interval
  retry_on_voicemail
  retry_on_goal_incomplete
  goal_completion_variable
  mark_complete_when_no_leads
  created_at
  updated_at
  stats {
    leads
    calls_in_progress
    attempts
    total_cost
  }
}`) as unknown as TypedDocumentString<ConsoleCampaignQuery, ConsoleCampaignQueryVariables>;
export const ConsoleCampaignLiveDocument = new TypedDocumentString(`
    subscription ConsoleCampaignLive($id: Int!) {
  campaignUpdated(id: $id, initial: true) {
    ...ConsoleCampaignFields
  }
}
    fragment ConsoleCampaignFields on Campaign {
  id
  name
  status
  paused_reason
  assistant_id
  phone_number_ids
  allowed_days
  allowed_hours_start_time
  allowed_hours_end_time
  timezone
  window_open
  next_window_at
  max_calls_in_parallel
  max_retries
  retry_interval
  retry_on_voicemail
  retry_on_goal_incomplete
  goal_completion_variable
  mark_complete_when_no_leads
  created_at
  updated_at
  stats {
    leads
    calls_in_progress
    attempts
    total_cost
  }
}`) as unknown as TypedDocumentString<ConsoleCampaignLiveSubscription, ConsoleCampaignLiveSubscriptionVariables>;
export const ConsoleCampaignFormChoicesDocument = new TypedDocumentString(`
    query ConsoleCampaignFormChoices {
  assistants(calls_direction: "make") {
    id
    assistant_name
    post_call_schema {
      name
    }
  }
  phoneNumbers {
    id
    phone_number
  }
}
    `) as unknown as TypedDocumentString<ConsoleCampaignFormChoicesQuery, ConsoleCampaignFormChoicesQueryVariables>;
export const ConsoleCreateCampaignDocument = new TypedDocumentString(`
    mutation ConsoleCreateCampaign($input: CreateCampaignInput!) {
  createCampaign(input: $input) {
    ...ConsoleCampaignFields
  }
}
    fragment ConsoleCampaignFields on Campaign {
  id
  name
  status
  paused_reason
  assistant_id
  phone_number_ids
  allowed_days
  allowed_hours_start_time
  allowed_hours_end_time
  timezone
  window_open
  next_window_at
  max_calls_in_parallel
  max_retries
  retry_interval
  retry_on_voicemail
  retry_on_goal_incomplete
  goal_completion_variable
  mark_complete_when_no_leads
  created_at
  updated_at
  stats {
    leads
    calls_in_progress
    attempts
    total_cost
  }
}`) as unknown as TypedDocumentString<ConsoleCreateCampaignMutation, ConsoleCreateCampaignMutationVariables>;
export const ConsoleUpdateCampaignDocument = new TypedDocumentString(`
    mutation ConsoleUpdateCampaign($id: Int!, $input: UpdateCampaignInput!) {
  updateCampaign(id: $id, input: $input) {
    ...ConsoleCampaignFields
  }
}
    fragment ConsoleCampaignFields on Campaign {
  id
  name
  status
  paused_reason
  assistant_id
  phone_number_ids
  allowed_days
  allowed_hours_start_time
  allowed_hours_end_time
  timezone
  window_open
  next_window_at
  max_calls_in_parallel
  max_retries
  retry_interval
  retry_on_voicemail
  retry_on_goal_incomplete
  goal_completion_variable
  mark_complete_when_no_leads
  created_at
  updated_at
  stats {
    leads
    calls_in_progress
    attempts
    total_cost
  }
}`) as unknown as TypedDocumentString<ConsoleUpdateCampaignMutation, ConsoleUpdateCampaignMutationVariables>;
export const ConsoleStartCampaignDocument = new TypedDocumentString(`
    mutation ConsoleStartCampaign($id: Int!) {
  startCampaign(id: $id) {
    ...ConsoleCampaignFields
  }
}
    fragment ConsoleCampaignFields on Campaign {
  id
  name
  status
  paused_reason
  assistant_id
  phone_number_ids
  allowed_days
  allowed_hours_start_time
  allowed_hours_end_time
  timezone
  window_open
  next_window_at
  max_calls_in_parallel
  max_retries
  retry_interval
  retry_on_voicemail
  retry_on_goal_incomplete
  goal_completion_variable
  mark_complete_when_no_leads
  created_at
  updated_at
  stats {
    leads
    calls_in_progress
    attempts
    total_cost
  }
}`) as unknown as TypedDocumentString<ConsoleStartCampaignMutation, ConsoleStartCampaignMutationVariables>;
export const ConsoleStopCampaignDocument = new TypedDocumentString(`
    mutation ConsoleStopCampaign($id: Int!) {
  stopCampaign(id: $id) {
    ...ConsoleCampaignFields
  }
}
    fragment ConsoleCampaignFields on Campaign {
  id
  name
  status
  paused_reason
  assistant_id
  phone_number_ids
  allowed_days
  allowed_hours_start_time
  allowed_hours_end_time
  timezone
  window_open
  next_window_at
  max_calls_in_parallel
  max_retries
  retry_interval
  retry_on_voicemail
  retry_on_goal_incomplete
  goal_completion_variable
  mark_complete_when_no_leads
  created_at
  updated_at
  stats {
    leads
    calls_in_progress
    attempts
    total_cost
  }
}`) as unknown as TypedDocumentString<ConsoleStopCampaignMutation, ConsoleStopCampaignMutationVariables>;
export const ConsoleDeleteCampaignDocument = new TypedDocumentString(`
    mutation ConsoleDeleteCampaign($id: Int!) {
  deleteCampaign(id: $id)
}
    `) as unknown as TypedDocumentString<ConsoleDeleteCampaignMutation, ConsoleDeleteCampaignMutationVariables>;
export const ConsoleImportLeadsDocument = new TypedDocumentString(`
    mutation ConsoleImportLeads($input: ImportLeadsInput!) {
  importLeads(input: $input) {
    ...ConsoleLeadImportFields
  }
}
    fragment ConsoleLeadImportFields on LeadImport {
  id
  campaign_id
  status
  rows_total
  rows_read
  created
  duplicates
  blacklisted
  invalid
  failure
  errors {
    line
    field
    message
  }
}`) as unknown as TypedDocumentString<ConsoleImportLeadsMutation, ConsoleImportLeadsMutationVariables>;
export const ConsoleLeadImportLiveDocument = new TypedDocumentString(`
    subscription ConsoleLeadImportLive($id: Int!) {
  leadImportUpdated(id: $id) {
    ...ConsoleLeadImportFields
  }
}
    fragment ConsoleLeadImportFields on LeadImport {
  id
  campaign_id
  status
  rows_total
  rows_read
  created
  duplicates
  blacklisted
  invalid
  failure
  errors {
    line
    field
    message
  }
}`) as unknown as TypedDocumentString<ConsoleLeadImportLiveSubscription, ConsoleLeadImportLiveSubscriptionVariables>;
export const ConsoleLeadsDocument = new TypedDocumentString(`
    query ConsoleLeads($campaign_id: Int!, $page: Int, $per_page: Int, $status: String, $phone_number: String) {
  leads(
    campaign_id: $campaign_id
    page: $page
    per_page: $per_page
    status: $status
    phone_number: $phone_number
  ) {
    current_page
    last_page
    per_page
    total
    from
    to
    data {
      id
      phone_number
      status
      attempts
      next_attempt_at
      variables
      updated_at
    }
  }
}
    `) as unknown as TypedDocumentString<ConsoleLeadsQuery, ConsoleLeadsQueryVariables>;
export const ConsoleLeadLiveDocument = new TypedDocumentString(`
    subscription ConsoleLeadLive($campaign_id: Int) {
  leadUpdated(campaign_id: $campaign_id) {
    id
    status
    attempts
    next_attempt_at
    updated_at
  }
}
    `) as unknown as TypedDocumentString<ConsoleLeadLiveSubscription, ConsoleLeadLiveSubscriptionVariables>;
export const ConsoleLeadDetailDocument = new TypedDocumentString(`
    query ConsoleLeadDetail($id: Int!, $campaign_id: Int!, $phone_number: String!) {
  lead(id: $id) {
    id
    phone_number
    status
    attempts
    variables
    secondary_contacts {
      id
      phone_number
      status
    }
  }
  calls(campaign_id: $campaign_id, phone_number: $phone_number, per_page: 50) {
    data {
      id
      attempt
      status
      duration
      total_cost
      created_at
      client_phone_number
      lead_id
    }
  }
}
    `) as unknown as TypedDocumentString<ConsoleLeadDetailQuery, ConsoleLeadDetailQueryVariables>;
export const ConsoleCreateLeadDocument = new TypedDocumentString(`
    mutation ConsoleCreateLead($input: CreateLeadInput!) {
  createLead(input: $input) {
    id
  }
}
    `) as unknown as TypedDocumentString<ConsoleCreateLeadMutation, ConsoleCreateLeadMutationVariables>;
export const ConsoleToolsDocument = new TypedDocumentString(`
    query ConsoleTools {
  tools {
    id
    name
    description
    endpoint
    method
    timeout
    speak_during
    headers {
      name
      value
    }
    schema {
      name
      type
      description
    }
    updated_at
  }
}
    `) as unknown as TypedDocumentString<ConsoleToolsQuery, ConsoleToolsQueryVariables>;
export const ConsoleCreateToolDocument = new TypedDocumentString(`
    mutation ConsoleCreateTool($input: CreateToolInput!) {
  createTool(input: $input) {
    id
  }
}
    `) as unknown as TypedDocumentString<ConsoleCreateToolMutation, ConsoleCreateToolMutationVariables>;
export const ConsoleUpdateToolDocument = new TypedDocumentString(`
    mutation ConsoleUpdateTool($id: Int!, $input: UpdateToolInput!) {
  updateTool(id: $id, input: $input) {
    id
  }
}
    `) as unknown as TypedDocumentString<ConsoleUpdateToolMutation, ConsoleUpdateToolMutationVariables>;
export const ConsoleDeleteToolDocument = new TypedDocumentString(`
    mutation ConsoleDeleteTool($id: Int!) {
  deleteTool(id: $id)
}
    `) as unknown as TypedDocumentString<ConsoleDeleteToolMutation, ConsoleDeleteToolMutationVariables>;
export const ConsolePhoneNumbersDocument = new TypedDocumentString(`
    query ConsolePhoneNumbers {
  phoneNumbers {
    id
    phone_number
    nickname
    sms_capable
    expires_at
    assistant_id
    monthly_price
    renews
  }
  assistants {
    id
    assistant_name
  }
  me {
    id
    balance
    currency
  }
}
    `) as unknown as TypedDocumentString<ConsolePhoneNumbersQuery, ConsolePhoneNumbersQueryVariables>;
export const ConsoleAvailablePhoneNumbersDocument = new TypedDocumentString(`
    query ConsoleAvailablePhoneNumbers($country_code: String, $contains: String) {
  availablePhoneNumbers(country_code: $country_code, contains: $contains) {
    phone_number
    friendly_name
    locality
    region
    iso_country
    capabilities {
      voice
      sms
      mms
    }
    monthly_price
  }
}
    `) as unknown as TypedDocumentString<ConsoleAvailablePhoneNumbersQuery, ConsoleAvailablePhoneNumbersQueryVariables>;
export const ConsolePurchasePhoneNumberDocument = new TypedDocumentString(`
    mutation ConsolePurchasePhoneNumber($input: PurchasePhoneNumberInput!) {
  purchasePhoneNumber(input: $input) {
    id
    phone_number
  }
}
    `) as unknown as TypedDocumentString<ConsolePurchasePhoneNumberMutation, ConsolePurchasePhoneNumberMutationVariables>;
export const ConsoleUpdatePhoneNumberDocument = new TypedDocumentString(`
    mutation ConsoleUpdatePhoneNumber($id: Int!, $input: UpdatePhoneNumberInput!) {
  updatePhoneNumber(id: $id, input: $input) {
    id
    nickname
  }
}
    `) as unknown as TypedDocumentString<ConsoleUpdatePhoneNumberMutation, ConsoleUpdatePhoneNumberMutationVariables>;
export const ConsoleReleasePhoneNumberDocument = new TypedDocumentString(`
    mutation ConsoleReleasePhoneNumber($id: Int!) {
  releasePhoneNumber(id: $id)
}
    `) as unknown as TypedDocumentString<ConsoleReleasePhoneNumberMutation, ConsoleReleasePhoneNumberMutationVariables>;
export const ConsoleDncDocument = new TypedDocumentString(`
    query ConsoleDnc {
  dncNumbers {
    phone_number
    created_at
  }
}
    `) as unknown as TypedDocumentString<ConsoleDncQuery, ConsoleDncQueryVariables>;
export const ConsoleAddDncDocument = new TypedDocumentString(`
    mutation ConsoleAddDnc($phone_number: String!) {
  addDncNumber(phone_number: $phone_number) {
    phone_number
  }
}
    `) as unknown as TypedDocumentString<ConsoleAddDncMutation, ConsoleAddDncMutationVariables>;
export const ConsoleRemoveDncDocument = new TypedDocumentString(`
    mutation ConsoleRemoveDnc($phone_number: String!) {
  removeDncNumber(phone_number: $phone_number)
}
    `) as unknown as TypedDocumentString<ConsoleRemoveDncMutation, ConsoleRemoveDncMutationVariables>;
export const ConsoleWebhookEndpointsDocument = new TypedDocumentString(`
    query ConsoleWebhookEndpoints {
  webhookEndpoints {
    id
    url
    events
    disabled_at
    created_at
  }
}
    `) as unknown as TypedDocumentString<ConsoleWebhookEndpointsQuery, ConsoleWebhookEndpointsQueryVariables>;
export const ConsoleWebhookEndpointDocument = new TypedDocumentString(`
    query ConsoleWebhookEndpoint($id: Int!) {
  webhookEndpoint(id: $id) {
    id
    url
    events
    disabled_at
    created_at
    deliveries(last: 50) {
      id
      event_type
      status
      created_at
      next_attempt_at
      payload
      attempts {
        attempt
        status_code
        error
        latency_ms
        created_at
        response_body
      }
    }
  }
}
    `) as unknown as TypedDocumentString<ConsoleWebhookEndpointQuery, ConsoleWebhookEndpointQueryVariables>;
export const ConsoleCreateWebhookEndpointDocument = new TypedDocumentString(`
    mutation ConsoleCreateWebhookEndpoint($url: String!, $events: [String!]!) {
  createWebhookEndpoint(url: $url, events: $events) {
    id
    secret
    warning
  }
}
    `) as unknown as TypedDocumentString<ConsoleCreateWebhookEndpointMutation, ConsoleCreateWebhookEndpointMutationVariables>;
export const ConsoleDeleteWebhookEndpointDocument = new TypedDocumentString(`
    mutation ConsoleDeleteWebhookEndpoint($id: Int!) {
  deleteWebhookEndpoint(id: $id)
}
    `) as unknown as TypedDocumentString<ConsoleDeleteWebhookEndpointMutation, ConsoleDeleteWebhookEndpointMutationVariables>;
export const ConsoleApiTokensDocument = new TypedDocumentString(`
    query ConsoleApiTokens {
  apiTokens {
    id
    prefix
    name
    created_at
    last_used_at
  }
}
    `) as unknown as TypedDocumentString<ConsoleApiTokensQuery, ConsoleApiTokensQueryVariables>;
export const ConsoleCreateApiTokenDocument = new TypedDocumentString(`
    mutation ConsoleCreateApiToken($name: String) {
  createApiToken(name: $name) {
    token
    api_token {
      id
      prefix
    }
  }
}
    `) as unknown as TypedDocumentString<ConsoleCreateApiTokenMutation, ConsoleCreateApiTokenMutationVariables>;
export const ConsoleRevokeApiTokenDocument = new TypedDocumentString(`
    mutation ConsoleRevokeApiToken($id: Int!) {
  revokeApiToken(id: $id)
}
    `) as unknown as TypedDocumentString<ConsoleRevokeApiTokenMutation, ConsoleRevokeApiTokenMutationVariables>;
export const ConsoleVoiceVendorsDocument = new TypedDocumentString(`
    query ConsoleVoiceVendors {
  voiceVendors {
    code
    name
    parts
    configured
    hosted
    variables
  }
}
    `) as unknown as TypedDocumentString<ConsoleVoiceVendorsQuery, ConsoleVoiceVendorsQueryVariables>;