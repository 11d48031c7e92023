import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { startTestApp, UNREACHABLE_VOICE, type HttpResult, type TestApp } from '../helpers/app';
import { createTenant, VALID_REST_REQUESTS, type Tenant } from '../helpers/tenant';

/**
 * The original platform's clients, replayed: every request shape its MCP server and its n8n
 * node send (tests/fixtures/legacy-clients.json, recorded from their sources) against a
 * started server, each answer checked against what the client reads from it.
 */
interface Recorded {
  client: 'famulor-mcp' | 'n8n-famulor';
  operation: string;
  method: string;
  path: string;
  query?: Record<string, unknown>;
  body?: Record<string, unknown>;
  reads: string;
  /** The feature vozgate does not have, for operations it does not offer. */
  feature?: string;
  /** A read after the write, and what it must show. */
  then?: { method: string; path: string; expect: Record<string, unknown> };
}

const fixture: { schemas: Record<string, object>; operations: Recorded[] } = JSON.parse(
  readFileSync(path.join(__dirname, '..', 'fixtures', 'legacy-clients.json'), 'utf8'),
);
const ajv = new Ajv({ allErrors: true, strict: false });
const validators = Object.fromEntries(Object.entries(fixture.schemas).map(([name, schema]) => [name, ajv.compile(schema)]));

let app: TestApp;
let tenant: Tenant;
let ids: Record<string, number | string>;

beforeAll(async () => {
  // Vendors configured (never reached), so that every route's valid request, a web call's start
  // among them, is answered as documented.
  app = await startTestApp({ voice: UNREACHABLE_VOICE });
  tenant = await createTenant(app, 5_000);
  const [language] = await app.sql(`select id from languages where name = 'German'`);
  const [model] = await app.sql(`select id from models where name = 'gpt-4o-mini'`);
  const post = (path: string, body: unknown) => app.request('POST', path, { token: tenant.token, body });
  const spareTool = await post('/api/user/tools', { name: 'spare_tool', description: 'To delete', endpoint: 'https://api.example.com/x', method: 'GET' });
  const spareAssistant = await post('/api/user/assistant', {
    assistant_name: 'Spare', voice_id: tenant.voice, language: 'Portuguese', llm_model: 'gpt-4o-mini', calls_direction: 'make',
    engine_type: 'pipeline', timezone: 'America/Sao_Paulo', initial_message: 'Oi', system_prompt: 'Seja breve.',
  });
  const knowledgebase = await post('/api/user/knowledgebases', { name: 'Loja' });
  const spareKnowledgebase = await post('/api/user/knowledgebases', { name: 'To delete' });
  const documents = `/api/user/knowledgebases/${knowledgebase.body.data.id}/documents`;
  const document = await post(documents, { name: 'Prices', type: 'text', content: 'Entrega grátis acima de R$ 100.' });
  const spareDocument = await post(documents, { name: 'To delete', type: 'text', content: 'Apagar.' });
  const folder = await post('/api/user/folders', { name: 'Kunde Müller' });
  const spareFolder = await post('/api/user/folders', { name: 'To delete' });
  const label = await post('/api/user/labels', { name: 'Inbound' });
  const spareLabel = await post('/api/user/labels', { name: 'To delete' });
  // SIP trunks, as create_sip_trunk sends them: the spare one is deleted by its number's id.
  const trunk = (number: string) => ({
    sip_trunk_type: 'number', phone_number: number, sip_username: 'office-pbx', sip_password: 's3cret-pass', sip_address: 'sip.carrier.example',
    sip_calling_format: '+e164', inbound_authorization_type: 'auth', country_code: 'DE',
  });
  const sipTrunk = await post('/api/user/phone-numbers/sip-trunks', trunk('+493050005702'));
  const spareSipTrunk = await post('/api/user/phone-numbers/sip-trunks', trunk('+493050005703'));
  // A WhatsApp sender answered by an inbound assistant, whose customer wrote to it a moment ago
  // (as Twilio's messaging webhook stores it): the free-form send is inside the 24-hour window.
  const whatsappSender = await app.phoneNumber(tenant.accountId, `+49301${String(Date.now()).slice(-7)}`, { sms: true, whatsapp: true });
  const inboundAssistant = await app.outboundAssistant(tenant, { calls_direction: 'receive', phone_number_id: whatsappSender });
  const [conversation] = await app.sql(
    `insert into conversations (uuid, account_id, assistant_id, type, customer_phone) values (gen_random_uuid(), $1, $2, 'whatsapp', '+4930123456') returning id`,
    [tenant.accountId, inboundAssistant],
  );
  await app.sql(
    `insert into conversation_messages (conversation_id, role, content, provider_message_id, handled_at) values ($1, 'user', 'Hallo', $2, now())`,
    [conversation.id, `SM${'0'.repeat(31)}1`],
  );
  const templates = await app.request('GET', `/api/user/whatsapp/senders/${whatsappSender}/templates`, { token: tenant.token });
  ids = {
    whatsappSender,
    whatsappTemplate: templates.body.data[0].id,
    knowledgebase: knowledgebase.body.data.id,
    spareKnowledgebase: spareKnowledgebase.body.data.id,
    document: document.body.data.id,
    spareDocument: spareDocument.body.data.id,
    folder: folder.body.data.id,
    spareFolder: spareFolder.body.data.id,
    label: label.body.data.id,
    spareLabel: spareLabel.body.data.id,
    sipTrunk: sipTrunk.body.data.id,
    spareSipTrunk: spareSipTrunk.body.data.id,
    assistant: tenant.assistant,
    call: tenant.call,
    campaign: tenant.campaignId,
    lead: tenant.lead,
    tool: tenant.tool,
    phone: tenant.phone,
    // Released by release_phone_number: the assistant keeps its own for the calls after it.
    releasablePhone: tenant.releasablePhone,
    voice: tenant.voice,
    language: language.id,
    model: model.id,
    spareCampaign: tenant.spareCampaigns[0],
    lastCampaign: tenant.spareCampaigns[1],
    spareTool: spareTool.body.data.id,
    spareAssistant: spareAssistant.body.data.id,
    // A conversation a person has taken over (tests/helpers/tenant.ts): its messages need no model.
    uuid: tenant.conversation,
    customer: tenant.customerIdentifier,
  };
});
afterAll(() => app?.close());

