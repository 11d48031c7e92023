import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, FieldMessages, Messages, ValidationError } from '../../errors';

const KEY = /^[\x21-\x7e]{1,255}$/;

/** JSON with sorted keys, so that the same body always hashes the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export interface KeyRef {
  accountId: number;
  operation: string;
  key: string;
}

export type Claim<T> = { kind: 'new' } | { kind: 'replay'; response: T } | { kind: 'in-flight' };

/**
 * Claims an idempotency key in the caller's transaction. The key's row is inserted first,
 * so a concurrent request with the same key waits on it: when the holder commits, the
 * waiter sees the row (its response, or none yet if the work goes on after that commit);
 * when the holder rolls back, the waiter claims the key itself. The same key with another
 * request is refused.
 */
export async function claimKey<T>(tx: EntityManager, ref: KeyRef, request: unknown): Promise<Claim<T>> {
  if (!KEY.test(ref.key)) throw new ValidationError({ idempotency_key: [FieldMessages.idempotencyKey] });
  const hash = createHash('sha256').update(canonical(request)).digest('hex');
  const inserted = await tx.execute(
    `insert into idempotency_keys (account_id, operation, key, request_hash) values (?, ?, ?, ?) on conflict do nothing returning key`,
    [ref.accountId, ref.operation, ref.key, hash],
  );
  if (inserted.length > 0) return { kind: 'new' };
  const [row] = await tx.execute('select request_hash, response from idempotency_keys where account_id = ? and operation = ? and key = ?', [
    ref.accountId,
    ref.operation,
    ref.key,
  ]);
  if (row.request_hash !== hash) throw new DomainError('CONFLICT', Messages.idempotencyKeyReused);
  return row.response === null ? { kind: 'in-flight' } : { kind: 'replay', response: row.response as T };
}

export async function storeResponse(em: EntityManager, ref: KeyRef, response: unknown): Promise<void> {
  await em.execute('update idempotency_keys set response = ?::jsonb where account_id = ? and operation = ? and key = ?', [
    JSON.stringify(response),
    ref.accountId,
    ref.operation,
    ref.key,
  ]);
}

/**
 * Runs `work` in a transaction, at most once per key: a replay answers the stored response.
 * Without a key, `work` simply runs in a transaction.
 */
export async function idempotent<T>(
  em: EntityManager,
  accountId: number,
  operation: string,
  key: string | null | undefined,
  request: unknown,
  work: (tx: EntityManager) => Promise<T>,
): Promise<T> {
  if (key === null || key === undefined) return em.transactional(work);
  const ref = { accountId, operation, key };
  return em.transactional(async (tx) => {
    const claim = await claimKey<T>(tx, ref, request);
    // The response is stored in the claiming transaction, so a committed key always has one.
    if (claim.kind === 'replay') return claim.response;
    const result = await work(tx);
    await storeResponse(tx, ref, result);
    return result;
  });
}
