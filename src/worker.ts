import 'reflect-metadata';
import { boot, stopOnSignals } from './boot';
import { loadConfig } from './config';
import { startWorkers } from './jobs/runner';
import { createLogger } from './log';

/**
 * `npm run worker`: the job workers alone, for running beside one or more API processes
 * (WORKERS_IN_PROCESS=false) on the same database.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  const { database, runtime, close } = await boot(config, log);
  const workers = await startWorkers(runtime, database.url).catch(async (error) => {
    await close().catch(() => {});
    throw error;
  });
  // Running jobs, then the telephony provider's calls, each for at most SHUTDOWN_TIMEOUT_MS, then the database.
  stopOnSignals(
    log,
    'the worker',
    async () => {
      try {
        await workers.stop(config.shutdownTimeoutMs);
      } finally {
        await close();
      }
    },
    config.shutdownTimeoutMs,
  );
  // Once the signals are handled: whoever reads this may send one at once.
  process.stdout.write(`vozgate worker is up (concurrency ${config.workers.concurrency}, telephony: ${runtime.telephony.name})\n`);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
