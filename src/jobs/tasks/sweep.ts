import { forgetOldRateLimitWindows } from '../../modules/accounts/account.service';
import { sweepStuckCalls } from '../../modules/calls/call.lifecycle';
import { foldCallCounts } from '../../modules/calls/call.service';
import { forgetOldEvents } from '../../modules/events/event.outbox';
import { releaseDeadWorkers } from '../heartbeat';
import type { Task } from './task';

/** Every minute (the runner's crontab): what no request or call cleans up after itself. */
export const sweepTask: Task<'calls:sweep'> = {
  async run(runtime) {
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
