import 'reflect-metadata';
import type { MikroORM } from '@mikro-orm/postgresql';
import { consoleLogger, createApp, type App, type Logger } from './app';
import { loadConfig, type Config } from './config';
import { openDatabase, type Database } from './db/database';
import { initOrm } from './db/orm';
import { loadSecretBox } from './lib/secrets';
import { seedDemo, type DemoSeed } from './seed';

interface Serving {
  orm: MikroORM;
  app: App;
  base: string;
  seed: DemoSeed | null;
}

/** Migrations, the demo seed and the HTTP server, on a database that is already up. */
async function serve(config: Config, database: Database, log: Logger): Promise<Serving> {
  const secrets = await loadSecretBox(config);
  const orm = await initOrm({ databaseUrl: database.url, logSql: config.logSql });
  try {
    const seed = config.seedDemo ? await seedDemo(orm) : null;
    const app = await createApp({ orm, config, secrets, logger: log });
    const base = await app.listen(config.port, config.host);
    return { orm, app, base, seed };
  } catch (error) {
    await orm.close().catch(() => {});
    throw error;
  }
}

async function main(): Promise<void> {
  const config = loadConfig();
  const log = consoleLogger;
  const database = await openDatabase(config, (line) => log.info(line));
  let serving: Serving;
  try {
    serving = await serve(config, database, log);
  } catch (error) {
    // Leave no embedded cluster behind a failed start (a port in use, say).
    await database.stop().catch(() => {});
    throw error;
  }
  const { orm, app, base, seed } = serving;

  // One write, so that whoever watches the output sees the whole banner at once.
  const banner = [
    `vozgate is up (${database.embedded ? `embedded PostgreSQL in ${config.dataDir}` : 'DATABASE_URL'})`,
    `  GraphQL   ${base}/graphql`,
    `  REST      ${base}/api`,
    `  health    ${base}/healthz, ${base}/readyz`,
  ];
  if (seed) {
    banner.push(
      `Demo account ${seed.accountId} created; this token is shown only once:`,
      `  Authorization: Bearer ${seed.token}`,
      `  campaign_id ${seed.campaignId}, phone number id ${seed.phoneNumberId}`,
    );
  }
  log.info(banner.join('\n'));

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info(`${signal}: stopping`);
    try {
      await app.close();
      await orm.close();
    } finally {
      await database.stop();
    }
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
