import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import WebSocket from 'ws';
import { Messages } from '../../src/errors';
import { MAX_PAYLOAD_BYTES, MAX_PENDING_CONNECTIONS, Refusals } from '../../src/graphql/subscriptions';
import { emitEvents } from '../../src/modules/events/event.outbox';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';
import { until } from '../helpers/dialer';

/**
 * The bounds of the subscriptions socket, over real WebSockets speaking graphql-ws's protocol
 * frame by frame: a frame's size, sockets awaiting connection_init, an account's connections
 * and subscriptions, the rate limit, and validation errors answered as over HTTP.
 */
let app: TestApp;
let me: TestAccount;
const peers: Peer[] = [];

// The account caps are settings; small ones here keep the test quick (a connection's cap is the default).
const MAX_CONNECTIONS_PER_ACCOUNT = 40;
const MAX_SUBSCRIPTIONS_PER_CONNECTION = 100;
const MAX_SUBSCRIPTIONS_PER_ACCOUNT = 300;

beforeAll(async () => {
  app = await startTestApp({
    graphql: {
      wsKeepAliveMs: 60_000,
      wsMaxAccountConnections: MAX_CONNECTIONS_PER_ACCOUNT,
      wsMaxSubscriptions: MAX_SUBSCRIPTIONS_PER_CONNECTION,
      wsMaxAccountSubscriptions: MAX_SUBSCRIPTIONS_PER_ACCOUNT,
    },
  });
  me = await app.account();
});
afterEach(async () => {
  const done = peers.splice(0);
  for (const p of done) p.ws.terminate();
  await Promise.all(done.map((p) => p.closed));
  await sleep(100); // the server has counted them out before the next test counts again
});
afterAll(() => app?.close());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Peer {
  ws: WebSocket;
  /** graphql-ws messages received, parsed. */
  messages: any[];
  closed: Promise<{ code: number; reason: string }>;
}

