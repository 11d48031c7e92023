import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { NO_VENDORS, startTestApp, type TestAccount, type TestApp } from '../helpers/app';
import { until } from '../helpers/dialer';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fakes/openai';
import { json, startReceiver, type Receiver } from '../helpers/receiver';

/**
 * Conversations over text through the API (design.md, "Conversations"): the assistant's
 * prompt, variables, tools and knowledge base answering over the pipeline's model, against the
 * local fake OpenAI, with the requests it received checked.
 */
const OPENAI_KEY = 'sk-test-conversations';

let app: TestApp;
let openai: FakeOpenAi;
let stock: Receiver;
let me: TestAccount;
let assistant: number;
let tool: number;

const post = (path: string, body?: unknown, token = me.token) => app.request('POST', `/api${path}`, { token, body });
const get = (path: string, token = me.token) => app.request('GET', `/api${path}`, { token });
const messagesOf = async (uuid: string) => (await get(`/conversations/${uuid}`)).body.data.messages.map((m: any) => [m.role, m.content]);
const open = async (body: Record<string, unknown> = {}) => (await post('/conversations', { assistant_id: assistant, ...body })).body.data.uuid as string;

beforeAll(async () => {
  openai = await startFakeOpenAi(OPENAI_KEY);
  stock = await startReceiver();
  app = await startTestApp(
    {
      voice: {
        openai: null,
        pipelineEngineUrl: null,
        pipeline: { ...NO_VENDORS, openai: { apiKey: OPENAI_KEY, url: openai.url } },
      },
      allowPrivateNetworkTargets: true,
    },
    { workers: true },
  );
  me = await app.account({ balance: '10' });
  tool = (
    await post('/user/tools', {
      name: 'check_stock',
      description: 'Checks whether a product is in stock',
      endpoint: `${stock.url}/stock`,
      method: 'POST',
      timeout: 5,
      schema: [{ name: 'product', type: 'string', description: 'The product' }],
    })
  ).body.data.id;
  assistant = await app.outboundAssistant(me, {
    system_prompt: 'Você atende {{customer_name}} na Loja Centro.',
    variables: { customer_name: 'cliente' },
    tool_ids: [tool],
  });
});
afterAll(async () => {
  await app?.close();
  await Promise.all([openai?.close(), stock?.close()]);
});
afterEach(() => {
  openai.chat.length = 0;
  openai.chatRequests.length = 0;
});

