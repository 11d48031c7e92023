import 'reflect-metadata';
import { loadConfig } from './config';
import { openDatabase } from './db/database';
import { initOrm } from './db/orm';
import { startWorkers } from './jobs/worker';
import { loadSecretBox } from './lib/secrets';
import { createLogger, createRuntime, stopOnSignals } from './runtime';

/**
 * `npm run worker`: the job workers alone, for running beside one or more API processes
 * (WORKERS_IN_PROCESS=false) on the same database.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger();
  const database = await openDatabase(config, (line) => log.info(line));
  const secrets = await loadSecretBox(config);
  const orm = await initOrm({ databaseUrl: database.url, logSql: config.logSql });
  const runtime = createRuntime({ orm, config, secrets, logger: log });
  const workers = await startWorkers(runtime, database.url);
  process.stdout.write(`vozgate worker is up (concurrency ${config.workers.concurrency}, telephony: ${runtime.telephony.name})\n`);

  stopOnSignals(log, 'the worker', async () => {
    try {
      await workers.stop(config.shutdownTimeoutMs);
      await orm.close();
    } finally {
      await database.stop();
    }
  });
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