/** `{name}` and `{name:string}` as the account's ids (the whole value keeps its type: integer, or string). */
function fill(value: unknown, created?: number): unknown {
  if (typeof value === 'string') {
    const whole = /^\{(\w+)(:string)?\}$/.exec(value);
    const id = (name: string) => (name === 'created' ? created : ids[name]) ?? 'unknown-placeholder';
    if (whole) return whole[2] ? String(id(whole[1])) : id(whole[1]);
    return value.replace(/\{(\w+)(?::string)?\}/g, (_, name: string) => String(id(name)));
  }
  if (Array.isArray(value)) return value.map((item) => fill(item, created));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, created)]));
  return value;
}

function send(op: Pick<Recorded, 'method' | 'path' | 'query' | 'body'>, created?: number): Promise<HttpResult> {
  const query = op.query ? `?${new URLSearchParams(Object.entries(fill(op.query) as Record<string, unknown>).map(([k, v]): [string, string] => [k, String(v)]))}` : '';
  return app.request(op.method, `${fill(op.path, created)}${query}`, { token: tenant.token, body: op.body ? fill(op.body) : undefined });
}

/** What the client sees: the MCP server wraps a bare array under `result`; the n8n node reads the body. */
function readBy(op: Recorded, body: unknown): unknown {
  return op.client === 'famulor-mcp' && Array.isArray(body) ? { result: body } : body;
}

const offered = fixture.operations.filter((op) => !op.feature);
const missing = fixture.operations.filter((op) => op.feature);