/** A raw socket on /graphql with graphql-ws's subprotocol; nothing sent yet. */
function peer(on: TestApp = app): Peer {
  const ws = new WebSocket(`${on.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
  const messages: any[] = [];
  ws.on('message', (data) => messages.push(JSON.parse(String(data))));
  ws.on('error', () => {}); // a refused socket is what some tests want; `closed` tells
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  const made = { ws, messages, closed };
  peers.push(made);
  return made;
}

/** How the socket was closed, or code 0 when it is still open after `ms`. */
const closeOf = (p: Peer, ms = 5_000) => Promise.race([p.closed, sleep(ms).then(() => ({ code: 0, reason: 'still open' }))]);

const opened = (p: Peer) =>
  new Promise<void>((resolve, reject) => {
    if (p.ws.readyState === WebSocket.OPEN) return resolve();
    p.ws.once('open', () => resolve());
    p.ws.once('close', (code) => reject(new Error(`closed (${code}) before it opened`)));
  });

const message = (p: Peer, what: string, match: (m: any) => boolean) =>
  until(what, async () => p.messages.find(match), (m) => m !== undefined, 10_000);

/** A socket past connection_init with the token: acknowledged. */
async function connected(token: string, on: TestApp = app): Promise<Peer> {
  const p = peer(on);
  await opened(p);
  p.ws.send(JSON.stringify({ type: 'connection_init', payload: { Authorization: `Bearer ${token}` } }));
  await message(p, 'connection_ack', (m) => m.type === 'connection_ack');
  return p;
}

/** `n` connections of the account, a hundred at a time (fewer than MAX_PENDING_CONNECTIONS await connection_init at once). */
async function connectedMany(token: string, n: number): Promise<Peer[]> {
  const made: Peer[] = [];
  while (made.length < n) made.push(...(await Promise.all(Array.from({ length: Math.min(100, n - made.length) }, () => connected(token)))));
  return made;
}

const subscribe = (p: Peer, id: string, query: string) => p.ws.send(JSON.stringify({ id, type: 'subscribe', payload: { query } }));

const errorOf = (p: Peer, id: string) => message(p, `error of ${id}`, (m) => m.type === 'error' && m.id === id).then((m) => m.payload);

const LEADS = 'subscription { leadUpdated { id status } }';

let leadIds = 0;
/** One lead event of the account, through the outbox, as a worker would publish it. */
async function leadEvent(account: TestAccount): Promise<void> {
  const data = { id: ++leadIds, status: 'completed', campaign_id: account.campaignId };
  await app.orm.em.fork().transactional((tx) => emitEvents(tx, [{ accountId: account.accountId, type: 'lead.status_changed', data }]));
}

/** The ids of a peer's subscriptions that have seen an event. */
const seen = (p: Peer) => new Set(p.messages.filter((m) => m.type === 'next').map((m) => m.id as string));
const errors = (p: Peer) => p.messages.filter((m) => m.type === 'error');

/**
 * Publishes the account's events until `done` holds of what the peers' subscriptions have
 * seen: graphql-ws acknowledges no subscribe, and one still being admitted misses an event.
 */
const untilSeen = (account: TestAccount, ps: Peer[], done: (seen: Set<string>[]) => boolean) =>
  until('events seen', async () => (await leadEvent(account), await sleep(100), ps.map(seen)), done, 20_000);

/** A collection of the whole heap, as tests/helpers/gc.ts gets one (jest runs without --expose-gc). */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

const MB = 1024 * 1024;

/**
 * Four unauthenticated connection_init messages of `size` bytes at once, each sent in fragments
 * of 64 KiB from one buffer, so that the senders hold little: what grows is the server. Answers
 * how each socket was closed and how much was sent before.
 */
async function flood(size: number): Promise<{ code: number; sent: number }[]> {
  const chunk = Buffer.alloc(64 * 1024, 'a');
  const closes = await Promise.all(
    Array.from({ length: 4 }, async () => {
      const p = peer();
      await opened(p);
      const send = (data: Buffer | string, fin: boolean) => new Promise<void>((resolve, reject) => p.ws.send(data, { fin }, (error) => (error ? reject(error) : resolve())));
      let sent = 0;
      try {
        await send('{"type":"connection_init","payload":{"pad":"', false);
        for (; sent < size && p.ws.readyState === WebSocket.OPEN; sent += chunk.length) await send(chunk, false);
        if (p.ws.readyState === WebSocket.OPEN) await send('"}}', true);
      } catch {
        // the server closed the socket while the message was on its way
      }
      return { code: (await p.closed).code, sent };
    }),
  );
  peers.splice(0); // all closed: what they held may go
  return closes;
}

/** The process's resident memory (bytes) once what is garbage has been collected. */
async function settledRss(): Promise<number> {
  collectGarbage();
  await sleep(200); // closed sockets free their buffers on the next turns
  collectGarbage();
  return process.memoryUsage().rss;
}

describe('a frame', () => {
  it(`over ${MAX_PAYLOAD_BYTES} bytes is refused (1009) from its header, without buffering it`, async () => {
    const consoleErrors = jest.spyOn(console, 'error');
    // A small round first, so that what the sockets' traffic takes the first time is not counted.
    const first = await flood(8 * MB);
    const before = await settledRss();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    try {
      const closes = await flood(90 * MB);
      clearInterval(sampler);
      const after = await settledRss();
      // Without the bound, the server took about 220 MB more and kept it after collection.
      expect((peak - before) / MB).toBeLessThan(32);
      expect((after - before) / MB).toBeLessThan(16);
      for (const { code, sent } of [...first, ...closes]) {
        expect(code).toBe(1009);
        expect(sent).toBeLessThan(8 * MB); // stopped by the close, not by the end of the message
      }
      // Nothing printed (graphql-ws prints a socket's errors with their stacks), nothing logged.
      expect(consoleErrors).not.toHaveBeenCalled();
      expect(app.loggedErrors).toEqual([]);
    } finally {
      clearInterval(sampler);
      consoleErrors.mockRestore();
    }
  });

  it('under the bound is taken', async () => {
    const p = peer();
    await opened(p);
    const pad = 'a'.repeat(MAX_PAYLOAD_BYTES - 1024);
    p.ws.send(JSON.stringify({ type: 'connection_init', payload: { Authorization: `Bearer ${me.token}`, pad } }));
    await message(p, 'connection_ack', (m) => m.type === 'connection_ack');
  });
});

describe('the sockets', () => {
  it(`awaiting connection_init are at most ${MAX_PENDING_CONNECTIONS}: one more is refused (1013); one that authenticates leaves room`, async () => {
    // All within graphql-ws's 3 s wait for connection_init, which would close them (4408).
    const waiting = Array.from({ length: MAX_PENDING_CONNECTIONS }, () => peer());
    await Promise.all(waiting.map(opened));
    const over = peer();
    expect(await closeOf(over)).toEqual({ code: 1013, reason: Refusals.tooManyPending.reason });

    // One of them authenticates: it no longer waits, and another socket is taken.
    waiting[0].ws.send(JSON.stringify({ type: 'connection_init', payload: { Authorization: `Bearer ${me.token}` } }));
    await message(waiting[0], 'connection_ack', (m) => m.type === 'connection_ack');
    const next = peer();
    await opened(next);
    next.ws.send(JSON.stringify({ type: 'connection_init', payload: { Authorization: `Bearer ${me.token}` } }));
    await message(next, 'connection_ack', (m) => m.type === 'connection_ack');
  });

  it(`of one account are at most ${MAX_CONNECTIONS_PER_ACCOUNT}: one more is refused (1008); other accounts are not counted`, async () => {
    const account = await app.account();
    const open = await connectedMany(account.token, MAX_CONNECTIONS_PER_ACCOUNT);
    const over = peer();
    await opened(over);
    over.ws.send(JSON.stringify({ type: 'connection_init', payload: { Authorization: `Bearer ${account.token}` } }));
    expect(await closeOf(over)).toEqual({ code: 1008, reason: Refusals.tooManyForAccount.reason });
    expect(over.messages).toEqual([]);

    await connected(me.token); // another account
    // One closes: the account may open one again.
    open[0].ws.close();
    await open[0].closed;
    await sleep(100);
    await connected(account.token);
  });
});

describe('the subscriptions', () => {
  it(`of one connection are at most ${MAX_SUBSCRIPTIONS_PER_CONNECTION}: one more is refused (PLAN_LIMIT), those under it work`, async () => {
    const account = await app.account();
    const p = await connected(account.token);
    for (let i = 0; i <= MAX_SUBSCRIPTIONS_PER_CONNECTION; i++) subscribe(p, `s${i}`, LEADS);
    expect(await errorOf(p, `s${MAX_SUBSCRIPTIONS_PER_CONNECTION}`)).toEqual([
      { message: Messages.subscriptionsPerConnection(MAX_SUBSCRIPTIONS_PER_CONNECTION), extensions: { code: 'PLAN_LIMIT', status: 422 } },
    ]);

    await untilSeen(account, [p], ([ids]) => ids.size === MAX_SUBSCRIPTIONS_PER_CONNECTION);
    expect(errors(p)).toHaveLength(1);

    // One completes: there is room for one more.
    p.ws.send(JSON.stringify({ id: 's0', type: 'complete' }));
    await sleep(100);
    subscribe(p, 'again', LEADS);
    await untilSeen(account, [p], ([ids]) => ids.has('again'));
    expect(errors(p)).toHaveLength(1);
  });

  it(`of one account are at most ${MAX_SUBSCRIPTIONS_PER_ACCOUNT}, across its connections; a closed connection releases its own`, async () => {
    const account = await app.account();
    const full = MAX_SUBSCRIPTIONS_PER_ACCOUNT / MAX_SUBSCRIPTIONS_PER_CONNECTION;
    const open = await connectedMany(account.token, full);
    open.forEach((p, n) => {
      for (let i = 0; i < MAX_SUBSCRIPTIONS_PER_CONNECTION; i++) subscribe(p, `c${n}s${i}`, LEADS);
    });
    await untilSeen(account, open, (all) => all.every((ids) => ids.size === MAX_SUBSCRIPTIONS_PER_CONNECTION));

    const last = await connected(account.token);
    subscribe(last, 'one-more', LEADS);
    expect(await errorOf(last, 'one-more')).toEqual([
      { message: Messages.subscriptionsPerAccount(MAX_SUBSCRIPTIONS_PER_ACCOUNT), extensions: { code: 'PLAN_LIMIT', status: 422 } },
    ]);
    // Another account has its own count.
    const other = await connected(me.token);
    subscribe(other, 'theirs', LEADS);

    open[0].ws.close();
    await open[0].closed;
    await sleep(100);
    subscribe(last, 'after-close', LEADS);
    await untilSeen(account, [last], ([ids]) => ids.has('after-close'));
    expect(errors(last)).toHaveLength(1);
    expect(errors(other)).toEqual([]);
  });
});

describe('a subscribe message', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await startTestApp({ rateLimitPerMinute: 5 });
  });
  afterAll(() => limited?.close());

  it('counts against RATE_LIMIT_PER_MINUTE as an HTTP request does', async () => {
    // The window is the clock minute: when it is about to turn, wait for the next one.
    const seconds = new Date().getUTCSeconds();
    if (seconds > 50) await sleep((61 - seconds) * 1000);
    const account = await limited.account();
    const p = await connected(account.token, limited); // request 1
    for (let i = 0; i < 5; i++) subscribe(p, `s${i}`, LEADS); // requests 2 to 6
    await until('a refusal', async () => errors(p), (refusals) => refusals.length > 0);
    await sleep(200);
    expect(errors(p)).toHaveLength(1);
    expect(errors(p)[0].payload).toEqual([{ message: expect.stringMatching(/^Muitas requisições\. Tente novamente em \d+ segundos?\.$/), extensions: { code: 'RATE_LIMITED', status: 429 } }]);
    // The same count as HTTP's: the token is over its limit there too.
    expect((await limited.request('GET', '/api/user/campaigns', { token: account.token })).status).toBe(429);
  });

  it('and a connection over the limit is refused with 1013 (try again later), saying when', async () => {
    const seconds = new Date().getUTCSeconds();
    if (seconds > 50) await sleep((61 - seconds) * 1000);
    const account = await limited.account();
    for (let i = 0; i < 5; i++) await limited.request('GET', '/api/user/campaigns', { token: account.token });
    const p = peer(limited);
    await opened(p);
    p.ws.send(JSON.stringify({ type: 'connection_init', payload: { Authorization: `Bearer ${account.token}` } }));
    const { code, reason } = await closeOf(p);
    expect(code).toBe(1013);
    expect(reason).toMatch(/^Rate limited; try again in \d+ s$/);
  });
});

describe('a validation error', () => {
  /** The same document's first error over HTTP (which validates before it refuses a subscription). */
  const overHttp = async (query: string) => {
    const res = await app.graphql(query, {}, me.token);
    expect(res.status).toBe(400);
    return res.body.errors[0];
  };

  it.each([
    ['a variable of the wrong type', 'subscription S($c: Int) { campaignUpdated(id: $c) { id } }', /Variable "\$c" of type "Int" used in position expecting type "Int!"/],
    ['an unknown argument', 'subscription { callUpdated(nope: 1) { id } }', /Unknown argument "nope" on field "Subscription.callUpdated"/],
    ['an unknown field', 'subscription { callUpdated { nope } }', /Cannot query field "nope" on type "Call"/],
    ['a field suggestion, masked', 'subscription { callUpdated { statu } }', /\[Suggestion hidden\]/],
  ])('is answered as over HTTP: %s', async (_what, query, wording) => {
    const p = await connected(me.token);
    subscribe(p, 'v', query);
    const [error] = await errorOf(p, 'v');
    expect(error.message).toMatch(wording);
    expect(error.message).not.toMatch(/Did you mean/);
    expect(error.extensions).toEqual({ code: 'GRAPHQL_VALIDATION_FAILED', status: 400 });
    expect(error).toEqual(await overHttp(query));
  });

  it("and a variable's value of the wrong type as BAD_USER_INPUT, as HTTP answers it", async () => {
    const p = await connected(me.token);
    p.ws.send(JSON.stringify({ id: 'v', type: 'subscribe', payload: { query: 'subscription S($c: Int!) { campaignUpdated(id: $c) { id } }', variables: { c: 'x' } } }));
    const { payload } = await message(p, 'the answer', (m) => m.id === 'v' && m.type !== 'complete');
    expect(payload.errors).toEqual([
      { message: 'Variable "$c" got invalid value "x"; Int cannot represent non-integer value: "x"', locations: [{ line: 1, column: 16 }], extensions: { code: 'BAD_USER_INPUT', status: 400 } },
    ]);
    const overHttp = await app.graphql('query Q($c: Int!) { campaign(id: $c) { id } }', { c: 'x' }, me.token);
    expect(overHttp.body.errors[0].extensions).toEqual({ code: 'BAD_USER_INPUT', status: 400 });
  });

  it('and a syntax error too', async () => {
    const p = await connected(me.token);
    subscribe(p, 'v', 'subscription { callUpdated { id }');
    const [error] = await errorOf(p, 'v');
    expect(error.extensions).toEqual({ code: 'GRAPHQL_PARSE_FAILED', status: 400 });
    expect(error).toEqual(await overHttp('subscription { callUpdated { id }'));
    expect(app.loggedErrors).toEqual([]);
  });
});
