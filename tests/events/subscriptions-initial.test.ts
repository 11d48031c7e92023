import type { EntityManager } from '@mikro-orm/postgresql';
import { createClient, type Client } from 'graphql-ws';
import { Client as PgClient } from 'pg';
import WebSocket from 'ws';
import { campaignEvents } from '../../src/modules/campaigns/campaign.snapshot';
import { committedIn, parseSnapshot } from '../../src/modules/events/event.initial';
import { emitEvents } from '../../src/modules/events/event.outbox';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';
import { until } from '../helpers/dialer';

/**
 * `initial: true` on callUpdated and campaignUpdated: the current state first, then the
 * changes, with no change lost or repeated between the read and the listen. Changes are made
 * as a worker makes them: the row and its event in one transaction (the outbox), here held
 * open or committed at the moments the test needs.
 */
let app: TestApp;
let me: TestAccount;
const clients: Client[] = [];

beforeAll(async () => {
  app = await startTestApp();
  me = await app.account({ balance: '50' });
});
afterAll(async () => {
  for (const client of clients) await client.dispose();
  await app?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function connect(token: string): Client {
  const client = createClient({ url: app.url.replace('http', 'ws') + '/graphql', webSocketImpl: WebSocket, connectionParams: { Authorization: `Bearer ${token}` }, retryAttempts: 0 });
  clients.push(client);
  return client;
}

function collect(client: Client, query: string, variables: Record<string, unknown> = {}) {
  const items: any[] = [];
  const errors: any[] = [];
  client.subscribe({ query, variables }, { next: (result) => (result.errors ? errors.push(...result.errors) : items.push(result.data)), error: (error) => errors.push(error), complete: () => {} });
  return { items, errors };
}

/** A call of the account, created through the API (no worker runs here, so it stays `initiated`). */
async function newCall(account: TestAccount, number: string): Promise<number> {
  const assistant = await app.outboundAssistant(account);
  const res = await app.request('POST', '/api/user/make_call', { token: account.token, body: { phone_number: number, assistant_id: assistant } });
  expect(res.status).toBe(200);
  return res.body.call_id;
}

/** A status change of a call and its event, in one transaction that commits when `commit` resolves. */
function changeCall(id: number, status: string, commit: Promise<void> = Promise.resolve()): Promise<void> {
  return app.orm.em.fork().transactional(async (tx: EntityManager) => {
    const [row] = await tx.execute('update calls set status = ? where id = ? returning account_id, client_phone_number', [status, id]);
    await emitEvents(tx, [{ accountId: row.account_id, type: 'call.answered', data: { id, status, client_phone_number: row.client_phone_number } }]);
    await commit;
  });
}

const CALL = 'subscription($id: Int!) { callUpdated(id: $id, initial: true) { id status client_phone_number } }';

describe('callUpdated(id, initial: true)', () => {
  it('yields the call as it stands first, then its changes', async () => {
    const id = await newCall(me, '+5511987651001');
    const seen = collect(connect(me.token), CALL, { id });
    await until('the current state', async () => seen.items.length, (n) => n === 1);
    expect(seen.items[0].callUpdated).toEqual({ id, status: 'initiated', client_phone_number: '+5511987651001' });
    await changeCall(id, 'ringing');
    await until('the change', async () => seen.items.length, (n) => n === 2);
    expect(seen.items[1].callUpdated.status).toBe('ringing');
    expect(seen.errors).toEqual([]);
  });

  it('repeats no change the state already holds, and misses none that was still running when it was read', async () => {
    const id = await newCall(me, '+5511987651002');
    // The process reads events only while someone listens.
    collect(connect(me.token), 'subscription { leadUpdated { id } }');
    await sleep(300);
    const db = new PgClient({ connectionString: app.databaseUrl });
    await db.connect();
    const eventsLocks = (mode: string, granted: boolean) =>
      app.sql(`select count(*)::int as n from pg_locks where relation = 'events'::regclass and mode = $1 and granted = $2`, [mode, granted]).then(([row]) => row.n);
    try {
      // A change that commits before the state is read, but whose event reaches the process
      // only after the subscription listens: the process's read of the event waits behind a
      // lock of the events table, asked for while the change's transaction was still open.
      let commitRinging!: () => void;
      const ringing = changeCall(id, 'ringing', new Promise<void>((resolve) => (commitRinging = resolve)));
      await until('the change wrote its event', () => eventsLocks('RowExclusiveLock', true), (n) => n > 0);
      await db.query('begin');
      const locked = db.query('lock table events in access exclusive mode');
      await until('the lock waits', () => eventsLocks('AccessExclusiveLock', false), (n) => n === 1);
      commitRinging();
      await ringing;
      await locked;
      // A change still running when the state is read: it commits after.
      let commitAnswered!: () => void;
      const answered = changeCall(id, 'in-progress', new Promise<void>((resolve) => (commitAnswered = resolve)));
      // Its row is updated; its event waits for the lock. A read waits for neither.
      await until('the change runs', () => eventsLocks('RowExclusiveLock', false), (n) => n === 1);
      // A later transaction that has ended, so that the snapshot lists the change among those
      // running rather than beyond the last one ended.
      await app.sql('select pg_current_xact_id()');

      const seen = collect(connect(me.token), CALL, { id });
      await until('the current state', async () => seen.items.length, (n) => n === 1);
      expect(seen.items[0].callUpdated.status).toBe('ringing');
      await db.query('commit'); // the `ringing` event reaches the subscription now
      commitAnswered();
      await answered;
      await until('the running change', async () => seen.items.length, (n) => n >= 2);
      await sleep(300); // room for a repeat to show
      expect(seen.items.map((item) => item.callUpdated.status)).toEqual(['ringing', 'in-progress']);
      expect(seen.errors).toEqual([]);
    } finally {
      await db.query('rollback').catch(() => {});
      await db.end();
    }
  });

  it('passes the state through the other filters, and needs an id; another account’s call is not found', async () => {
    const id = await newCall(me, '+5511987651003');
    const client = connect(me.token);
    const outside = collect(client, 'subscription($id: Int!) { callUpdated(id: $id, campaign_id: 987654, initial: true) { id } }', { id });
    const noId = collect(client, 'subscription { callUpdated(initial: true) { id } }');
    const other = await app.account();
    const foreign = collect(connect(other.token), CALL, { id });
    await until('the refusals', async () => [noId.errors.length, foreign.errors.length], (n) => n.every((count) => count > 0));
    expect(noId.errors[0]).toMatchObject({ extensions: { code: 'VALIDATION_FAILED', errors: { id: ['O campo id é obrigatório.'] } } });
    expect(foreign.errors[0]).toMatchObject({ message: 'Chamada não encontrada', extensions: { code: 'NOT_FOUND' } });
    await changeCall(id, 'ringing');
    await sleep(300);
    expect(outside.items).toEqual([]);
    expect(outside.errors).toEqual([]);
  });

  it('without initial, waits for the next change as before', async () => {
    const id = await newCall(me, '+5511987651004');
    const seen = collect(connect(me.token), 'subscription($id: Int!) { callUpdated(id: $id) { id status } }', { id });
    await sleep(300);
    expect(seen.items).toEqual([]);
    await changeCall(id, 'ringing');
    await until('the change', async () => seen.items.length, (n) => n === 1);
    expect(seen.items[0].callUpdated.status).toBe('ringing');
  });
});

describe('campaignUpdated(id, initial: true)', () => {
  it('yields the campaign as it stands, with its stats, then its changes; another account’s campaign is not found', async () => {
    await app.request('POST', '/api/user/lead', { token: me.token, body: { phone_number: '+5511987651010', campaign_id: me.campaignId } });
    const query = 'subscription($id: Int!) { campaignUpdated(id: $id, initial: true) { id name status stats { leads } } }';
    const seen = collect(connect(me.token), query, { id: me.campaignId });
    await until('the current state', async () => seen.items.length, (n) => n === 1);
    expect(seen.items[0].campaignUpdated).toMatchObject({ id: me.campaignId, status: 'draft', stats: { leads: { created: 1 } } });
    await app.orm.em.fork().transactional(async (tx: EntityManager) => {
      const rows = await tx.execute(`update campaigns set status = 'paused', paused_reason = 'manual' where id = ? returning *`, [me.campaignId]);
      await emitEvents(tx, campaignEvents(rows));
    });
    await until('the change', async () => seen.items.length, (n) => n === 2);
    expect(seen.items[1].campaignUpdated.status).toBe('paused');

    const other = await app.account();
    const foreign = collect(connect(other.token), query, { id: me.campaignId });
    await until('the refusal', async () => foreign.errors.length, (n) => n > 0);
    expect(foreign.errors[0]).toMatchObject({ message: 'Campanha não encontrada', extensions: { code: 'NOT_FOUND' } });
    expect(seen.errors).toEqual([]);
  });
});

describe('whether a snapshot saw a transaction', () => {
  const snapshot = parseSnapshot('100:110:103,107');
  it.each([
    ['99', true],
    ['100', true],
    ['103', false],
    ['105', true],
    ['107', false],
    ['110', false],
    ['4000000000', true], // far below: an older epoch's id, long committed
  ])('%s: %s', (xid, seen) => {
    expect(committedIn(snapshot, xid)).toBe(seen);
  });

  it('places a 32-bit id in the right epoch around a wraparound', () => {
    const epoch = 2n ** 32n;
    const around = parseSnapshot(`${epoch - 5n}:${epoch + 3n}:${epoch - 2n},${epoch + 1n}`);
    expect(committedIn(around, String(2 ** 32 - 6))).toBe(true);
    expect(committedIn(around, String(2 ** 32 - 3))).toBe(true);
    expect(committedIn(around, String(2 ** 32 - 2))).toBe(false);
    expect(committedIn(around, '0')).toBe(true);
    expect(committedIn(around, '1')).toBe(false);
    expect(committedIn(around, '3')).toBe(false);
  });
});
