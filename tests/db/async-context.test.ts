import { AsyncLocalStorage } from 'node:async_hooks';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Account } from '../../src/modules/accounts/account.entity';
import { Label } from '../../src/modules/organize/label.entity';
import { startTestApp, type TestApp } from '../helpers/app';

/**
 * MikroORM without AsyncLocalStorage (patches/@mikro-orm+core+6.6.16.patch): running one turns
 * on Node's async hooks for every promise of the process, for good. Transactions, nested ones
 * and flushes work as before; the global EntityManager joins no transaction by its async context.
 */

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});

afterAll(async () => {
  await app?.close();
});

const labels = async (accountId: number): Promise<string[]> =>
  (await app.orm.em.fork().execute<{ name: string }[]>('select name from labels where account_id = ? order by name', [accountId])).map((row) => row.name);

describe('the ORM without async context', () => {
  it('runs a request’s transactions, flushes and reads without an AsyncLocalStorage', async () => {
    const account = await app.account();
    const run = jest.spyOn(AsyncLocalStorage.prototype, 'run');
    const enterWith = jest.spyOn(AsyncLocalStorage.prototype, 'enterWith');
    // What ran one, read before the spies are restored (which forgets their calls).
    let runs = -1;
    try {
      // Through the API: a label made (a transaction with a flush), then the page of labels (a read with its total).
      const made = await app.graphql('mutation { createLabel(input: { name: "VIP" }) { id name } }', {}, account.token);
      expect(made.body.errors).toBeUndefined();
      const page = await app.graphql('query { labels { total data { name } } }', {}, account.token);
      expect(page.body.data.labels).toEqual({ total: 1, data: [{ name: 'VIP' }] });
      // The ORM directly: a transaction with a nested one, and a flush.
      await app.orm.em.fork().transactional(async (tx) => {
        tx.create(Label, { account: tx.getReference(Account, account.accountId), name: 'Outer' });
        await tx.transactional(async (inner) => {
          inner.create(Label, { account: inner.getReference(Account, account.accountId), name: 'Inner' });
        });
      });
      runs = run.mock.calls.length + enterWith.mock.calls.length;
    } finally {
      run.mockRestore();
      enterWith.mockRestore();
    }
    expect(runs).toBe(0);
    expect(await labels(account.accountId)).toEqual(['Inner', 'Outer', 'VIP']);
  });

  it('rolls a failed nested transaction back to its savepoint, and its outer one commits', async () => {
    const account = await app.account();
    await app.orm.em.fork().transactional(async (tx) => {
      tx.create(Label, { account: tx.getReference(Account, account.accountId), name: 'Kept' });
      await tx
        .transactional(async (inner) => {
          inner.create(Label, { account: inner.getReference(Account, account.accountId), name: 'Undone' });
          await inner.flush();
          throw new Error('the nested work fails');
        })
        .catch(() => {});
    });
    expect(await labels(account.accountId)).toEqual(['Kept']);
  });

  it('lets a flush that comes while another runs on the same EntityManager wait for it', async () => {
    const account = await app.account();
    const em = app.orm.em.fork();
    em.create(Label, { account: em.getReference(Account, account.accountId), name: 'First' });
    const first = em.flush();
    em.create(Label, { account: em.getReference(Account, account.accountId), name: 'Second' });
    await Promise.all([first, em.flush()]);
    expect(await labels(account.accountId)).toEqual(['First', 'Second']);
  });

  it('keeps the global EntityManager out of a transaction it did not begin', async () => {
    const account = await app.account();
    const seen = await app.orm.em.fork().transactional(async (tx) => {
      await tx.execute('update accounts set name = ? where id = ?', ['renamed, not committed', account.accountId]);
      // Another connection: the transaction's write is not seen there yet.
      return app.orm.em.execute<{ name: string }[]>('select name from accounts where id = ?', [account.accountId]);
    });
    expect(seen[0].name).not.toBe('renamed, not committed');
  });

  it('has no source that would run one: no findAndCount, no RequestContext, no AsyncLocalStorage of its own', () => {
    const found: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(file);
        else if (file.endsWith('.ts') && /\.findAndCount\(|\bRequestContext\.(create|enter)|new AsyncLocalStorage\b/.test(readFileSync(file, 'utf8'))) found.push(path.relative(process.cwd(), file));
      }
    };
    walk(path.join(__dirname, '../../src'));
    expect(found).toEqual([]);
  });
});
