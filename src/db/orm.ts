import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { Logger as QueueLogger, runMigrations } from 'graphile-worker';
import { Client } from 'pg';
import { entities } from './entities';
import { RetryingEntityManager } from './entity-manager';
import { guardStalledStatements } from './stall-guard';
import { migrations } from './migrations';
import type { Logger } from '../log';

export interface OrmOptions {
  databaseUrl: string;
  logSql?: boolean;
  /** Called with every SQL statement the ORM sends (tests count them). */
  onQuery?: (sql: string) => void;
  poolMax?: number;
  /** Where the ORM's and knex's own messages go (the service's JSON log); stderr when unset. */
  log?: Logger;
  /**
   * DATABASE_TIMEOUT_MS: how long a statement may run, and a connection be waited for, before
   * the request fails (a 503 to clients). Unset: no bound (the migrations run that way).
   */
  timeoutMs?: number;
}

/**
 * The bounds that keep a stalled database from holding requests: the server cancels a
 * statement after `timeoutMs`, a connection is waited for and made within it, and a statement
 * the server never answers is given up a second later, its connection closed (stall-guard.ts).
 */
function bounded(timeoutMs: number) {
  return {
    connection: { statement_timeout: timeoutMs, connectionTimeoutMillis: timeoutMs },
    acquireConnectionTimeout: timeoutMs,
  };
}

export function ormConfig(options: OrmOptions): Options {
  const timeouts = options.timeoutMs ? bounded(options.timeoutMs) : null;
  return {
    clientUrl: options.databaseUrl,
    entities,
    entityManager: RetryingEntityManager,
    extensions: [Migrator],
    migrations: { migrationsList: migrations, transactional: true, allOrNothing: true, snapshot: false },
    // Timestamps come back as text; UTC makes them mean one thing. While the database is
    // unreachable, requests fail within seconds (a 503) instead of queueing for a minute.
    driverOptions: {
      connection: { options: '-c TimeZone=UTC', connectionTimeoutMillis: 5000, ...timeouts?.connection },
      acquireConnectionTimeout: timeouts?.acquireConnectionTimeout ?? 10_000,
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
 * makes processes that start together on one database migrate one after the other. The
 * migrations run without the statement timeout (an index on a large table takes its time);
 * the connections the service then uses have it.
 */
export async function initOrm(options: OrmOptions): Promise<MikroORM> {
  const lock = new Client({ connectionString: options.databaseUrl });
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const orm = await MikroORM.init(ormConfig({ ...options, timeoutMs: undefined }));
    try {
      await orm.getMigrator().up();
      await runMigrations({ connectionString: options.databaseUrl, logger: silentQueueLogger });
      if (options.timeoutMs) {
        await orm.reconnect({ driverOptions: ormConfig(options).driverOptions });
        guardStalledStatements(orm, options.timeoutMs);
      }
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
