import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import { findForUpdate } from '../../db/locks';
import { FieldErrorCollector, FieldMessages, Messages, NotFoundError, ValidationError } from '../../errors';
import { toE164 } from '../../lib/phone';
import { checkHttpUrl, checkIntRange, checkLength, checkNumberRange, checkOneOf, checkPositiveInt } from '../../lib/checks';
import { Account } from '../accounts/account.entity';
import { PhoneNumber } from '../accounts/phone-number.entity';
import { findLanguage, findLanguageByName, findModel, findVisibleVoice } from '../catalog/catalog.service';
import { ENGINE_TYPES, Voice, type EngineType } from '../catalog/voice.entity';
import type { Scope } from '../scope';
import { BUILT_IN_TRANSCRIBERS } from './assistant.voice';
import { Tool } from '../tools/tool.entity';
import { KnowledgeBase } from '../knowledge/knowledge-base.entity';
import { Folder } from '../organize/folder.entity';
import { Label } from '../organize/label.entity';
import {
  ASSISTANT_DEFAULTS,
  Assistant,
  CALLS_DIRECTIONS,
  ENDPOINT_TYPES,
  KNOWLEDGE_BASE_MODES,
  POST_CALL_TYPES,
  TRANSFER_MODES,
  WHO_SPEAKS_FIRST,
  type AssistantSettings,
  type CallsDirection,
  type PostCallSchemaItem,
  type Pronunciation,
  type TransferNumber,
} from './assistant.entity';
import type { CreateAssistantInput, UpdateAssistantInput } from './assistant.inputs';

type Input = CreateAssistantInput | UpdateAssistantInput;

/** Numeric settings and their ranges, from the spec's Limits table. */
const RANGES = {
  endpoint_sensitivity: [0, 5],
  interrupt_sensitivity: [0, 5],
  ambient_sound_volume: [0, 1],
  llm_temperature: [0, 1],
  voice_stability: [0, 1],
  voice_similarity: [0, 1],
  speech_speed: [0.7, 1.2],
} as const;
const INT_RANGES = {
  min_interrupt_words: [0, 10],
  re_engagement_interval: [7, 600],
  max_call_duration: [20, 1200],
  max_silence_duration: [1, 120],
  false_interruption_timeout_ms: [0, 10_000],
  voicemail_beep_timeout_seconds: [1, 60],
} as const;
const BOOLEANS = [
  'post_call_evaluation',
  'send_webhook_only_on_completed',
  'include_recording_in_webhook',
  'use_min_interrupt_words',
  'allow_interruptions',
  'filler_audios',
  'end_call_on_voicemail',
  'noise_cancellation',
  'record_call',
] as const;
const TEXTS = { assistant_name: 255, llm_model: 100, initial_message: 5000, system_prompt: 50_000 } as const;
const MAX_POST_CALL_ITEMS = 50;
/** `voicemail_message`: what a mailbox takes without cutting it short. */
const VOICEMAIL_MESSAGE_CHARS = 1000;
/**
 * Lists of words: how many, and each one's length. Deepgram takes at most 500 tokens of
 * keyterms a stream (https://developers.deepgram.com/docs/keyterm), about 50 short phrases.
 */
const WORD_LISTS = {
  keyterms: { maxItems: 50, maxLength: 100 },
  backchannel_words: { maxItems: 50, maxLength: 50 },
} as const;
const PRONUNCIATIONS = { maxItems: 100, word: 100, say_as: 200 } as const;
const TRANSFERS = { maxItems: 10, description: 200, message: 500 } as const;
/** `label_ids`: more than any badge row shows. */
const MAX_LABELS = 50;
/** `fallback_models`: each one costs the caller's wait when the one before fails. */
const MAX_FALLBACK_MODELS = 3;
/** The limits above, for the API's description. */
export const ASSISTANT_RULES = {
  ranges: RANGES,
  intRanges: INT_RANGES,
  texts: TEXTS,
  maxPostCallItems: MAX_POST_CALL_ITEMS,
  wordLists: WORD_LISTS,
  pronunciations: PRONUNCIATIONS,
  voicemailMessage: VOICEMAIL_MESSAGE_CHARS,
  transfers: TRANSFERS,
  maxFallbackModels: MAX_FALLBACK_MODELS,
} as const;
const POST_CALL_NAME = /^[A-Za-z0-9_]+$/;
const TIME_ZONE = /^[A-Za-z]+(?:\/[A-Za-z0-9_+-]+)+$/;

