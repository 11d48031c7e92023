import { DriverException } from '@mikro-orm/core';
import { Client } from 'pg';
import { MAX_STATEMENTS, selectPrepared } from '../../src/db/prepared';
import { startTestApp, type TestApp } from '../helpers/app';
import { oldSpaceGrowth } from '../helpers/gc';

/** Reads run as named prepared statements on the ORM's connections (src/db/prepared.ts). */

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});

afterAll(async () => {
  await app?.close();
});

const SQL = 'select id, name from accounts where id = ? and name = any(?::text[])';

describe('selectPrepared', () => {
  it('runs one text as one prepared statement on a connection, its values apart, and logs it as the ORM logs its own', async () => {
    const account = await app.account();
    app.resetQueries();
    // In a transaction every statement runs on its one connection, which a later query asks about.
    const { first, again, uses } = await app.orm.em.fork().transactional(async (em) => {
      const first = await selectPrepared<{ id: number; name: string }>(em, SQL, [account.accountId, '{nobody}']);
      const again = await selectPrepared<{ id: number; name: string }>(em, SQL, [account.accountId, `{${(await em.execute('select name from accounts where id = ?', [account.accountId]))[0].name}}`]);
      const [uses] = await em.execute<{ n: string }[]>(
        `select (generic_plans + custom_plans)::text as n from pg_prepared_statements
         where statement = 'select id, name from accounts where id = $1 and name = any($2::text[])'`,
      );
      return { first, again, uses };
    });
    expect(first).toEqual([]);
    expect(again).toEqual([{ id: account.accountId, name: expect.any(String) }]);
    expect(uses).toEqual({ n: '2' });
    expect(app.queries.filter((query) => query.startsWith('[query] select id, name from accounts where id = $1'))).toHaveLength(2);
  });

  it('sees what its transaction wrote, which no other connection sees yet', async () => {
    const account = await app.account();
    const seen = await app.orm.em.fork().transactional(async (em) => {
      await em.execute('update accounts set name = ? where id = ?', ['renamed in the transaction', account.accountId]);
      return selectPrepared<{ name: string }>(em, 'select name from accounts where id = ?', [account.accountId]);
    });
    expect(seen).toEqual([{ name: 'renamed in the transaction' }]);
  });

  it("answers the ORM's error for a statement PostgreSQL refuses, and the connection serves the next read", async () => {
    const em = app.orm.em.fork();
    await expect(selectPrepared(em, 'select id from accounts where id = ?::int', ['not a number'])).rejects.toBeInstanceOf(DriverException);
    await expect(selectPrepared(em, 'select 1 as one where ? = 1', [1])).resolves.toEqual([{ one: 1 }]);
  });

  it("lets each read's rows go at the young generation's collections", async () => {
    const em = app.orm.em.fork();
    // 100 rows of 1.6 KB: 160 KB a read, as a page of leads with its contacts.
    const read = () => selectPrepared<{ i: number; pad: string }>(em, `select i, repeat('x', 1600) || i as pad from generate_series(1, 100) i where ? > 0`, [1]);
    expect(await read()).toHaveLength(100);
    for (let i = 0; i < 50; i++) await read();
    const growth = await oldSpaceGrowth(async () => {
      for (let i = 0; i < 200; i++) await read();
    });
    // Through pg's promise, the 200 reads' rows were promoted (36 MB here); through its callback, none
    // are. The bound leaves room for what a loaded machine's other work promotes meanwhile (a round
    // of 4.19 MB was seen under CI-like load, its least of three rounds).
    expect(growth).toBeLessThan(10_000_000);
  });

  it("answers each row as pg's own rows: a property a column in the columns' order, each value parsed as pg parses it", async () => {
    const em = app.orm.em.fork();
    const sql = `select i as id, 'lead ' || i as name, null::text as note, '{"a": [1]}'::jsonb as variables, 5000000000::bigint as big,
      i * 2 as twice, 'first' as dup, 'second' as dup, 'a b' as "column with ""quotes"" and spaces"
      from generate_series(1, 3) i where ? > 0 order by i`;
    const rows = await selectPrepared<Record<string, unknown>>(em, sql, [1]);
    // pg's object mode, on a connection of its own, is what every row must equal, key order included.
    const client = new Client({ connectionString: app.databaseUrl });
    await client.connect();
    const { rows: expected } = await client.query(sql.replace('?', '$1'), [1]).finally(() => client.end());
    expect(rows.map((row) => Object.entries(row))).toEqual(expected.map((row) => Object.entries(row)));
    expect(rows[0]).toEqual({ id: 1, name: 'lead 1', note: null, variables: { a: [1] }, big: '5000000000', twice: 2, dup: 'second', 'column with "quotes" and spaces': 'a b' });
    // Rows of one column list share their maker; other lists, and an empty read, get their own.
    await expect(selectPrepared(em, 'select ? as "v", 2 as w', ['x'])).resolves.toEqual([{ v: 'x', w: 2 }]);
    await expect(selectPrepared(em, 'select 1 as w, ? as "v"', ['x'])).resolves.toEqual([{ w: 1, v: 'x' }]);
    await expect(selectPrepared(em, 'select 1 as w where ? = 2', [1])).resolves.toEqual([]);
  });

  it('answers a column named __proto__ as a property of the row, where pg would have set the prototype', async () => {
    const [row] = await selectPrepared<Record<string, unknown>>(app.orm.em.fork(), `select ? as "__proto__", 1 as after`, ['own']);
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.entries(row)).toEqual([
      ['__proto__', 'own'],
      ['after', 1],
    ]);
  });

  it('names at most MAX_STATEMENTS texts, so that no connection holds more, and runs the others unnamed', async () => {
    const { answers, held } = await app.orm.em.fork().transactional(async (em) => {
      const answers: number[] = [];
      for (let i = 0; i < MAX_STATEMENTS + 20; i++) {
        const [row] = await selectPrepared<{ n: number }>(em, `select ?::int + ${i} as n`, [1]);
        answers.push(row.n);
      }
      // Once more each: the named ones run as the statements already prepared.
      for (let i = 0; i < MAX_STATEMENTS + 20; i++) await selectPrepared(em, `select ?::int + ${i} as n`, [1]);
      const [held] = await em.execute<{ n: number }[]>('select count(*)::int as n from pg_prepared_statements');
      return { answers, held: held.n };
    });
    expect(answers).toEqual(Array.from({ length: MAX_STATEMENTS + 20 }, (_, i) => i + 1));
    expect(held).toBeLessThanOrEqual(MAX_STATEMENTS);
    expect(held).toBeGreaterThan(MAX_STATEMENTS - 10);
  });
});