describe('a conversation', () => {
  it('answers with the assistant as it is now: a change to its prompt, to a tool or to its tools reaches the next reply', async () => {
    const own = (await post('/user/tools', { name: 'check_price', description: 'Gives a product’s price', endpoint: `${stock.url}/price`, method: 'GET', timeout: 5 })).body.data.id;
    const changing = await app.outboundAssistant(me, { system_prompt: 'Você atende a Loja Centro.', tool_ids: [own] });
    const uuid = await open({ assistant_id: changing });
    const ask = async () => {
      openai.chat.push({ text: 'Certo.' });
      expect((await post(`/conversations/${uuid}/messages`, { message: 'Oi' })).status).toBe(200);
      const body = openai.chatRequests.at(-1)!.body;
      return { prompt: body.messages[0].content, tools: (body.tools ?? []).map((t: any) => [t.function.name, t.function.description]) };
    };
    expect(await ask()).toEqual({ prompt: 'Você atende a Loja Centro.', tools: [['check_price', 'Gives a product’s price']] });
    app.resetQueries();
    expect(await ask()).toEqual({ prompt: 'Você atende a Loja Centro.', tools: [['check_price', 'Gives a product’s price']] });
    // Whether the assistant changed is read with the conversation, in the statement that reads it: no round trip of its own.
    const fingerprints = app.queries.filter((query) => query.includes("concat('setup|'"));
    expect(fingerprints).toHaveLength(1);
    expect(fingerprints[0]).toContain('last.history');

    expect((await app.request('PUT', `/api/user/assistant/${changing}`, { token: me.token, body: { system_prompt: 'Você atende a Loja Norte.' } })).status).toBe(200);
    expect((await ask()).prompt).toBe('Você atende a Loja Norte.');
    expect((await app.request('PUT', `/api/user/tools/${own}`, { token: me.token, body: { description: 'Gives a product’s price in reais' } })).status).toBe(200);
    expect((await ask()).tools).toEqual([['check_price', 'Gives a product’s price in reais']]);
    expect((await app.request('PUT', `/api/user/assistant/${changing}`, { token: me.token, body: { tool_ids: [own, tool] } })).status).toBe(200);
    expect((await ask()).tools.map(([name]: string[]) => name).sort()).toEqual(['check_price', 'check_stock']);
  });

  it('is opened free (type test by default), with its variables, and answered with the assistant’s prompt filled', async () => {
    const created = await post('/conversations', { assistant_id: String(assistant), variables: { customer_name: 'Maria' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      message: 'Conversation created successfully',
      data: { uuid: expect.stringMatching(/^[0-9a-f-]{36}$/), type: 'test', assistant_id: assistant, ai_enabled: true, variables: { customer_name: 'Maria' }, total_cost: 0, messages: [] },
    });
    const { uuid } = created.body.data;
    openai.chat.push({ text: 'Olá Maria! Como posso ajudar?', usage: { prompt_tokens: 40, completion_tokens: 7 } });
    const sent = await post(`/conversations/${uuid}/messages`, { message: 'Oi' });
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({
      message: 'Message sent successfully',
      data: {
        uuid,
        message: { role: 'user', content: 'Oi', created_at: expect.any(String) },
        reply: { role: 'assistant', content: 'Olá Maria! Como posso ajudar?', created_at: expect.any(String) },
        ai_enabled: true,
        usage: { llm_input_tokens: 40, llm_output_tokens: 7 },
        total_cost: 0,
      },
    });
    const [request] = openai.chatRequests;
    expect(request.body.model).toBe('gpt-4o-mini');
    expect(request.body.messages).toEqual([
      { role: 'system', content: 'Você atende Maria na Loja Centro.' },
      { role: 'user', content: 'Oi' },
    ]);
    // The assistant's tool is offered; a phone call's own functions are not.
    expect(request.body.tools.map((t: any) => t.function.name)).toEqual(['check_stock']);

    const read = await get(`/conversations/${uuid}`);
    expect(read.body.data).toMatchObject({ uuid, usage: { llm_input_tokens: 40, llm_output_tokens: 7 }, total_cost: 0 });
    expect(read.body.data.messages.map((m: any) => m.role)).toEqual(['user', 'assistant']);
  });

  it('runs the assistant’s tool through the guarded client and answers from its result', async () => {
    const uuid = await open();
    stock.respond = (_request, res) => json(res, 200, { in_stock: true, units: 3 });
    const before = stock.requests.length;
    openai.chat.push({ toolCalls: [{ name: 'check_stock', arguments: '{"product":"cadeira"}' }] }, { text: 'Temos 3 cadeiras.' });
    const sent = await post(`/conversations/${uuid}/messages`, { message: 'Tem cadeira?' });
    expect(sent.status).toBe(200);
    expect(sent.body.data.reply.content).toBe('Temos 3 cadeiras.');
    const calls = stock.requests.slice(before);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ method: 'POST', url: '/stock' });
    expect(JSON.parse(calls[0].body)).toEqual({ product: 'cadeira' });
    const second = openai.chatRequests[1].body.messages;
    expect(second.at(-2)).toMatchObject({ role: 'assistant', tool_calls: [{ function: { name: 'check_stock' } }] });
    expect(second.at(-1)).toMatchObject({ role: 'tool', content: JSON.stringify({ status: 200, response: '{"in_stock":true,"units":3}' }) });
    // The tool round is the reply's own: the conversation keeps the customer's words and the answer.
    expect(await messagesOf(uuid)).toEqual([
      ['user', 'Tem cadeira?'],
      ['assistant', 'Temos 3 cadeiras.'],
    ]);
  });

  it('answers from the knowledge base (function_call: search_knowledge_base)', async () => {
    const base = (await post('/user/knowledgebases', { name: 'Loja', language: 'portuguese' })).body.data.id;
    await post(`/user/knowledgebases/${base}/documents`, { name: 'Horários', type: 'text', content: 'Aos sábados abrimos das 9h às 13h. Aos domingos fechamos.' });
    await until('the document ingested', async () => (await get(`/user/knowledgebases/${base}`)).body.data.status, (status) => status === 'ready', 30_000);
    const reader = await app.outboundAssistant(me, { knowledgebase_id: base, knowledgebase_mode: 'function_call' });
    const uuid = (await post('/conversations', { assistant_id: reader, type: 'widget' })).body.data.uuid;
    openai.chat.push({ toolCalls: [{ name: 'search_knowledge_base', arguments: '{"query":"sábado horário"}' }] }, { text: 'Aos sábados abrimos das 9h às 13h.' });
    const sent = await post(`/conversations/${uuid}/messages`, { message: 'Que horas abrem no sábado?' });
    expect(sent.status).toBe(200);
    expect(sent.body.data.reply.content).toBe('Aos sábados abrimos das 9h às 13h.');
    const [first, second] = openai.chatRequests;
    expect(first.body.tools.map((t: any) => t.function.name)).toEqual(['search_knowledge_base']);
    const result = JSON.parse(second.body.messages.at(-1).content);
    expect(result.results[0].content).toContain('Aos sábados abrimos das 9h às 13h.');
  });

  it('keeps the customer’s message when the model fails, stores no reply, and answers 502 in the documented shape', async () => {
    const uuid = await open();
    // The first try and its one retry.
    openai.chat.push({ status: 500 }, { status: 500 });
    const sent = await post(`/conversations/${uuid}/messages`, { message: 'Alô?' });
    expect(sent.status).toBe(502);
    expect(sent.body).toEqual({
      message: 'O modelo do assistente não respondeu. A mensagem foi guardada sem resposta; envie-a de novo para tentar outra vez.',
      code: 'PROVIDER_FAILURE',
    });
    expect(await messagesOf(uuid)).toEqual([['user', 'Alô?']]);
    const [row] = await app.sql(`select llm_input_tokens::int as n from conversations where uuid = $1`, [uuid]);
    expect(row.n).toBe(0);
  });

  it('answers the messages of one conversation one at a time, in order, each with the ones before', async () => {
    const uuid = await open();
    const original = openai.defaultChat;
    openai.defaultChat = (body) => ({ text: `Resposta a ${body.messages.at(-1).content}`, firstTokenMs: 150 });
    try {
      const [a, b] = await Promise.all([post(`/conversations/${uuid}/messages`, { message: 'um' }), post(`/conversations/${uuid}/messages`, { message: 'dois' })]);
      expect([a.status, b.status]).toEqual([200, 200]);
    } finally {
      openai.defaultChat = original;
    }
    const messages = await messagesOf(uuid);
    const first = messages[0][1];
    const second = first === 'um' ? 'dois' : 'um';
    expect(messages).toEqual([
      ['user', first],
      ['assistant', `Resposta a ${first}`],
      ['user', second],
      ['assistant', `Resposta a ${second}`],
    ]);
    const [, later] = openai.chatRequests;
    expect(later.body.messages.slice(1)).toEqual([
      { role: 'user', content: first },
      { role: 'assistant', content: `Resposta a ${first}` },
      { role: 'user', content: second },
    ]);
  });
});

