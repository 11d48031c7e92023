import 'reflect-metadata';
import { createApp, type App } from './app';
import { loadConfig, type Config } from './config';
import { openDatabase, type Database } from './db/database';
import { initOrm } from './db/orm';
import { startWorkers, type Workers } from './jobs/worker';
import { loadSecretBox } from './lib/secrets';
import { createLogger, createRuntime, stopOnSignals, type Logger, type Runtime } from './runtime';
import { seedDemo, type DemoSeed } from './seed';

interface Serving {
  runtime: Runtime;
  app: App;
  workers: Workers | null;
  base: string;
  seed: DemoSeed | null;
}

/** Migrations, the demo seed, the HTTP server and (unless told not to) the workers. */
async function serve(config: Config, database: Database, log: Logger): Promise<Serving> {
  const secrets = await loadSecretBox(config);
  const orm = await initOrm({ databaseUrl: database.url, logSql: config.logSql });
  const runtime = createRuntime({ orm, config, secrets, logger: log });
  let app: App | undefined;
  try {
    const seed = config.seedDemo ? await seedDemo(orm) : null;
    app = await createApp(runtime);
    const base = await app.listen(config.port, config.host);
    const workers = config.workers.inProcess ? await startWorkers(runtime, database.url) : null;
    return { runtime, app, workers, base, seed };
  } catch (error) {
    await app?.close().catch(() => {});
    await orm.close().catch(() => {});
    throw error;
  }
}

async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger();
  const database = await openDatabase(config, (line) => log.info(line));
  let serving: Serving;
  try {
    serving = await serve(config, database, log);
  } catch (error) {
    // Leave no embedded cluster behind a failed start (a port in use, say).
    await database.stop().catch(() => {});
    throw error;
  }
  const { runtime, app, workers, base, seed } = serving;

  // One write, so that whoever watches the output sees the whole banner at once.
  const banner = [
    `vozgate is up (${database.embedded ? `embedded PostgreSQL in ${config.dataDir}` : 'DATABASE_URL'})`,
    `  GraphQL   ${base}/graphql`,
    `  REST      ${base}/api`,
    `  health    ${base}/healthz, ${base}/readyz`,
    `  workers   ${workers ? `in this process (telephony: ${runtime.telephony.name})` : 'not in this process: run `npm run worker`'}`,
  ];
  if (seed) {
    banner.push(
      `Demo account ${seed.accountId} created; this token is shown only once:`,
      `  Authorization: Bearer ${seed.token}`,
      `  campaign_id ${seed.campaignId}, phone number id ${seed.phoneNumberId}`,
    );
  }
  // The banner is for the person who ran `npm start`; the logs are JSON lines.
  process.stdout.write(`${banner.join('\n')}\n`);

  stopOnSignals(log, 'vozgate', async () => {
    try {
      await app.close(config.shutdownTimeoutMs);
      await workers?.stop(config.shutdownTimeoutMs);
      await runtime.orm.close();
    } finally {
      await database.stop();
    }
  });
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
