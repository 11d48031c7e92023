import { EventEmitter, once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { Logger as QueueLogger, run, type Runner, type TaskList, type WorkerEvents } from 'graphile-worker';
import { Pool, type PoolClient } from 'pg';
import { forgetOldRateLimitWindows } from '../modules/accounts/account.service';
import { sweepStuckCalls } from '../modules/calls/call.lifecycle';
import { foldCallCounts } from '../modules/calls/call.service';
import { dialCampaign } from '../modules/campaigns/dialer';
import { forgetOldEvents } from '../modules/events/event.service';
import { DIAL_TASK } from '../modules/campaigns/dialer.attempts';
import { RECONCILE_SMS_TASK, reconcileSms } from '../modules/sms/sms.service';
import { DELIVER_TASK, deliver } from '../modules/webhooks/webhook.service';
import type { Runtime } from '../runtime';
import { SIMULATOR_TASK, SimulatorProvider, type SimulatorStep } from '../telephony/simulator';
import { TWILIO_PLACE_TASK, TwilioVoice } from '../telephony/twilio';
import { TWILIO_TIME_LIMIT_TASK } from '../telephony/twilio.callbacks';
import { jobOutcomes } from '../metrics';
import { POST_CALL_TASK, runPostCall } from '../voice/post-call';
import { beat, forget, releaseDeadWorkers } from './heartbeat';

export const SWEEP_TASK = 'calls:sweep';

/** The job handlers. Each runs on a fresh EntityManager; state changes run in transactions. */
export function taskList(runtime: Runtime): TaskList {
  const tasks: TaskList = {
    [SWEEP_TASK]: async () => {
      const em = runtime.orm.em.fork();
      const dead = await releaseDeadWorkers(em, runtime.config.workers.heartbeatMs * 3);
      if (dead.length) runtime.logger.info(`sweeper: released the jobs of ${dead.length} worker(s) that stopped without saying so`);
      await forgetOldRateLimitWindows(em);
      await forgetOldEvents(em);
      await foldCallCounts(em);
      const ended = await sweepStuckCalls(em, runtime.lifecycle, runtime.telephony);
      if (ended > 0) runtime.logger.info(`sweeper: ended ${ended} call(s) past their longest possible life`);
    },
  };
  const telephony = runtime.telephony;
  if (telephony instanceof SimulatorProvider) {
    tasks[SIMULATOR_TASK] = async (payload) => {
      const { call_id, step } = payload as { call_id: number; step: SimulatorStep };
      await telephony.step(runtime.orm.em.fork(), runtime.lifecycle, call_id, step);
    };
  }
  if (telephony instanceof TwilioVoice) {
    tasks[TWILIO_PLACE_TASK] = async (payload) => {
      await telephony.place(runtime.orm.em.fork(), runtime.lifecycle, (payload as { call_id: number }).call_id);
    };
    tasks[TWILIO_TIME_LIMIT_TASK] = async (payload) => {
      await telephony.enforceTimeLimit(runtime.orm.em.fork(), runtime.lifecycle, (payload as { call_id: number }).call_id);
    };
  }
  tasks[POST_CALL_TASK] = async (payload, helpers) => {
    const { attempts, max_attempts } = helpers.job;
    await runPostCall(runtime.orm.em.fork(), runtime.lifecycle, (payload as { call_id: number }).call_id, attempts >= max_attempts);
  };
  tasks[DIAL_TASK] = async (payload) => {
    await dialCampaign(runtime.orm.em.fork(), runtime, (payload as { campaign_id: number }).campaign_id);
  };
  tasks[RECONCILE_SMS_TASK] = async (payload) => {
    await reconcileSms(runtime.orm.em.fork(), runtime.sms, (payload as { sms_id: number }).sms_id);
  };
  tasks[DELIVER_TASK] = async (payload) => {
    await deliver(runtime.orm.em.fork(), runtime, (payload as { delivery_id: string }).delivery_id);
  };
  return tasks;
}

export interface Workers {
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

/** Workers on the PostgreSQL job queue; several processes may run them against one database. */
export async function startWorkers(runtime: Runtime, databaseUrl: string): Promise<Workers> {
  const { workers } = runtime.config;
  const events: WorkerEvents = new EventEmitter();
  const workerIds = new Set<string>();
  events.on('worker:create', ({ worker }) => workerIds.add(worker.workerId));
  events.on('job:success', ({ job }) => jobOutcomes.inc({ task: job.task_identifier, outcome: 'success' }));
  events.on('job:error', ({ job }) => jobOutcomes.inc({ task: job.task_identifier, outcome: 'error' }));
  events.on('job:failed', ({ job }) => jobOutcomes.inc({ task: job.task_identifier, outcome: 'failed' }));
  const heartbeat = async () => {
    try {
      await beat(runtime.orm.em.fork(), [...workerIds]);
      // For a container's health check: a fresh file means the workers and the database answer.
      if (workers.aliveFile) await writeFile(workers.aliveFile, new Date().toISOString());
    } catch (error) {
      runtime.logger.error('job queue: heartbeat failed', error);
    }
  };
  // The queue's own pool, so that stopping can close every connection of it before the
  // database goes, and a connection the database drops is logged rather than a crash (pg
  // emits 'error' on a client nobody listens to; the queue retries on a new connection).
  const pool = new Pool({ connectionString: databaseUrl, max: workers.concurrency + 2 });
  const broken = (error: Error) => runtime.logger.warn('job queue: a database connection broke', { message: error.message });
  pool.on('error', broken);
  const open = new Set<PoolClient>();
  pool.on('connect', (client) => {
    open.add(client);
    client.on('error', broken);
  });
  pool.on('remove', (client: PoolClient) => open.delete(client));
  const runner: Runner = await run({
    pgPool: pool,
    concurrency: workers.concurrency,
    pollInterval: workers.pollIntervalMs,
    noHandleSignals: true,
    events,
    taskList: taskList(runtime),
    crontab: `* * * * * ${SWEEP_TASK} ?max=1`,
    logger: new QueueLogger(() => (level, message) => {
      if (level === 'error') runtime.logger.error(`job queue: ${message}`);
      else if (level === 'warning') runtime.logger.warn(`job queue: ${message}`);
      else if (level === 'info') runtime.logger.debug(`job queue: ${message}`);
    }),
  });
  await heartbeat();
  const timer = setInterval(() => void heartbeat(), workers.heartbeatMs);
  timer.unref();
  return {
    async stop(drainMs = 10_000) {
      clearInterval(timer);
      // A job cut short stays locked by a worker whose heartbeat then stops: the sweeper of
      // another process releases it, and its handler is idempotent.
      const stopped = await Promise.race([
        runner.stop().then(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), drainMs).unref()),
      ]);
      if (stopped) await forget(runtime.orm.em.fork(), [...workerIds]).catch(() => {});
      await runtime.telephony.stop?.(drainMs);
      // Every connection of the queue is closed before the caller stops the database.
      if (stopped) await endPool(pool, open).catch(() => {});
    },
  };
}
