import { randomUUID } from 'node:crypto';
import { applyCallEvent } from '../../src/modules/calls/call.lifecycle';
import { PENDING, rollUpPendingCalls } from '../../src/modules/analytics/analytics.rollup';
import { addVoice } from '../../src/modules/catalog/catalog.service';
import { issueToken } from '../../src/modules/accounts/account.service';
import type { TestAccount, TestApp } from './app';

/** Everything an account can own that an id can point at, for the attack suites. */
export interface Tenant extends TestAccount {
  lead: number;
  tool: number;
  /** A voice only this account sees. */
  voice: number;
  /** The outbound assistant's number, SMS-enabled. */
  phone: number;
  /** Numbers no assistant uses yet. */
  sparePhones: number[];
  /** A number no assistant or campaign uses, that the suites may release. */
  releasablePhone: number;
  assistant: number;
  /** An inbound assistant's E.164 number. */
  inboundNumber: string;
  call: number;
  sms: number;
  delivery: string;
  /** Two more campaigns, with the assistant, that the suites may start, stop and delete. */
  spareCampaigns: [number, number];
  /** A webhook endpoint. */
  endpoint: number;
  /** A call still in flight (no worker runs here), for hangups. */
  liveCall: number;
  /** A lead import (queued: no worker runs here). */
  leadImport: number;
  /** A knowledge base with a text document (processing: no worker runs here), and another of each that the suites may delete. */
  knowledgeBase: number;
  document: number;
  spareKnowledgeBase: number;
  spareDocument: number;
  /** A second document to delete: a route or operation with two ids deletes once a case. */
  spareDocument2: number;
  /**
   * An api conversation (POST /ai/generate-reply's, for `customerIdentifier`) that a person has
   * taken over: messages to it are kept and not answered, so no model is needed.
   */
  conversation: string;
  customerIdentifier: string;
  /** A WhatsApp sender answered by an inbound assistant, whose customer `whatsappCustomer` wrote a moment ago (its 24-hour window open). */
  whatsappSender: number;
  whatsappCustomer: string;
  /** The sender's first template (the simulator's confirmacao_pedido: approved, variables 1 and 2), as the account was shown it. */
  whatsappTemplate: number;
  /** A folder and a label that the assistant has, and two more of each that the suites may delete. */
  folder: number;
  spareFolder: number;
  lastFolder: number;
  label: number;
  spareLabel: number;
  lastLabel: number;
  /** A test of the assistant, a spare one the suites may delete, and a run of it (queued: no worker runs here). */
  assistantTest: number;
  spareAssistantTest: number;
  testRun: number;
  /** An API token besides the tenant's own, that the suites may revoke. */
  apiToken: number;
  /** A SIP trunk (its id is its number's). */
  sipTrunk: number;
}

export type Kind =
  | 'campaign'
  | 'spareCampaign'
  | 'lastCampaign'
  | 'lead'
  | 'tool'
  | 'voice'
  | 'phone'
  | 'releasablePhone'
  | 'assistant'
  | 'inboundNumber'
  | 'call'
  | 'liveCall'
  | 'sms'
  | 'delivery'
  | 'endpoint'
  | 'leadImport'
  | 'knowledgeBase'
  | 'spareKnowledgeBase'
  | 'document'
  | 'spareDocument'
  | 'spareDocument2'
  | 'conversation'
  | 'whatsappSender'
  | 'whatsappTemplate'
  | 'folder'
  | 'spareFolder'
  | 'lastFolder'
  | 'label'
  | 'spareLabel'
  | 'lastLabel'
  | 'assistantTest'
  | 'spareAssistantTest'
  | 'testRun'
  | 'apiToken'
  | 'sipTrunk';

export function idOf(tenant: Tenant, kind: Kind): number | string {
  if (kind === 'campaign') return tenant.campaignId;
  if (kind === 'spareCampaign') return tenant.spareCampaigns[0];
  if (kind === 'lastCampaign') return tenant.spareCampaigns[1];
  if (kind === 'phone') return tenant.phone;
  return tenant[kind];
}

