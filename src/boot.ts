import type { Config } from './config';
import { openDatabase, type Database } from './db/database';
import { initOrm } from './db/orm';
import { loadSecretBox } from './lib/secrets';
import { createRuntime, type Logger, type Runtime } from './runtime';

export interface Booted {
  database: Database;
  runtime: Runtime;
  /** Closes the pool, then stops the embedded cluster if this process started it. */
  close(): Promise<void>;
}

/**
 * What `npm start` and `npm run worker` both need first: the database (embedded or
 * DATABASE_URL), the secrets key, the migrations and the runtime. A failure on the way
 * leaves no embedded cluster behind.
 */
export async function boot(config: Config, log: Logger): Promise<Booted> {
  const database = await openDatabase(config, (line) => log.info(line));
  try {
    const secrets = await loadSecretBox(config);
    const orm = await initOrm({ databaseUrl: database.url, logSql: config.logSql, log, timeoutMs: config.databaseTimeoutMs });
    const runtime = createRuntime({ orm, config, secrets, logger: log });
    return {
      database,
      runtime,
      close: async () => {
        try {
          await orm.close();
        } finally {
          await database.stop();
        }
      },
    };
  } catch (error) {
    await database.stop().catch(() => {});
    throw error;
  }
}
