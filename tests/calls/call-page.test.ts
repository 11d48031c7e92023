import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';
import { until } from '../helpers/dialer';

/**
 * What a call's page needs from the API (issue 45): the call's status changes and its turns
 * with their times, over GraphQL.
 */
let app: TestApp;
let me: TestAccount;
let assistantId: number;
let phoneSeq = 0;
const clients: Client[] = [];

/** A Brazilian mobile number whose last four digits choose the simulator's outcome. */
const number = (lastFour = '7777') => `+55119${String(300 + phoneSeq++).padStart(3, '0')}0${lastFour}`;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

beforeAll(async () => {
  app = await startTestApp({}, { workers: true });
  me = await app.account({ balance: '100' });
  assistantId = await app.outboundAssistant(me, { record_call: true });
});
afterAll(async () => {
  for (const client of clients) await client.dispose();
  await app?.close();
});

async function finishedCall(lastFour: string, account = me, assistant = assistantId): Promise<any> {
  const started = await app.request('POST', '/api/user/make_call', { token: account.token, body: { phone_number: number(lastFour), assistant_id: assistant } });
  expect(started.status).toBe(200);
  return app.finishedCall(started.body.call_id, account.token);
}

/** Calls of the account written straight to the table, each with `events` status changes. */
async function insertCalls(account: TestAccount, count: number, events: number): Promise<number[]> {
  const rows = await app.sql(
    `insert into calls (account_id, assistant_name, type, status, assistant_phone_number, client_phone_number, provider, deadline_at)
     select $1, 'Ana', 'outbound', 'completed', '+5511955000000', '+5511988' || lpad(g::text, 6, '0'), 'simulator', now() from generate_series(1, $2) g
     returning id`,
    [account.accountId, count],
  );
  const ids = rows.map((row: any) => row.id);
  const statuses = ['initiated', 'ringing', 'in-progress', 'completed'].slice(0, events);
  await app.sql(
    `insert into call_events (call_id, status, detail) select c, s, case when s = 'initiated' then null else jsonb_build_object('event', s) end
     from unnest($1::int[]) c, unnest($2::text[]) s`,
    [ids, statuses],
  );
  return ids;
}

describe('Call.events', () => {
  it('answers the status changes of a call, oldest first, with ISO times and their detail', async () => {
    const call = await finishedCall('4444');
    const res = await app.graphql('query($id: Int!) { call(id: $id) { events { status at detail } } }', { id: call.id }, me.token);
    const events = res.body.data.call.events;
    expect(events.map((e: any) => e.status)).toEqual(['initiated', 'ringing', 'in-progress', 'completed']);
    expect(events[0].detail).toBeNull();
    expect(events[1].detail).toEqual({ event: 'ringing' });
    expect(events[3].detail).toEqual({ event: 'ended' });
    for (const event of events) expect(event.at).toMatch(ISO);
    const times = events.map((e: any) => Date.parse(e.at));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  });

  it('gives the reason of a call not answered', async () => {
    const call = await finishedCall('0003');
    const res = await app.graphql('query($id: Int!) { call(id: $id) { status events { status detail } } }', { id: call.id }, me.token);
    expect(res.body.data.call.events.at(-1)).toEqual({ status: 'failed', detail: { event: 'not-answered', reason: 'the network refused the number' } });
  });

  it('reads the events of a whole page of calls in one statement', async () => {
    const account = await app.account();
    const ids = await insertCalls(account, 40, 4);
    const page = (fields: string) => app.graphql(`{ callFeed(per_page: 40) { data { id ${fields} } } }`, {}, account.token);

    app.resetQueries();
    const bare = await page('');
    expect(bare.body.data.callFeed.data).toHaveLength(40);
    const without = app.queries.length;

    app.resetQueries();
    const withEvents = await page('events { status at }');
    const data = withEvents.body.data.callFeed.data;
    expect(data.map((call: any) => call.id).sort()).toEqual([...ids].sort());
    expect(data.every((call: any) => call.events.map((e: any) => e.status).join() === 'initiated,ringing,in-progress,completed')).toBe(true);
    expect(app.queries.length).toBe(without + 1);

    // The list with page numbers too.
    app.resetQueries();
    const listed = await app.graphql('{ calls(per_page: 40) { data { id events { status } } } }', {}, account.token);
    expect(listed.body.data.calls.data).toHaveLength(40);
    const listedStatements = app.queries.length;
    app.resetQueries();
    await app.graphql('{ calls(per_page: 40) { data { id } } }', {}, account.token);
    expect(listedStatements).toBe(app.queries.length + 1);
  });

  it('follows a call live through callUpdated, each update with the changes so far', async () => {
    const client = createClient({ url: app.url.replace('http', 'ws') + '/graphql', webSocketImpl: WebSocket, connectionParams: { Authorization: `Bearer ${me.token}` }, retryAttempts: 0 });
    clients.push(client);
    const seen: any[] = [];
    const errors: any[] = [];
    client.subscribe(
      { query: 'subscription { callUpdated(assistant_id: ' + assistantId + ') { id status events { status } } }' },
      { next: (result) => (result.errors ? errors.push(...result.errors) : seen.push(result.data!.callUpdated)), error: (error) => errors.push(error), complete: () => {} },
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const call = await finishedCall('4321');
    await until('the call’s final update', async () => seen.filter((update) => update.id === call.id && update.status === 'completed').length, (n) => n === 1);
    expect(errors).toEqual([]);
    const updates = seen.filter((each) => each.id === call.id);
    expect(updates.length).toBeGreaterThan(1);
    // Read when each update is sent: the call may have moved on since, but never back.
    for (const update of updates) expect(update.events.map((e: any) => e.status)).toContain(update.status);
    expect(updates.at(-1).events.map((e: any) => e.status)).toEqual(['initiated', 'ringing', 'in-progress', 'completed']);
  });
});