describe('clients of the original platform', () => {
  it('were recorded whole: the MCP server’s 75 tools and the n8n node’s requests', () => {
    expect(new Set(fixture.operations.filter((op) => op.client === 'famulor-mcp').map((op) => op.operation)).size).toBe(75);
    expect(fixture.operations.filter((op) => op.client === 'n8n-famulor')).toHaveLength(5);
    // Every one is offered (SIP trunks were the last marked with the feature vozgate lacked).
    expect(missing.map((op) => op.operation)).toEqual([]);
  });

  // In the recorded order: the deletes come last, on resources of their own.
  it.each(offered.map((op, index) => [`${op.client} ${op.operation} (${op.method} ${op.path})`, index] as const))('%s', async (_name, index) => {
    const op = offered[index];
    const res = await send(op);
    if (res.status >= 300) throw new Error(`${op.operation}: ${res.status} ${res.text}`);
    if (op.reads === 'list' && op.client === 'famulor-mcp') expect(Array.isArray(res.body)).toBe(true);
    const valid = validators[op.reads];
    if (!valid(readBy(op, res.body))) throw new Error(`${op.operation}: ${ajv.errorsText(valid.errors)} in ${res.text.slice(0, 500)}`);
    if (op.then) {
      const created = res.body?.data?.id;
      const after = await send(op.then, created);
      expect(after.status).toBe(200);
      expect(after.body).toMatchObject(fill(op.then.expect, created) as object);
    }
  });
});

/** An assistant in the original platform's current field names. */
const base = () => ({
  name: 'Alias', voice_id: tenant.voice, language_id: ids.language, type: 'outbound', mode: 'pipeline', timezone: 'Europe/Berlin',
  initial_message: 'Hallo', system_prompt: 'Kurz.', llm_model_id: ids.model,
});

describe('assistant fields in the original platform’s current names', () => {
  const create = (body: unknown) => app.request('POST', '/api/user/assistant', { token: tenant.token, body });

  it('map to the spec’s fields through the catalogue', async () => {
    const res = await create({ ...base(), max_duration: 120, multimodal_model_id: undefined });
    expect(res.status).toBe(201);
    const read = await app.request('GET', `/api/user/assistant/${res.body.data.id}`, { token: tenant.token });
    expect(read.body).toMatchObject({ assistant_name: 'Alias', language: 'German', llm_model: 'gpt-4o-mini', calls_direction: 'make', engine_type: 'pipeline', max_call_duration: 120 });
  });

  it('take the same validation as the spec’s names', async () => {
    const res = await create({ ...base(), max_duration: 5, language_id: 999_999, llm_model_id: 0 });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      max_call_duration: [expect.stringContaining('max_call_duration')],
      language_id: ['O language_id selecionado é inválido.'],
      llm_model_id: ['O llm_model_id selecionado é inválido.'],
    });
    const noModel = await create({ ...base(), llm_model_id: undefined });
    expect(noModel.status).toBe(422);
    expect(noModel.body.errors).toEqual({ llm_model: ['O campo llm_model é obrigatório.'] });
  });

  it('refuse both names of one field with different values, and values outside the alias’s own', async () => {
    const res = await create({ ...base(), assistant_name: 'Other', type: 'sideways', record: true, record_call: true });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      name: ['Os campos name e assistant_name são o mesmo campo e foram enviados com valores diferentes.'],
      type: ['O campo type deve ser um dos seguintes valores: inbound, outbound.'],
    });
    const catalogue = await create({ ...base(), language: 'Portuguese', llm_model: 'gpt-4o' });
    expect(catalogue.body.errors).toEqual({
      language_id: ['Os campos language_id e language são o mesmo campo e foram enviados com valores diferentes.'],
      llm_model_id: ['Os campos llm_model_id e llm_model são o mesmo campo e foram enviados com valores diferentes.'],
    });
    const inherited = await create({ ...base(), type: 'constructor', constructor: 'x' });
    expect(inherited.body.errors).toEqual({ type: ['O campo type deve ser um dos seguintes valores: inbound, outbound.'] });
    const dualplex = await create({ ...base(), mode: 'dualplex' });
    expect(dualplex.body.errors).toEqual({ mode: ['O campo mode deve ser um dos seguintes valores: pipeline, multimodal.'] });
    const agreeing = await create({ ...base(), assistant_name: 'Alias', language: 'German', llm_model: 'gpt-4o-mini' });
    expect(agreeing.status).toBe(201);
  });

  it('refuse keys that are neither the spec’s nor an alias, on create and on update, changing nothing', async () => {
    const created = await create({ ...base(), voice_mail_message: 'Bitte zurückrufen' });
    expect(created.status).toBe(422);
    expect(created.body).toMatchObject({ message: 'Campos inválidos: voice_mail_message', errors: { voice_mail_message: [expect.any(String)] } });
    const before = await app.request('GET', `/api/user/assistant/${tenant.assistant}`, { token: tenant.token });
    const updated = await app.request('PUT', `/api/user/assistant/${tenant.assistant}`, { token: tenant.token, body: { name: 'Changed', ringtone: 3 } });
    expect(updated.status).toBe(422);
    expect(updated.body.message).toBe('Campos inválidos: ringtone');
    const after = await app.request('GET', `/api/user/assistant/${tenant.assistant}`, { token: tenant.token });
    expect(after.body).toEqual(before.body);
  });
});