/** Ids of nothing: the same type as a real one, in the same ranges, and never used. */
export const MISSING: Record<Kind, number | string> = {
  campaign: 900_000_001,
  spareCampaign: 900_000_011,
  lastCampaign: 900_000_012,
  lead: 900_000_002,
  tool: 900_000_003,
  voice: 900_000_004,
  phone: 900_000_005,
  assistant: 900_000_006,
  inboundNumber: '+5511944409999',
  call: 900_000_007,
  sms: 900_000_008,
  delivery: '00000000-0000-4000-8000-000000000000',
  endpoint: 900_000_009,
  liveCall: 900_000_010,
  leadImport: 900_000_013,
  knowledgeBase: 900_000_014,
  spareKnowledgeBase: 900_000_015,
  document: 900_000_016,
  spareDocument: 900_000_017,
  spareDocument2: 900_000_018,
  conversation: '00000000-0000-4000-8000-0000000000c1',
  whatsappSender: 900_000_019,
  whatsappTemplate: 900_000_020,
  folder: 900_000_021,
  spareFolder: 900_000_022,
  lastFolder: 900_000_023,
  label: 900_000_024,
  spareLabel: 900_000_025,
  lastLabel: 900_000_026,
  releasablePhone: 900_000_027,
  assistantTest: 900_000_028,
  spareAssistantTest: 900_000_029,
  testRun: 900_000_030,
  apiToken: 900_000_050,
  sipTrunk: 900_000_040,
};

/** An outbound assistant's input (REST body or GraphQL input) with a voice, a number and a tool of the tenant's. */
export const assistantInput = (o: Pick<Tenant, 'voice' | 'tool'>, phone: number) => ({
  assistant_name: 'Ana',
  voice_id: o.voice,
  language: 'Portuguese',
  llm_model: 'gpt-4o-mini',
  calls_direction: 'make',
  engine_type: 'pipeline',
  timezone: 'America/Sao_Paulo',
  initial_message: 'Olá, aqui é a Ana.',
  system_prompt: 'Você confirma pedidos de clientes.',
  phone_number_id: phone,
  tool_ids: [o.tool],
});

let numbers = 0;
/** A mobile number no fixture has used, in the given series. */
function freshNumber(series: string): string {
  numbers += 1;
  return `+55119${series}${String(numbers).padStart(6, '0')}`;
}

