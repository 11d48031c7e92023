import { Logger as QueueLogger, run, type Runner, type TaskList } from 'graphile-worker';
import { sweepStuckCalls } from '../modules/calls/call.lifecycle';
import type { Runtime } from '../runtime';
import { SIMULATOR_TASK, SimulatorProvider, type SimulatorStep } from '../telephony/simulator';

export const SWEEP_TASK = 'calls:sweep';

/** The job handlers. Each runs on a fresh EntityManager; state changes run in transactions. */
export function taskList(runtime: Runtime): TaskList {
  const tasks: TaskList = {
    [SWEEP_TASK]: async () => {
      const ended = await sweepStuckCalls(runtime.orm.em.fork(), runtime.lifecycle);
      if (ended > 0) runtime.logger.info(`sweeper: ended ${ended} call(s) past their longest possible life`);
    },
  };
  const telephony = runtime.telephony;
  if (telephony instanceof SimulatorProvider) {
    tasks[SIMULATOR_TASK] = async (payload) => {
      const { call_id, step } = payload as { call_id: number; step: SimulatorStep };
      await runtime.orm.em.fork().transactional((em) => telephony.step(em, runtime.lifecycle, call_id, step));
    };
  }
  return tasks;
}

/** Workers on the PostgreSQL job queue; several processes may run them against one database. */
export function startWorkers(runtime: Runtime, databaseUrl: string): Promise<Runner> {
  const { workers } = runtime.config;
  return run({
    connectionString: databaseUrl,
    maxPoolSize: workers.concurrency + 2,
    concurrency: workers.concurrency,
    pollInterval: workers.pollIntervalMs,
    noHandleSignals: true,
    taskList: taskList(runtime),
    crontab: `* * * * * ${SWEEP_TASK} ?max=1`,
    logger: new QueueLogger(() => (level, message) => {
      if (level === 'error' || level === 'warning') runtime.logger.error(`job queue: ${message}`);
    }),
  });
}
