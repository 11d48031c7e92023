import { createHmac } from 'node:crypto';
import { closeIdleConversations } from '../../src/modules/conversations/conversation.close';
import { NO_VENDORS, startTestApp, type TestAccount, type TestApp } from '../helpers/app';
import { until } from '../helpers/dialer';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fakes/openai';
import { json, startReceiver, type Received, type Receiver } from '../helpers/receiver';

/**
 * A conversation's close (design.md, "Conversations"): no more messages; then, on the job
 * queue, the post-call analyst's extraction from the transcript and the assistant's
 * conversation-ended webhook, signed as the post-call webhook is, retried as it is; the idle
 * close, once under concurrent sweeps.
 */
const OPENAI_KEY = 'sk-test-conversation-close';

let app: TestApp;
let openai: FakeOpenAi;
let analyst: Receiver;
let hooks: Receiver;
let me: TestAccount;
let assistant: number;
const analyses: unknown[] = [];
const analystRequests: any[] = [];

beforeAll(async () => {
  openai = await startFakeOpenAi(OPENAI_KEY);
  hooks = await startReceiver();
  analyst = await startReceiver();
  analyst.respond = (request, res) => {
    analystRequests.push(JSON.parse(request.body));
    const answer = analyses.shift() ?? 500;
    if (typeof answer === 'number') return json(res, answer, { error: { message: 'The server had an error', type: 'server_error' } });
    json(res, 200, {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      model: 'gpt-4o-mini',
      choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: JSON.stringify(answer), refusal: null } }],
    });
  };
  app = await startTestApp(
    {
      voice: {
        openai: { apiKey: 'sk-post-call', realtimeUrl: 'ws://127.0.0.1:9', realtimeModel: 'gpt-realtime', baseUrl: analyst.url, postCallModel: 'gpt-4o-mini' },
        pipelineEngineUrl: null,
        pipeline: { ...NO_VENDORS, openai: { apiKey: OPENAI_KEY, url: openai.url } },
      },
      allowPrivateNetworkTargets: true,
    },
    { workers: true },
  );
  app.config.webhooks.retrySchedule = [1, 1, 1];
  me = await app.account({ balance: '10' });
  assistant = await app.outboundAssistant(me, {
    system_prompt: 'Você agenda entregas.',
    post_call_evaluation: true,
    post_call_schema: [{ name: 'delivery_day', type: 'string', description: 'O dia de entrega combinado' }],
  });
});
afterAll(async () => {
  await app?.close();
  await Promise.all([openai?.close(), hooks?.close(), analyst?.close()]);
});

const post = (path: string, body?: unknown, token = me.token) => app.request('POST', `/api${path}`, { token, body });
const get = (path: string, token = me.token) => app.request('GET', `/api${path}`, { token });