describe('human takeover', () => {
  it('while the AI is off: the customer’s messages are kept unanswered, a person’s go in as human; back on, the assistant answers knowing both', async () => {
    const uuid = await open();
    const off = await post(`/automate/conversations/${uuid}/disable-ai`);
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ message: expect.any(String), data: { uuid, ai_enabled: false } });
    const customer = await post(`/conversations/${uuid}/messages`, { message: 'Quero falar com alguém' });
    expect(customer.body.data).toMatchObject({ message: { role: 'user' }, reply: null, ai_enabled: false });
    const person = await post(`/conversations/${uuid}/messages`, { message: 'Oi, aqui é o João da loja.', sender: 'human' });
    expect(person.status).toBe(200);
    expect(person.body.data).toMatchObject({ message: { role: 'human', content: 'Oi, aqui é o João da loja.' }, reply: null });
    expect(openai.chatRequests).toHaveLength(0);

    const on = await post(`/automate/conversations/${uuid}/enable-ai`);
    expect(on.body.data.ai_enabled).toBe(true);
    const refused = await post(`/conversations/${uuid}/messages`, { message: 'Sou eu de novo', sender: 'human' });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual({ sender: [expect.stringContaining('sender human')] });
    openai.chat.push({ text: 'Posso ajudar em mais algo?' });
    await post(`/conversations/${uuid}/messages`, { message: 'Obrigado' });
    expect(openai.chatRequests[0].body.messages.slice(1)).toEqual([
      { role: 'user', content: 'Quero falar com alguém' },
      { role: 'assistant', content: 'Oi, aqui é o João da loja.' },
      { role: 'user', content: 'Obrigado' },
    ]);
    expect((await messagesOf(uuid)).map(([role]: string[]) => role)).toEqual(['user', 'human', 'user', 'assistant']);
  });
});

