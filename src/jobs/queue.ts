import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Jobs live in PostgreSQL (graphile-worker). They are added with SQL on the caller's
 * connection, so a job is enqueued in the same transaction as the state change that causes
 * it: both happen, or neither.
 */
export interface Job {
  task: string;
  payload: Record<string, unknown>;
  runAt?: Date;
  maxAttempts?: number;
  /** At most one pending job per key; adding again replaces it. */
  jobKey?: string;
}

export async function enqueue(em: EntityManager, job: Job): Promise<void> {
  await em.execute('select graphile_worker.add_job(?, ?::json, null, ?::timestamptz, ?, ?)', [
    job.task,
    JSON.stringify(job.payload),
    job.runAt ? job.runAt.toISOString() : null,
    job.maxAttempts ?? null,
    job.jobKey ?? null,
  ]);
}
