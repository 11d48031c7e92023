import { DriverException } from '@mikro-orm/core';
import { MAX_STATEMENTS, selectPrepared } from '../src/db/prepared';
import { startTestApp, type TestApp } from './helpers/app';
import { oldSpaceGrowth } from './helpers/gc';

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
    // Through pg's promise, the 200 reads' rows were promoted (36 MB here); through its callback, none are.
    expect(growth).toBeLessThan(4_000_000);
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
