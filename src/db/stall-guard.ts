import type { MikroORM } from '@mikro-orm/postgresql';

/** What the guard reads of a pg client in use: its statement in flight, and its socket. */
interface Client {
  _activeQuery?: object | null;
  connection?: { stream?: { destroy(): void } };
}

/** The ORM's knex, as far as the guard reads it: the pool (tarn) and the clients it has handed out. */
interface Knex {
  client?: { pool?: { used: { resource: Client }[] } };
}

const EVERY_MS = 250;

/**
 * Gives up on statements that a stalled server (a frozen machine, a network that drops
 * everything) never answers, which PostgreSQL's own statement_timeout cannot cancel: four
 * times a second it looks at the connections in use, and closes one whose statement has been
 * the same for longer than `timeoutMs` plus a second. The statement then fails (connection
 * terminated: a 503 to clients, a retry to jobs), and knex never hands that connection out
 * again; one that was inside a transaction takes it with it. One timer per process, not
 * pg's `query_timeout`: that sets a timer per statement, which keeps each read's rows alive
 * past the young generation's collections.
 */
export function guardStalledStatements(orm: MikroORM, timeoutMs: number): void {
  const connection = orm.em.getConnection() as unknown as { client?: Knex };
  const seen = new WeakMap<object, number>();
  const timer = setInterval(() => {
    // A closed ORM leaves no pool, and the guard stops with it. (It starts after boot's one
    // reconnect, which made the knex it watches.)
    const pool = connection.client?.client?.pool;
    if (!pool) return clearInterval(timer);
    const now = Date.now();
    for (const { resource } of pool.used) {
      const statement = resource._activeQuery;
      if (!statement) continue;
      const since = seen.get(statement);
      if (since === undefined) seen.set(statement, now);
      else if (now - since > timeoutMs + 1000) resource.connection?.stream?.destroy();
    }
  }, EVERY_MS);
  timer.unref();
}