/** Fields that a `null` clears on update; null for any other field is refused. */
const NULLABLE = new Set([
  'phone_number_id',
  'tool_ids',
  'webhook_url',
  'variables',
  'post_call_schema',
  'end_call_tool',
  'keyterms',
  'fallback_models',
  'fallback_voice_id',
  'pronunciations',
  'backchannel_words',
  'voicemail_message',
  'transfer_numbers',
  'transfer_message',
  'knowledgebase_id',
  'folder_id',
  'label_ids',
]);

/** The assistant's column values that a request sets, after every check. */
interface Changes extends Partial<Omit<AssistantSettings, 'webhook_url'>> {
  assistant_name?: string;
  language?: string;
  llm_model?: string;
  calls_direction?: CallsDirection;
  engine_type?: EngineType;
  timezone?: string;
  initial_message?: string;
  system_prompt?: string;
  webhook_url?: string | null;
  folder_id?: number | null;
}

interface Resolved {
  changes: Changes;
  voice?: Voice;
  phoneNumber?: PhoneNumber | null;
  toolIds?: number[];
  labelIds?: number[];
}

/** An IANA zone of the form Area/City that this runtime knows. */
export function isTimeZone(name: string): boolean {
  if (!TIME_ZONE.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** Checks what needs no database: types are the schema's job, values and ranges are here. */
function checkValues(input: Input, errors: FieldErrorCollector): Changes {
  const changes: Changes = {};
  for (const [field, value] of Object.entries(input)) {
    if (value === null && !NULLABLE.has(field)) errors.add(field, FieldMessages.required(field));
  }
  for (const [field, max] of Object.entries(TEXTS) as [keyof typeof TEXTS, number][]) {
    const value = input[field];
    if (value != null) {
      const text = checkLength(errors, field, value, 1, max);
      if (text !== null) changes[field] = text;
    }
  }
  if (input.language != null) checkLength(errors, 'language', input.language, 1, 100);
  if (input.calls_direction != null && checkOneOf(errors, 'calls_direction', input.calls_direction, CALLS_DIRECTIONS)) {
    changes.calls_direction = input.calls_direction;
  }
  if (input.engine_type != null && checkOneOf(errors, 'engine_type', input.engine_type, ENGINE_TYPES)) {
    changes.engine_type = input.engine_type;
  }
  if (input.endpoint_type != null && checkOneOf(errors, 'endpoint_type', input.endpoint_type, ENDPOINT_TYPES)) {
    changes.endpoint_type = input.endpoint_type;
  }
  if (input.who_speaks_first != null && checkOneOf(errors, 'who_speaks_first', input.who_speaks_first, WHO_SPEAKS_FIRST)) {
    changes.who_speaks_first = input.who_speaks_first;
  }
  if (input.timezone != null) {
    const zone = input.timezone.trim();
    if (isTimeZone(zone)) changes.timezone = zone;
    else errors.add('timezone', FieldMessages.timezone('timezone'));
  }
  for (const [field, [min, max]] of Object.entries(RANGES) as [keyof typeof RANGES, readonly [number, number]][]) {
    const value = input[field];
    if (value != null && checkNumberRange(errors, field, value, min, max)) changes[field] = value;
  }
  for (const [field, [min, max]] of Object.entries(INT_RANGES) as [keyof typeof INT_RANGES, readonly [number, number]][]) {
    const value = input[field];
    if (value != null && checkIntRange(errors, field, value, min, max)) changes[field] = value;
  }
  for (const field of BOOLEANS) {
    const value = input[field];
    if (value != null) changes[field] = value;
  }
  if (input.is_webhook_active != null) changes.is_webhook_active = input.is_webhook_active;
  if (input.webhook_url !== undefined) {
    changes.webhook_url = input.webhook_url === null ? null : (checkHttpUrl(errors, 'webhook_url', input.webhook_url) ?? undefined);
  }
  if (input.variables !== undefined) changes.variables = input.variables ?? {};
  if (input.post_call_schema !== undefined) changes.post_call_schema = checkPostCallSchema(errors, input.post_call_schema ?? []);
  if (input.keyterms !== undefined) changes.keyterms = checkWords(errors, 'keyterms', input.keyterms ?? []);
  // null is a value of its own: the language's defaults ([] is none at all).
  if (input.backchannel_words !== undefined) {
    changes.backchannel_words = input.backchannel_words === null ? null : checkWords(errors, 'backchannel_words', input.backchannel_words);
  }
  // Blank is none, as null: a mailbox is never left an empty message.
  if (input.voicemail_message !== undefined) {
    const message = input.voicemail_message?.trim() ?? '';
    if (message.length > VOICEMAIL_MESSAGE_CHARS) errors.add('voicemail_message', FieldMessages.maxLength('voicemail_message', VOICEMAIL_MESSAGE_CHARS));
    else changes.voicemail_message = message === '' ? null : message;
  }
  if (input.pronunciations !== undefined) changes.pronunciations = checkPronunciations(errors, input.pronunciations ?? []);
  if (input.knowledgebase_mode != null && checkOneOf(errors, 'knowledgebase_mode', input.knowledgebase_mode, KNOWLEDGE_BASE_MODES)) {
    changes.knowledgebase_mode = input.knowledgebase_mode;
  }
  if (input.transfer_mode != null && checkOneOf(errors, 'transfer_mode', input.transfer_mode, TRANSFER_MODES)) {
    changes.transfer_mode = input.transfer_mode;
  }
  if (input.transfer_message !== undefined) {
    const message = input.transfer_message?.trim() ?? '';
    if (message.length > TRANSFERS.message) errors.add('transfer_message', FieldMessages.maxLength('transfer_message', TRANSFERS.message));
    else changes.transfer_message = message || null;
  }
  if (input.end_call_tool !== undefined) {
    const description = input.end_call_tool?.description ?? null;
    if (description !== null && description.length > 500) {
      errors.add('end_call_tool.description', FieldMessages.maxLength('end_call_tool.description', 500));
    } else {
      changes.end_call_tool_description = description === null || description.trim() === '' ? null : description.trim();
    }
  }
  if (input.tool_ids != null) {
    input.tool_ids.forEach((id, index) => {
      if (id < 1) errors.add(`tool_ids.${index}`, FieldMessages.invalidSelection(`tool_ids.${index}`));
    });
  }
  if (input.phone_number_id != null && input.phone_number_id < 1) {
    errors.add('phone_number_id', FieldMessages.invalidSelection('phone_number_id'));
  }
  if (input.folder_id != null && input.folder_id < 1) errors.add('folder_id', FieldMessages.invalidSelection('folder_id'));
  if (input.label_ids != null) {
    if (input.label_ids.length > MAX_LABELS) errors.add('label_ids', FieldMessages.maxItems('label_ids', MAX_LABELS));
    input.label_ids.forEach((id, index) => {
      if (id < 1) errors.add(`label_ids.${index}`, FieldMessages.invalidSelection(`label_ids.${index}`));
    });
  }
  return changes;
}

function checkPostCallSchema(errors: FieldErrorCollector, items: NonNullable<Input['post_call_schema']>): PostCallSchemaItem[] {
  if (items.length > MAX_POST_CALL_ITEMS) errors.add('post_call_schema', FieldMessages.maxItems('post_call_schema', MAX_POST_CALL_ITEMS));
  const seen = new Set<string>();
  return items.map((item, index) => {
    const field = (key: string) => `post_call_schema.${index}.${key}`;
    const name = item.name.trim();
    if (!name) errors.add(field('name'), FieldMessages.required(field('name')));
    else if (name.length > 64) errors.add(field('name'), FieldMessages.maxLength(field('name'), 64));
    else if (!POST_CALL_NAME.test(name)) errors.add(field('name'), FieldMessages.postCallName(field('name')));
    else if (seen.has(name)) errors.add(field('name'), FieldMessages.distinct(field('name')));
    seen.add(name);
    checkOneOf(errors, field('type'), item.type, POST_CALL_TYPES);
    const description = checkLength(errors, field('description'), item.description, 1, 255);
    return { name, type: item.type as PostCallSchemaItem['type'], description: description ?? '' };
  });
}

/** A list of words or phrases: each trimmed, non-empty, bounded and said once (case aside). */
function checkWords(errors: FieldErrorCollector, field: keyof typeof WORD_LISTS, items: string[]): string[] {
  const { maxItems, maxLength } = WORD_LISTS[field];
  if (items.length > maxItems) errors.add(field, FieldMessages.maxItems(field, maxItems));
  const seen = new Set<string>();
  return items.map((item, index) => {
    const text = checkLength(errors, `${field}.${index}`, item, 1, maxLength);
    if (text === null) return '';
    const key = text.toLowerCase();
    if (seen.has(key)) errors.add(`${field}.${index}`, FieldMessages.distinct(`${field}.${index}`));
    seen.add(key);
    return text;
  });
}

/** At most MAX_FALLBACK_MODELS models of the catalogue of type llm, each once. */
async function checkFallbackModels(scope: Scope, errors: FieldErrorCollector, names: string[]): Promise<string[]> {
  if (names.length > MAX_FALLBACK_MODELS) errors.add('fallback_models', FieldMessages.maxItems('fallback_models', MAX_FALLBACK_MODELS));
  const trimmed = names.map((name) => name.trim());
  const known = new Set(
    trimmed.length
      ? (
          await scope.em.execute<{ name: string }[]>(`select name from models where type = 'llm' and name in (select jsonb_array_elements_text(?::jsonb))`, [
            JSON.stringify(trimmed),
          ])
        ).map((row) => row.name)
      : [],
  );
  trimmed.forEach((name, index) => {
    const field = `fallback_models.${index}`;
    if (!known.has(name)) errors.add(field, FieldMessages.invalidSelection(field));
    else if (trimmed.indexOf(name) < index) errors.add(field, FieldMessages.distinct(field));
  });
  return trimmed;
}

/**
 * `fallback_voice_id`: a voice the account sees that a text-to-speech vendor speaks (it names
 * its provider: a built-in vendor or, later, a hosted one); null clears it.
 */
async function checkFallbackVoice(scope: Scope, errors: FieldErrorCollector, id: number | null): Promise<number | null> {
  if (id === null) return null;
  const voice = id >= 1 ? await findVisibleVoice(scope, id) : null;
  if (!voice || voice.mode !== 'pipeline' || voice.provider === null) errors.add('fallback_voice_id', FieldMessages.invalidSelection('fallback_voice_id'));
  return id;
}

function checkPronunciations(errors: FieldErrorCollector, items: NonNullable<Input['pronunciations']>): Pronunciation[] {
  if (items.length > PRONUNCIATIONS.maxItems) errors.add('pronunciations', FieldMessages.maxItems('pronunciations', PRONUNCIATIONS.maxItems));
  const seen = new Set<string>();
  return items.map((item, index) => {
    const field = (key: string) => `pronunciations.${index}.${key}`;
    const word = checkLength(errors, field('word'), item.word, 1, PRONUNCIATIONS.word);
    if (word !== null && seen.has(word.toLowerCase())) errors.add(field('word'), FieldMessages.distinct(field('word')));
    if (word !== null) seen.add(word.toLowerCase());
    const sayAs = checkLength(errors, field('say_as'), item.say_as, 1, PRONUNCIATIONS.say_as);
    return { word: word ?? '', say_as: sayAs ?? '' };
  });
}

/** Where transfer_call may go: each a phone number (E.164 in the end) said once, with what the model is told of it. */
function checkTransferNumbers(errors: FieldErrorCollector, items: NonNullable<Input['transfer_numbers']>, region: Scope['config']['defaultPhoneRegion']): TransferNumber[] {
  if (items.length > TRANSFERS.maxItems) errors.add('transfer_numbers', FieldMessages.maxItems('transfer_numbers', TRANSFERS.maxItems));
  const seen = new Set<string>();
  return items.map((item, index) => {
    const field = (key: string) => `transfer_numbers.${index}.${key}`;
    const number = toE164(item.number, region);
    if (!number) errors.add(field('number'), FieldMessages.phone(field('number')));
    else if (seen.has(number)) errors.add(field('number'), FieldMessages.distinct(field('number')));
    if (number) seen.add(number);
    const description = checkLength(errors, field('description'), item.description, 1, TRANSFERS.description);
    return { number: number ?? '', description: description ?? '' };
  });
}

/**
 * Every rule of the spec's assistant table, for create (`current` undefined) and update.
 * Nothing is written until all of them pass.
 */
async function resolve(scope: Scope, input: Input, current?: Assistant): Promise<Resolved> {
  const errors = new FieldErrorCollector();
  const changes = checkValues(input, errors);
  const resolved: Resolved = { changes };

  if (input.language != null && !errors.has('language')) {
    const language = await findLanguageByName(scope, input.language.trim());
    if (language) changes.language = language.name;
    else errors.add('language', FieldMessages.language);
  }
  // The catalogue's ids stand for the names; both may come, naming the same entry.
  const byId = [
    { field: 'language', id: input.language_id, find: findLanguage },
    { field: 'llm_model', id: input.llm_model_id, find: findModel },
  ] as const;
  for (const { field, id, find } of byId) {
    if (id == null) continue;
    const idField = `${field}_id`;
    const entry = id >= 1 ? await find(scope, id) : null;
    if (!entry) errors.add(idField, FieldMessages.invalidSelection(idField));
    else if (input[field] == null) changes[field] = entry.name;
    else if (!errors.has(field) && changes[field] !== entry.name) errors.add(idField, FieldMessages.sameField(idField, field));
  }
  if (input.transcriber != null) {
    // A name this server knows now; one removed from STT_PROVIDERS later is a missing variable at the call (voice_missing).
    const known = [...BUILT_IN_TRANSCRIBERS, ...Object.keys(scope.config.voice.pipeline.sttProviders)];
    const name = input.transcriber.trim().toLowerCase();
    if (checkOneOf(errors, 'transcriber', name, known)) changes.transcriber = name;
  }
  if (input.fallback_models !== undefined) changes.fallback_models = await checkFallbackModels(scope, errors, input.fallback_models ?? []);
  if (input.fallback_voice_id !== undefined) changes.fallback_voice_id = await checkFallbackVoice(scope, errors, input.fallback_voice_id);
  if (!current) {
    for (const field of ['language', 'llm_model'] as const) {
      if (changes[field] === undefined && !errors.has(field) && !errors.has(`${field}_id`)) errors.add(field, FieldMessages.required(field));
    }
  }

  const engine = changes.engine_type ?? current?.engine_type;
  const voiceId = input.voice_id ?? (changes.engine_type ? current?.voice.id : undefined);
  if (voiceId != null && !errors.has('engine_type')) {
    const voice = voiceId >= 1 ? await findVisibleVoice(scope, voiceId) : null;
    if (!voice) errors.add('voice_id', FieldMessages.invalidSelection('voice_id'));
    else if (engine && voice.mode !== engine) errors.add('voice_id', FieldMessages.voiceEngineMismatch(engine));
    else resolved.voice = voice;
  }

  if (input.knowledgebase_id === null) changes.knowledgebase_id = null;
  else if (input.knowledgebase_id !== undefined) {
    const owned = input.knowledgebase_id >= 1 && (await scope.em.count(KnowledgeBase, { id: input.knowledgebase_id, account: scope.accountId })) > 0;
    if (owned) changes.knowledgebase_id = input.knowledgebase_id;
    else errors.add('knowledgebase_id', FieldMessages.invalidSelection('knowledgebase_id'));
  }
  // The original platform's rule: the Realtime engine has no turn of the caller's to search before it answers.
  const mode = changes.knowledgebase_mode ?? current?.knowledgebase_mode ?? ASSISTANT_DEFAULTS.knowledgebase_mode;
  if (mode === 'prompt' && engine === 'multimodal' && !errors.has('knowledgebase_mode') && !errors.has('engine_type')) {
    errors.add('knowledgebase_mode', FieldMessages.knowledgeBaseModeMultimodal);
  }

  if (input.transfer_numbers !== undefined) changes.transfer_numbers = checkTransferNumbers(errors, input.transfer_numbers ?? [], scope.config.defaultPhoneRegion);

  if (input.phone_number_id === null) resolved.phoneNumber = null;
  else if (input.phone_number_id != null && !errors.has('phone_number_id')) {
    const phone = await scope.em.findOne(PhoneNumber, { id: input.phone_number_id, account: scope.accountId });
    if (phone) resolved.phoneNumber = phone;
    else errors.add('phone_number_id', FieldMessages.invalidSelection('phone_number_id'));
  }

  if (input.tool_ids !== undefined) {
    const ids = [...new Set(input.tool_ids ?? [])];
    const owned = ids.length
      ? new Set((await scope.em.find(Tool, { id: { $in: ids }, account: scope.accountId }, { fields: ['id'] })).map((t) => t.id))
      : new Set<number>();
    (input.tool_ids ?? []).forEach((id, index) => {
      const field = `tool_ids.${index}`;
      if (!owned.has(id) && !errors.has(field)) errors.add(field, FieldMessages.invalidSelection(field));
    });
    resolved.toolIds = ids;
  }

  // Another account's folder or label is an invalid selection, as a missing one is.
  if (input.folder_id === null) changes.folder_id = null;
  else if (input.folder_id !== undefined && !errors.has('folder_id')) {
    if ((await scope.em.count(Folder, { id: input.folder_id, account: scope.accountId })) > 0) changes.folder_id = input.folder_id;
    else errors.add('folder_id', FieldMessages.invalidSelection('folder_id'));
  }
  if (input.label_ids !== undefined && !errors.has('label_ids')) {
    const ids = [...new Set(input.label_ids ?? [])];
    const owned = ids.length
      ? new Set((await scope.em.find(Label, { id: { $in: ids }, account: scope.accountId }, { fields: ['id'] })).map((label) => label.id))
      : new Set<number>();
    (input.label_ids ?? []).forEach((id, index) => {
      const field = `label_ids.${index}`;
      if (!owned.has(id) && !errors.has(field)) errors.add(field, FieldMessages.invalidSelection(field));
    });
    resolved.labelIds = ids;
  }

  // The webhook is on only with a URL: a null URL or an explicit false turns it off.
  if (changes.webhook_url === null) changes.is_webhook_active = false;
  if (input.is_webhook_active === false && input.webhook_url === undefined) changes.webhook_url = null;
  const active = changes.is_webhook_active ?? current?.is_webhook_active ?? ASSISTANT_DEFAULTS.is_webhook_active;
  const url = changes.webhook_url !== undefined ? changes.webhook_url : (current?.webhook_url ?? null);
  if (active && url === null && !errors.has('webhook_url')) errors.add('webhook_url', FieldMessages.requiredWhenWebhookActive);

  errors.throwIfAny();
  return resolved;
}

/**
 * The assistant's labels, exactly `labelIds`. Only the account's labels are inserted: one
 * deleted since the request was checked is left out rather than failing the whole write.
 */
async function replaceLabels(em: EntityManager, accountId: number, assistantId: number, labelIds: number[]): Promise<void> {
  await em.execute('delete from assistant_labels where assistant_id = ?', [assistantId]);
  if (labelIds.length) {
    await em.execute(`insert into assistant_labels (assistant_id, label_id) select ?, id from labels where id = any(?::int[]) and account_id = ?`, [
      assistantId,
      `{${labelIds.join(',')}}`,
      accountId,
    ]);
  }
}

/**
 * The folder the request puts the assistant in, held (FOR KEY SHARE, which the foreign key would
 * take anyway) until the write commits; one deleted since the request was checked is an invalid
 * selection, not a foreign-key failure.
 */
async function holdFolder(em: EntityManager, accountId: number, folderId: number | null | undefined): Promise<void> {
  if (folderId == null) return;
  const rows = await em.execute('select id from folders where id = ? and account_id = ? for key share', [folderId, accountId]);
  if (rows.length === 0) throw new ValidationError({ folder_id: [FieldMessages.invalidSelection('folder_id')] });
}

async function replaceTools(em: EntityManager, assistantId: number, toolIds: number[]): Promise<void> {
  await em.execute('delete from assistant_tools where assistant_id = ?', [assistantId]);
  if (toolIds.length) {
    await em.execute(
      `insert into assistant_tools (assistant_id, tool_id) select ?, unnest(?::int[])`,
      [assistantId, `{${toolIds.join(',')}}`],
    );
  }
}

export async function createAssistant(scope: Scope, input: CreateAssistantInput): Promise<Assistant> {
  const { changes, voice, phoneNumber, toolIds, labelIds } = await resolve(scope, input);
  return scope.em.transactional(async (em) => {
    await holdFolder(em, scope.accountId, changes.folder_id);
    const assistant = em.create(Assistant, {
      ...ASSISTANT_DEFAULTS,
      ...(changes as Required<Pick<Changes, 'assistant_name' | 'language' | 'llm_model' | 'calls_direction' | 'engine_type' | 'timezone' | 'initial_message' | 'system_prompt'>>),
      account: em.getReference(Account, scope.accountId),
      voice: voice!,
      phone_number: phoneNumber ?? null,
    });
    await em.flush();
    if (toolIds?.length) await replaceTools(em, assistant.id, toolIds);
    if (labelIds?.length) await replaceLabels(em, scope.accountId, assistant.id, labelIds);
    return assistant;
  });
}

export async function updateAssistant(scope: Scope, id: number, input: UpdateAssistantInput): Promise<Assistant> {
  const assistant = await requireAssistant(scope, id);
  const { changes, voice, phoneNumber, toolIds, labelIds } = await resolve(scope, input, assistant);
  return scope.em.transactional(async (em) => {
    // Concurrent updates of one assistant run one after the other, so its tool set is
    // always exactly one request's set (the delete and insert of replaceTools see the last).
    // The row is read under its lock, in the transaction: a run again after a deadlock
    // changes it afresh (src/db/entity-manager.ts).
    const locked = await findForUpdate(em, Assistant, assistant.id, scope.accountId);
    if (!locked) throw new NotFoundError(Messages.assistantNotFound);
    await holdFolder(em, scope.accountId, changes.folder_id);
    em.assign(locked, changes);
    if (voice) locked.voice = voice;
    if (phoneNumber !== undefined) locked.phone_number = phoneNumber;
    await em.flush();
    if (toolIds) await replaceTools(em, locked.id, toolIds);
    if (labelIds) await replaceLabels(em, scope.accountId, locked.id, labelIds);
    return locked;
  });
}

export async function requireAssistant(scope: Scope, id: number): Promise<Assistant> {
  const assistant = await scope.em.findOne(Assistant, { id, account: scope.accountId });
  if (!assistant) throw new NotFoundError(Messages.assistantNotFound);
  return assistant;
}

export interface AssistantFilters {
  calls_direction?: string | null;
  folder_id?: number | null;
  label_id?: number | null;
}

/**
 * The account's assistants, oldest first; only those of one direction, in one folder or with
 * one label when these are given (another account's folder or label: none).
 */
export async function listAssistants(scope: Scope, filters: AssistantFilters = {}): Promise<Assistant[]> {
  const errors = new FieldErrorCollector();
  if (filters.calls_direction != null) checkOneOf(errors, 'calls_direction', filters.calls_direction, CALLS_DIRECTIONS);
  if (filters.folder_id != null) checkPositiveInt(errors, 'folder_id', filters.folder_id);
  if (filters.label_id != null) checkPositiveInt(errors, 'label_id', filters.label_id);
  errors.throwIfAny();
  const where: FilterQuery<Assistant> = { account: scope.accountId };
  if (filters.calls_direction != null) where.calls_direction = filters.calls_direction as CallsDirection;
  if (filters.folder_id != null) where.folder_id = filters.folder_id;
  if (filters.label_id != null) {
    const links = await scope.em.execute<{ assistant_id: number }[]>('select assistant_id from assistant_labels where label_id = ?', [filters.label_id]);
    where.id = { $in: links.map((link) => link.assistant_id) };
  }
  return scope.em.find(Assistant, where, { orderBy: { id: 'asc' } });
}

export async function deleteAssistant(scope: Scope, id: number): Promise<void> {
  const deleted = await scope.em.nativeDelete(Assistant, { id, account: scope.accountId });
  if (deleted === 0) throw new NotFoundError(Messages.assistantNotFound);
}

/** Turns the webhook on with a new URL. The webhook endpoints word their validation errors their own way. */
export async function enableWebhook(scope: Scope, assistantId: number, webhookUrl: string): Promise<Assistant> {
  const errors = new FieldErrorCollector();
  if (assistantId < 1) errors.add('assistant_id', FieldMessages.invalidSelection('assistant_id'));
  const url = checkHttpUrl(errors, 'webhook_url', webhookUrl);
  errors.throwIfAny(Messages.invalidData);
  const assistant = await requireAssistant(scope, assistantId);
  assistant.is_webhook_active = true;
  assistant.webhook_url = url;
  await scope.em.flush();
  return assistant;
}

/** Turns the webhook off: no more deliveries; calls in progress finish and keep their data. */
export async function disableWebhook(scope: Scope, assistantId: number): Promise<Assistant> {
  const assistant = await requireAssistant(scope, assistantId);
  assistant.is_webhook_active = false;
  assistant.webhook_url = null;
  await scope.em.flush();
  return assistant;
}

/**
 * The conversation-ended webhook (design.md, "Conversations"): closed conversations are posted
 * to `webhookUrl`, signed as the post-call webhook is; validated as enableWebhook's.
 */
export async function enableConversationEndedWebhook(scope: Scope, assistantId: number, webhookUrl: string): Promise<Assistant> {
  const errors = new FieldErrorCollector();
  if (assistantId < 1) errors.add('assistant_id', FieldMessages.invalidSelection('assistant_id'));
  const url = checkHttpUrl(errors, 'webhook_url', webhookUrl);
  errors.throwIfAny(Messages.invalidData);
  return setConversationEndedWebhook(scope, assistantId, url);
}

/** Turns the conversation-ended webhook off: conversations closed from now on are not posted. */
export function disableConversationEndedWebhook(scope: Scope, assistantId: number): Promise<Assistant> {
  return setConversationEndedWebhook(scope, assistantId, null);
}

async function setConversationEndedWebhook(scope: Scope, assistantId: number, url: string | null): Promise<Assistant> {
  const assistant = await requireAssistant(scope, assistantId);
  // A column of its own, outside the entity: only the conversations' close reads it.
  await scope.em.execute('update assistants set conversation_ended_webhook_url = ?, updated_at = now() where id = ?', [url, assistant.id]);
  return assistant;
}