describe('lookups', () => {
  it('list the model catalogue by type, and refuse an unknown type', async () => {
    const llm = await app.request('GET', '/api/user/assistants/models?type=llm', { token: tenant.token });
    expect(llm.body.length).toBeGreaterThan(5);
    expect(llm.body.every((m: any) => m.type === 'llm' && typeof m.name === 'string' && typeof m.provider === 'string')).toBe(true);
    const realtime = await app.request('GET', '/api/user/assistants/models?type=multimodal', { token: tenant.token });
    expect(realtime.body.map((m: any) => m.name)).toContain('gpt-realtime');
    const all = await app.request('GET', '/api/user/assistants/models', { token: tenant.token });
    expect(all.body).toHaveLength(llm.body.length + realtime.body.length);
    const wrong = await app.request('GET', '/api/user/assistants/models?type=dualplex', { token: tenant.token });
    expect(wrong.status).toBe(422);
  });

  it('list the numbers an assistant can take: unexpired, and for inbound not answered by an inbound assistant', async () => {
    const account = await app.account();
    const free = await app.phoneNumber(account.accountId, '+5511944401001');
    const expired = await app.phoneNumber(account.accountId, '+5511944401002', { expiresAt: '2020-01-01' });
    const answered = await app.phoneNumber(account.accountId, '+5511944401003');
    const inbound = await app.request('POST', '/api/user/assistant', {
      token: account.token,
      body: { ...base(), type: 'inbound', phone_number_id: answered, voice_id: 1 },
    });
    expect(inbound.status).toBe(201);
    const list = async (type?: string) =>
      (await app.request('GET', `/api/user/assistants/phone-numbers${type ? `?type=${type}` : ''}`, { token: account.token })).body.map((n: any) => n.id);
    expect(await list('inbound')).toEqual([free]);
    expect(await list('outbound')).toEqual([free, answered]);
    expect(await list()).toEqual([free, expired, answered]);
    const all = await app.request('GET', '/api/user/phone-numbers/all', { token: account.token });
    expect(all.body.data.map((n: any) => n.id)).toEqual([free, expired, answered]);
  });

  it('answer the account’s email as a string, "" when it has none', async () => {
    const account = await app.account();
    const me = await app.request('GET', '/api/user/me', { token: account.token });
    expect(me.body).toEqual({ name: expect.any(String), email: '', total_balance: 0, currency: 'EUR' });
  });
});

describe('ids written as strings', () => {
  /** Every integer under an id-named key (or `from`) as a string, as PHP clients send them. */
  const stringify = (value: unknown, key = ''): unknown => {
    if (typeof value === 'number' && /(^id$|_id$|_ids$|^from$)/.test(key)) return String(value);
    if (Array.isArray(value)) return value.map((item) => stringify(item, key));
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, stringify(v, k)]));
    return value;
  };

  it('are accepted by every route', async () => {
    const own = await createTenant(app);
    const refused: string[] = [];
    for (const [route, make] of Object.entries(VALID_REST_REQUESTS)) {
      const [method] = route.split(' ');
      const request = make(own);
      const query = request.query ? `?${new URLSearchParams(Object.entries(stringify(request.query) as object).map(([k, v]): [string, string] => [k, String(v)]))}` : '';
      const res = await app.request(method, `/api${request.path}${query}`, { token: own.token, body: request.body ? stringify(request.body) : undefined });
      if (res.status >= 300) refused.push(`${route}: ${res.status} ${res.text.slice(0, 200)}`);
    }
    expect(refused).toEqual([]);
  });
});
