import fc from 'fast-check';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';

let app: TestApp;
let me: TestAccount;
let other: TestAccount;
let pipelineVoice: number;
let multimodalVoice: number;
let myPhone: number;
let theirPhone: number;
let myTools: number[];
let theirTool: number;

const toolBody = (name: string) => ({ name, description: 'A tool', endpoint: 'https://tools.example.com/x', method: 'GET' });

beforeAll(async () => {
  app = await startTestApp();
  me = await app.account();
  other = await app.account();
  const voices = (await app.request('GET', '/api/user/assistants/voices', { token: me.token })).body;
  pipelineVoice = voices.find((v: any) => v.mode === 'pipeline').id;
  multimodalVoice = voices.find((v: any) => v.mode === 'multimodal').id;
  myPhone = await app.phoneNumber(me.accountId, '+5511933330001');
  theirPhone = await app.phoneNumber(other.accountId, '+5511933330002');
  myTools = [];
  for (const name of ['lookup_order', 'book_slot']) {
    myTools.push((await app.request('POST', '/api/user/tools', { token: me.token, body: toolBody(name) })).body.data.id);
  }
  theirTool = (await app.request('POST', '/api/user/tools', { token: other.token, body: toolBody('theirs') })).body.data.id;
});
afterAll(() => app?.close());

function validBody(): Record<string, unknown> {
  return {
    assistant_name: 'Ana da Loja',
    voice_id: pipelineVoice,
    language: 'Portuguese',
    llm_model: 'gpt-4o-mini',
    calls_direction: 'make',
    engine_type: 'pipeline',
    timezone: 'America/Sao_Paulo',
    initial_message: 'Olá! Aqui é a Ana.',
    system_prompt: 'Você é uma atendente simpática.',
  };
}

const create = (body: Record<string, unknown>, token = me.token) => app.request('POST', '/api/user/assistant', { token, body });
const update = (id: number | string, body: Record<string, unknown>, token = me.token) =>
  app.request('PUT', `/api/user/assistant/${id}`, { token, body });
const read = async (id: number, token = me.token) => (await app.request('GET', `/api/user/assistant/${id}`, { token })).body;

async function newAssistant(extra: Record<string, unknown> = {}, token = me.token): Promise<number> {
  const res = await create({ ...validBody(), ...extra }, token);
  expect(res.status).toBe(201);
  return res.body.data.id;
}

