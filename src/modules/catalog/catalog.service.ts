import type { EntityManager } from '@mikro-orm/postgresql';
import { FieldErrorCollector } from '../../errors';
import { checkLength, checkOneOf } from '../../lib/checks';
import { Account } from '../accounts/account.entity';
import type { Scope } from '../scope';
import { Language } from './language.entity';
import { ENGINE_TYPES, Voice, type EngineType } from './voice.entity';

export function listLanguages(scope: Scope): Promise<Language[]> {
  return scope.em.find(Language, {}, { orderBy: { id: 'asc' } });
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

/** A voice the account may use (public or its own), or null. */
export function findVisibleVoice(scope: Scope, id: number): Promise<Voice | null> {
  return scope.em.findOne(Voice, { id, $or: [{ account: null }, { account: scope.accountId }] });
}

export function findLanguageByName(scope: Scope, name: string): Promise<Language | null> {
  return scope.em.findOne(Language, { name });
}

/** Adds a voice (public without an account); for the operator CLI. */
export async function addVoice(em: EntityManager, input: { name: string; mode: string; accountId: number | null }): Promise<Voice> {
  const errors = new FieldErrorCollector();
  const name = checkLength(errors, 'name', input.name, 1, 100);
  checkOneOf(errors, 'mode', input.mode, ENGINE_TYPES);
  errors.throwIfAny();
  const voice = em.create(Voice, {
    name: name!,
    mode: input.mode as EngineType,
    account: input.accountId === null ? null : em.getReference(Account, input.accountId),
  });
  await em.persist(voice).flush();
  return voice;
}
