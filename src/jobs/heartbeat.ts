import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * A worker killed in the middle of a job leaves that job locked, and graphile-worker only
 * frees such locks after four hours. So every worker process records a heartbeat for its
 * workers, and the sweeper releases the jobs of workers whose heartbeat has stopped: another
 * worker then runs them (every handler is idempotent).
 */
/** A heartbeat older than this is a process gone: its jobs are released, and its load report no longer believed. */
export function heartbeatStaleMs(heartbeatMs: number): number {
  return heartbeatMs * 3;
}

export async function beat(em: EntityManager, workerIds: string[]): Promise<void> {
  if (workerIds.length === 0) return;
  await em.execute(
    `insert into worker_heartbeats (worker_id, beat_at) select unnest(?::text[]), now()
     on conflict (worker_id) do update set beat_at = excluded.beat_at`,
    [`{${workerIds.join(',')}}`],
  );
}

/** Forgets workers that stopped cleanly. */
export async function forget(em: EntityManager, workerIds: string[]): Promise<void> {
  if (workerIds.length) await em.execute('delete from worker_heartbeats where worker_id = any(?::text[])', [`{${workerIds.join(',')}}`]);
}

/** Releases the jobs of workers silent for longer than `staleAfterMs`; answers their ids. */
export async function releaseDeadWorkers(em: EntityManager, staleAfterMs: number): Promise<string[]> {
  return em.transactional(async (tx) => {
    const rows: { worker_id: string }[] = await tx.execute(
      `delete from worker_heartbeats where beat_at < now() - (? * interval '1 millisecond') returning worker_id`,
      [staleAfterMs],
    );
    const dead = rows.map((row) => row.worker_id);
    await unlock(tx, dead);
    return dead;
  });
}

/** Releases the jobs of workers this process knows to be gone (a runner that broke), and forgets them. */
export async function releaseWorkers(em: EntityManager, workerIds: string[]): Promise<void> {
  if (workerIds.length === 0) return;
  await em.transactional(async (tx) => {
    await forget(tx, workerIds);
    await unlock(tx, workerIds);
  });
}

async function unlock(em: EntityManager, workerIds: string[]): Promise<void> {
  if (workerIds.length) await em.execute('select graphile_worker.force_unlock_workers(?::text[])', [`{${workerIds.join(',')}}`]);
}
