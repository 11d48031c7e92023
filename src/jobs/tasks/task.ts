import type { JobHelpers } from 'graphile-worker';
import type { Runtime } from '../../runtime';
import type { TaskName, TaskPayloads } from '../queue';

/** A task's handler: a small function of its payload (jobs/queue.ts has the table). Each runs on a fresh EntityManager. */
export interface Task<T extends TaskName> {
  /** Whether this process runs the task: a telephony provider's tasks run only where that provider was chosen. */
  servedBy?(runtime: Runtime): boolean;
  run(runtime: Runtime, payload: TaskPayloads[T], helpers: JobHelpers): Promise<unknown>;
}
