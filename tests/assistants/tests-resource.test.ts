import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';

/**
 * Assistant tests as a resource (design.md, "Assistant tests"): each type stored with its
 * defaults; every bound a 422 naming its field; an unknown tool a 422; TEST_MAX_PER_ASSISTANT
 * held under concurrent creates; another account's test, assistant and run not found.
 */
const LIMIT = 5;
let app: TestApp;
let me: TestAccount;
let other: TestAccount;
let assistant: number;
let tool: number;

beforeAll(async () => {
  app = await startTestApp({ allowPrivateNetworkTargets: true, assistantTests: { maxPerAssistant: LIMIT, runConcurrency: 4, callerModel: null, judgeModel: null } });
  me = await app.account();
  other = await app.account();
  tool = (
    await app.request('POST', '/api/user/tools', {
      token: me.token,
      body: { name: 'check_stock', description: 'Checks the stock', endpoint: 'http://127.0.0.1:9/stock', method: 'POST', timeout: 5, schema: [{ name: 'product', type: 'string', description: 'The product' }] },
    })
  ).body.data.id;
  assistant = await app.outboundAssistant(me, { tool_ids: [tool] });
});
afterAll(() => app?.close());

const create = (body: unknown, token = me.token, id = assistant) => app.request('POST', `/api/user/assistants/${id}/tests`, { token, body });
const reply = (extra: Record<string, unknown> = {}) => ({
  name: 'Horário',
  type: 'reply',
  config: { messages: [{ role: 'user', content: 'Que horas vocês abrem?' }], success_criteria: ['Diz que abre às 9h'], ...extra },
});
const simulation = (extra: Record<string, unknown> = {}) => ({ name: 'Cliente apressado', type: 'simulation', config: { persona: 'Você quer saber o horário.', success_criteria: ['Informa o horário'], ...extra } });
const clear = () => app.sql('delete from assistant_tests');

it('stores each type with its defaults, and reads, changes and deletes it', async () => {
  await clear();
  const made = await create(reply());
  expect(made.status).toBe(201);
  expect(made.body).toEqual({
    message: 'Teste criado com sucesso',
    data: { id: expect.any(Number), assistant_id: assistant, name: 'Horário', type: 'reply', config: reply().config, created_at: expect.any(String), updated_at: expect.any(String) },
  });
  const sim = await create(simulation({ tool_mocks: [{ tool: 'check_stock', response: { in_stock: true } }] }));
  expect(sim.status).toBe(201);
  expect(sim.body.data.config).toEqual({
    persona: 'Você quer saber o horário.',
    channel: 'chat',
    max_turns: 12,
    success_criteria: ['Informa o horário'],
    tool_mocks: [{ tool: 'check_stock', response: { in_stock: true }, status: 200 }],
  });
  const call = await create({ name: 'Encerra', type: 'tool_call', config: { messages: [{ role: 'user', content: 'Tchau' }], expect: { tool: 'end_call' } } });
  expect(call.status).toBe(201);

  const list = await app.request('GET', `/api/user/assistants/${assistant}/tests`, { token: me.token });
  expect(list.body.map((test: any) => test.type)).toEqual(['reply', 'simulation', 'tool_call']);
  const changed = await app.request('PUT', `/api/user/assistant-tests/${made.body.data.id}`, { token: me.token, body: { name: 'Abertura', config: reply({ success_criteria: ['Abre às 9h', 'É educado'] }).config } });
  expect(changed.status).toBe(200);
  expect(changed.body.data).toMatchObject({ name: 'Abertura', config: { success_criteria: ['Abre às 9h', 'É educado'] } });
  expect((await app.request('GET', `/api/user/assistant-tests/${made.body.data.id}`, { token: me.token })).body.name).toBe('Abertura');
  expect((await app.request('DELETE', `/api/user/assistant-tests/${made.body.data.id}`, { token: me.token })).body).toEqual({ message: 'Teste excluído com sucesso' });
  expect((await app.request('GET', `/api/user/assistant-tests/${made.body.data.id}`, { token: me.token })).status).toBe(404);

  // GraphQL mirrors REST.
  const gql = await app.graphql(`mutation($a: Int!, $i: CreateAssistantTestInput!) { createAssistantTest(assistant_id: $a, input: $i) { type config } }`, { a: assistant, i: reply() }, me.token);
  expect(gql.body.data.createAssistantTest).toEqual({ type: 'reply', config: reply().config });
});