describe('catalogue', () => {
  it('lists languages with id, name and iso_2', async () => {
    const res = await app.request('GET', '/api/user/assistants/languages', { token: me.token });
    expect(res.status).toBe(200);
    const names = res.body.map((l: any) => l.name);
    for (const name of ['Portuguese', 'English', 'Spanish', 'German', 'French', 'Italian']) expect(names).toContain(name);
    expect(res.body.find((l: any) => l.name === 'Portuguese')).toEqual({ id: expect.any(Number), name: 'Portuguese', iso_2: 'pt' });
  });

  it('lists public voices and the account’s own, filtered by mode', async () => {
    const em = app.orm.em.fork();
    await em.execute(`insert into voices (account_id, name, mode) values (?, 'Minha Voz', 'pipeline'), (?, 'Voz Deles', 'pipeline')`, [
      me.accountId,
      other.accountId,
    ]);
    const all = (await app.request('GET', '/api/user/assistants/voices', { token: me.token })).body;
    const names = all.map((v: any) => v.name);
    expect(names).toContain('Minha Voz');
    expect(names).not.toContain('Voz Deles');
    expect(all.filter((v: any) => v.mode === 'pipeline').length).toBeGreaterThanOrEqual(3);
    expect(all.filter((v: any) => v.mode === 'multimodal').length).toBeGreaterThanOrEqual(3);
    expect(Object.keys(all[0])).toEqual(['id', 'name', 'mode', 'provider', 'provider_voice_id']);
    const multimodal = (await app.request('GET', '/api/user/assistants/voices?mode=multimodal', { token: me.token })).body;
    expect(multimodal.every((v: any) => v.mode === 'multimodal')).toBe(true);
    const bad = await app.request('GET', '/api/user/assistants/voices?mode=opera', { token: me.token });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toHaveProperty('mode');
  });

  it('answers the same over GraphQL', async () => {
    const res = await app.graphql(`{ languages { name iso_2 } voices(mode: "pipeline") { id mode } }`, {}, me.token);
    expect(res.body.data.languages.length).toBeGreaterThanOrEqual(6);
    expect(res.body.data.voices.every((v: any) => v.mode === 'pipeline')).toBe(true);
    const bad = await app.graphql(`{ voices(mode: "x") { id } }`, {}, me.token);
    expect(bad.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
  });
});

describe('POST /user/assistant', () => {
  it('creates an assistant and answers the summary', async () => {
    const res = await create({ ...validBody(), phone_number_id: myPhone, tool_ids: myTools });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      message: 'Assistant created successfully',
      data: { id: expect.any(Number), name: 'Ana da Loja', status: 'active', type: 'outbound', mode: 'pipeline' },
    });
    const full = await read(res.body.data.id);
    expect(full).toMatchObject({ phone_number_id: myPhone, phone_number: '+5511933330001', tool_ids: myTools });
  });

  it('answers type inbound for calls_direction receive and mode multimodal for that engine', async () => {
    const res = await create({ ...validBody(), calls_direction: 'receive', engine_type: 'multimodal', voice_id: multimodalVoice });
    expect(res.body.data).toMatchObject({ type: 'inbound', mode: 'multimodal' });
  });

  it('gives every optional field its documented default', async () => {
    const full = await read(await newAssistant());
    expect(full).toMatchObject({
      phone_number_id: null,
      tool_ids: [],
      endpoint_type: 'vad',
      endpoint_sensitivity: 2.5,
      interrupt_sensitivity: 2.5,
      ambient_sound_volume: 0,
      post_call_evaluation: false,
      send_webhook_only_on_completed: false,
      include_recording_in_webhook: false,
      is_webhook_active: false,
      webhook_url: null,
      use_min_interrupt_words: false,
      min_interrupt_words: 2,
      variables: {},
      post_call_schema: [],
      end_call_tool: { description: null },
      llm_temperature: 0.7,
      voice_stability: 0.5,
      voice_similarity: 0.75,
      speech_speed: 1,
      allow_interruptions: true,
      filler_audios: false,
      re_engagement_interval: 30,
      max_call_duration: 600,
      max_silence_duration: 30,
      end_call_on_voicemail: true,
      noise_cancellation: true,
      record_call: true,
      who_speaks_first: 'AI assistant',
      keyterms: [],
      pronunciations: [],
      backchannel_words: null,
      false_interruption_timeout_ms: 2000,
      transfer_numbers: [],
      transfer_mode: 'cold',
      transfer_message: null,
    });
  });

  it('names every missing required field', async () => {
    const res = await create({});
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('Falha na validação');
    expect(Object.keys(res.body.errors).sort()).toEqual(
      ['assistant_name', 'calls_direction', 'engine_type', 'initial_message', 'language', 'llm_model', 'system_prompt', 'timezone', 'voice_id'].sort(),
    );
    expect(res.body.errors.assistant_name).toEqual(['O campo assistant_name é obrigatório.']);
  });

  it.each([
    ['assistant_name', { assistant_name: 'x'.repeat(256) }],
    ['llm_model', { llm_model: 'm'.repeat(101) }],
    ['language', { language: 'Klingon' }],
    ['language', { language: 'l'.repeat(101) }],
    ['calls_direction', { calls_direction: 'both' }],
    ['engine_type', { engine_type: 'hybrid' }],
    ['timezone', { timezone: 'Sao Paulo' }],
    ['timezone', { timezone: 'Mars/Olympus_Mons' }],
    ['timezone', { timezone: 'UTC' }],
    ['voice_id', { voice_id: 999999 }],
    ['voice_id', { voice_id: 'abc' }],
    ['voice_id', { engine_type: 'multimodal' }],
    ['endpoint_type', { endpoint_type: 'silence' }],
    ['who_speaks_first', { who_speaks_first: 'Nobody' }],
    ['phone_number_id', { phone_number_id: 999999 }],
    ['webhook_url', { is_webhook_active: true }],
    ['webhook_url', { is_webhook_active: true, webhook_url: 'not-a-url' }],
    ['webhook_url', { webhook_url: 'ftp://example.com' }],
    ['post_call_schema.0.name', { post_call_schema: [{ name: 'bad name', type: 'string', description: 'x' }] }],
    ['post_call_schema.0.type', { post_call_schema: [{ name: 'ok', type: 'date', description: 'x' }] }],
    ['post_call_schema.1.description', { post_call_schema: [{ name: 'a', type: 'bool', description: 'x' }, { name: 'b', type: 'number' }] }],
    ['end_call_tool.description', { 'end_call_tool.description': 'e'.repeat(501) }],
    ['end_call_tool.description', { end_call_tool: { description: 'e'.repeat(501) } }],
    ['variables', { variables: 'x' }],
    ['record_call', { record_call: 'sometimes' }],
    ['max_call_duration', { max_call_duration: 60.5 }],
  ])('refuses a bad %s (case %#)', async (field, change) => {
    const res = await create({ ...validBody(), ...change });
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('Falha na validação');
    expect(Object.keys(res.body.errors)).toEqual([field]);
  });

  it("refuses another account's phone number, tool and private voice as invalid selections", async () => {
    const em = app.orm.em.fork();
    const [{ id: theirVoice }] = await em.execute(`insert into voices (account_id, name, mode) values (?, 'Privada', 'pipeline') returning id`, [
      other.accountId,
    ]);
    const res = await create({ ...validBody(), phone_number_id: theirPhone, tool_ids: [myTools[0], theirTool], voice_id: theirVoice });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      voice_id: ['O voice_id selecionado é inválido.'],
      phone_number_id: ['O phone_number_id selecionado é inválido.'],
      'tool_ids.1': ['O tool_ids.1 selecionado é inválido.'],
    });
  });

  it('accepts end_call_tool.description as a dotted key and as a nested object', async () => {
    const dotted = await newAssistant({ 'end_call_tool.description': 'Desligue quando o cliente se despedir.' });
    expect((await read(dotted)).end_call_tool).toEqual({ description: 'Desligue quando o cliente se despedir.' });
    const nested = await newAssistant({ end_call_tool: { description: 'Encerre ao confirmar.' } });
    expect((await read(nested)).end_call_tool).toEqual({ description: 'Encerre ao confirmar.' });
  });

  it('keeps post-call schema, variables and every setting sent', async () => {
    const id = await newAssistant({
      post_call_schema: [
        { name: 'interested', type: 'bool', description: 'Did the customer show interest?' },
        { name: 'budget_2026', type: 'number', description: 'Budget' },
      ],
      variables: { store: 'Centro' },
      speech_speed: '1.1',
      llm_temperature: 0,
      max_call_duration: '1200',
      who_speaks_first: 'Customer',
      is_webhook_active: true,
      webhook_url: 'https://hooks.example.com/calls',
    });
    expect(await read(id)).toMatchObject({
      post_call_schema: [
        { name: 'interested', type: 'bool', description: 'Did the customer show interest?' },
        { name: 'budget_2026', type: 'number', description: 'Budget' },
      ],
      variables: { store: 'Centro' },
      speech_speed: 1.1,
      llm_temperature: 0,
      max_call_duration: 1200,
      who_speaks_first: 'Customer',
      is_webhook_active: true,
      webhook_url: 'https://hooks.example.com/calls',
    });
  });
});