async function created<T>(promise: Promise<{ status: number; body: T }>, what: string): Promise<T> {
  const res = await promise;
  if (res.status >= 300) throw new Error(`fixture ${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/**
 * An account with one of everything, made through the API as a client would (no worker runs
 * in these suites: the call is ended as failed by hand). `firstId` moves every id sequence first, so
 * this tenant's ids cannot be mistaken for anyone else's in a response.
 */
export async function createTenant(app: TestApp, firstId?: number): Promise<Tenant> {
  if (firstId !== undefined) {
    await app.sql(`select setval(c.oid, $1) from pg_class c where c.relkind = 'S' and c.relnamespace = 'public'::regnamespace`, [firstId]);
  }
  const account = await app.account({ balance: '50' });
  const { token, accountId } = account;
  const post = (path: string, body: unknown) => app.request('POST', path, { token, body });

  const leadNumber = freshNumber('71');
  const lead = await created(post('/api/user/lead', { campaign_id: account.campaignId, phone_number: leadNumber }), 'lead');
  const tool = await created(
    post('/api/user/tools', {
      name: 'check_stock',
      description: 'Checks whether a product is in stock',
      endpoint: 'https://api.example.com/stock',
      method: 'POST',
      timeout: 5,
    }),
    'tool',
  );
  // A vendor's voice, so that it may also be an assistant's fallback_voice_id.
  const voice = await addVoice(app.orm.em.fork(), { name: `Private voice ${accountId}`, mode: 'pipeline', accountId, provider: { name: 'elevenlabs', voiceId: `private-${accountId}` } });
  const phone = await app.phoneNumber(accountId, freshNumber('72'), { sms: true });
  const sparePhones = [await app.phoneNumber(accountId, freshNumber('73')), await app.phoneNumber(accountId, freshNumber('73'))];
  const releasablePhone = await app.phoneNumber(accountId, freshNumber('81'));
  const sipTrunk = await created(post('/api/user/phone-numbers/sip-trunks', sipTrunkInput(freshNumber('83'))), 'sip trunk');
  const inboundPhone = freshNumber('74');
  const inboundPhoneId = await app.phoneNumber(accountId, inboundPhone);
  const assistantBody = {
    ...assistantInput({ voice: voice.id, tool: tool.data.id }, phone),
    is_webhook_active: true,
    webhook_url: 'https://hooks.example.com/vozgate',
  };
  const folder = await created(post('/api/user/folders', { name: 'Loja Centro', color: 'blue' }), 'folder');
  const spareFolder = await created(post('/api/user/folders', { name: 'Spare' }), 'folder');
  const lastFolder = await created(post('/api/user/folders', { name: 'Last' }), 'folder');
  const label = await created(post('/api/user/labels', { name: 'Prioridade', color: 'amber' }), 'label');
  const spareLabel = await created(post('/api/user/labels', { name: 'Spare' }), 'label');
  const lastLabel = await created(post('/api/user/labels', { name: 'Last' }), 'label');
  const assistant = await created(post('/api/user/assistant', { ...assistantBody, folder_id: folder.data.id, label_ids: [label.data.id] }), 'assistant');
  await created(post('/api/user/assistant', { ...assistantBody, calls_direction: 'receive', phone_number_id: inboundPhoneId }), 'inbound assistant');
  // Dialling the lead's number puts the call in the lead's campaign.
  const call = await created(post('/api/user/make_call', { assistant_id: assistant.data.id, phone_number: leadNumber }), 'call');
  // A call in flight cannot be deleted: this one ends as a failed attempt (no worker runs here).
  await app.orm.em.fork().transactional((tx) =>
    applyCallEvent(tx, app.runtime.lifecycle, call.call_id, { type: 'not-answered', status: 'failed', reason: 'test fixture' }),
  );
  const sms = await created(post('/api/user/sms', { from: phone, to: freshNumber('76'), body: 'Olá!' }), 'sms');
  const spareCampaigns: [number, number] = [
    (await created(post('/api/user/campaigns', { name: 'Spare', assistant_id: assistant.data.id }), 'campaign')).data.id,
    (await created(post('/api/user/campaigns', { name: 'Last', assistant_id: assistant.data.id }), 'campaign')).data.id,
  ];
  const liveCall = await created(post('/api/user/make_call', { assistant_id: assistant.data.id, phone_number: freshNumber('77') }), 'live call');
  const endpoint = await created(post('/api/user/webhooks', { url: 'https://hooks.example.com/events', events: ['call.finished'] }), 'webhook endpoint');
  const leadImport = await created(post('/api/user/leads/import', { campaign_id: account.campaignId, csv: `phone_number\n${freshNumber('78')}\n` }), 'lead import');
  const knowledgeBase = await created(post('/api/user/knowledgebases', { name: 'Loja' }), 'knowledge base');
  const spareKnowledgeBase = await created(post('/api/user/knowledgebases', { name: 'Spare' }), 'knowledge base');
  const documents = `/api/user/knowledgebases/${knowledgeBase.data.id}/documents`;
  const document = await created(post(documents, { name: 'Preços', type: 'text', content: 'Entrega grátis acima de R$ 100.' }), 'document');
  const spareDocument = await created(post(documents, { name: 'Spare', type: 'text', content: 'Apagar.' }), 'document');
  const spareDocument2 = await created(post(documents, { name: 'Spare 2', type: 'text', content: 'Apagar também.' }), 'document');
  const conversation = await created(post('/api/conversations', { assistant_id: assistant.data.id, type: 'api' }), 'conversation');
  const customerIdentifier = `crm-${accountId}`;
  // As POST /ai/generate-reply would have opened it for this customer.
  await app.sql('update conversations set external_identifier = $1 where uuid = $2', [customerIdentifier, conversation.data.uuid]);
  await created(post(`/api/automate/conversations/${conversation.data.uuid}/disable-ai`, undefined), 'human takeover');
  const whatsappSender = await app.phoneNumber(accountId, freshNumber('79'), { sms: true, whatsapp: true });
  const whatsappAssistant = await created(post('/api/user/assistant', { ...assistantBody, calls_direction: 'receive', phone_number_id: whatsappSender }), 'whatsapp assistant');
  const whatsappCustomer = freshNumber('80');
  // As Twilio's messaging webhook stores a customer's message: the free-form window is open.
  const [chat] = await app.sql(
    `insert into conversations (uuid, account_id, assistant_id, type, customer_phone) values (gen_random_uuid(), $1, $2, 'whatsapp', $3) returning id`,
    [accountId, whatsappAssistant.data.id, whatsappCustomer],
  );
  await app.sql(`insert into conversation_messages (conversation_id, role, content, provider_message_id, handled_at) values ($1, 'user', 'Oi', $2, now())`, [
    chat.id,
    `SM${'ab'.repeat(12)}${String(accountId).padStart(8, '0')}`,
  ]);
  const templates = await app.request('GET', `/api/user/whatsapp/senders/${whatsappSender}/templates`, { token });
  if (templates.status !== 200 || !templates.body.data?.length) throw new Error(`tenant fixture: whatsapp templates: ${templates.status} ${templates.text}`);
  const testBody = { name: 'Horário', type: 'reply', config: { messages: [{ role: 'user', content: 'Que horas abrem?' }], success_criteria: ['Diz o horário'] } };
  const assistantTest = await created(post(`/api/user/assistants/${assistant.data.id}/tests`, testBody), 'assistant test');
  const spareAssistantTest = await created(post(`/api/user/assistants/${assistant.data.id}/tests`, testBody), 'assistant test');
  const testRun = await created(post(`/api/user/assistants/${assistant.data.id}/test-runs`, { test_ids: [assistantTest.data.id] }), 'test run');
  const apiToken = (await issueToken(app.orm.em.fork(), accountId, 'Spare')).row.id;
  const delivery = randomUUID();
  await app.sql(
    `insert into webhook_deliveries (id, account_id, call_id, assistant_id, status, payload) values ($1, $2, $3, $4, 'delivered', '{}')`,
    [delivery, accountId, call.call_id, assistant.data.id],
  );
  return {
    ...account,
    lead: lead.data.id,
    tool: tool.data.id,
    voice: voice.id,
    phone,
    sparePhones,
    releasablePhone,
    apiToken,
    assistant: assistant.data.id,
    inboundNumber: inboundPhone,
    call: call.call_id,
    sms: sms.data.id,
    delivery,
    spareCampaigns,
    endpoint: endpoint.data.id,
    liveCall: liveCall.call_id,
    leadImport: leadImport.data.id,
    knowledgeBase: knowledgeBase.data.id,
    document: document.data.id,
    spareKnowledgeBase: spareKnowledgeBase.data.id,
    spareDocument: spareDocument.data.id,
    spareDocument2: spareDocument2.data.id,
    conversation: conversation.data.uuid,
    customerIdentifier,
    whatsappSender,
    whatsappCustomer,
    whatsappTemplate: templates.body.data[0].id,
    folder: folder.data.id,
    spareFolder: spareFolder.data.id,
    lastFolder: lastFolder.data.id,
    label: label.data.id,
    spareLabel: spareLabel.data.id,
    lastLabel: lastLabel.data.id,
    assistantTest: assistantTest.data.id,
    spareAssistantTest: spareAssistantTest.data.id,
    testRun: testRun.data.id,
    sipTrunk: sipTrunk.data.id,
  };
}

/** A SIP trunk's create body, as the original platform's MCP server sends it. */
export const sipTrunkInput = (phoneNumber: string) => ({
  sip_trunk_type: 'number',
  phone_number: phoneNumber,
  sip_username: 'pbx-loja',
  sip_password: 'senha-do-tronco',
  sip_address: 'sip.operadora.example',
  sip_calling_format: '+e164',
  inbound_authorization_type: 'auth',
  country_code: 'BR',
});

/** Tables that change on every request whatever it does (rate limiting), left out of snapshots. */
const VOLATILE = new Set(['rate_limit_windows', 'mikro_orm_migrations']);
/** Columns that any request may write (a token's last use, once a minute), left out of snapshots. */
const VOLATILE_COLUMNS: Record<string, string[]> = { api_tokens: ['last_used_at'] };

/**
 * Waits for what an earlier request left to do after its answer: a settled call is rolled up
 * after its settlement commits, off the request (analytics.rollup.ts, rollUpAfterCommit), so a
 * call one request hung up may be rolled up while the next request's snapshots are taken. What
 * a second of waiting leaves is rolled up here, as the periodic job would.
 */
async function rollupsSettled(app: TestApp): Promise<void> {
  for (let round = 1; ; round++) {
    const [{ n }] = await app.sql(`select count(*)::int as n from calls c where ${PENDING}`);
    if (n === 0) return;
    if (round % 50 === 0) await rollUpPendingCalls(app.orm.em.fork());
    if (round > 500) throw new Error(`${n} settled calls are never rolled up`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Every row of every table of the app's schema, in a stable order, once the work earlier requests left is done: equal snapshots, nothing written. */
export async function snapshot(app: TestApp): Promise<Record<string, unknown[]>> {
  await rollupsSettled(app);
  const tables: { name: string }[] = await app.sql(
    `select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`,
  );
  const parts = tables
    .filter((t) => !VOLATILE.has(t.name))
    .map((t) => {
      const row = (VOLATILE_COLUMNS[t.name] ?? []).reduce((json, column) => `${json} - '${column}'`, 'to_jsonb(r)');
      return `'${t.name}', (select coalesce(json_agg(${row} order by r::text), '[]') from "${t.name}" r)`;
    });
  // A function takes at most 100 arguments: the tables' objects are built 40 at a time and joined.
  const objects = [];
  for (let i = 0; i < parts.length; i += 40) objects.push(`jsonb_build_object(${parts.slice(i, i + 40).join(', ')})`);
  const [row] = await app.sql(`select ${objects.join(' || ')} as tables`);
  return row.tables;
}

export interface RestRequest {
  path: string;
  body?: Record<string, unknown>;
  query?: Record<string, unknown>;
}

/** A request every REST route accepts from this tenant (once), keyed by `METHOD path` as in the route table. */
export const VALID_REST_REQUESTS: Record<string, (own: Tenant) => RestRequest> = {
  'GET /user/assistants/languages': () => ({ path: '/user/assistants/languages' }),
  'GET /user/assistants/voices': () => ({ path: '/user/assistants/voices', query: { mode: 'pipeline' } }),
  'GET /user/assistants/get': () => ({ path: '/user/assistants/get' }),
  'GET /user/assistants': (o) => ({ path: '/user/assistants', query: { folder_id: o.folder, label_id: o.label } }),
  'GET /user/assistants/outbound': () => ({ path: '/user/assistants/outbound' }),
  'GET /user/phone-numbers': () => ({ path: '/user/phone-numbers' }),
  'GET /user/phone-numbers/all': () => ({ path: '/user/phone-numbers/all' }),
  'GET /user/assistants/phone-numbers': () => ({ path: '/user/assistants/phone-numbers', query: { type: 'inbound' } }),
  'GET /user/phone-numbers/search': () => ({ path: '/user/phone-numbers/search', query: { country_code: 'BR', contains: '4004' } }),
  // The simulator sells any valid number: each request buys a new one.
  'POST /user/phone-numbers/purchase': () => ({ path: '/user/phone-numbers/purchase', body: { phone_number: freshNumber('82') } }),
  'PUT /user/phone-numbers/{id}': (o) => ({ path: `/user/phone-numbers/${o.phone}`, body: { nickname: 'Vendas' } }),
  'GET /user/phone-numbers/sip-trunks': () => ({ path: '/user/phone-numbers/sip-trunks' }),
  'GET /user/phone-numbers/sip-trunks/{id}': (o) => ({ path: `/user/phone-numbers/sip-trunks/${o.sipTrunk}` }),
  'POST /user/phone-numbers/sip-trunks': () => ({ path: '/user/phone-numbers/sip-trunks', body: sipTrunkInput(freshNumber('84')) }),
  'PUT /user/phone-numbers/sip-trunks/{id}': (o) => ({ path: `/user/phone-numbers/sip-trunks/${o.sipTrunk}`, body: { sip_address: 'pbx.example.org' } }),
  'GET /user/assistants/models': () => ({ path: '/user/assistants/models', query: { type: 'llm' } }),
  'GET /user/assistants/synthesizer-providers': () => ({ path: '/user/assistants/synthesizer-providers' }),
  'GET /user/assistants/transcriber-providers': () => ({ path: '/user/assistants/transcriber-providers' }),
  'GET /user/campaigns': () => ({ path: '/user/campaigns' }),
  'POST /user/campaigns': (o) => ({ path: '/user/campaigns', body: { name: 'Nova campanha', assistant_id: o.assistant, phone_number_ids: [o.phone] } }),
  'GET /user/campaigns/{id}': (o) => ({ path: `/user/campaigns/${o.campaignId}` }),
  'PUT /user/campaigns/{id}': (o) => ({ path: `/user/campaigns/${o.campaignId}`, body: { assistant_id: o.assistant, phone_number_ids: [o.phone], max_retries: 2 } }),
  'POST /user/campaigns/update-status': (o) => ({ path: '/user/campaigns/update-status', body: { campaign_id: o.campaignId, action: 'stop' } }),
  'GET /user/tools': () => ({ path: '/user/tools' }),
  'POST /user/tools': () => ({
    path: '/user/tools',
    body: { name: 'book_visit', description: 'Books a visit', endpoint: 'https://api.example.com/visits', method: 'POST', timeout: 5 },
  }),
  'GET /user/me': () => ({ path: '/user/me' }),
  'POST /user/lead': (o) => ({ path: '/user/lead', body: { campaign_id: o.campaignId, phone_number: '+5511987650011' } }),
  'GET /user/leads': (o) => ({ path: '/user/leads', query: { campaign_id: o.campaignId } }),
  'GET /user/leads/{id}': (o) => ({ path: `/user/leads/${o.lead}` }),
  'PUT /user/leads/{id}': (o) => ({ path: `/user/leads/${o.lead}`, body: { campaign_id: o.campaignId } }),
  'PUT /leads/{id}': (o) => ({ path: `/leads/${o.lead}`, body: { variables: { a: 1 } } }),
  'GET /user/tools/{id}': (o) => ({ path: `/user/tools/${o.tool}` }),
  'PUT /user/tools/{id}': (o) => ({ path: `/user/tools/${o.tool}`, body: { timeout: 9 } }),
  'POST /user/assistant': (o) => ({ path: '/user/assistant', body: { ...assistantInput(o, o.sparePhones[0]), folder_id: o.folder, label_ids: [o.label] } }),
  'GET /user/assistant/{id}': (o) => ({ path: `/user/assistant/${o.assistant}` }),
  'PUT /user/assistant/{id}': (o) => ({ path: `/user/assistant/${o.assistant}`, body: assistantInput(o, o.sparePhones[1]) }),
  'POST /user/assistants/enable-inbound-webhook': (o) => ({
    path: '/user/assistants/enable-inbound-webhook',
    body: { assistant_id: o.assistant, webhook_url: 'https://hooks.example.com/b' },
  }),
  'POST /user/make_call': (o) => ({ path: '/user/make_call', body: { assistant_id: o.assistant, phone_number: '+5511987650012' } }),
  'POST /user/calls/web': (o) => ({ path: '/user/calls/web', body: { assistant_id: o.assistant } }),
  'GET /user/calls': (o) => ({ path: '/user/calls', query: { assistant_id: o.assistant, campaign_id: o.campaignId } }),
  'GET /user/calls/{id}': (o) => ({ path: `/user/calls/${o.call}` }),
  'GET /user/calls.csv': (o) => ({ path: '/user/calls.csv', query: { assistant_id: o.assistant } }),
  'GET /user/campaigns/{id}/leads.csv': (o) => ({ path: `/user/campaigns/${o.campaignId}/leads.csv` }),
  'POST /user/leads/import': (o) => ({ path: '/user/leads/import', body: { campaign_id: o.campaignId, csv: 'phone_number,customer_name\n+5511987650016,Ana\n' } }),
  'GET /user/leads/import/{id}': (o) => ({ path: `/user/leads/import/${o.leadImport}` }),
  'POST /user/sms': (o) => ({ path: '/user/sms', body: { from: o.phone, to: '+5511987650013', body: 'Oi' } }),
  'GET /user/dnc': () => ({ path: '/user/dnc' }),
  'POST /user/dnc': () => ({ path: '/user/dnc', body: { phone_number: '+5511987650014' } }),
  'GET /user/webhooks': () => ({ path: '/user/webhooks' }),
  'POST /user/webhooks': () => ({ path: '/user/webhooks', body: { url: 'https://hooks.example.com/more', events: ['lead.status_changed'] } }),
  'GET /user/knowledgebases': () => ({ path: '/user/knowledgebases' }),
  'POST /user/knowledgebases': () => ({ path: '/user/knowledgebases', body: { name: 'Nova base', description: 'Perguntas' } }),
  'GET /user/knowledgebases/{id}': (o) => ({ path: `/user/knowledgebases/${o.knowledgeBase}` }),
  'PUT /user/knowledgebases/{id}': (o) => ({ path: `/user/knowledgebases/${o.knowledgeBase}`, body: { name: 'Loja 2' } }),
  'GET /user/knowledgebases/{id}/search': (o) => ({ path: `/user/knowledgebases/${o.knowledgeBase}/search`, query: { q: 'entrega grátis', limit: 3 } }),
  'GET /user/knowledgebases/{kb}/documents': (o) => ({ path: `/user/knowledgebases/${o.knowledgeBase}/documents` }),
  'POST /user/knowledgebases/{kb}/documents': (o) => ({
    path: `/user/knowledgebases/${o.knowledgeBase}/documents`,
    body: { name: 'Horários', type: 'text', content: 'Abrimos às 9h.' },
  }),
  'GET /user/knowledgebases/{kb}/documents/{doc}': (o) => ({ path: `/user/knowledgebases/${o.knowledgeBase}/documents/${o.document}` }),
  'PUT /user/knowledgebases/{kb}/documents/{doc}': (o) => ({ path: `/user/knowledgebases/${o.knowledgeBase}/documents/${o.document}`, body: { description: 'Tabela' } }),
  'POST /user/knowledgebases/{kb}/documents/{doc}/reingest': (o) => ({ path: `/user/knowledgebases/${o.knowledgeBase}/documents/${o.document}/reingest` }),
  'GET /user/conversations': (o) => ({ path: '/user/conversations', query: { assistant_id: o.assistant, per_page: 20 } }),
  'POST /conversations': (o) => ({ path: '/conversations', body: { assistant_id: o.assistant, type: 'widget', variables: { customer_name: 'Ana' } } }),
  'GET /conversations/{uuid}': (o) => ({ path: `/conversations/${o.conversation}` }),
  'POST /conversations/{uuid}/messages': (o) => ({ path: `/conversations/${o.conversation}/messages`, body: { message: 'Olá, aqui é a loja.', sender: 'human' } }),
  'POST /automate/conversations/{uuid}/disable-ai': (o) => ({ path: `/automate/conversations/${o.conversation}/disable-ai` }),
  'POST /ai/generate-reply': (o) => ({ path: '/ai/generate-reply', body: { assistant_id: o.assistant, customer_identifier: o.customerIdentifier, message: 'Oi' } }),
  'POST /user/ai/generate-reply': (o) => ({ path: '/user/ai/generate-reply', body: { assistant_id: o.assistant, customer_identifier: o.customerIdentifier, message: 'Oi de novo' } }),
  // Last of the conversations': the AI on, their messages would need a model.
  'POST /automate/conversations/{uuid}/enable-ai': (o) => ({ path: `/automate/conversations/${o.conversation}/enable-ai` }),
  'POST /conversations/{uuid}/close': (o) => ({ path: `/conversations/${o.conversation}/close` }),
  'POST /user/assistants/enable-conversation-ended-webhook': (o) => ({
    path: '/user/assistants/enable-conversation-ended-webhook',
    body: { assistant_id: o.assistant, webhook_url: 'https://hooks.example.com/chat' },
  }),
  'POST /user/assistants/disable-conversation-ended-webhook': (o) => ({ path: '/user/assistants/disable-conversation-ended-webhook', body: { assistant_id: o.assistant } }),
  'POST /user/assistants/{id}/tests': (o) => ({
    path: `/user/assistants/${o.assistant}/tests`,
    body: { name: 'Encerra', type: 'tool_call', config: { messages: [{ role: 'user', content: 'Tchau' }], expect: { tool: 'end_call' } } },
  }),
  'GET /user/assistants/{id}/tests': (o) => ({ path: `/user/assistants/${o.assistant}/tests` }),
  'GET /user/assistant-tests/{test_id}': (o) => ({ path: `/user/assistant-tests/${o.assistantTest}` }),
  'PUT /user/assistant-tests/{test_id}': (o) => ({ path: `/user/assistant-tests/${o.assistantTest}`, body: { name: 'Horário de sábado' } }),
  'POST /user/assistants/{id}/test-runs': (o) => ({ path: `/user/assistants/${o.assistant}/test-runs`, body: { test_ids: [o.assistantTest], attempts: 2 } }),
  'GET /user/test-runs/{id}': (o) => ({ path: `/user/test-runs/${o.testRun}` }),
  'GET /user/assistants/{id}/test-runs': (o) => ({ path: `/user/assistants/${o.assistant}/test-runs` }),
  'GET /user/whatsapp/senders': () => ({ path: '/user/whatsapp/senders', query: { status: 'all' } }),
  'GET /user/whatsapp/senders/{sender_id}/templates': (o) => ({ path: `/user/whatsapp/senders/${o.whatsappSender}/templates`, query: { status: 'all' } }),
  'GET /user/whatsapp/session-status': (o) => ({ path: '/user/whatsapp/session-status', query: { sender_id: o.whatsappSender, recipient_phone: o.whatsappCustomer } }),
  'POST /user/whatsapp/send': (o) => ({
    path: '/user/whatsapp/send',
    body: { sender_id: o.whatsappSender, template_id: o.whatsappTemplate, recipient_phone: o.whatsappCustomer, variables: { '1': 'Ana', '2': '4521' } },
  }),
  'POST /user/whatsapp/send-freeform': (o) => ({ path: '/user/whatsapp/send-freeform', body: { sender_id: o.whatsappSender, recipient_phone: o.whatsappCustomer, message: 'Olá!' } }),
  'GET /user/folders': () => ({ path: '/user/folders', query: { page: 1, per_page: 20 } }),
  'POST /user/folders': () => ({ path: '/user/folders', body: { name: 'Loja Sul', color: 'green' } }),
  'PUT /user/folders/{id}': (o) => ({ path: `/user/folders/${o.folder}`, body: { name: 'Loja Centro 2', color: null } }),
  'PUT /user/folder/{id}': (o) => ({ path: `/user/folder/${o.folder}`, body: { color: 'teal' } }),
  'GET /user/labels': () => ({ path: '/user/labels', query: { page: 1, per_page: 20 } }),
  'POST /user/labels': () => ({ path: '/user/labels', body: { name: 'Inbound', color: 'slate' } }),
  'PUT /user/labels/{id}': (o) => ({ path: `/user/labels/${o.label}`, body: { name: 'Prioridade 2' } }),
  'PUT /user/label/{id}': (o) => ({ path: `/user/label/${o.label}`, body: { color: 'red' } }),
  'POST /user/assistants/disable-webhook': (o) => ({ path: '/user/assistants/disable-webhook', body: { assistant_id: o.assistant } }),
  'POST /user/assistants/disable-inbound-webhook': (o) => ({ path: '/user/assistants/disable-inbound-webhook', body: { assistant_id: o.assistant } }),
  'POST /user/calls/{id}/hangup': (o) => ({ path: `/user/calls/${o.liveCall}/hangup` }),
  'DELETE /user/calls/{id}': (o) => ({ path: `/user/calls/${o.call}` }),
  'DELETE /user/dnc/{phone_number}': () => ({ path: `/user/dnc/${encodeURIComponent('+5511987650014')}` }),
  'DELETE /user/leads/{id}': (o) => ({ path: `/user/leads/${o.lead}` }),
  'DELETE /user/assistant-tests/{test_id}': (o) => ({ path: `/user/assistant-tests/${o.spareAssistantTest}` }),
  'DELETE /user/assistant/{id}': (o) => ({ path: `/user/assistant/${o.assistant}` }),
  'DELETE /user/tools/{id}': (o) => ({ path: `/user/tools/${o.tool}` }),
  'DELETE /user/campaigns/{id}': (o) => ({ path: `/user/campaigns/${o.spareCampaigns[0]}` }),
  'DELETE /user/campaign/{id}': (o) => ({ path: `/user/campaign/${o.spareCampaigns[1]}` }),
  'DELETE /user/webhooks/{id}': (o) => ({ path: `/user/webhooks/${o.endpoint}` }),
  'DELETE /user/knowledgebases/{kb}/documents/{doc}': (o) => ({ path: `/user/knowledgebases/${o.knowledgeBase}/documents/${o.spareDocument}` }),
  'DELETE /user/knowledgebases/{id}': (o) => ({ path: `/user/knowledgebases/${o.spareKnowledgeBase}` }),
  'DELETE /user/folders/{id}': (o) => ({ path: `/user/folders/${o.spareFolder}` }),
  'DELETE /user/folder/{id}': (o) => ({ path: `/user/folder/${o.lastFolder}` }),
  'DELETE /user/labels/{id}': (o) => ({ path: `/user/labels/${o.spareLabel}` }),
  'DELETE /user/label/{id}': (o) => ({ path: `/user/label/${o.lastLabel}` }),
  'DELETE /user/phone-numbers/{id}': (o) => ({ path: `/user/phone-numbers/${o.releasablePhone}` }),
};