/** What a receiver does to check a Standard Webhooks signature and the original platform's. */
function verified(secret: string, request: Received): boolean {
  const id = request.headers['webhook-id'] as string;
  const timestamp = request.headers['webhook-timestamp'] as string;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${request.body}`).digest('base64');
  const famulor = `sha256=${createHmac('sha256', secret).update(request.body).digest('hex')}`;
  return (request.headers['webhook-signature'] as string).split(' ').some((sig) => sig === `v1,${expected}`) && request.headers['x-famulor-signature'] === famulor;
}

async function talked(): Promise<string> {
  const uuid = (await post('/conversations', { assistant_id: assistant, variables: { customer_name: 'Ana' } })).body.data.uuid as string;
  openai.chat.push({ text: 'Posso entregar na sexta. Combinado?' });
  expect((await post(`/conversations/${uuid}/messages`, { message: 'Quero receber na sexta.' })).status).toBe(200);
  return uuid;
}

describe('closing', () => {
  it('takes no more messages, extracts from the transcript and posts the signed conversation-ended webhook, retried after a 500', async () => {
    const enabled = await post('/user/assistants/enable-conversation-ended-webhook', { assistant_id: assistant, webhook_url: `${hooks.url}/chat-ended` });
    expect(enabled.status).toBe(200);
    expect(enabled.body).toEqual({ message: 'Conversation ended webhook enabled successfully', data: [] });
    const uuid = await talked();
    // The model fails once (retried), then answers.
    analyses.push(500, { variables: { delivery_day: 'sexta' }, evaluation: { sentiment: 'positive', outcome: 'scheduled', score: 9 } });
    hooks.requests.length = 0;
    hooks.respond = (_request, res, index) => json(res, index === 0 ? 500 : 200, { ok: index > 0 });

    const closed = await post(`/conversations/${uuid}/close`);
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({ message: 'Conversation closed successfully', data: { uuid, closed_at: expect.any(String) } });

    // Closed: no more messages, nor a second close (409 CONFLICT, the documented shape).
    const refused = await post(`/conversations/${uuid}/messages`, { message: 'Mais uma coisa' });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ message: 'A conversa foi encerrada e não recebe mais mensagens.', code: 'CONFLICT' });
    expect((await post(`/conversations/${uuid}/close`)).status).toBe(409);

    await until('the webhook delivered on its second attempt', async () => hooks.requests.length, (count) => count >= 2, 20_000);
    const [first, second] = hooks.requests;
    expect(second.url).toBe('/chat-ended');
    // The same webhook-id on the retry, as the post-call webhook's.
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    const secret = (await app.graphql('{ webhookSecret }', {}, me.token)).body.data.webhookSecret;
    expect(verified(secret, second)).toBe(true);
    expect(verified(secret, { ...second, body: second.body.replace('sexta', 'sábado') })).toBe(false);
    expect(JSON.parse(second.body)).toEqual({
      event: 'conversation.ended',
      uuid,
      type: 'test',
      assistant_id: assistant,
      customer_phone: null,
      external_identifier: null,
      input_variables: { customer_name: 'Ana' },
      extracted_variables: { delivery_day: 'sexta' },
      evaluation: { sentiment: 'positive', outcome: 'scheduled', score: 9 },
      messages: [
        { role: 'user', content: 'Quero receber na sexta.', created_at: expect.any(String) },
        { role: 'assistant', content: 'Posso entregar na sexta. Combinado?', created_at: expect.any(String) },
      ],
      transcript: 'user: Quero receber na sexta.\nassistant: Posso entregar na sexta. Combinado?',
      created_at: expect.any(String),
      closed_at: expect.any(String),
    });
    // The analyst read the conversation's transcript.
    expect(analystRequests.at(-1).messages.at(-1).content).toContain('user: Quero receber na sexta.');

    const read = await get(`/conversations/${uuid}`);
    expect(read.body.data).toMatchObject({ closed_at: expect.any(String), extracted_variables: { delivery_day: 'sexta' }, evaluation: { score: 9 } });
  });

  it('posts nothing once the conversation-ended webhook is off; another account’s assistant and conversation are not found', async () => {
    const disabled = await post('/user/assistants/disable-conversation-ended-webhook', { assistant_id: assistant });
    expect(disabled.body).toEqual({ message: 'Conversation ended webhook disabled successfully', data: [] });
    const uuid = await talked();
    analyses.push({ variables: { delivery_day: null }, evaluation: { sentiment: 'neutral', outcome: 'open', score: 5 } });
    hooks.requests.length = 0;
    expect((await post(`/conversations/${uuid}/close`)).status).toBe(200);
    await until('the post-call work', async () => (await get(`/conversations/${uuid}`)).body.data.evaluation, (evaluation) => evaluation !== null, 20_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hooks.requests).toEqual([]);

    const other = await app.account();
    const missing = await post('/user/assistants/enable-conversation-ended-webhook', { assistant_id: 999999, webhook_url: 'https://hooks.example.com/x' }, other.token);
    const foreign = await post('/user/assistants/enable-conversation-ended-webhook', { assistant_id: assistant, webhook_url: 'https://hooks.example.com/x' }, other.token);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    const open = (await post('/conversations', { assistant_id: assistant })).body.data.uuid;
    const foreignClose = await post(`/conversations/${open}/close`, undefined, other.token);
    expect(foreignClose.status).toBe(404);
    expect(foreignClose.body).toEqual((await post('/conversations/00000000-0000-4000-8000-000000000009/close', undefined, other.token)).body);
    expect((await get(`/conversations/${open}`)).body.data.closed_at).toBeNull();
  });

  it('refuses a bad webhook_url with the documented 422', async () => {
    const bad = await post('/user/assistants/enable-conversation-ended-webhook', { assistant_id: assistant, webhook_url: 'ftp://nope' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.webhook_url).toBeDefined();
  });
});

describe('the idle close', () => {
  it('closes each conversation idle for CONVERSATION_IDLE_MINUTES once, under two concurrent sweeps; a recent one stays open', async () => {
    await post('/user/assistants/enable-conversation-ended-webhook', { assistant_id: assistant, webhook_url: `${hooks.url}/idle` });
    hooks.requests.length = 0;
    hooks.respond = (_request, res) => json(res, 200, {});
    const idle: string[] = [];
    for (let i = 0; i < 6; i++) idle.push((await post('/conversations', { assistant_id: assistant })).body.data.uuid);
    const recent = (await post('/conversations', { assistant_id: assistant })).body.data.uuid;
    await app.sql(`update conversations set updated_at = now() - interval '2 days', idle_checked_at = now() - interval '2 days' where uuid = any($1::uuid[])`, [idle]);
    for (let i = 0; i < 6; i++) analyses.push({ variables: { delivery_day: null }, evaluation: { sentiment: 'neutral', outcome: 'idle', score: 0 } });

    const minutes = app.config.conversationIdleMinutes;
    const counts = await Promise.all([1, 2, 3].map(() => closeIdleConversations(app.orm.em.fork(), minutes, 2)));
    // Other tests' conversations are recent: exactly these six, each closed by one sweep.
    expect(counts.reduce((a, b) => a + b, 0)).toBe(6);

    await until('a webhook per idle conversation', async () => hooks.requests.length, (count) => count >= 6, 20_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const posted = hooks.requests.map((request) => JSON.parse(request.body).uuid).sort();
    expect(posted).toEqual([...idle].sort());
    expect((await get(`/conversations/${recent}`)).body.data.closed_at).toBeNull();
  });

  it('keeps open a conversation made long ago with a recent message, and checks it again only once it could be idle', async () => {
    openai.chat.push({ text: 'Claro.' });
    const old = (await post('/conversations', { assistant_id: assistant })).body.data.uuid;
    // Made two days ago, when the sweep last saw it too; a message a minute ago.
    await app.sql(`update conversations set created_at = now() - interval '2 days', idle_checked_at = now() - interval '2 days' where uuid = $1`, [old]);
    expect((await post(`/conversations/${old}/messages`, { message: 'Ainda estou aqui' })).status).toBe(200);
    const [{ updated_at }] = await app.sql(`select updated_at from conversations where uuid = $1`, [old]);

    expect(await closeIdleConversations(app.orm.em.fork(), app.config.conversationIdleMinutes)).toBe(0);
    const [row] = await app.sql(`select closed_at, idle_checked_at from conversations where uuid = $1`, [old]);
    expect(row.closed_at).toBeNull();
    // Due for the sweep again a day after its last message, not at every sweep meanwhile.
    expect(row.idle_checked_at).toEqual(updated_at);
  });

  it('leaves a message’s update of the conversation in place: no index holds a column it changes', async () => {
    // What a message's turn and its reply set (conversation.exchange.ts); PostgreSQL then updates the row in its page, with no new index entries (HOT).
    const changed = ['updated_at', 'reply_lease', 'reply_lease_until', 'llm_input_tokens', 'llm_output_tokens', 'watched_until'];
    const indexes = await app.sql(
      `select i.relname as name, array(select a.attname from pg_attribute a where a.attrelid = x.indrelid and a.attnum > 0
         and a.attname = any(regexp_split_to_array(pg_get_indexdef(x.indexrelid), '[^a-z0-9_]+')))::text[] as columns
       from pg_index x join pg_class i on i.oid = x.indexrelid where x.indrelid = 'conversations'::regclass`,
    );
    // The idle sweep's index, as read here: its column and its condition's.
    expect(indexes.find((index: { name: string }) => index.name === 'conversations_open_idle')?.columns.sort()).toEqual(['closed_at', 'idle_checked_at']);
    for (const index of indexes) expect({ index: index.name, columns: index.columns.filter((column: string) => changed.includes(column)) }).toEqual({ index: index.name, columns: [] });
  });
});
