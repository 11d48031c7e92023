import { NO_VENDORS, startTestApp, type TestAccount, type TestApp } from '../helpers/app';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fakes/openai';

/**
 * A conversation's reply holds no database connection while the model writes it: many replies
 * at once leave the process's pool to everyone else (before, each held a connection for the
 * model's whole answer, and the eleventh request of any kind waited for one). Across processes
 * the reply's lease orders a conversation's messages: one that comes while another process
 * writes a reply waits for it.
 */
const OPENAI_KEY = 'sk-test-conversation-replies';

let app: TestApp;
let openai: FakeOpenAi;
let me: TestAccount;
let assistant: number;

beforeAll(async () => {
  openai = await startFakeOpenAi(OPENAI_KEY);
  app = await startTestApp({
    voice: { openai: null, pipelineEngineUrl: null, pipeline: { ...NO_VENDORS, openai: { apiKey: OPENAI_KEY, url: openai.url } } },
  });
  me = await app.account({ balance: '10' });
  assistant = await app.outboundAssistant(me, { system_prompt: 'Você atende a Loja Centro.' });
});
afterAll(async () => {
  await app?.close();
  await openai?.close();
});

const open = async () => (await app.request('POST', '/api/conversations', { token: me.token, body: { assistant_id: assistant } })).body.data.uuid as string;
const say = (uuid: string, message: string) => app.request('POST', `/api/conversations/${uuid}/messages`, { token: me.token, body: { message } });

it('answers other requests while more replies are being written than the pool has connections', async () => {
  // The pool holds 10 connections (src/db/orm.ts); 15 slow replies at once.
  const uuids = await Promise.all(Array.from({ length: 15 }, open));
  openai.defaultChat = () => ({ text: 'Temos, sim.', firstTokenMs: 4000 });
  const replies = Promise.all(uuids.map((uuid, i) => say(uuid, `Tem a cadeira ${i}?`)));
  // Every model request is under way: each message is stored, its reply being written.
  const asked = Date.now();
  while (openai.chatRequests.length < 15 && Date.now() - asked < 10_000) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(openai.chatRequests).toHaveLength(15);

  const before = Date.now();
  const read = await app.request('GET', `/api/conversations/${uuids[0]}`, { token: me.token });
  const waited = Date.now() - before;
  expect(read.status).toBe(200);
  expect(read.body.data.messages.map((m: any) => m.role)).toEqual(['user']);
  // Answered while every model still writes (their first word is 4 s away), not after them.
  expect(waited).toBeLessThan(2500);

  const answered = await replies;
  expect(answered.map((res) => res.status)).toEqual(uuids.map(() => 200));
  expect(answered.map((res) => res.body.data.reply.content)).toEqual(uuids.map(() => 'Temos, sim.'));
});

it('waits for a reply another process is writing before it stores and answers the next message', async () => {
  openai.defaultChat = () => ({ text: 'Claro.' });
  const uuid = await open();
  await say(uuid, 'Oi');
  // Another process holds the reply's lease, as while it writes its reply.
  await app.sql(`update conversations set reply_lease = gen_random_uuid(), reply_lease_until = now() + interval '1 minute' where uuid = $1`, [uuid]);
  const requests = openai.chatRequests.length;
  const next = say(uuid, 'Tem cadeira?');
  await new Promise((resolve) => setTimeout(resolve, 600));
  expect(openai.chatRequests).toHaveLength(requests);
  const stored = await app.sql(`select count(*)::int as n from conversation_messages m join conversations c on c.id = m.conversation_id where c.uuid = $1`, [uuid]);
  expect(stored[0].n).toBe(2);

  // Its reply stored, the other process gives the lease back.
  await app.sql(`insert into conversation_messages (conversation_id, role, content) select id, 'assistant', 'Da outra vez.' from conversations where uuid = $1`, [uuid]);
  await app.sql(`update conversations set reply_lease = null, reply_lease_until = null where uuid = $1`, [uuid]);
  const answered = await next;
  expect(answered.status).toBe(200);
  const history = openai.chatRequests.at(-1)!.body.messages.map((m: any) => m.content);
  expect(history.slice(-3)).toEqual(['Claro.', 'Da outra vez.', 'Tem cadeira?'].map((text) => expect.stringContaining(text)));
});

it('answers a message whose conversation a dead process left leased once the lease runs out', async () => {
  openai.defaultChat = () => ({ text: 'Pronto.' });
  const uuid = await open();
  await app.sql(`update conversations set reply_lease = gen_random_uuid(), reply_lease_until = now() - interval '1 second' where uuid = $1`, [uuid]);
  const answered = await say(uuid, 'Oi?');
  expect(answered.status).toBe(200);
  expect(answered.body.data.reply.content).toBe('Pronto.');
  const [lease] = await app.sql(`select reply_lease, reply_lease_until from conversations where uuid = $1`, [uuid]);
  expect(lease).toEqual({ reply_lease: null, reply_lease_until: null });
});