describe('ranges, at and around each bound (property)', () => {
  const ranges: [string, number, number, boolean][] = [
    ['endpoint_sensitivity', 0, 5, false],
    ['interrupt_sensitivity', 0, 5, false],
    ['ambient_sound_volume', 0, 1, false],
    ['llm_temperature', 0, 1, false],
    ['voice_stability', 0, 1, false],
    ['voice_similarity', 0, 1, false],
    ['speech_speed', 0.7, 1.2, false],
    ['min_interrupt_words', 0, 10, true],
    ['re_engagement_interval', 7, 600, true],
    ['max_call_duration', 20, 1200, true],
    ['max_silence_duration', 1, 120, true],
    ['false_interruption_timeout_ms', 0, 10_000, true],
  ];

  it.each(ranges)('%s accepts exactly [%d, %d] on update', async (field, min, max, integer) => {
    const id = await newAssistant();
    const step = integer ? 1 : 0.01;
    const near = fc.oneof(
      fc.constantFrom(min, max, min - step, max + step, min + step, max - step),
      integer ? fc.integer({ min: min - 50, max: max + 50 }) : fc.double({ min: min - 2, max: max + 2, noNaN: true }),
    );
    await fc.assert(
      fc.asyncProperty(near, async (raw) => {
        const value = integer ? raw : Math.round(raw * 1000) / 1000 || 0; // no -0: JSON cannot carry it
        const res = await update(id, { [field]: value });
        const inRange = value >= min && value <= max;
        expect(res.status).toBe(inRange ? 200 : 422);
        if (!inRange) expect(Object.keys(res.body.errors)).toEqual([field]);
        else expect((await read(id))[field]).toBe(value);
      }),
      { numRuns: 15 },
    );
  });

  it.each([
    ['calls_direction', ['receive', 'make']],
    ['endpoint_type', ['vad', 'ai']],
    ['who_speaks_first', ['AI assistant', 'Customer']],
  ])('%s accepts only its values', async (field, allowed) => {
    const id = await newAssistant();
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.constantFrom(...allowed), fc.string({ maxLength: 12 })), async (value) => {
        const res = await update(id, { [field]: value });
        expect(res.status).toBe(allowed.includes(value) ? 200 : 422);
      }),
      { numRuns: 15 },
    );
  });
});

