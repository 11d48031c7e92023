import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';
import { until } from '../helpers/dialer';
import { setTurns } from '../helpers/turns';

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
async function insertCalls(app: TestApp, account: TestAccount, count: number, events: number): Promise<number[]> {
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
    // No workers here: every statement counted is the request's.
    const quiet = await startTestApp();
    try {
      const account = await quiet.account();
      const ids = await insertCalls(quiet, account, 40, 4);
      const page = (fields: string) => quiet.graphql(`{ callFeed(per_page: 40) { data { id ${fields} } } }`, {}, account.token);

      await page(''); // the token is then known: each request below reads it the same way
      quiet.resetQueries();
      const bare = await page('');
      expect(bare.body.data.callFeed.data).toHaveLength(40);
      const without = quiet.queries.length;

      quiet.resetQueries();
      const withEvents = await page('events { status at }');
      const data = withEvents.body.data.callFeed.data;
      expect(data.map((call: any) => call.id).sort()).toEqual([...ids].sort());
      expect(data.every((call: any) => call.events.map((e: any) => e.status).join() === 'initiated,ringing,in-progress,completed')).toBe(true);
      expect(quiet.queries.length).toBe(without + 1);

      // The list with page numbers too.
      await quiet.graphql('{ calls(per_page: 40) { data { id } } }', {}, account.token);
      quiet.resetQueries();
      const listed = await quiet.graphql('{ calls(per_page: 40) { data { id events { status } } } }', {}, account.token);
      expect(listed.body.data.calls.data).toHaveLength(40);
      const listedStatements = quiet.queries.length;
      quiet.resetQueries();
      await quiet.graphql('{ calls(per_page: 40) { data { id } } }', {}, account.token);
      expect(listedStatements).toBe(quiet.queries.length + 1);
    } finally {
      await quiet.close();
    }
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

const TURNS = 'query($id: Int!) { call(id: $id) { duration transcript turns { speaker text at_ms duration_ms latency { stt_final_ms llm_first_token_ms tts_first_byte_ms first_audio_ms } } } }';

describe('Call.turns', () => {
  it("answers a simulated call's turns with when each began and how long it lasted, within the call, as the transcript says them", async () => {
    const { id } = await finishedCall('4444');
    const call = (await app.graphql(TURNS, { id }, me.token)).body.data.call;
    const label = { assistant: 'Assistente', customer: 'Cliente', system: 'Sistema' } as Record<string, string>;
    expect(call.turns.map((turn: any) => `${label[turn.speaker]}: ${turn.text}`).join('\n')).toBe(call.transcript);
    expect(call.turns.length).toBeGreaterThan(4);
    let end = 0;
    for (const turn of call.turns) {
      expect(turn.at_ms).toBeGreaterThanOrEqual(end);
      expect(turn.duration_ms).toBeGreaterThan(turn.speaker === 'system' ? -1 : 0);
      expect(turn.latency).toBeNull();
      end = turn.at_ms + turn.duration_ms;
    }
    expect(end).toBeLessThanOrEqual(call.duration * 1000);
  });

  it('squeezes the turns into a call cut short by max_call_duration', async () => {
    const long = 'Olá, aqui é a Ana da Loja Centro, e estou ligando para confirmar o seu pedido de ontem, com todos os itens, o endereço e a forma de pagamento escolhida.';
    const short = await app.outboundAssistant(me, { record_call: true, max_call_duration: 20, initial_message: long, system_prompt: `${long} Seja breve.` });
    const { id } = await finishedCall('4445', me, short);
    const call = (await app.graphql(TURNS, { id }, me.token)).body.data.call;
    expect(call.duration).toBe(20);
    const last = call.turns.at(-1);
    expect(last.at_ms + last.duration_ms).toBeLessThanOrEqual(20_000);
    // The words alone take longer than the call: every turn is squeezed in, none dropped.
    expect(call.turns.filter((turn: any) => turn.speaker !== 'system').reduce((sum: number, turn: any) => sum + turn.text.length * 70, 0)).toBeGreaterThan(20_000);
  });

  it('stamps the note of a call hung up through the API at its end', async () => {
    const quiet = await startTestApp();
    try {
      const account = await quiet.account({ balance: '10' });
      const assistant = await quiet.outboundAssistant(account);
      const started = await quiet.request('POST', '/api/user/make_call', { token: account.token, body: { phone_number: number('4446'), assistant_id: assistant } });
      const id = started.body.call_id;
      await quiet.sql(`update calls set status = 'in-progress', answered_at = now() - interval '7 seconds', answered_by = 'human' where id = $1`, [id]);
      const hung = await quiet.graphql('mutation($id: Int!) { hangupCall(id: $id) { status duration } }', { id }, account.token);
      expect(hung.body.data.hangupCall.status).toBe('ended');
      const call = (await quiet.graphql(TURNS, { id }, account.token)).body.data.call;
      expect(call.turns).toEqual([{ speaker: 'system', text: 'Chamada encerrada pela API.', at_ms: call.duration * 1000, duration_ms: null, latency: null }]);
      expect(call.duration).toBeGreaterThanOrEqual(7);
    } finally {
      await quiet.close();
    }
  });

  it('answers null times for turns recorded before turns had times, and the latency of a pipeline answer', async () => {
    const [row] = await insertCalls(app, me, 1, 1);
    const latency = { stt_final_ms: 120, llm_first_token_ms: 380, tts_first_byte_ms: 610, first_audio_ms: 700 };
    await setTurns(app.sql, row, [
      { speaker: 'customer', text: 'Oi' },
      { speaker: 'assistant', text: 'Olá!', latency },
    ]);
    const call = (await app.graphql(TURNS, { id: row }, me.token)).body.data.call;
    expect(call.turns).toEqual([
      { speaker: 'customer', text: 'Oi', at_ms: null, duration_ms: null, latency: null },
      { speaker: 'assistant', text: 'Olá!', at_ms: null, duration_ms: null, latency },
    ]);
  });
});