describe('errors, before anything is written', () => {
  it('refuse a message, and a one-off reply, that no model on this server can answer: 503, nothing stored', async () => {
    // A server with no LLM at all (no OPENAI_API_KEY, no LLM_PROVIDERS).
    const bare = await startTestApp();
    try {
      const owner = await bare.account();
      const assistantId = await bare.outboundAssistant(owner);
      const opened = await bare.request('POST', '/api/conversations', { token: owner.token, body: { assistant_id: assistantId } });
      expect(opened.status).toBe(201);
      const said = await bare.request('POST', `/api/conversations/${opened.body.data.uuid}/messages`, { token: owner.token, body: { message: 'Oi' } });
      expect([said.status, said.body.code]).toEqual([503, 'UNAVAILABLE']);
      const generated = await bare.request('POST', '/api/user/ai/generate-reply', { token: owner.token, body: { assistant_id: assistantId, customer_identifier: 'crm-1', message: 'Oi' } });
      expect([generated.status, generated.body.code]).toEqual([503, 'UNAVAILABLE']);
      expect(await bare.sql('select count(*)::int as n from conversation_messages')).toEqual([{ n: 0 }]);
      // The one opened on purpose; generate-reply opened none.
      expect(await bare.sql('select count(*)::int as n from conversations')).toEqual([{ n: 1 }]);
    } finally {
      await bare.close();
    }
  });

  it('refuse bad input with the documented 422s and unknown conversations with 404', async () => {
    const uuid = await open();
    const long = await post(`/conversations/${uuid}/messages`, { message: 'a'.repeat(2001) });
    expect(long.status).toBe(422);
    expect(long.body).toEqual({ message: 'Falha na validação', code: 'VALIDATION_FAILED', errors: { message: ['O campo message não pode ser superior a 2000 caracteres.'] } });
    const blank = await post(`/conversations/${uuid}/messages`, { message: '  ' });
    expect(blank.body.errors).toEqual({ message: ['O campo message é obrigatório.'] });
    const sender = await post(`/conversations/${uuid}/messages`, { message: 'Oi', sender: 'bot' });
    expect(sender.body.errors).toEqual({ sender: ['O campo sender deve ser um dos seguintes valores: user, human.'] });
    expect(await messagesOf(uuid)).toEqual([]);
    expect(openai.chatRequests).toHaveLength(0);

    for (const type of ['sms', 'whatsapp']) {
      const channel = await post('/conversations', { assistant_id: assistant, type });
      expect(channel.status).toBe(422);
      expect(channel.body.errors.type[0]).toContain('webhook de mensagens do Twilio');
    }
    const unknownType = await post('/conversations', { assistant_id: assistant, type: 'fax' });
    expect(unknownType.body.errors).toEqual({ type: ['O campo type deve ser um dos seguintes valores: test, widget, api, sms, whatsapp.'] });
    const noAssistant = await post('/conversations', { assistant_id: 999_999 });
    expect(noAssistant.status).toBe(404);
    expect(noAssistant.body).toMatchObject({ message: 'Assistente não encontrado' });

    for (const bad of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const missing = await get(`/conversations/${bad}`);
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ message: 'Conversa não encontrada', code: 'NOT_FOUND' });
      expect((await post(`/conversations/${bad}/messages`, { message: 'Oi' })).body).toEqual(missing.body);
      expect((await post(`/automate/conversations/${bad}/disable-ai`)).body).toEqual(missing.body);
    }
    const cursor = await get('/user/conversations?cursor=nope');
    expect(cursor.body.errors).toEqual({ cursor: ['O cursor é inválido: use o next_cursor de uma página anterior.'] });
  });
});

