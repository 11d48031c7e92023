import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Knex } from '@mikro-orm/knex';
import type { ClientBase, QueryConfig, QueryResult, QueryResultRow } from 'pg';

/**
 * Runs a read as a named prepared statement on a connection of the ORM's pool (the
 * transaction's connection when `em` is in one), and answers its rows as the driver reads
 * them. `sql` takes its values as `?` placeholders, like `em.execute`, and must be the same
 * text for every call of its kind: the values go apart, never into the text.
 *
 * `em.execute` writes the values into the text and sends it to be parsed and planned anew
 * every time. A prepared statement is parsed once on each connection, and once PostgreSQL
 * finds that one plan serves every value (after five runs) it stops planning it: a page of
 * leads, with its total and its campaigns, took it more to plan than to run. A value that
 * changes the best plan, as an offset does, keeps getting a plan of its own. A name is the
 * text's hash, so one text is one statement on each connection; the ORM's query log shows it
 * as it shows `em.execute`'s. `?` stands for a value everywhere in `sql`: none may be in its
 * strings or operators.
 */
export async function selectPrepared<T>(em: EntityManager, sql: string, params: readonly unknown[]): Promise<T[]> {
  const { name, text } = statementOf(sql);
  const knex: Knex = em.getTransactionContext<Knex.Transaction>() ?? em.getConnection().getKnex();
  const started = Date.now();
  const client: ClientBase = await knex.client.acquireConnection().catch((error: Error) => {
    throw em.getDriver().convertException(error);
  });
  try {
    const { rows } = await queryClient(client, { name, text, values: params as unknown[] });
    em.config.getLogger().logQuery({ level: 'info', query: text, took: Date.now() - started, results: rows.length });
    return rows as T[];
  } catch (error) {
    em.config.getLogger().logQuery({ level: 'error', query: text, took: Date.now() - started });
    throw em.getDriver().convertException(error as Error);
  } finally {
    await knex.client.releaseConnection(client);
  }
}

export interface Statement {
  name: string;
  text: string;
}

/**
 * Statements by their `?` text; as many as there are kinds of them (a few dozen, and a call
 * list's for each combination of filters its clients use), and never more than the cap.
 */
const statements = new Map<string, Statement>();
const MAX_STATEMENTS = 1000;

/** A `?` statement's named prepared form: `$n` placeholders, named by the text's hash (the benchmark's floor prepares the same). */
export function statementOf(sql: string): Statement {
  const known = statements.get(sql);
  if (known) return known;
  let n = 0;
  const text = sql.replace(/\?/g, () => `$${++n}`);
  const statement = { name: `vz_${createHash('sha1').update(text).digest('base64url')}`, text };
  if (statements.size < MAX_STATEMENTS) statements.set(sql, statement);
  return statement;
}

/**
 * `client.query(config)` answered through pg's callback, not through the promise pg returns
 * without one. With that promise (pg 8.20), each result stayed reachable from the old
 * generation until a full collection: every young collection then copied and promoted the
 * rows of reads already answered (under list leads, 4-6 MB a collection, against 10 KB this
 * way). tests/db.prepared.test.ts measures it.
 */
export function queryClient<T extends QueryResultRow>(client: ClientBase, config: QueryConfig): Promise<QueryResult<T>> {
  return new Promise((resolve, reject) => {
    client.query<T>(config, (error: Error | null, result: QueryResult<T>) => (error ? reject(error) : resolve(result)));
  });
}
