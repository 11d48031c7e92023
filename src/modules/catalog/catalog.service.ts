import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { FieldErrorCollector, ValidationError } from '../../errors';
import { checkLength, checkOneOf } from '../../lib/checks';
import { Account } from '../accounts/account.entity';
import type { Scope } from '../scope';
import { Language } from './language.entity';
import { MODEL_TYPES, Model, type ModelType } from './model.entity';
import { modelParams, type ModelParams } from './model.params';
import { hostedProvider, STT_PROVIDERS, SYNTHESIZERS, TRANSCRIBERS, type SpeechProvider } from './speech-provider.type';
import { ENGINE_TYPES, MAX_PROVIDER_VOICE_ID, TTS_PROVIDERS, Voice, type EngineType } from './voice.entity';

export function listLanguages(scope: Scope): Promise<Language[]> {
  return scope.em.find(Language, {}, { orderBy: { id: 'asc' } });
}

/** The model catalogue, optionally of one type. */
export function listModels(scope: Scope, type: string | null | undefined): Promise<Model[]> {
  const errors = new FieldErrorCollector();
  if (type != null) checkOneOf(errors, 'type', type, MODEL_TYPES);
  errors.throwIfAny();
  return scope.em.find(Model, type != null ? { type: type as ModelType } : {}, { orderBy: { id: 'asc' } });
}

/** Public voices and the account's own, optionally of one engine. */
export function listVoices(scope: Scope, mode: string | null | undefined): Promise<Voice[]> {
  const errors = new FieldErrorCollector();
  if (mode != null) checkOneOf(errors, 'mode', mode, ENGINE_TYPES);
  errors.throwIfAny();
  return scope.em.find(
    Voice,
    { $or: [{ account: null }, { account: scope.accountId }], ...(mode != null ? { mode: mode as EngineType } : {}) },
    { orderBy: { id: 'asc' } },
  );
}

/** The text-to-speech vendors that have a key, then the hosted ones (TTS_PROVIDERS), in the order the engine picks a default one. */
export function listSynthesizerProviders(scope: Scope): SpeechProvider[] {
  const vendors = scope.config.voice.pipeline;
  return [
    ...TTS_PROVIDERS.filter((code) => vendors[code] !== null).map((code) => ({ ...SYNTHESIZERS[code], code })),
    ...Object.keys(vendors.ttsProviders).map(hostedProvider),
  ];
}

/** The speech-to-text vendors that have a key (OpenAI's transcription with OPENAI_API_KEY), then the hosted ones (STT_PROVIDERS). */
export function listTranscriberProviders(scope: Scope): SpeechProvider[] {
  const vendors = scope.config.voice.pipeline;
  return [
    ...STT_PROVIDERS.filter((code) => vendors[code] !== null).map((code) => ({ ...TRANSCRIBERS[code], code })),
    ...Object.keys(vendors.sttProviders).map(hostedProvider),
  ];
}

/** A voice the account may use (public or its own), or null. */
export function findVisibleVoice(scope: Scope, id: number): Promise<Voice | null> {
  return scope.em.findOne(Voice, { id, $or: [{ account: null }, { account: scope.accountId }] });
}

export function findLanguageByName(scope: Scope, name: string): Promise<Language | null> {
  return scope.em.findOne(Language, { name });
}

export function findLanguage(scope: Scope, id: number): Promise<Language | null> {
  return scope.em.findOne(Language, { id });
}

export function findModel(scope: Scope, id: number): Promise<Model | null> {
  return scope.em.findOne(Model, { id });
}

/** What a request to the model named `name` carries; the default for a model the catalogue does not list. */
export async function paramsOfModel(em: EntityManager, name: string): Promise<ModelParams> {
  const [row] = await em.execute<{ params: unknown }[]>('select params from models where name = ?', [name]);
  return modelParams(row?.params);
}

/** Adds a model to the catalogue; for the operator CLI. */
export async function addModel(em: EntityManager, input: { name: string; provider: string; type: string }): Promise<Model> {
  const errors = new FieldErrorCollector();
  const name = checkLength(errors, 'name', input.name, 1, 100);
  const provider = checkLength(errors, 'provider', input.provider, 1, 32);
  checkOneOf(errors, 'type', input.type, MODEL_TYPES);
  errors.throwIfAny();
  const model = em.create(Model, { name: name!, provider: provider!, type: input.type as ModelType });
  try {
    await em.persist(model).flush();
  } catch (error) {
    // The unique name decides, also between two operators adding the same model at once.
    if (error instanceof UniqueConstraintViolationException) throw new ValidationError({ name: [`The catalogue already has a model named ${name}.`] });
    throw error;
  }
  return model;
}

/**
 * Adds a voice (public without an account), spoken by `provider`'s voice when given: a built-in
 * vendor or a hosted one configured here (`hostedProviders`, TTS_PROVIDERS); for the operator
 * CLI. A hosted provider removed later leaves the voice to the first configured vendor's default.
 */
export async function addVoice(
  em: EntityManager,
  input: { name: string; mode: string; accountId: number | null; provider?: { name: string; voiceId: string } | null; hostedProviders?: readonly string[] },
): Promise<Voice> {
  const errors = new FieldErrorCollector();
  const name = checkLength(errors, 'name', input.name, 1, 100);
  checkOneOf(errors, 'mode', input.mode, ENGINE_TYPES);
  let voiceId: string | null = null;
  if (input.provider) {
    checkOneOf(errors, 'provider', input.provider.name, [...TTS_PROVIDERS, ...(input.hostedProviders ?? [])]);
    voiceId = checkLength(errors, 'provider_voice_id', input.provider.voiceId, 1, MAX_PROVIDER_VOICE_ID);
  }
  errors.throwIfAny();
  const voice = em.create(Voice, {
    name: name!,
    mode: input.mode as EngineType,
    account: input.accountId === null ? null : em.getReference(Account, input.accountId),
    provider: input.provider?.name ?? null,
    provider_voice_id: voiceId,
  });
  await em.persist(voice).flush();
  return voice;
}
