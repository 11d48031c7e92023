import { ChatTestBrain } from '../../chat/test.brain';
import { abandonTestRun, runTestRun } from '../../modules/assistant-tests/test.run.job';
import { PipelineSimulator } from '../../voice/simulation/simulator';
import type { Task } from './task';

/** An assistant test run's attempts, TEST_RUN_CONCURRENCY of the account's at a time, through the conversations' text loop (voice simulations: the pipeline engine). */
export const testRunTask: Task<'tests:run'> = {
  async run(runtime, { run_id }, helpers) {
    try {
      await runTestRun(runtime.orm.em, new ChatTestBrain(runtime, new PipelineSimulator(runtime)), run_id, {
        workerId: helpers.job.locked_by ?? 'unknown',
        concurrency: runtime.config.assistantTests.runConcurrency,
        logger: runtime.logger,
      });
    } catch (error) {
      // The queue tries no more: the run ends `error` rather than `running` for ever.
      if (helpers.job.attempts >= helpers.job.max_attempts) {
        await abandonTestRun(runtime.orm.em, run_id).catch((failure: unknown) => runtime.logger.error('tests: a run whose job gave up could not be ended', failure, { run_id }));
      }
      throw error;
    }
  },
};
