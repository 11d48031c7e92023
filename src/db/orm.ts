import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { Logger as QueueLogger, runMigrations } from 'graphile-worker';
import { Client } from 'pg';
import { entities } from './entities';
import { migrations } from './migrations';
import type { Logger } from '../runtime';

export interface OrmOptions {
  databaseUrl: string;
  logSql?: boolean;
  /** Called with every SQL statement the ORM sends (tests count them). */
  onQuery?: (sql: string) => void;
  poolMax?: number;
  /** Where the ORM's and knex's own messages go (the service's JSON log); stderr when unset. */
  log?: Logger;
}

export function ormConfig(options: OrmOptions): Options {
  return {
    clientUrl: options.databaseUrl,
    entities,
    extensions: [Migrator],
    migrations: { migrationsList: migrations, transactional: true, allOrNothing: true, snapshot: false },
    // Timestamps come back as text; UTC makes them mean one thing. While the database is
    // unreachable, requests fail within seconds (a 503) instead of queueing for a minute.
    driverOptions: {
      connection: { options: '-c TimeZone=UTC', connectionTimeoutMillis: 5000 },
      acquireConnectionTimeout: 10_000,
      // knex's warnings (a connection that broke) go to the log, not to console.log.
      ...(options.log ? { log: knexLog(options.log) } : {}),
    },
    pool: { min: 0, max: options.poolMax ?? 10 },
    debug: options.logSql || options.onQuery ? ['query'] : false,
    logger: options.onQuery ?? ((message) => (options.log ? options.log.debug(message) : process.stderr.write(`${message}\n`))),
    colors: false,
    // Each request forks its own EntityManager; the global one must never carry state.
    allowGlobalContext: false,
    discovery: { warnWhenNoEntities: true },
  };
}

function knexLog(log: Logger) {
  const text = (message: unknown) => (message instanceof Error ? message.message : String(message));
  return {
    warn: (message: unknown) => log.warn(`database: ${text(message)}`),
    error: (message: unknown) => log.error('database', message),
    deprecate: (method: string, alternative: string) => log.warn(`database: ${method} is deprecated, use ${alternative}`),
    debug: (message: unknown) => log.debug(`database: ${text(message)}`),
  };
}

const MIGRATION_LOCK = 7_426_000;

/**
 * Connects and applies the checked-in migrations and the job queue's own. An advisory lock
 * makes processes that start together on one database migrate one after the other.
 */
export async function initOrm(options: OrmOptions): Promise<MikroORM> {
  const lock = new Client({ connectionString: options.databaseUrl });
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const orm = await MikroORM.init(ormConfig(options));
    try {
      await orm.getMigrator().up();
      await runMigrations({ connectionString: options.databaseUrl, logger: silentQueueLogger });
    } catch (error) {
      await orm.close();
      throw error;
    }
    return orm;
  } finally {
    await lock.end();
  }
}

const silentQueueLogger = new QueueLogger(() => () => {});
