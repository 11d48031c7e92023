import type { EntityManager } from '@mikro-orm/postgresql';
import { forgetOldRateLimitWindows } from '../../modules/accounts/account.service';
import { sweepStuckCalls } from '../../modules/calls/call.lifecycle';
import { foldCallCounts } from '../../modules/calls/call.service';
import { forgetOldEvents } from '../../modules/events/event.outbox';
import { heartbeatStaleMs, releaseDeadWorkers } from '../heartbeat';
import type { Task } from './task';

/**
 * The sweeper's upkeep may take longer than a request's DATABASE_TIMEOUT_MS when work piled
 * up (after an outage, say): each statement runs in a transaction of its own with this bound.
 */
const UPKEEP_STATEMENT_TIMEOUT = '5min';

async function unhurried(em: EntityManager, work: (em: EntityManager) => Promise<unknown>): Promise<void> {
  await em.transactional(async (tx) => {
    await tx.execute(`set local statement_timeout = '${UPKEEP_STATEMENT_TIMEOUT}'`);
    await work(tx);
  });
}

/** Every minute (the runner's crontab): what no request or call cleans up after itself. */
export const sweepTask: Task<'calls:sweep'> = {
  async run(runtime) {
    const em = runtime.orm.em.fork();
    const dead = await releaseDeadWorkers(em, heartbeatStaleMs(runtime.config.workers.heartbeatMs));
    if (dead.length) runtime.logger.info(`sweeper: released the jobs of ${dead.length} worker(s) that stopped without saying so`);
    await unhurried(em, forgetOldRateLimitWindows);
    await unhurried(em, forgetOldEvents);
    await unhurried(em, foldCallCounts);
    const ended = await sweepStuckCalls(em, runtime.lifecycle, runtime.telephony);
    if (ended > 0) runtime.logger.info(`sweeper: ended ${ended} call(s) past their longest possible life`);
  },
};
