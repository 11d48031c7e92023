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

/**
 * Runs `work` in a transaction, at most once per (account, operation, key). The key's row is
 * inserted first in the same transaction, so a concurrent request with the same key waits
 * on it: when the first commits, the second gets the stored response and does nothing; when
 * the first fails, nothing is stored and the second does the work. The same key with another
 * request is refused. Without a key, `work` simply runs in a transaction.
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
  if (!KEY.test(key)) throw new ValidationError({ idempotency_key: [FieldMessages.idempotencyKey] });
  const hash = createHash('sha256').update(canonical(request)).digest('hex');
  return em.transactional(async (tx) => {
    const inserted = await tx.execute(
      `insert into idempotency_keys (account_id, operation, key, request_hash) values (?, ?, ?, ?)
       on conflict do nothing returning key`,
      [accountId, operation, key, hash],
    );
    if (inserted.length === 0) {
      const [row] = await tx.execute('select request_hash, response from idempotency_keys where account_id = ? and operation = ? and key = ?', [
        accountId,
        operation,
        key,
      ]);
      if (row.request_hash !== hash) throw new DomainError('CONFLICT', Messages.idempotencyKeyReused);
      return row.response as T;
    }
    const result = await work(tx);
    await tx.execute('update idempotency_keys set response = ?::jsonb where account_id = ? and operation = ? and key = ?', [
      JSON.stringify(result),
      accountId,
      operation,
      key,
    ]);
    return result;
  });
}
