import { Client } from 'pg';
import { NO_VENDORS, startTestApp, waitingOnLock, type TestAccount, type TestApp } from '../helpers/app';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fakes/openai';

/**
 * Conversations' limits (issue 55, item 6), each a variable: the longest message
 * (CONVERSATION_MAX_MESSAGE_CHARS), messages a conversation takes in a minute
 * (CONVERSATION_MESSAGES_PER_MINUTE: 429 with Retry-After, nothing stored) and open
 * conversations per account (CONVERSATION_MAX_OPEN: a 422 in the plan limits' shape, held under
 * parallel opens).
 */
const OPENAI_KEY = 'sk-test-conversation-limits';

let app: TestApp;
let openai: FakeOpenAi;
let assistantOf: Map<number, number>;

beforeAll(async () => {
  openai = await startFakeOpenAi(OPENAI_KEY);
  openai.defaultChat = () => ({ text: 'Certo.' });
  app = await startTestApp({
    voice: { openai: null, pipelineEngineUrl: null, pipeline: { ...NO_VENDORS, openai: { apiKey: OPENAI_KEY, url: openai.url } } },
    conversationLimits: { messageChars: 40, messagesPerMinute: 3, openPerAccount: 4 },
  });
  assistantOf = new Map();
});
afterAll(async () => {
  await app?.close();
  await openai?.close();
});

async function account(): Promise<TestAccount> {
  const me = await app.account({ balance: '10' });
  assistantOf.set(me.accountId, await app.outboundAssistant(me, { system_prompt: 'Você atende a Loja Centro.' }));
  return me;
}
const open = (me: TestAccount) => app.request('POST', '/api/conversations', { token: me.token, body: { assistant_id: assistantOf.get(me.accountId) } });
const say = (me: TestAccount, uuid: string, message: string) => app.request('POST', `/api/conversations/${uuid}/messages`, { token: me.token, body: { message } });
const stored = async (uuid: string) =>
  (await app.sql('select count(*)::int as n from conversation_messages m join conversations c on c.id = m.conversation_id where c.uuid = $1', [uuid]))[0].n;

it('refuses a message over CONVERSATION_MAX_MESSAGE_CHARS, naming the field, and stores nothing', async () => {
  const me = await account();
  const uuid = (await open(me)).body.data.uuid;
  const long = await say(me, uuid, 'x'.repeat(41));
  expect(long.status).toBe(422);
  expect(long.body.errors).toHaveProperty('message');
  expect(await stored(uuid)).toBe(0);
  const reply = await app.request('POST', '/api/ai/generate-reply', {
    token: me.token,
    body: { assistant_id: assistantOf.get(me.accountId), customer_identifier: 'crm-9', message: 'y'.repeat(41) },
  });
  expect(reply.status).toBe(422);
  expect(reply.body.errors).toHaveProperty('message');
  expect((await say(me, uuid, 'x'.repeat(40))).status).toBe(200);
});

it('takes CONVERSATION_MESSAGES_PER_MINUTE messages a minute and answers the next 429 with Retry-After, storing nothing', async () => {
  const me = await account();
  const uuid = (await open(me)).body.data.uuid;
  // Sent together: decided one at a time, so exactly 3 pass.
  const sent = await Promise.all(['um', 'dois', 'três', 'quatro', 'cinco'].map((text) => say(me, uuid, text)));
  expect(sent.map((res) => res.status).sort()).toEqual([200, 200, 200, 429, 429]);
  const refused = sent.find((res) => res.status === 429)!;
  expect(refused.body.code).toBe('RATE_LIMITED');
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
  // Three messages and their three replies.
  expect(await stored(uuid)).toBe(6);
  // Another conversation of the same account has its own minute.
  const other = (await open(me)).body.data.uuid;
  expect((await say(me, other, 'oi')).status).toBe(200);
});

it('decides a message again when its conversation changed after it was read: the minute holds against another process', async () => {
  const me = await account();
  const uuid = (await open(me)).body.data.uuid;
  for (const text of ['um', 'dois']) expect((await say(me, uuid, text)).status).toBe(200);
  // Another process stores the minute's third message, as a message is stored (with the
  // conversation's update), and has not committed when this process reads the conversation.
  const other = new Client({ connectionString: app.databaseUrl });
  await other.connect();
  try {
    await other.query('begin');
    await other.query(`insert into conversation_messages (conversation_id, role, content) select id, 'user', 'três' from conversations where uuid = $1`, [uuid]);
    await other.query('update conversations set updated_at = clock_timestamp() where uuid = $1', [uuid]);
    const fourth = say(me, uuid, 'quatro');
    // This process read two messages and waits on the row to store its own.
    await waitingOnLock(app, 'insert into conversation_messages');
    await other.query('commit');
    const res = await fourth;
    expect(res.status).toBe(429);
    expect(res.body.code).toBe('RATE_LIMITED');
  } finally {
    await other.end();
  }
  // Two messages with their replies, and the other process's.
  expect(await stored(uuid)).toBe(5);
});

it('opens at most CONVERSATION_MAX_OPEN conversations per account, also when asked in parallel; closing one frees its place', async () => {
  const me = await account();
  const opened = await Promise.all(Array.from({ length: 8 }, () => open(me)));
  expect(opened.filter((res) => res.status === 201)).toHaveLength(4);
  const refused = opened.filter((res) => res.status !== 201);
  expect(refused.map((res) => res.status)).toEqual([422, 422, 422, 422]);
  expect(refused[0].body.message).toMatch(/limite de 4 conversas abertas/);
  const [{ n }] = await app.sql('select count(*)::int as n from conversations where account_id = $1', [me.accountId]);
  expect(n).toBe(4);

  // generate-reply's first message opens one too, within the same limit.
  const reply = await app.request('POST', '/api/ai/generate-reply', {
    token: me.token,
    body: { assistant_id: assistantOf.get(me.accountId), customer_identifier: 'crm-1', message: 'Oi' },
  });
  expect(reply.status).toBe(422);

  const uuid = opened.find((res) => res.status === 201)!.body.data.uuid;
  expect((await app.request('POST', `/api/conversations/${uuid}/close`, { token: me.token })).status).toBe(200);
  expect((await open(me)).status).toBe(201);
  // Another account has its own limit.
  expect((await open(await account())).status).toBe(201);
});
