import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Knex } from '@mikro-orm/knex';
import type { ClientBase, FieldDef, QueryArrayConfig, QueryArrayResult, QueryConfig, QueryResult, QueryResultRow } from 'pg';

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
 * text's hash, so one text is one statement on each connection (up to a cap, statementOf);
 * the ORM's query log shows it as it shows `em.execute`'s. `?` stands for a value everywhere
 * in `sql`: none may be in its strings or operators.
 */
export async function selectPrepared<T>(em: EntityManager, sql: string, params: readonly unknown[]): Promise<T[]> {
  const { name, text } = statementOf(sql);
  const knex: Knex = em.getTransactionContext<Knex.Transaction>() ?? em.getConnection().getKnex();
  const started = Date.now();
  const client: ClientBase = await knex.client.acquireConnection().catch((error: Error) => {
    throw em.getDriver().convertException(error);
  });
  try {
    const rows = rowsOf(text, await queryClient<unknown[]>(client, { name, text, values: params as unknown[], rowMode: 'array' }));
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
  /** Absent past the cap: the text then runs unnamed, parsed and planned on each run. */
  name?: string;
  text: string;
}

/**
 * Named statements by their `?` text: the token check, and a call list's for each combination
 * of filters and page size its clients use. PostgreSQL keeps a named statement, with its plans
 * (about 150 KB for a page of calls), on each connection that ran it until the connection
 * closes. So only the first MAX_STATEMENTS texts get a name, and a connection never holds
 * more; any later text runs unnamed, as `em.execute`'s do.
 */
const statements = new Map<string, Statement>();
export const MAX_STATEMENTS = 200;

/** A `?` statement's prepared form: `$n` placeholders, named by the text's hash while under the cap (the benchmark's floor prepares the same). */
export function statementOf(sql: string): Statement {
  const known = statements.get(sql);
  if (known) return known;
  let n = 0;
  const text = sql.replace(/\?/g, () => `$${++n}`);
  if (statements.size >= MAX_STATEMENTS) return { text };
  const statement = { name: `vz_${createHash('sha1').update(text).digest('base64url')}`, text };
  statements.set(sql, statement);
  return statement;
}

/**
 * `client.query(config)` answered through pg's callback, not through the promise pg returns
 * without one. With that promise (pg 8.20), each result stayed reachable from the old
 * generation until a full collection: every young collection then copied and promoted the
 * rows of reads already answered (under list leads, 4-6 MB a collection, against 10 KB this
 * way). tests/db/prepared.test.ts measures it.
 */
export function queryClient<T extends QueryResultRow>(client: ClientBase, config: QueryConfig): Promise<QueryResult<T>>;
export function queryClient<T extends unknown[]>(client: ClientBase, config: QueryArrayConfig): Promise<QueryArrayResult<T>>;
export function queryClient(client: ClientBase, config: QueryConfig | QueryArrayConfig): Promise<QueryResult | QueryArrayResult> {
  return new Promise((resolve, reject) => {
    client.query(config, (error: Error | null, result: QueryResult | QueryArrayResult) => (error ? reject(error) : resolve(result)));
  });
}

type RowBuilder = (values: unknown[]) => Record<string, unknown>;

/**
 * Each text's column list and its rows' maker, and the makers by column list, at most
 * MAX_ROW_SHAPES of each: the application's texts that are read often stay under it (a call
 * list's filters and page sizes share a column list). Past it, a new text's column list is
 * looked up on each read, and a new column list's maker is made on each read.
 */
const shapes = new Map<string, { names: string[]; build: RowBuilder }>();
const builders = new Map<string, RowBuilder>();
const MAX_ROW_SHAPES = 500;

/**
 * A result read as arrays, made into objects as pg makes them (one property a column, in
 * the columns' order, a later column of the same name over an earlier one), by a function
 * made for its column list: an object literal with those properties.
 *
 * pg makes each row by copying an object of the result's columns and then setting each one
 * by name. Those are two sites in pg's code that every read of the process goes through,
 * and a process that reads many column lists makes both megamorphic: V8 then copies and sets
 * through its slowest paths. A literal for each column list builds every row of that list
 * with one object shape, known in advance. Counted with callgrind, a page of 100 calls cost
 * 19% fewer instructions in the process, and a page of 100 leads with their contacts 10%.
 */
function rowsOf(text: string, result: QueryArrayResult<unknown[]>): Record<string, unknown>[] {
  const build = builderOf(text, result.fields);
  const rows = new Array<Record<string, unknown>>(result.rows.length);
  for (let i = 0; i < rows.length; i++) rows[i] = build(result.rows[i]);
  return rows;
}

function builderOf(text: string, fields: readonly FieldDef[]): RowBuilder {
  const known = shapes.get(text);
  if (known && known.names.length === fields.length && fields.every((field, i) => field.name === known.names[i])) return known.build;
  const names = fields.map((field) => field.name);
  const key = names.join('\0');
  let build = builders.get(key);
  if (!build) {
    // A property named `__proto__` in a literal would set the object's prototype instead: those columns are set one by one.
    build = names.includes('__proto__') ? byDefinition(names) : literalOf(names);
    if (builders.size < MAX_ROW_SHAPES) builders.set(key, build);
  }
  if (known || shapes.size < MAX_ROW_SHAPES) shapes.set(text, { names, build });
  return build;
}

/** `(v) => ({ "id": v[0], "name": v[1] })`: each name a JSON string, which is a JavaScript string literal. */
function literalOf(names: readonly string[]): RowBuilder {
  return new Function('v', `return { ${names.map((name, i) => `${JSON.stringify(name)}: v[${i}]`).join(', ')} };`) as RowBuilder;
}

function byDefinition(names: readonly string[]): RowBuilder {
  return (values) => {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < names.length; i++) Object.defineProperty(row, names[i], { value: values[i], enumerable: true, writable: true, configurable: true });
    return row;
  };
}