describe('the list', () => {
  it('pages newest first by next_cursor, with the filters', async () => {
    const other = await app.account();
    const otherAssistant = await app.outboundAssistant(other);
    const uuids: string[] = [];
    for (let i = 0; i < 3; i++) uuids.push((await post('/conversations', { assistant_id: otherAssistant, type: i === 1 ? 'widget' : 'test' }, other.token)).body.data.uuid);
    const first = await get('/user/conversations?per_page=2', other.token);
    expect(first.status).toBe(200);
    expect(first.body.data.map((c: any) => c.uuid)).toEqual([uuids[2], uuids[1]]);
    expect(first.body).toMatchObject({ per_page: 2, next_cursor: expect.any(String) });
    const second = await get(`/user/conversations?per_page=2&cursor=${first.body.next_cursor}`, other.token);
    expect(second.body).toMatchObject({ data: [{ uuid: uuids[0] }], next_cursor: null });
    const widgets = await get(`/user/conversations?type=widget&assistant_id=${otherAssistant}`, other.token);
    expect(widgets.body.data.map((c: any) => c.uuid)).toEqual([uuids[1]]);
    expect((await get('/user/conversations?type=sms', other.token)).body.data).toEqual([]);
  });
});

describe('POST /ai/generate-reply', () => {
  it('keeps one api conversation per customer_identifier, on both paths', async () => {
    openai.chat.push({ text: 'Olá Ana!' }, { text: 'Seu pedido saiu hoje.' });
    const first = await post('/ai/generate-reply', { assistant_id: assistant, customer_identifier: 'crm-42', message: 'Oi', variables: { customer_name: 'Ana' } });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ message: 'Reply generated successfully', data: { reply: { role: 'assistant', content: 'Olá Ana!' } } });
    const second = await post('/user/ai/generate-reply', { assistant_id: assistant, customer_identifier: 'crm-42', message: 'E meu pedido?' });
    expect(second.body.data).toMatchObject({ uuid: first.body.data.uuid, reply: { content: 'Seu pedido saiu hoje.' } });
    expect(openai.chatRequests[1].body.messages).toEqual([
      { role: 'system', content: 'Você atende Ana na Loja Centro.' },
      { role: 'user', content: 'Oi' },
      { role: 'assistant', content: 'Olá Ana!' },
      { role: 'user', content: 'E meu pedido?' },
    ]);
    const listed = await get(`/user/conversations?type=api&external_identifier=crm-42`);
    expect(listed.body.data).toMatchObject([{ uuid: first.body.data.uuid, type: 'api', external_identifier: 'crm-42' }]);
    const refused = await post('/ai/generate-reply', { assistant_id: assistant, message: 'Oi' });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual({ customer_identifier: ['O campo customer_identifier é obrigatório.'] });
  });
});