describe('PUT /user/assistant/{id}', () => {
  it('changes only the fields sent and answers the summary', async () => {
    const id = await newAssistant({ speech_speed: 0.9 });
    const res = await update(id, { assistant_name: 'Bia', interrupt_sensitivity: 4 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message: 'Assistant updated successfully',
      data: { id, name: 'Bia', status: 'active', type: 'outbound', mode: 'pipeline' },
    });
    expect(await read(id)).toMatchObject({ assistant_name: 'Bia', interrupt_sensitivity: 4, speech_speed: 0.9, language: 'Portuguese' });
  });

  it('replaces tool assignments with tool_ids, and [] removes them all', async () => {
    const id = await newAssistant({ tool_ids: myTools });
    expect((await update(id, { tool_ids: [myTools[1]] })).status).toBe(200);
    expect((await read(id)).tool_ids).toEqual([myTools[1]]);
    expect((await update(id, { tool_ids: [] })).status).toBe(200);
    expect((await read(id)).tool_ids).toEqual([]);
  });

  it('removes the phone number with phone_number_id null', async () => {
    const id = await newAssistant({ phone_number_id: myPhone });
    expect((await update(id, { phone_number_id: null })).status).toBe(200);
    expect((await read(id)).phone_number_id).toBeNull();
  });

  it('disables the webhook with webhook_url null or is_webhook_active false', async () => {
    const hook = { is_webhook_active: true, webhook_url: 'https://hooks.example.com/a' };
    const a = await newAssistant(hook);
    await update(a, { webhook_url: null });
    expect(await read(a)).toMatchObject({ is_webhook_active: false, webhook_url: null });
    const b = await newAssistant(hook);
    await update(b, { is_webhook_active: false });
    expect(await read(b)).toMatchObject({ is_webhook_active: false, webhook_url: null });
  });

  it('requires a URL to turn the webhook on', async () => {
    const id = await newAssistant();
    const res = await update(id, { is_webhook_active: true });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ webhook_url: ['O campo webhook_url é obrigatório quando is_webhook_active é verdadeiro.'] });
  });

  it('checks the voice against the new engine', async () => {
    const id = await newAssistant();
    const mismatch = await update(id, { engine_type: 'multimodal' });
    expect(mismatch.status).toBe(422);
    expect(mismatch.body.errors).toEqual({ voice_id: ['A voz selecionada não é compatível com o engine_type multimodal.'] });
    expect((await update(id, { engine_type: 'multimodal', voice_id: multimodalVoice })).status).toBe(200);
  });

  it('refuses speech_speed out of range and webhook_url that is not a URL', async () => {
    const id = await newAssistant();
    const res = await update(id, { speech_speed: 1.5, webhook_url: 'nope' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: 'Falha na validação',
      code: 'VALIDATION_FAILED',
      errors: {
        speech_speed: ['O campo speech_speed deve estar entre 0.7 e 1.2.'],
        webhook_url: ['O campo webhook_url deve ser uma URL válida (http ou https).'],
      },
    });
  });

  it('refuses null for a required setting', async () => {
    const id = await newAssistant();
    const res = await update(id, { assistant_name: null });
    expect(res.body.errors).toEqual({ assistant_name: ['O campo assistant_name é obrigatório.'] });
  });
});

