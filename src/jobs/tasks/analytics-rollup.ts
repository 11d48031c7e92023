import { foldLeadCounts } from '../../modules/analytics/analytics.lead-counts';
import { rollUpPendingCalls } from '../../modules/analytics/analytics.rollup';
import type { Task } from './task';

/**
 * Every minute (the runner's crontab): the analytics' safety net. A settled call is rolled up
 * right after its settlement commits; one whose roll-up did not happen (the process died in
 * between, the call's row was busy) is rolled up here. And the campaigns' lead counts are folded.
 */
export const analyticsRollupTask: Task<'analytics:rollup'> = {
  async run(runtime) {
    const em = runtime.orm.em.fork();
    const calls = await rollUpPendingCalls(em);
    if (calls > 0) runtime.logger.info(`analytics: rolled up ${calls} settled call(s) their settlement's roll-up missed`);
    await foldLeadCounts(em);
  },
};
