import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { emitEvents } from '../../src/modules/events/event.outbox';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';
import { dialerKit, until } from '../helpers/dialer';
import { exited, startWorker, type WorkerProcess } from '../helpers/workers';

/**
 * GraphQL subscriptions over graphql-ws on /graphql, against an API process that runs no
 * workers: the calls run on a separate worker process (`npm run worker`), and their events
 * reach the API process through PostgreSQL LISTEN/NOTIFY.
 */
let app: TestApp;
let worker: WorkerProcess;
let me: TestAccount;
const clients: Client[] = [];
const { phone, setup, addLead, setStatus } = dialerKit(() => app);

beforeAll(async () => {
  app = await startTestApp({
    dialerTimeScale: 600,
    graphql: { introspection: false, ide: false, maxDepth: 8, maxCost: 5000, maxAliases: 15, maxTokens: 2000, maxDirectives: 20, wsKeepAliveMs: 1000 },
  });
  worker = await startWorker(app);
  me = await app.account({ balance: '50' });
});
afterAll(async () => {
  for (const client of clients) await client.dispose();
  worker?.child.kill('SIGTERM');
  if (worker) await exited(worker.child);
  await app?.close();
});

function connect(authorization: string | null, onClose?: (code: number) => void): Client {
  const client = createClient({
    url: app.url.replace('http', 'ws') + '/graphql',
    webSocketImpl: WebSocket,
    connectionParams: authorization === null ? {} : { Authorization: authorization },
    retryAttempts: 0,
    lazy: false,
    // A refused connection is what some tests want; the subscription's sink records it.
    onNonLazyError: () => {},
    on: { closed: (event) => onClose?.((event as { code: number }).code) },
  });
  clients.push(client);
  return client;
}