describe('webhook endpoints', () => {
  it('enables and disables the webhook with the documented bodies', async () => {
    const id = await newAssistant();
    const on = await app.request('POST', '/api/user/assistants/enable-inbound-webhook', {
      token: me.token,
      body: { assistant_id: id, webhook_url: 'https://hooks.example.com/inbound' },
    });
    expect(on.status).toBe(200);
    expect(on.body).toEqual({ message: 'Webhook enabled successfully', data: [] });
    expect(await read(id)).toMatchObject({ is_webhook_active: true, webhook_url: 'https://hooks.example.com/inbound' });

    const off = await app.request('POST', '/api/user/assistants/disable-webhook', { token: me.token, body: { assistant_id: String(id) } });
    expect(off.body).toEqual({ message: 'Webhook disabled successfully', data: [] });
    expect(await read(id)).toMatchObject({ is_webhook_active: false, webhook_url: null });

    await app.request('POST', '/api/user/assistants/enable-inbound-webhook', {
      token: me.token,
      body: { assistant_id: id, webhook_url: 'https://hooks.example.com/again' },
    });
    const alias = await app.request('POST', '/api/user/assistants/disable-inbound-webhook', { token: me.token, body: { assistant_id: id } });
    expect(alias.body).toEqual({ message: 'Webhook disabled successfully', data: [] });
    expect((await read(id)).is_webhook_active).toBe(false);
  });

  it('words validation errors as "Os dados fornecidos são inválidos."', async () => {
    const enable = await app.request('POST', '/api/user/assistants/enable-inbound-webhook', { token: me.token, body: {} });
    expect(enable.status).toBe(422);
    expect(enable.body).toEqual({
      message: 'Os dados fornecidos são inválidos.',
      code: 'VALIDATION_FAILED',
      errors: { assistant_id: ['O campo assistant_id é obrigatório.'], webhook_url: ['O campo webhook_url é obrigatório.'] },
    });
    const disable = await app.request('POST', '/api/user/assistants/disable-webhook', { token: me.token, body: {} });
    expect(disable.body).toEqual({ message: 'Os dados fornecidos são inválidos.', code: 'VALIDATION_FAILED', errors: { assistant_id: ['O campo assistant_id é obrigatório.'] } });
    const badUrl = await app.request('POST', '/api/user/assistants/enable-inbound-webhook', {
      token: me.token,
      body: { assistant_id: await newAssistant(), webhook_url: 'javascript:alert(1)' },
    });
    expect(badUrl.body.message).toBe('Os dados fornecidos são inválidos.');
    expect(Object.keys(badUrl.body.errors)).toEqual(['webhook_url']);
  });

  it("answers another account's assistant exactly like a missing one", async () => {
    const theirs = await newAssistant({}, other.token);
    for (const path of ['enable-inbound-webhook', 'disable-webhook', 'disable-inbound-webhook']) {
      const body = { webhook_url: 'https://hooks.example.com/x' };
      const foreign = await app.request('POST', `/api/user/assistants/${path}`, { token: me.token, body: { ...body, assistant_id: theirs } });
      const missing = await app.request('POST', `/api/user/assistants/${path}`, { token: me.token, body: { ...body, assistant_id: 987654 } });
      expect(foreign.status).toBe(404);
      expect(foreign.body).toEqual({ message: 'Assistente não encontrado', code: 'NOT_FOUND' });
      expect(missing.text).toBe(foreign.text);
    }
    expect(await read(theirs, other.token)).toMatchObject({ is_webhook_active: false });
  });
});

describe('reading, listing and deleting assistants', () => {
  it("treats another account's assistant exactly like a missing one on every route", async () => {
    const theirs = await newAssistant({}, other.token);
    for (const [method, body] of [['GET', undefined], ['PUT', { assistant_name: 'x' }], ['DELETE', undefined]] as const) {
      const foreign = await app.request(method, `/api/user/assistant/${theirs}`, { token: me.token, body });
      const missing = await app.request(method, '/api/user/assistant/987654', { token: me.token, body });
      expect(foreign.status).toBe(404);
      expect(foreign.body).toEqual({ message: 'Assistente não encontrado', code: 'NOT_FOUND' });
      expect(missing.text).toBe(foreign.text);
    }
    expect((await read(theirs, other.token)).assistant_name).toBe('Ana da Loja');
  });

  it('lists the account’s assistants and deletes one', async () => {
    const account = await app.account();
    const ids = [await newAssistant({}, account.token), await newAssistant({ assistant_name: 'Bia' }, account.token)];
    const list = await app.request('GET', '/api/user/assistants/get', { token: account.token });
    expect(list.body.map((a: any) => a.id)).toEqual(ids);
    expect(list.body[1]).toMatchObject({ name: 'Bia', assistant_name: 'Bia', type: 'outbound' });
    const deleted = await app.request('DELETE', `/api/user/assistant/${ids[0]}`, { token: account.token });
    expect(deleted.body).toEqual({ message: 'Assistant deleted successfully' });
    expect((await app.request('GET', '/api/user/assistants/get', { token: account.token })).body.map((a: any) => a.id)).toEqual([ids[1]]);
  });

  it('never lists assistants in tool responses', async () => {
    await newAssistant({ tool_ids: myTools });
    const tool = await app.request('GET', `/api/user/tools/${myTools[0]}`, { token: me.token });
    expect(Object.keys(tool.body).sort()).toEqual(['created_at', 'description', 'endpoint', 'headers', 'id', 'method', 'name', 'schema', 'speak_during', 'timeout', 'updated_at']);
  });
});

