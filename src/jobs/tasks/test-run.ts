import { ChatTestBrain } from '../../chat/test.brain';
import { runTestRun } from '../../modules/assistant-tests/test.run.job';
import type { Task } from './task';

/** An assistant test run's attempts, TEST_RUN_CONCURRENCY of the account's at a time, through the conversations' text loop. */
export const testRunTask: Task<'tests:run'> = {
  run: (runtime, { run_id }, helpers) =>
    runTestRun(runtime.orm.em, new ChatTestBrain(runtime), run_id, {
      workerId: helpers.job.locked_by ?? 'unknown',
      concurrency: runtime.config.assistantTests.runConcurrency,
      logger: runtime.logger,
    }),
};
