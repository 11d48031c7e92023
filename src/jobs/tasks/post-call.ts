import { runPostCall } from '../../modules/calls/call.post-call';
import type { Task } from './task';

/** A real call's post-call extraction; its last attempt settles the call without it. */
export const postCallTask: Task<'calls:post-call'> = {
  run: (runtime, { call_id }, helpers) => runPostCall(runtime.orm.em.fork(), runtime.lifecycle, call_id, helpers.job.attempts >= helpers.job.max_attempts),
};
