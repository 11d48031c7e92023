import 'reflect-metadata';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { loadConfig, type Config } from '../config';
import { openDatabase, type Database } from '../db/database';
import { initOrm } from '../db/orm';
import { DomainError } from '../errors';
import { OperatorError } from '../modules/accounts/account.service';
import type { CommandName } from './commands';
import { CommandOutcome } from './assistant-test';
import { inEnglish } from './english';
import { RUNNERS, type Flags } from './runners';

/**
 * Runs one checked command: the configuration, the database (never a new one), the ORM, the
 * command, its JSON on stdout. Answers the exit code: 0, or 1 with `{"error": "..."}` on stderr.
 */
export async function runCommand(name: CommandName, flags: Flags): Promise<number> {
  const config = loadConfig();
  let database: Database;
  try {
    database = await openExistingDatabase(config);
  } catch (error) {
    return refused(error);
  }
  try {
    const orm = await initOrm({ databaseUrl: database.url, poolMax: 2 });
    try {
      const result = await RUNNERS[name](orm.em.fork(), flags, config);
      const outcome = result instanceof CommandOutcome ? result : new CommandOutcome(result, 0);
      process.stdout.write(`${JSON.stringify(outcome.output)}\n`);
      return outcome.exitCode;
    } finally {
      await orm.close();
    }
  } catch (error) {
    return refused(error);
  } finally {
    await database.stop();
  }
}

function refused(error: unknown): number {
  const message = error instanceof OperatorError ? error.message : error instanceof DomainError ? inEnglish(error) : null;
  if (message === null) throw error;
  process.stderr.write(`${JSON.stringify({ error: message })}\n`);
  return 1;
}

/**
 * The server's database, or an operator error saying where to find it. A CLI command never
 * makes a cluster or a schema: a forgotten DATA_DIR used to give the operator a second, empty
 * database (and "account 1 does not exist"). An existing cluster that is not running is started
 * for the command and stopped after it; pending migrations of an existing schema are applied.
 */
async function openExistingDatabase(config: Config): Promise<Database> {
  const say = (line: string) => process.stderr.write(`${line}\n`);
  if (!config.databaseUrl && !existsSync(path.join(config.dataDir, 'pg', 'PG_VERSION'))) {
    throw new OperatorError(
      `there is no vozgate database in ${config.dataDir} (DATA_DIR): the CLI never creates one. ` +
        'Set DATA_DIR to the directory of the server you mean (npm start prints it; the default is .data in the directory it ran from), ' +
        'or DATABASE_URL to its PostgreSQL',
    );
  }
  const database = await openDatabase(config, say);
  say(
    database.embedded
      ? `vozgate cli: the embedded database in ${config.dataDir} (set DATA_DIR to the server's, or DATABASE_URL, to use another)`
      : 'vozgate cli: the database of DATABASE_URL',
  );
  try {
    if (!(await hasVozgateSchema(database.url))) {
      throw new OperatorError(
        `there is no vozgate database ${database.embedded ? `in ${config.dataDir} (DATA_DIR)` : 'at DATABASE_URL'}: it has no vozgate tables, and the CLI never creates them. ` +
          'Point DATA_DIR or DATABASE_URL at the database of the server you mean, or start the server (npm start) on this one first',
      );
    }
  } catch (error) {
    await database.stop();
    throw error;
  }
  return database;
}

async function hasVozgateSchema(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    const { rows } = await client.query(`select to_regclass('public.accounts') is not null as present`);
    return rows[0].present === true;
  } finally {
    await client.end();
  }
}
