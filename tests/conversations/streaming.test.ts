import { createClient, type Client } from 'graphql-ws';
import { Client as PgClient } from 'pg';
import WebSocket from 'ws';
import { CONVERSATIONS_CHANNEL } from '../../src/modules/events/event.bus';
import { NO_VENDORS, startTestApp, type TestAccount, type TestApp } from '../helpers/app';
import { until } from '../helpers/dialer';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fakes/openai';

/**
 * `conversationUpdated` over graphql-ws on a real socket: the assistant's reply piece by piece
 * as the fake OpenAI streams it, then the stored message; another account's uuid refused like
 * a missing one.
 */
const OPENAI_KEY = 'sk-test-conversation-stream';

let app: TestApp;
let openai: FakeOpenAi;
let me: TestAccount;
let assistant: number;
const clients: Client[] = [];

beforeAll(async () => {
  openai = await startFakeOpenAi(OPENAI_KEY);
  app = await startTestApp({
    voice: { openai: null, pipelineEngineUrl: null, pipeline: { ...NO_VENDORS, openai: { apiKey: OPENAI_KEY, url: openai.url } } },
  });
  me = await app.account({ balance: '10' });
  assistant = await app.outboundAssistant(me, { system_prompt: 'Você atende a Loja Centro.' });
});
afterAll(async () => {
  for (const client of clients) await client.dispose();
  await app?.close();
  await openai?.close();
});

function connect(token: string): Client {
  const client = createClient({
    url: app.url.replace('http', 'ws') + '/graphql',
    webSocketImpl: WebSocket,
    connectionParams: { Authorization: `Bearer ${token}` },
    retryAttempts: 0,
    lazy: false,
    onNonLazyError: () => {},
  });
  clients.push(client);
  return client;
}

const UPDATES = 'subscription Updates($uuid: String!) { conversationUpdated(uuid: $uuid) { uuid delta message { role content } } }';

