import type { TransactionOptions } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Runs `work` in a database transaction on a fork of `em`, which it flushes and commits when
 * `work` resolves and rolls back when it throws; called with an `em` that is in a transaction
 * already, it runs in a savepoint of it. This is `em.transactional` without its
 * AsyncLocalStorage: on Node 20 and 22, one `AsyncLocalStorage.run` hooks every promise of
 * the process from then on, which cost GraphQL reads a sixth more CPU a request after the
 * first transaction in the process (measured: bench, get call). So the transaction is only
 * the `tx` given to `work`: `em` itself is outside it (MikroORM would route `em` to the
 * transaction too), and `work` must not use it.
 *
 * The fork starts with `em`'s identity map (as MikroORM's does): an entity `em` loaded and
 * `work` changes is flushed with the transaction.
 */
export async function transaction<T>(
  em: EntityManager,
  work: (tx: EntityManager) => Promise<T>,
  options: Pick<TransactionOptions, 'isolationLevel' | 'readOnly'> = {},
): Promise<T> {
  const tx = em.fork({ clear: false });
  await tx.begin({ ...options, ctx: em.getTransactionContext() });
  try {
    const result = await work(tx);
    await tx.commit();
    return result;
  } catch (error) {
    // As MikroORM's own: a failed flush or commit rolls back too.
    await tx.rollback();
    throw error;
  }
}