describe('unexpected failures', () => {
  it('answer 500 with the documented message, are logged, and leave nothing half-written', async () => {
    const em = app.orm.em.fork();
    await em.execute(`
      create function refuse_assignment() returns trigger language plpgsql as $$
      begin raise exception 'simulated storage failure'; end $$;
      create trigger refuse_assignment before insert on assistant_tools for each row execute function refuse_assignment();`);
    try {
      const before = (await app.sql('select count(*)::int as n from assistants'))[0].n;
      const created = await create({ ...validBody(), assistant_name: 'Half', tool_ids: [myTools[0]] });
      expect(created.status).toBe(500);
      expect(created.body).toEqual({ message: 'Falha na criação do assistente', code: 'INTERNAL' });
      expect((await app.sql('select count(*)::int as n from assistants'))[0].n).toBe(before);

      const id = await newAssistant();
      const updated = await update(id, { assistant_name: 'Changed', tool_ids: [myTools[0]] });
      expect(updated.status).toBe(500);
      expect(updated.body).toEqual({ message: 'Falha na atualização do assistente', code: 'INTERNAL' });
      expect((await read(id)).assistant_name).toBe('Ana da Loja');
      expect(app.loggedErrors.length).toBeGreaterThanOrEqual(2);
      expect(JSON.stringify(created.body) + JSON.stringify(updated.body)).not.toContain('simulated');
    } finally {
      await em.execute('drop trigger refuse_assignment on assistant_tools; drop function refuse_assignment();');
    }
  });
});