function collect(client: Client, uuid: string) {
  const items: { uuid: string; delta: string | null; message: { role: string; content: string } | null; at: number }[] = [];
  const errors: any[] = [];
  let completed = false;
  client.subscribe<any>(
    { query: UPDATES, variables: { uuid } },
    {
      next: (result) => (result.errors ? errors.push(...result.errors) : items.push({ ...result.data.conversationUpdated, at: Date.now() })),
      error: (error) => errors.push(error),
      complete: () => (completed = true),
    },
  );
  return { items, errors, done: () => completed };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const open = async () => (await app.request('POST', '/api/conversations', { token: me.token, body: { assistant_id: assistant } })).body.data.uuid as string;

it('streams the assistant’s reply token by token as it is written, then the messages as stored', async () => {
  const uuid = await open();
  const seen = collect(connect(me.token), uuid);
  await sleep(300); // the subscription is registered
  const reply = 'Temos três cadeiras azuis na Loja Centro hoje.';
  openai.chat.push({ text: reply, tokenMs: 40 });
  const sent = await app.request('POST', `/api/conversations/${uuid}/messages`, { token: me.token, body: { message: 'Tem cadeira?' } });
  const answeredAt = Date.now();
  expect(sent.status).toBe(200);
  await until('the stored reply', async () => seen.items.filter((item) => item.message).length, (stored) => stored === 2);

  expect(seen.errors).toEqual([]);
  // The customer's message as stored (before the model is asked), the reply as it is written,
  // then the reply as stored.
  expect(seen.items[0]).toMatchObject({ uuid, delta: null, message: { role: 'user', content: 'Tem cadeira?' } });
  const deltas = seen.items.slice(1, -1);
  expect(deltas.every((item) => item.delta && !item.message)).toBe(true);
  // The fake writes the reply a word at a time, 40 ms apart: they come as they are written,
  // before the reply is whole (and the answer given).
  expect(deltas.length).toBeGreaterThanOrEqual(4);
  expect(deltas.map((item) => item.delta).join('')).toBe(reply);
  expect(deltas[0].at).toBeLessThan(answeredAt);
  expect(seen.items.at(-1)).toMatchObject({ uuid, delta: null, message: { role: 'assistant', content: reply } });
});

it('streams pieces only while someone follows the conversation: a reply nobody follows costs no piece', async () => {
  const pieces = () => app.queries.filter((query) => query.includes('select pg_notify($1, $2)')).length;
  const uuid = await open();
  const reply = 'Temos três cadeiras azuis na Loja Centro hoje.';
  openai.chat.push({ text: reply, tokenMs: 40 });
  const before = pieces();
  const unfollowed = await app.request('POST', `/api/conversations/${uuid}/messages`, { token: me.token, body: { message: 'Tem cadeira?' } });
  expect(unfollowed.body.data.reply.content).toBe(reply);
  expect(pieces()).toBe(before);
  expect(await app.sql('select watched_until from conversations where uuid = $1', [uuid])).toEqual([{ watched_until: null }]);

  // Another account's try to follow it marks nothing.
  const other = await app.account();
  const theirs = collect(connect(other.token), uuid);
  await until('the refusal', async () => theirs.errors.length, (count) => count === 1);
  expect(await app.sql('select watched_until from conversations where uuid = $1', [uuid])).toEqual([{ watched_until: null }]);

  const seen = collect(connect(me.token), uuid);
  await until('the conversation followed', () => app.sql('select watched_until > now() as watched from conversations where uuid = $1', [uuid]), (rows) => rows[0].watched);
  openai.chat.push({ text: reply, tokenMs: 40 });
  await app.request('POST', `/api/conversations/${uuid}/messages`, { token: me.token, body: { message: 'E mesa?' } });
  await until('the stored reply', async () => seen.items.filter((item) => item.message).length, (stored) => stored === 2);
  expect(pieces() - before).toBeGreaterThanOrEqual(4);
  expect(seen.items.filter((item) => item.delta).map((item) => item.delta).join('')).toBe(reply);
});

it('refuses another account’s conversation exactly like a missing one', async () => {
  const uuid = await open();
  const other = await app.account();
  const theirs = collect(connect(other.token), uuid);
  const missing = collect(connect(other.token), '00000000-0000-4000-8000-000000000001');
  await until('both refusals', async () => theirs.errors.length + missing.errors.length, (count) => count === 2);
  expect(theirs.errors).toEqual(missing.errors);
  expect(theirs.errors[0]).toMatchObject({ message: 'Conversa não encontrada', extensions: { code: 'NOT_FOUND' } });

  // And nothing of the conversation reaches them afterwards.
  openai.chat.push({ text: 'Olá!' });
  await app.request('POST', `/api/conversations/${uuid}/messages`, { token: me.token, body: { message: 'Oi' } });
  await sleep(300);
  expect(theirs.items).toEqual([]);
});

it('announces a stored message only while someone follows the conversation; one who began following during the model’s answer gets the reply whole', async () => {
  // The announcements as PostgreSQL delivers them, to a listener of this test's own.
  const listener = new PgClient({ connectionString: app.databaseUrl });
  await listener.connect();
  const announced: { u: string; m?: string; d?: string }[] = [];
  listener.on('notification', (message) => message.channel === CONVERSATIONS_CHANNEL && announced.push(JSON.parse(message.payload!)));
  await listener.query(`listen ${CONVERSATIONS_CHANNEL}`);
  try {
    const uuid = await open();
    const reply = 'Temos três cadeiras azuis na Loja Centro hoje.';
    openai.chat.push({ text: reply });
    expect((await app.request('POST', `/api/conversations/${uuid}/messages`, { token: me.token, body: { message: 'Tem cadeira?' } })).status).toBe(200);
    // A message of another conversation, announced after these would have been: the listener has read theirs by then.
    const watched = await open();
    const seenWatched = collect(connect(me.token), watched);
    await until('the conversation followed', () => app.sql('select watched_until > now() as watched from conversations where uuid = $1', [watched]), (rows) => rows[0].watched);
    openai.chat.push({ text: 'Sim.' });
    await app.request('POST', `/api/conversations/${watched}/messages`, { token: me.token, body: { message: 'Oi?' } });
    await until('the followed conversation’s reply', async () => seenWatched.items.filter((item) => item.message).length, (stored) => stored === 2);
    await until('its announcements', async () => announced.filter((piece) => piece.u === watched && piece.m).length, (count) => count === 2);
    expect(announced.filter((piece) => piece.u === uuid)).toEqual([]);

    // Followed from the middle of the model's answer: the reply comes as its message, the customer's message (stored before) not.
    openai.chat.push({ text: 'Um momento, vou verificar o estoque da loja para você agora.', firstTokenMs: 1500 });
    // (Only the requests from here on: another test of this file asked about a table too.)
    const asked = openai.chatRequests.length;
    const sending = app.request('POST', `/api/conversations/${uuid}/messages`, { token: me.token, body: { message: 'E mesa redonda?' } });
    await until('the model asked', async () => openai.chatRequests.slice(asked).filter((request) => JSON.stringify(request.body).includes('E mesa redonda?')).length, (count) => count === 1);
    const seen = collect(connect(me.token), uuid);
    await until('the conversation followed', () => app.sql('select watched_until > now() as watched from conversations where uuid = $1', [uuid]), (rows) => rows[0].watched);
    expect((await sending).status).toBe(200);
    await until('the reply', async () => seen.items.filter((item) => item.message).length, (stored) => stored === 1);
    expect(seen.items.filter((item) => item.message)).toEqual([expect.objectContaining({ message: { role: 'assistant', content: 'Um momento, vou verificar o estoque da loja para você agora.' } })]);
    expect(announced.filter((piece) => piece.u === uuid && piece.m)).toHaveLength(1);
  } finally {
    await listener.end();
  }
});
