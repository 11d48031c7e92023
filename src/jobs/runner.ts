import { EventEmitter, once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { Logger as QueueLogger, run, type JobHelpers, type Runner, type WorkerEvents } from 'graphile-worker';
import { Pool, type PoolClient } from 'pg';
import { jobOutcomes } from '../metrics';
import type { Runtime } from '../runtime';
import { endsWithin } from './background';
import { beat, forget, releaseWorkers } from './heartbeat';
import { TASKS } from './queue';
import { taskList } from './tasks';

export interface Workers {
  /** Whether a runner is taking jobs now (false while it waits for the database to come back). */
  readonly running: boolean;
  /** Stops taking jobs and waits for running ones, for up to `drainMs`. */
  stop(drainMs?: number): Promise<void>;
}

/**
 * Ends a pool and waits until each of its connections has closed: `pool.end()` resolves once it
 * has asked every client to end, before their connections are closed (pg-pool emits 'remove'
 * for each one then), and a database stopped in between terminates them, an error on each.
 */
async function endPool(pool: Pool, open: ReadonlySet<PoolClient>): Promise<void> {
  await pool.end();
  while (open.size > 0) await once(pool, 'remove');
}

/** A runner of the queue, the ids of its workers (their jobs' locks carry them), and the jobs it runs now. */
interface Running {
  runner: Runner;
  workerIds: Set<string>;
  jobs: Set<Promise<void>>;
}

/** How long a runner that broke waits before it tries again: 0.5 s, doubling, at most 10 s. */
export const restartDelayMs = (attempt: number): number => Math.min(10_000, 500 * 2 ** attempt);

/**
 * Workers on the PostgreSQL job queue; several processes may run them against one database.
 *
 * graphile-worker's runner stops for good when the database goes away under it: a worker that
 * cannot record a job's outcome exits ("committing seppuku"), and its cron loop stops the
 * whole runner on the first failed statement. So the runner is supervised: when it stops or
 * loses a worker while nobody asked it to, it is stopped whole, and a new one starts once the
 * database answers. The old workers' job locks are released as soon as the jobs they still
 * run have ended (so those jobs run again at once instead of after graphile-worker's four
 * hours, and never beside themselves). WORKER_ALIVE_FILE is touched only while a runner runs.
 */
export async function startWorkers(runtime: Runtime, databaseUrl: string): Promise<Workers> {
  const { config: { workers }, logger } = runtime;
  // The queue's own pool, so that stopping can close every connection of it before the
  // database goes, and a connection the database drops is logged rather than a crash (pg
  // emits 'error' on a client nobody listens to; the queue retries on a new connection).
  const pool = new Pool({
    connectionString: databaseUrl,
    max: workers.concurrency + 2,
    // The queue's own statements are short: a stalled database fails them, and the runner
    // starts again once it answers (above). No client-side bound: pg-pool would hand a
    // connection with an unanswered statement to the next job.
    statement_timeout: runtime.config.databaseTimeoutMs,
    connectionTimeoutMillis: runtime.config.databaseTimeoutMs,
  });
  const broken = (error: Error) => logger.warn('job queue: a database connection broke', { message: error.message });
  pool.on('error', broken);
  const open = new Set<PoolClient>();
  pool.on('connect', (client) => {
    open.add(client);
    client.on('error', broken);
  });
  pool.on('remove', (client: PoolClient) => open.delete(client));
  const tasks = taskList(runtime);

  let current: Running | null = null;
  /** Broken runners whose jobs still run: their workers are beaten, so that no sweeper frees those jobs. */
  const draining = new Set<Running>();
  let stopping = false;
  let recovering: Promise<void> | null = null;
  /** Ends the wait between two attempts to start again, when the process stops. */
  let wake = () => {};

  const launch = async (): Promise<Running> => {
    const events: WorkerEvents = new EventEmitter();
    const workerIds = new Set<string>();
    events.on('worker:create', ({ worker }) => workerIds.add(worker.workerId));
    events.on('job:success', ({ job }) => jobOutcomes.inc({ task: job.task_identifier, outcome: 'success' }));
    events.on('job:error', ({ job }) => jobOutcomes.inc({ task: job.task_identifier, outcome: 'error' }));
    events.on('job:failed', ({ job }) => jobOutcomes.inc({ task: job.task_identifier, outcome: 'failed' }));
    // Each handler's run is kept until it ends: a broken runner's jobs may outlive it.
    const jobs = new Set<Promise<void>>();
    const tracked = Object.fromEntries(
      Object.entries(tasks).map(([name, task]) => [
        name,
        (payload: unknown, helpers: JobHelpers) => {
          const job = Promise.resolve(task!(payload, helpers)).then(() => undefined);
          const done: Promise<void> = job.catch(() => {}).finally(() => jobs.delete(done));
          jobs.add(done);
          return job;
        },
      ]),
    );
    const runner = await run({
      pgPool: pool,
      concurrency: workers.concurrency,
      pollInterval: workers.pollIntervalMs,
      noHandleSignals: true,
      events,
      taskList: tracked,
      // graphile-worker's cron runs each entry once a minute across every worker process.
      crontab: [
        `* * * * * calls:sweep ?max=${TASKS['calls:sweep'].maxAttempts}`,
        `* * * * * conversations:idle ?max=${TASKS['conversations:idle'].maxAttempts}`,
        `17 * * * * phone-numbers:renew ?max=${TASKS['phone-numbers:renew'].maxAttempts}`,
        `* * * * * analytics:rollup ?max=${TASKS['analytics:rollup'].maxAttempts}`,
      ].join('\n'),
      logger: new QueueLogger(() => (level, message) => {
        if (level === 'error') logger.error(`job queue: ${message}`);
        else if (level === 'warning') logger.warn(`job queue: ${message}`);
        else if (level === 'info') logger.debug(`job queue: ${message}`);
      }),
    });
    const running: Running = { runner, workerIds, jobs };
    const lost = (reason: string) => {
      if (stopping || current !== running) return;
      current = null;
      logger.error(`job queue: the runner stopped (${reason}); it starts again when the database answers`);
      recovering = recover(running).finally(() => (recovering = null));
    };
    events.on('worker:fatalError', ({ error }) => lost(`a worker could not record a job: ${(error as Error)?.message}`));
    runner.promise.then(
      () => lost('it ended'),
      (error: Error) => lost(error?.message ?? String(error)),
    );
    return running;
  };

  /**
   * Stops what is left of a broken runner and starts a new one as soon as the database lets
   * it. The broken runner's jobs that still run keep their locks until they end (released
   * earlier, another worker would run them a second time beside them); then their locks are
   * released, and whatever they left unrecorded runs again.
   */
  const recover = async (dead: Running) => {
    draining.add(dead);
    await stopRunner(dead.runner, 5_000);
    for (let attempt = 0; !stopping; attempt++) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, restartDelayMs(attempt));
        wake = () => (clearTimeout(timer), resolve());
      });
      if (stopping) break;
      try {
        const running = await launch();
        if (stopping) {
          await stopRunner(running.runner, 5_000);
          break;
        }
        current = running;
        logger.info('job queue: the runner is running again');
        await heartbeat();
        break;
      } catch (error) {
        logger.warn(`job queue: the runner could not start again (attempt ${attempt + 1})`, { message: (error as Error).message });
      }
    }
    await Promise.all(dead.jobs);
    draining.delete(dead);
    // Should the database be away again, the workers' stopped heartbeat lets a sweeper release them.
    await releaseWorkers(runtime.orm.em.fork(), [...dead.workerIds]).catch(() => {});
  };

  const heartbeat = async () => {
    const running = current;
    const ids = [...(running?.workerIds ?? []), ...[...draining].flatMap((dead) => [...dead.workerIds])];
    if (!ids.length) return;
    try {
      await beat(runtime.orm.em.fork(), ids);
      // For a container's health check: a fresh file means the workers and the database answer.
      if (workers.aliveFile && running && current === running) await writeFile(workers.aliveFile, new Date().toISOString());
    } catch (error) {
      logger.error('job queue: heartbeat failed', error);
    }
  };

  current = await launch();
  await heartbeat();
  const timer = setInterval(() => void heartbeat(), workers.heartbeatMs);
  timer.unref();
  return {
    get running() {
      return current !== null;
    },
    async stop(drainMs = 10_000) {
      stopping = true;
      clearInterval(timer);
      const running = current;
      current = null;
      wake();
      // A job cut short stays locked by a worker whose heartbeat then stops: the sweeper of
      // another process releases it, and its handler is idempotent.
      const [stopped, recovered] = await Promise.all([running ? stopRunner(running.runner, drainMs) : true, recovering ? endsWithin(recovering, drainMs) : true]);
      if (stopped && running) await forget(runtime.orm.em.fork(), [...running.workerIds]).catch(() => {});
      await runtime.telephony.stop?.(drainMs);
      // Every connection of the queue is closed before the caller stops the database (unless a
      // job still holds one: the process then stops with it).
      if (stopped && recovered) await endPool(pool, open).catch(() => {});
    },
  };
}

/** Stops a runner, waiting at most `drainMs` for its jobs; answers whether it stopped in time. */
function stopRunner(runner: Runner, drainMs: number): Promise<boolean> {
  // A runner that stopped itself answers "already stopped": it is stopped all the same.
  return endsWithin(runner.stop(), drainMs);
}