describe('turn-taking settings: keyterms, pronunciations, backchannel_words, false_interruption_timeout_ms', () => {
  const settings = {
    keyterms: [' Vozgate ', 'pedido {{order}}', 'Loja Centro'],
    pronunciations: [
      { word: 'CPF', say_as: 'cê pê éfe' },
      { word: 'Vozgate', say_as: 'vós geite' },
    ],
    backchannel_words: ['beleza', 'show'],
    false_interruption_timeout_ms: 1500,
  };
  const stored = { ...settings, keyterms: ['Vozgate', 'pedido {{order}}', 'Loja Centro'] };

  it('are kept as sent (trimmed), and each changes alone on update; null clears a list, and null backchannel_words is the language’s defaults', async () => {
    const id = await newAssistant(settings);
    expect(await read(id)).toMatchObject(stored);
    expect((await update(id, { keyterms: ['Outra'] })).status).toBe(200);
    expect(await read(id)).toMatchObject({ ...stored, keyterms: ['Outra'] });
    expect((await update(id, { keyterms: null, pronunciations: [], backchannel_words: null, false_interruption_timeout_ms: 0 })).status).toBe(200);
    expect(await read(id)).toMatchObject({ keyterms: [], pronunciations: [], backchannel_words: null, false_interruption_timeout_ms: 0 });
    // [] is no acknowledgement at all, not the defaults.
    expect((await update(id, { backchannel_words: [] })).status).toBe(200);
    expect((await read(id)).backchannel_words).toEqual([]);
  });

  it.each([
    [{ keyterms: Array.from({ length: 51 }, (_, i) => `termo ${i}`) }, { keyterms: ['O campo keyterms não pode ter mais de 50 itens.'] }],
    [{ keyterms: ['ok', ' '] }, { 'keyterms.1': ['O campo keyterms.1 é obrigatório.'] }],
    [{ keyterms: ['k'.repeat(101)] }, { 'keyterms.0': ['O campo keyterms.0 não pode ser superior a 100 caracteres.'] }],
    [{ keyterms: ['Vozgate', 'vozgate'] }, { 'keyterms.1': ['O campo keyterms.1 tem um valor duplicado.'] }],
    [
      { pronunciations: Array.from({ length: 101 }, (_, i) => ({ word: `w${i}`, say_as: 'x' })) },
      { pronunciations: ['O campo pronunciations não pode ter mais de 100 itens.'] },
    ],
    [
      { pronunciations: [{ word: '', say_as: 'x' }, { word: 'a', say_as: 's'.repeat(201) }] },
      { 'pronunciations.0.word': ['O campo pronunciations.0.word é obrigatório.'], 'pronunciations.1.say_as': ['O campo pronunciations.1.say_as não pode ser superior a 200 caracteres.'] },
    ],
    [{ pronunciations: [{ word: 'w'.repeat(101), say_as: 'x' }] }, { 'pronunciations.0.word': ['O campo pronunciations.0.word não pode ser superior a 100 caracteres.'] }],
    [
      { pronunciations: [{ word: 'CPF', say_as: 'a' }, { word: 'cpf', say_as: 'b' }] },
      { 'pronunciations.1.word': ['O campo pronunciations.1.word tem um valor duplicado.'] },
    ],
    [{ pronunciations: [{ word: 'CPF' }] }, { 'pronunciations.0.say_as': expect.any(Array) }],
    [{ backchannel_words: Array.from({ length: 51 }, (_, i) => `b${i}`) }, { backchannel_words: ['O campo backchannel_words não pode ter mais de 50 itens.'] }],
    [{ backchannel_words: ['b'.repeat(51)] }, { 'backchannel_words.0': ['O campo backchannel_words.0 não pode ser superior a 50 caracteres.'] }],
    [{ false_interruption_timeout_ms: 10_001 }, { false_interruption_timeout_ms: ['O campo false_interruption_timeout_ms deve estar entre 0 e 10000.'] }],
    [{ false_interruption_timeout_ms: -1 }, { false_interruption_timeout_ms: ['O campo false_interruption_timeout_ms deve estar entre 0 e 10000.'] }],
    [{ false_interruption_timeout_ms: null }, { false_interruption_timeout_ms: ['O campo false_interruption_timeout_ms é obrigatório.'] }],
  ])('refuses bad value %# with 422 in the documented shape, on create and update, writing nothing', async (change, errors) => {
    const id = await newAssistant(settings);
    const before = await read(id);
    const res = await update(id, { assistant_name: 'Outro nome', ...change });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'Falha na validação', code: 'VALIDATION_FAILED', errors });
    expect(await read(id)).toEqual(before);
    const created = await create({ ...validBody(), ...change });
    expect(created.status).toBe(422);
    expect(created.body.errors).toEqual(errors);
  });

  it('accepts the bounds themselves: 50 keyterms of 100 characters, 100 pronunciations', async () => {
    const id = await newAssistant({
      keyterms: Array.from({ length: 50 }, (_, i) => `${i}`.padEnd(100, 'k')),
      pronunciations: Array.from({ length: 100 }, (_, i) => ({ word: `w${i}`, say_as: 's'.repeat(200) })),
      backchannel_words: Array.from({ length: 50 }, (_, i) => `b${i}`),
      false_interruption_timeout_ms: 10_000,
    });
    const full = await read(id);
    expect([full.keyterms.length, full.pronunciations.length, full.backchannel_words.length, full.false_interruption_timeout_ms]).toEqual([50, 100, 50, 10_000]);
  });

  it('are the same over GraphQL', async () => {
    const created = await app.graphql(
      `mutation($input: CreateAssistantInput!) { createAssistant(input: $input) { id keyterms pronunciations { word say_as } backchannel_words false_interruption_timeout_ms } }`,
      { input: { ...validBody(), ...settings } },
      me.token,
    );
    expect(created.body.data.createAssistant).toEqual({ id: expect.any(Number), ...stored });
    const bad = await app.graphql(
      `mutation($id: Int!) { updateAssistant(id: $id, input: { keyterms: [""], false_interruption_timeout_ms: 20000 }) { id } }`,
      { id: created.body.data.createAssistant.id },
      me.token,
    );
    expect(bad.body.errors[0]).toMatchObject({
      message: 'Falha na validação',
      extensions: {
        code: 'VALIDATION_FAILED',
        errors: { 'keyterms.0': ['O campo keyterms.0 é obrigatório.'], false_interruption_timeout_ms: ['O campo false_interruption_timeout_ms deve estar entre 0 e 10000.'] },
      },
    });
  });
});

