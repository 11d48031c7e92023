import { IsolationLevel, TransactionContext } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { transaction } from '../src/db/transaction';
import { Campaign } from '../src/modules/campaigns/campaign.entity';
import { startTestApp, type TestAccount, type TestApp } from './helpers/app';

/**
 * `transaction` is `em.transactional` without AsyncLocalStorage (src/db/transaction.ts): every
 * write of the service runs in it, so it must commit, roll back and nest as that does.
 */
let app: TestApp;
let account: TestAccount;

beforeAll(async () => {
  app = await startTestApp();
  account = await app.account();
});
afterAll(async () => {
  await app?.close();
});

const em = () => app.orm.em.fork() as EntityManager;
const names = async () => (await app.sql<{ name: string }>('select name from campaigns where account_id = $1 order by id', [account.accountId])).map((row) => row.name);
const insert = (tx: EntityManager, name: string) => tx.execute('insert into campaigns (account_id, name) values (?, ?)', [account.accountId, name]);

test('commits what work wrote and flushed, and answers what work answered', async () => {
  const before = await names();
  const answer = await transaction(em(), async (tx) => {
    await insert(tx, 'Primavera');
    // A change to a managed entity is flushed with the commit.
    const managed = await tx.findOneOrFail(Campaign, { id: account.campaignId });
    managed.name = 'Verão';
    return 42;
  });
  expect(answer).toBe(42);
  expect(await names()).toEqual([...before.map((name, i) => (i === 0 ? 'Verão' : name)), 'Primavera']);
});

test('rolls back everything when work throws, and throws its error', async () => {
  const before = await names();
  await expect(
    transaction(em(), async (tx) => {
      await insert(tx, 'Outono');
      throw new Error('no');
    }),
  ).rejects.toThrow('no');
  // A failed flush rolls back what ran before it.
  await expect(
    transaction(em(), async (tx) => {
      await insert(tx, 'Inverno');
      tx.create(Campaign, { account: account.accountId, name: null as unknown as string });
    }),
  ).rejects.toThrow();
  expect(await names()).toEqual(before);
});

test('nested in a transaction, runs in a savepoint of it', async () => {
  const before = await names();
  await transaction(em(), async (tx) => {
    await insert(tx, 'Fora');
    await expect(
      transaction(tx, async (inner) => {
        await insert(inner, 'Dentro');
        // The savepoint sees the outer transaction's writes.
        expect((await inner.execute('select count(*)::int as n from campaigns where name = ?', ['Fora']))[0].n).toBe(1);
        throw new Error('inner');
      }),
    ).rejects.toThrow('inner');
    await transaction(tx, (inner) => insert(inner, 'Dentro também'));
  });
  expect(await names()).toEqual([...before, 'Fora', 'Dentro também']);
});

test('takes the isolation level and read-only mode', async () => {
  const [level] = await transaction(em(), (tx) => tx.execute('show transaction_isolation'), { isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true });
  expect(level.transaction_isolation).toBe('repeatable read');
  await expect(transaction(em(), (tx) => insert(tx, 'Proibido'), { readOnly: true })).rejects.toThrow(/read-only transaction/);
});

test('keeps no AsyncLocalStorage context (it is what hooks every promise of the process on Node 20)', async () => {
  let seen: unknown = 'not run';
  await transaction(em(), async () => {
    seen = TransactionContext.currentTransactionContext();
  });
  expect(seen).toBeUndefined();
  // MikroORM's own keeps one, which is what the test would see without the helper.
  await em().transactional(async () => {
    seen = TransactionContext.currentTransactionContext();
  });
  expect(seen).toBeDefined();
});
