import { DeadlockException, EntityManager, type EntityName, type FilterQuery, type FindOptions, type PostgreSqlDriver, type TransactionOptions } from '@mikro-orm/postgresql';
import { causes } from './availability';

/** How many times a transaction runs when PostgreSQL aborts it as a deadlock or a serialization failure. */
export const TRANSACTION_ATTEMPTS = 3;

const CONFLICTS = new Set(['40P01', '40001']);

/** Whether PostgreSQL aborted the transaction to let another one through: running it again is the answer. */
export function isTransactionConflict(error: unknown): boolean {
  for (const current of causes(error)) {
    if (current instanceof DeadlockException || CONFLICTS.has(String(current.code))) return true;
  }
  return false;
}

/**
 * The service's EntityManager (MikroORM's `entityManager` option): an outermost transaction
 * that PostgreSQL aborts as a deadlock or a serialization failure runs again at once, up to
 * TRANSACTION_ATTEMPTS times, instead of failing a request with a 500 or a job into its
 * backoff. A nested transaction fails to its outermost one, which runs again whole.
 *
 * The rule for a transaction's callback, then: it runs twice at times, so it reads under
 * its locks whatever it writes (`findForUpdate` reads afresh), and sends nothing outside the
 * database (providers, webhooks, tools run between transactions, and jobs are enqueued in
 * them). An entity changed in a first run that was rolled back still looks saved to the ORM,
 * and a second run that changed it again would find nothing to write.
 *
 * A transaction carries no async context: its EntityManager is the one its callback is given,
 * and the callback passes that one on (the global EntityManager, used inside it, is outside
 * it). MikroORM keeps a transaction's and a flush's in AsyncLocalStorages, and on Node 20
 * running one turns on the async hooks for every promise of the process, for good: about a
 * quarter of a conversation's reply's CPU (bench/results/chat.md). The patch
 * (patches/@mikro-orm+core+6.6.16.patch) takes both out, and nothing calls `findAndCount`,
 * which runs a third (findWithTotal reads what it reads). tests/db/async-context.test.ts
 * holds it.
 */
export class RetryingEntityManager extends EntityManager<PostgreSqlDriver> {
  override async transactional<T>(cb: (em: this) => T | Promise<T>, options: TransactionOptions = {}): Promise<T> {
    if (options.ctx ?? this.getContext(false).getTransactionContext()) return super.transactional(cb, options);
    for (let attempt = 1; ; attempt++) {
      try {
        return await super.transactional(cb, options);
      } catch (error) {
        if (attempt >= TRANSACTION_ATTEMPTS || !isTransactionConflict(error)) throw error;
      }
    }
  }
}

/**
 * A page of rows and the total of all, as `em.findAndCount` reads them, without the
 * AsyncLocalStorage it runs its two reads in (to keep a raw fragment of the filter for both:
 * no caller's filter holds one).
 */
export function findWithTotal<T extends object>(em: EntityManager, entity: EntityName<T>, where: FilterQuery<T>, options: FindOptions<T>): Promise<[T[], number]> {
  return Promise.all([em.find(entity, where, options), em.count(entity, where)]);
}