it.each([
  ['21 criteria', 'config.success_criteria', reply({ success_criteria: Array.from({ length: 21 }, (_, i) => `Critério ${i}`) })],
  ['no criteria', 'config.success_criteria', reply({ success_criteria: [] })],
  ['a persona of 8,001 characters', 'config.persona', simulation({ persona: 'x'.repeat(8001) })],
  ['max_turns 41', 'config.max_turns', simulation({ max_turns: 41 })],
  ['max_turns 0', 'config.max_turns', simulation({ max_turns: 0 })],
  ['a channel of none', 'config.channel', simulation({ channel: 'fax' })],
  ['an unknown tool mocked', 'config.tool_mocks.0.tool', simulation({ tool_mocks: [{ tool: 'send_sms', response: {} }] })],
  ['an unknown tool expected', 'config.expect.tool', { name: 'x', type: 'tool_call', config: { messages: [{ role: 'user', content: 'Oi' }], expect: { tool: 'send_sms' } } }],
  ['a last message of the assistant', 'config.messages', reply({ messages: [{ role: 'user', content: 'Oi' }, { role: 'assistant', content: 'Olá' }] })],
  ['an unknown type', 'type', { name: 'x', type: 'vibes', config: {} }],
  ['an unknown config key', 'config.judge', reply({ judge: 'me' })],
  ['a name of 256 characters', 'name', { ...reply(), name: 'n'.repeat(256) }],
])('refuses %s with a 422 naming %s', async (_what, field, body) => {
  const res = await create(body);
  expect(res.status).toBe(422);
  expect(Object.keys(res.body.errors)).toEqual([field]);
});

it('names the tools a test may mention when it names one the assistant does not have', async () => {
  const res = await create(simulation({ tool_mocks: [{ tool: 'send_sms', response: {} }] }));
  expect(res.body.errors['config.tool_mocks.0.tool'][0]).toContain('check_stock, end_call, search_knowledge_base');
});

it('holds TEST_MAX_PER_ASSISTANT under concurrent creates', async () => {
  await clear();
  const results = await Promise.all(Array.from({ length: 12 }, (_, i) => create({ ...reply(), name: `Teste ${i}` })));
  expect(results.filter((res) => res.status === 201)).toHaveLength(LIMIT);
  const refused = results.filter((res) => res.status !== 201);
  expect(refused.map((res) => res.status)).toEqual(refused.map(() => 422));
  expect(refused[0].body.errors.assistant_id[0]).toContain(`máximo de ${LIMIT} testes`);
  const [{ n }] = await app.sql('select count(*)::int as n from assistant_tests where assistant_id = $1', [assistant]);
  expect(n).toBe(LIMIT);
});

it('refuses attempts out of 1-10 and test ids of another assistant on a run', async () => {
  await clear();
  const test = (await create(reply())).body.data.id;
  const over = await app.request('POST', `/api/user/assistants/${assistant}/test-runs`, { token: me.token, body: { attempts: 11 } });
  expect(over.status).toBe(422);
  expect(Object.keys(over.body.errors)).toEqual(['attempts']);
  const foreign = await app.request('POST', `/api/user/assistants/${assistant}/test-runs`, { token: me.token, body: { test_ids: [test, test + 1000] } });
  expect(foreign.status).toBe(422);
  expect(Object.keys(foreign.body.errors)).toEqual(['test_ids.1']);
  const started = await app.request('POST', `/api/user/assistants/${assistant}/test-runs`, { token: me.token, body: { attempts: 3 } });
  expect(started.status).toBe(202);
  expect(started.body.data).toEqual({ id: expect.any(Number), status: 'queued' });
  const [{ n }] = await app.sql('select count(*)::int as n from test_results where run_id = $1', [started.body.data.id]);
  expect(n).toBe(3);
});

it('answers another account’s test, assistant and run exactly as missing ones', async () => {
  await clear();
  const test = (await create(reply())).body.data.id;
  const run = (await app.request('POST', `/api/user/assistants/${assistant}/test-runs`, { token: me.token, body: {} })).body.data.id;
  const missingTest = await app.request('GET', `/api/user/assistant-tests/999999`, { token: other.token });
  for (const [method, path, body] of [
    ['GET', `/api/user/assistant-tests/${test}`],
    ['PUT', `/api/user/assistant-tests/${test}`, { name: 'meu' }],
    ['DELETE', `/api/user/assistant-tests/${test}`],
  ] as const) {
    const res = await app.request(method, path, { token: other.token, body });
    expect([res.status, res.body]).toEqual([missingTest.status, missingTest.body]);
  }
  const missingAssistant = await app.request('GET', `/api/user/assistants/999999/tests`, { token: other.token });
  expect(missingAssistant.status).toBe(404);
  for (const [method, path] of [
    ['GET', `/api/user/assistants/${assistant}/tests`],
    ['POST', `/api/user/assistants/${assistant}/tests`],
    ['POST', `/api/user/assistants/${assistant}/test-runs`],
    ['GET', `/api/user/assistants/${assistant}/test-runs`],
  ] as const) {
    const res = await app.request(method, path, { token: other.token, body: method === 'POST' ? (path.endsWith('tests') ? reply() : {}) : undefined });
    expect([res.status, res.body]).toEqual([missingAssistant.status, missingAssistant.body]);
  }
  const missingRun = await app.request('GET', `/api/user/test-runs/999999`, { token: other.token });
  const foreignRun = await app.request('GET', `/api/user/test-runs/${run}`, { token: other.token });
  expect([foreignRun.status, foreignRun.body]).toEqual([404, missingRun.body]);
  // Nothing of the other account's attempts changed anything.
  expect((await app.request('GET', `/api/user/assistant-tests/${test}`, { token: me.token })).body.name).toBe('Horário');
});
