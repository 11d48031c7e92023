import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';

/**
 * An assistant's knowledge base (design.md, "Knowledge bases"): `knowledgebase_id`, a base of
 * the account's, and `knowledgebase_mode`, `function_call` (the default) or `prompt` (pipeline
 * assistants only, as on the original platform).
 */
let app: TestApp;
let me: TestAccount;
let other: TestAccount;
let base: number;
let theirBase: number;

beforeAll(async () => {
  app = await startTestApp();
  me = await app.account();
  other = await app.account();
  base = (await app.request('POST', '/api/user/knowledgebases', { token: me.token, body: { name: 'FAQ' } })).body.data.id;
  theirBase = (await app.request('POST', '/api/user/knowledgebases', { token: other.token, body: { name: 'Deles' } })).body.data.id;
});
afterAll(() => app?.close());

const read = async (id: number) => (await app.request('GET', `/api/user/assistant/${id}`, { token: me.token })).body;
const update = (id: number, body: Record<string, unknown>) => app.request('PUT', `/api/user/assistant/${id}`, { token: me.token, body });
const readBase = async (id: number) => (await app.request('GET', `/api/user/knowledgebases/${id}`, { token: me.token })).body.data;

it('takes a base of the account’s and a mode; the default mode is function_call; null clears the base', async () => {
  const plain = await app.outboundAssistant(me);
  expect(await read(plain)).toMatchObject({ knowledgebase_id: null, knowledgebase_mode: 'function_call' });

  const id = await app.outboundAssistant(me, { knowledgebase_id: base, knowledgebase_mode: 'prompt' });
  expect(await read(id)).toMatchObject({ knowledgebase_id: base, knowledgebase_mode: 'prompt' });
  expect(await readBase(base)).toMatchObject({ assistants_count: 1 });

  expect((await update(id, { knowledgebase_mode: 'function_call' })).status).toBe(200);
  expect(await read(id)).toMatchObject({ knowledgebase_id: base, knowledgebase_mode: 'function_call' });
  expect((await update(id, { knowledgebase_id: null })).status).toBe(200);
  expect(await read(id)).toMatchObject({ knowledgebase_id: null });
  expect(await readBase(base)).toMatchObject({ assistants_count: 0 });
});

it('refuses another account’s base, a base that is not there and a mode it does not know, writing nothing', async () => {
  const id = await app.outboundAssistant(me, { knowledgebase_id: base });
  for (const [body, errors] of [
    [{ knowledgebase_id: theirBase }, { knowledgebase_id: ['O knowledgebase_id selecionado é inválido.'] }],
    [{ knowledgebase_id: 999_999 }, { knowledgebase_id: ['O knowledgebase_id selecionado é inválido.'] }],
    [{ knowledgebase_id: 0 }, { knowledgebase_id: ['O knowledgebase_id selecionado é inválido.'] }],
    [{ knowledgebase_mode: 'rag' }, { knowledgebase_mode: ['O campo knowledgebase_mode deve ser um dos seguintes valores: function_call, prompt.'] }],
  ] as const) {
    const res = await update(id, { ...body, assistant_name: 'Renomeada' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual(errors);
  }
  expect(await read(id)).toMatchObject({ assistant_name: 'Ana', knowledgebase_id: base, knowledgebase_mode: 'function_call' });
});

it('prompt mode is for pipeline assistants: a multimodal one takes function_call only, on create and when either changes', async () => {
  const [{ id: realtimeVoice }] = await app.sql(`select id from voices where name = 'coral' and mode = 'multimodal'`);
  const multimodal = { engine_type: 'multimodal', voice_id: realtimeVoice, llm_model: 'gpt-realtime', knowledgebase_id: base };
  const message = 'O knowledgebase_mode prompt só está disponível para assistentes pipeline; assistentes multimodal usam function_call.';

  const refused = await app.request('POST', '/api/user/assistant', { token: me.token, body: { ...assistantBody(), ...multimodal, knowledgebase_mode: 'prompt' } });
  expect(refused.status).toBe(422);
  expect(refused.body.errors).toEqual({ knowledgebase_mode: [message] });

  const realtime = await app.outboundAssistant(me, multimodal);
  expect(await read(realtime)).toMatchObject({ engine_type: 'multimodal', knowledgebase_mode: 'function_call' });
  expect((await update(realtime, { knowledgebase_mode: 'prompt' })).body.errors).toEqual({ knowledgebase_mode: [message] });

  // A pipeline assistant in prompt mode cannot become multimodal without changing its mode too.
  const pipeline = await app.outboundAssistant(me, { knowledgebase_id: base, knowledgebase_mode: 'prompt' });
  expect((await update(pipeline, { engine_type: 'multimodal', voice_id: realtimeVoice, llm_model: 'gpt-realtime' })).body.errors).toEqual({ knowledgebase_mode: [message] });
  const both = await update(pipeline, { engine_type: 'multimodal', voice_id: realtimeVoice, llm_model: 'gpt-realtime', knowledgebase_mode: 'function_call' });
  expect(both.status).toBe(200);
  expect(await read(pipeline)).toMatchObject({ engine_type: 'multimodal', knowledgebase_mode: 'function_call' });
});

it('deleting the base leaves its assistants without one', async () => {
  const doomed = (await app.request('POST', '/api/user/knowledgebases', { token: me.token, body: { name: 'Temporária' } })).body.data.id;
  const id = await app.outboundAssistant(me, { knowledgebase_id: doomed });
  expect((await app.request('DELETE', `/api/user/knowledgebases/${doomed}`, { token: me.token })).status).toBe(200);
  expect(await read(id)).toMatchObject({ knowledgebase_id: null, knowledgebase_mode: 'function_call' });
});

function assistantBody() {
  return {
    assistant_name: 'Ana',
    voice_id: 1,
    language: 'Portuguese',
    llm_model: 'gpt-4o-mini',
    calls_direction: 'receive',
    engine_type: 'pipeline',
    timezone: 'America/Sao_Paulo',
    initial_message: 'Olá!',
    system_prompt: 'Você atende clientes.',
  };
}