describe('GraphQL', () => {
  it('mirrors the REST operations by uuid', async () => {
    const created = await app.graphql(
      'mutation($input: CreateConversationInput!) { createConversation(input: $input) { uuid type ai_enabled } }',
      { input: { assistant_id: assistant, type: 'api' } },
      me.token,
    );
    const { uuid } = created.body.data.createConversation;
    openai.chat.push({ text: 'Oi!' });
    const sent = await app.graphql(
      'mutation($uuid: String!) { sendConversationMessage(uuid: $uuid, input: { message: "Olá" }) { reply { role content } usage { llm_output_tokens } } }',
      { uuid },
      me.token,
    );
    expect(sent.body.data.sendConversationMessage.reply).toEqual({ role: 'assistant', content: 'Oi!' });
    const read = await app.graphql('query($uuid: String!) { conversation(uuid: $uuid) { type messages { role content } } }', { uuid }, me.token);
    expect(read.body.data.conversation).toEqual({ type: 'api', messages: [{ role: 'user', content: 'Olá' }, { role: 'assistant', content: 'Oi!' }] });
    const missing = await app.graphql('query { conversation(uuid: "00000000-0000-4000-8000-000000000000") { uuid } }', {}, me.token);
    expect(missing.body.errors[0]).toMatchObject({ message: 'Conversa não encontrada', extensions: { code: 'NOT_FOUND' } });
  });
});

describe('the MCP server’s conversation tools', () => {
  /** Their requests as tests/fixtures/legacy-clients.json recorded them, replayed with the AI on and the model answering. */
  const fixture = JSON.parse(readFileSync(path.join(__dirname, '..', 'fixtures', 'legacy-clients.json'), 'utf8'));
  const TOOLS = ['list_conversations', 'create_conversation', 'get_conversation', 'send_message', 'disable_conversation_ai', 'enable_conversation_ai', 'generate_ai_reply'];

  it('succeed, each answer what the server reads', async () => {
    const ajv = new Ajv({ allErrors: true, strict: false });
    const byName = new Map<string, any>(fixture.operations.filter((op: any) => op.client === 'famulor-mcp').map((op: any) => [op.operation, op]));
    const ids: Record<string, string | number> = { assistant, customer: 'mcp-customer' };
    const fill = (text: string) =>
      text.replace(/\{(\w+)(:string)?\}/g, (_, name: string) => String(ids[name]));
    const fillBody = (body: Record<string, unknown> | undefined) =>
      body && Object.fromEntries(Object.entries(body).map(([k, v]) => [k, typeof v === 'string' ? (/^\{\w+\}$/.test(v) ? (ids[v.slice(1, -1)] as unknown) : fill(v)) : v]));
    openai.defaultChat = () => ({ text: 'Hallo! Wie kann ich helfen?' });
    try {
      for (const name of TOOLS) {
        const op = byName.get(name);
        expect([name, op?.feature]).toEqual([name, undefined]);
        const query = op.query ? `?${new URLSearchParams(Object.entries(op.query).map(([k, v]): [string, string] => [k, String(v)]))}` : '';
        const res = await app.request(op.method, `${fill(op.path)}${query}`, { token: me.token, body: fillBody(op.body) });
        expect([name, res.status < 300]).toEqual([name, true]);
        const valid = ajv.compile(fixture.schemas[op.reads]);
        expect([name, valid(res.body), ajv.errorsText(valid.errors)]).toEqual([name, true, 'No errors']);
        if (name === 'create_conversation') ids.uuid = res.body.data.uuid;
        if (name === 'send_message' || name === 'generate_ai_reply') expect(res.body.data.reply).toMatchObject({ role: 'assistant', content: 'Hallo! Wie kann ich helfen?' });
      }
    } finally {
      openai.defaultChat = () => ({ text: 'Hello! How can I help you today?' });
    }
  });
});
