import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';

/** me.ledgerFeed: the balance's history a slice at a time, so a console can page through all of it. */
let app: TestApp;
let me: TestAccount;
let other: TestAccount;

const FEED = 'query($after: String, $per_page: Int) { me { ledgerFeed(after: $after, per_page: $per_page) { next_after data { id amount balance_after kind reference created_at } } } }';
const feed = (variables: Record<string, unknown>, token = me.token) => app.graphql(FEED, variables, token);

/** `count` credits of 1.00 each, in order, as the ledger records them. */
async function credits(account: TestAccount, count: number): Promise<void> {
  await app.sql(
    `insert into ledger_entries (account_id, amount, balance_after, kind, reference)
     select $1, 1, g, 'credit', 'test:' || g from generate_series(1, $2) g`,
    [account.accountId, count],
  );
}

beforeAll(async () => {
  app = await startTestApp();
  me = await app.account();
  other = await app.account();
  await credits(me, 250);
  await credits(other, 3);
});
afterAll(() => app?.close());

describe('me.ledgerFeed', () => {
  it('pages through the whole ledger, newest first, each entry once', async () => {
    const all = (await app.sql('select id from ledger_entries where account_id = $1 order by id desc', [me.accountId])).map((row: any) => String(row.id));
    expect(all).toHaveLength(250);
    const seen: string[] = [];
    const sizes: number[] = [];
    let after: string | null = null;
    do {
      const res = await feed({ after, per_page: 100 });
      expect(res.body.errors).toBeUndefined();
      const slice: any = res.body.data.me.ledgerFeed;
      sizes.push(slice.data.length);
      seen.push(...slice.data.map((entry: any) => entry.id));
      after = slice.next_after;
      if (after !== null) expect(after).toBe(slice.data.at(-1).id);
    } while (after !== null);
    expect(sizes).toEqual([100, 100, 50]);
    expect(seen).toEqual(all);
  });

  it('answers the entries as me.ledger does, 15 by default', async () => {
    const res = await feed({});
    const slice = res.body.data.me.ledgerFeed;
    expect(slice.data).toHaveLength(15);
    expect(slice.data[0]).toEqual({ id: expect.any(String), amount: 1, balance_after: 250, kind: 'credit', reference: 'test:250', created_at: expect.stringMatching(/Z$/) });
    const latest = await app.graphql('{ me { ledger(limit: 15) { id amount balance_after kind reference created_at } } }', {}, me.token);
    expect(latest.body.data.me.ledger).toEqual(slice.data);
  });

  it('ends with next_after null on a slice that reaches the first entry', async () => {
    const res = await feed({ per_page: 3 }, other.token);
    expect(res.body.data.me.ledgerFeed.data.map((entry: any) => entry.reference)).toEqual(['test:3', 'test:2', 'test:1']);
    expect(res.body.data.me.ledgerFeed.next_after).toBeNull();
  });

  it("refuses a cursor that is not one of the account's entries, and a bad page size", async () => {
    const [theirs] = await app.sql('select id::text as cursor from ledger_entries where account_id = $1 order by id desc limit 1', [other.accountId]);
    for (const after of [theirs.cursor, '99999999999', 'abc', '-1', '1.5', '']) {
      const res = await feed({ after });
      expect(res.body.errors?.[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', errors: { after: ['O after selecionado é inválido.'] } });
    }
    for (const per_page of [0, 101]) {
      const res = await feed({ per_page });
      expect(res.body.errors?.[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', errors: { per_page: [expect.any(String)] } });
    }
  });

  it('costs the same statements however deep the slice', async () => {
    const [oldest] = await app.sql('select id::text as cursor from ledger_entries where account_id = $1 order by id limit 1 offset 5', [me.accountId]);
    app.resetQueries();
    await feed({ per_page: 5 });
    const first = app.queries.length;
    app.resetQueries();
    const deep = await feed({ after: oldest.cursor, per_page: 5 });
    expect(deep.body.data.me.ledgerFeed.data).toHaveLength(5);
    expect(app.queries.length).toBe(first);
  });
});