describe('transfer settings: transfer_numbers, transfer_mode, transfer_message', () => {
  const settings = {
    transfer_numbers: [
      { number: '+55 11 3003-0000', description: 'Vendas: planos e preços' },
      { number: '+5521 2222-3333', description: 'Suporte técnico' },
    ],
    transfer_mode: 'warm',
    transfer_message: '  Um momento, vou transferir.  ',
  };
  const stored = {
    transfer_numbers: [
      { number: '+551130030000', description: 'Vendas: planos e preços' },
      { number: '+552122223333', description: 'Suporte técnico' },
    ],
    transfer_mode: 'warm',
    transfer_message: 'Um momento, vou transferir.',
  };

  it('are kept with the numbers in E.164; null or [] clears the numbers, and a blank message is none', async () => {
    const id = await newAssistant(settings);
    expect(await read(id)).toMatchObject(stored);
    expect((await update(id, { transfer_mode: 'cold', transfer_message: '   ' })).status).toBe(200);
    expect(await read(id)).toMatchObject({ ...stored, transfer_mode: 'cold', transfer_message: null });
    expect((await update(id, { transfer_numbers: null })).status).toBe(200);
    expect((await read(id)).transfer_numbers).toEqual([]);
  });

  it.each([
    [
      { transfer_numbers: Array.from({ length: 11 }, (_, i) => ({ number: `+5511300300${String(i).padStart(2, '0')}`, description: 'x' })) },
      { transfer_numbers: ['O campo transfer_numbers não pode ter mais de 10 itens.'] },
    ],
    [{ transfer_numbers: [{ number: '12', description: 'x' }] }, { 'transfer_numbers.0.number': ['O campo transfer_numbers.0.number deve ser um número de telefone válido no formato internacional (E.164).'] }],
    [
      { transfer_numbers: [{ number: '+551130030000', description: 'a' }, { number: '+55 11 3003-0000', description: 'b' }] },
      { 'transfer_numbers.1.number': ['O campo transfer_numbers.1.number tem um valor duplicado.'] },
    ],
    [{ transfer_numbers: [{ number: '+551130030000', description: ' ' }] }, { 'transfer_numbers.0.description': ['O campo transfer_numbers.0.description é obrigatório.'] }],
    [{ transfer_numbers: [{ number: '+551130030000', description: 'd'.repeat(201) }] }, { 'transfer_numbers.0.description': ['O campo transfer_numbers.0.description não pode ser superior a 200 caracteres.'] }],
    [{ transfer_mode: 'hot' }, { transfer_mode: ['O campo transfer_mode deve ser um dos seguintes valores: cold, warm.'] }],
    [{ transfer_mode: null }, { transfer_mode: ['O campo transfer_mode é obrigatório.'] }],
    [{ transfer_message: 'm'.repeat(501) }, { transfer_message: ['O campo transfer_message não pode ser superior a 500 caracteres.'] }],
  ])('refuses bad value %# with 422 in the documented shape, on create and update, writing nothing', async (change, errors) => {
    const id = await newAssistant(settings);
    const before = await read(id);
    const res = await update(id, { assistant_name: 'Outro nome', ...change });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'Falha na validação', code: 'VALIDATION_FAILED', errors });
    expect(await read(id)).toEqual(before);
    const created = await create({ ...validBody(), ...change });
    expect(created.status).toBe(422);
    expect(created.body.errors).toEqual(errors);
  });

  it('are the same over GraphQL', async () => {
    const created = await app.graphql(
      `mutation($input: CreateAssistantInput!) { createAssistant(input: $input) { id transfer_numbers { number description } transfer_mode transfer_message } }`,
      { input: { ...validBody(), ...settings } },
      me.token,
    );
    expect(created.body.data.createAssistant).toEqual({ id: expect.any(Number), ...stored });
  });
});

describe('assistants over GraphQL', () => {
  it('creates, reads with tools and updates with the same rules', async () => {
    const created = await app.graphql(
      `mutation($input: CreateAssistantInput!) { createAssistant(input: $input) { id name type mode tools { id name } voice { id mode } } }`,
      { input: { ...validBody(), tool_ids: myTools, end_call_tool: { description: 'Tchau' } } },
      me.token,
    );
    const assistant = created.body.data.createAssistant;
    expect(assistant).toMatchObject({ name: 'Ana da Loja', type: 'outbound', mode: 'pipeline', voice: { id: pipelineVoice, mode: 'pipeline' } });
    expect(assistant.tools.map((t: any) => t.id)).toEqual(myTools);

    const bad = await app.graphql(
      `mutation($id: Int!) { updateAssistant(id: $id, input: { speech_speed: 2 }) { id } }`,
      { id: assistant.id },
      me.token,
    );
    expect(bad.body.errors[0]).toMatchObject({ message: 'Falha na validação', extensions: { code: 'VALIDATION_FAILED', errors: { speech_speed: expect.any(Array) } } });

    const hooked = await app.graphql(
      `mutation($id: Int!) { enableInboundWebhook(assistant_id: $id, webhook_url: "https://hooks.example.com/g") { is_webhook_active webhook_url } }`,
      { id: assistant.id },
      me.token,
    );
    expect(hooked.body.data.enableInboundWebhook).toEqual({ is_webhook_active: true, webhook_url: 'https://hooks.example.com/g' });
    const off = await app.graphql(`mutation($id: Int!) { disableWebhook(assistant_id: $id) { is_webhook_active webhook_url } }`, { id: assistant.id }, me.token);
    expect(off.body.data.disableWebhook).toEqual({ is_webhook_active: false, webhook_url: null });

    const foreign = await app.graphql(`query($id: Int!) { assistant(id: $id) { id } }`, { id: assistant.id }, other.token);
    expect(foreign.body.errors[0]).toMatchObject({ message: 'Assistente não encontrado', extensions: { code: 'NOT_FOUND' } });
  });
});