/** Collects what a subscription yields, until `stop()`. */
function collect<T = any>(client: Client, query: string, variables: Record<string, unknown> = {}) {
  const items: T[] = [];
  const errors: unknown[] = [];
  const stop = client.subscribe<T>(
    { query, variables },
    {
      next: (result) => (result.errors ? errors.push(...result.errors) : items.push(result.data as T)),
      error: (error) => errors.push(error),
      complete: () => {},
    },
  );
  return { items, errors, stop };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('sees a call’s statuses from a worker process; another account sees none of them', async () => {
  const assistant = await app.outboundAssistant(me);
  const mine = connect(`Bearer ${me.token}`);
  const other = await app.account();
  const theirs = connect(`Bearer ${other.token}`);
  const seen = collect(mine, 'subscription { callUpdated { id status campaign_id total_cost } }');
  const foreign = collect(theirs, 'subscription { callUpdated { id status } }');
  await sleep(300); // both subscriptions are registered

  const res = await app.request('POST', '/api/user/make_call', { token: me.token, body: { phone_number: '+5511987657000', assistant_id: assistant } });
  expect(res.status).toBe(200);
  const id = res.body.call_id;
  await until('the final status', async () => seen.items.map((item: any) => item.callUpdated.status), (statuses) => statuses.at(-1) === 'completed');
  expect(seen.items.map((item: any) => item.callUpdated)).toEqual([
    { id, status: 'initiated', campaign_id: null, total_cost: 0 },
    { id, status: 'ringing', campaign_id: null, total_cost: 0 },
    { id, status: 'in-progress', campaign_id: null, total_cost: 0 },
    { id, status: 'completed', campaign_id: null, total_cost: expect.any(Number) },
  ]);
  expect(seen.items.at(-1).callUpdated.total_cost).toBeGreaterThan(0);
  expect(seen.errors).toEqual([]);
  expect(foreign.items).toEqual([]);
  // The events came from the worker process: the API process runs no workers.
  expect(worker.output()).toContain('call status');
});

it('filters by call, and follows a campaign’s leads and its status and stats', async () => {
  const s = await setup({ max_retries: 0, max_calls_in_parallel: 1 });
  const client = connect(`Bearer ${s.account.token}`);
  const leads = collect(client, 'subscription($c: Int) { leadUpdated(campaign_id: $c) { id status attempts campaign_id campaign { name } } }', { c: s.campaign });
  const campaign = collect(client, 'subscription($id: Int!) { campaignUpdated(id: $id) { id status stats { attempts } } }', { id: s.campaign });
  const busy = await addLead(s, phone('busy'));
  const human = await addLead(s, phone('human'));
  await sleep(300);
  await setStatus(s, 'start');
  await until('the campaign completed', async () => campaign.items.map((item: any) => item.campaignUpdated.status), (statuses) => statuses.includes('completed'));
  const byLead = (id: number) => leads.items.map((item: any) => item.leadUpdated).filter((lead) => lead.id === id).map((lead) => lead.status);
  expect(byLead(busy)).toEqual(['scheduled', 'processing', 'reached-max-retries']);
  expect(byLead(human)).toEqual(['scheduled', 'processing', 'completed']);
  expect(leads.items[0].leadUpdated).toMatchObject({ campaign_id: s.campaign, campaign: { name: 'Discador' } });
  const statuses = campaign.items.map((item: any) => item.campaignUpdated.status);
  expect(statuses[0]).toBe('running');
  expect(statuses.at(-1)).toBe('completed');
  expect(campaign.items.at(-1).campaignUpdated.stats.attempts).toBe(2);
  expect(leads.errors).toEqual([]);
  expect(campaign.errors).toEqual([]);
});

it('shares one execution among identical subscriptions, and keeps each selection and filter its own', async () => {
  const account = await app.account({ balance: '10' });
  const assistant = await app.outboundAssistant(account);
  const client = connect(`Bearer ${account.token}`);
  const same = [collect(client, 'subscription { callUpdated { id status } }'), collect(client, 'subscription { callUpdated { id status } }')];
  const wider = collect(client, 'subscription { callUpdated { id status client_phone_number } }');
  const filtered = collect(client, 'subscription($id: Int) { callUpdated(id: $id) { id } }', { id: 987654 });
  await sleep(300);
  const res = await app.request('POST', '/api/user/make_call', { token: account.token, body: { phone_number: '+5511987657002', assistant_id: assistant } });
  await until('the final status', async () => same[1].items.length, (n) => n >= 4);
  await sleep(100);
  expect(same[0].items).toEqual(same[1].items);
  expect(same[0].items.map((item: any) => item.callUpdated)).toEqual(
    ['initiated', 'ringing', 'in-progress', 'completed'].map((status) => ({ id: res.body.call_id, status })),
  );
  expect(wider.items.map((item: any) => item.callUpdated.client_phone_number)).toEqual(Array(4).fill('+5511987657002'));
  expect(filtered.items).toEqual([]);
});

it('publishes nothing for a change that rolled back', async () => {
  const client = connect(`Bearer ${me.token}`);
  const seen = collect(client, 'subscription { leadUpdated { id status } }');
  await sleep(300);
  const event = (id: number) => ({ accountId: me.accountId, type: 'lead.status_changed' as const, data: { id, status: 'completed', campaign_id: me.campaignId } });
  await expect(
    app.orm.em.fork().transactional(async (tx) => {
      await emitEvents(tx, [event(-1)]);
      throw new Error('the cause failed');
    }),
  ).rejects.toThrow('the cause failed');
  await app.orm.em.fork().transactional((tx) => emitEvents(tx, [event(-2)]));
  await until('the committed event', async () => seen.items.length, (n) => n > 0);
  await sleep(200);
  expect(seen.items.map((item: any) => item.leadUpdated.id)).toEqual([-2]);
});

describe('the connection', () => {
  it('is refused (4401) at once without a valid token, and graphql-ws’s client does not retry it', async () => {
    for (const authorization of [null, 'Bearer', 'Token abc', 'Bearer vzg_not-a-real-token', `Bearer ${me.token}x`]) {
      const closes: { code: number; reason: string }[] = [];
      let attempts = 0;
      const started = Date.now();
      // The client's own defaults (5 retries, with backoff): a 4403 here was retried for ~38 s.
      const client = createClient({
        url: app.url.replace('http', 'ws') + '/graphql',
        webSocketImpl: WebSocket,
        connectionParams: authorization === null ? {} : { Authorization: authorization },
        on: { connecting: () => attempts++, closed: (event) => closes.push(event as { code: number; reason: string }) },
      });
      clients.push(client);
      const { errors } = collect(client, 'subscription { callUpdated { id } }');
      await until('the error', async () => errors.length, (n) => n > 0, 5_000);
      expect(Date.now() - started).toBeLessThan(2_000);
      await sleep(1_500); // a retry would have come by now (graphql-ws waits 1-3 s before the first)
      expect({ attempts, codes: closes.map((close) => close.code) }).toEqual({ attempts: 1, codes: [4401] });
      expect(closes[0].reason).toMatch(/^Unauthorized: connectionParams\.Authorization/);
      expect(errors).toEqual([expect.objectContaining({ code: 4401 })]);
    }
  });

  it('is closed (4403) when its token is revoked', async () => {
    const account = await app.account();
    let code = 0;
    const client = connect(`Bearer ${account.token}`, (c) => (code = c));
    collect(client, 'subscription { callUpdated { id } }');
    await sleep(300);
    expect(code).toBe(0);
    await app.sql('delete from api_tokens where account_id = $1', [account.accountId]);
    // Checked again with the next keep-alive (every second here).
    await until('closed', async () => code, (c) => c !== 0, 5_000);
    // 4403, not 4401: the token was good when the connection opened.
    expect(code).toBe(4403);
  });

  it('checks the same limits as HTTP, and serves only subscriptions', async () => {
    const client = connect(`Bearer ${me.token}`);
    const aliases = Array.from({ length: 16 }, (_, i) => `a${i}: id`).join(' ');
    const wide = collect(client, `subscription { leadUpdated { ${aliases} } }`);
    const query = collect(client, '{ me { name } }');
    const unknown = collect(client, 'subscription { nope }');
    await until('refusals', async () => [wide.errors.length, query.errors.length, unknown.errors.length], (n) => n.every((count) => count > 0));
    expect(JSON.stringify(wide.errors)).toMatch(/aliases/i);
    expect(JSON.stringify(query.errors)).toContain('Por WebSocket só são servidas operações subscription');
    expect(JSON.stringify(unknown.errors)).not.toMatch(/Did you mean/);
    const over = await app.graphql('subscription { callUpdated { id } }', {}, me.token);
    expect(over.status).toBe(400);
    expect(over.body.errors[0].message).toContain('WebSocket');
  });
});
