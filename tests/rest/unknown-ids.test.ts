import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';

/**
 * One rule for an id in a request body that names nothing of the account (the README's design
 * notes, "An unknown id in a body"): the resource the request acts on or inside answers 404 with
 * that resource's message (the spec names three of them: a lead's campaign, an SMS's sender, a
 * webhook switch's assistant); a reference the request stores as a setting of what it creates
 * or updates answers 422 on that field. Another account's id answers exactly as a missing one.
 */
let app: TestApp;
let me: TestAccount;
let other: TestAccount;
let ids: { lead: number; assistant: number; foreignAssistant: number; foreignCampaign: number; foreignPhone: number };

beforeAll(async () => {
  app = await startTestApp();
  me = await app.account({ balance: '10' });
  other = await app.account({ balance: '10' });
  const lead = await app.request('POST', '/api/user/lead', { token: me.token, body: { phone_number: '+5511987650001', campaign_id: me.campaignId } });
  ids = {
    lead: lead.body.data.id,
    assistant: await app.outboundAssistant(me),
    foreignAssistant: await app.outboundAssistant(other),
    foreignCampaign: other.campaignId,
    foreignPhone: await app.phoneNumber(other.accountId, '+5511955999001', { sms: true }),
  };
});
afterAll(() => app?.close());

const ASSISTANT = {
  assistant_name: 'A', voice_id: 1, language: 'Portuguese', llm_model: 'm', calls_direction: 'make', engine_type: 'pipeline',
  timezone: 'America/Sao_Paulo', initial_message: 'Oi', system_prompt: 'x',
};

type Case = [route: string, method: string, path: () => string, body: (id: number) => Record<string, unknown>, foreign: () => number, expected: string];

const SUBJECTS: Case[] = [
  ['create lead: its campaign', 'POST', () => '/api/user/lead', (id) => ({ phone_number: '+5511987650002', campaign_id: id }), () => ids.foreignCampaign, 'Campanha não encontrada'],
  ['update lead: its campaign', 'PUT', () => `/api/user/leads/${ids.lead}`, (id) => ({ campaign_id: id }), () => ids.foreignCampaign, 'Campanha não encontrada'],
  ['make_call: its assistant', 'POST', () => '/api/user/make_call', (id) => ({ phone_number: '+5511987650003', assistant_id: id }), () => ids.foreignAssistant, 'Assistente não encontrado'],
  ['campaign update-status: its campaign', 'POST', () => '/api/user/campaigns/update-status', (id) => ({ campaign_id: id, action: 'start' }), () => ids.foreignCampaign, 'Campanha não encontrada'],
  ['send SMS: its sender', 'POST', () => '/api/user/sms', (id) => ({ from: id, to: '+5511987650004', body: 'oi' }), () => ids.foreignPhone, 'Número de origem não encontrado'],
  ['enable webhook: its assistant', 'POST', () => '/api/user/assistants/enable-inbound-webhook', (id) => ({ assistant_id: id, webhook_url: 'https://example.com/x' }), () => ids.foreignAssistant, 'Assistente não encontrado'],
  ['disable webhook: its assistant', 'POST', () => '/api/user/assistants/disable-webhook', (id) => ({ assistant_id: id }), () => ids.foreignAssistant, 'Assistente não encontrado'],
];

const SETTINGS: Case[] = [
  ['create campaign: assistant_id', 'POST', () => '/api/user/campaigns', (id) => ({ name: 'x', assistant_id: id }), () => ids.foreignAssistant, 'assistant_id'],
  ['update campaign: assistant_id', 'PUT', () => `/api/user/campaigns/${me.campaignId}`, (id) => ({ assistant_id: id }), () => ids.foreignAssistant, 'assistant_id'],
  ['create campaign: phone_number_ids', 'POST', () => '/api/user/campaigns', (id) => ({ name: 'x', phone_number_ids: [id] }), () => ids.foreignPhone, 'phone_number_ids.0'],
  ['create assistant: voice_id', 'POST', () => '/api/user/assistant', (id) => ({ ...ASSISTANT, voice_id: id }), () => 999_998, 'voice_id'],
  ['create assistant: phone_number_id', 'POST', () => '/api/user/assistant', (id) => ({ ...ASSISTANT, phone_number_id: id }), () => ids.foreignPhone, 'phone_number_id'],
  ['update assistant: voice_id', 'PUT', () => `/api/user/assistant/${ids.assistant}`, (id) => ({ voice_id: id }), () => 999_998, 'voice_id'],
];

it.each(SUBJECTS)('%s: 404 with its message, for a missing id and for another account’s', async (_name, method, path, body, foreign, message) => {
  for (const id of [999_999, foreign()]) {
    const res = await app.request(method, path(), { token: me.token, body: body(id) });
    expect([res.status, res.body]).toEqual([404, { message, code: 'NOT_FOUND' }]);
  }
});

it.each(SETTINGS)('%s: 422 on the field, for a missing id and for another account’s', async (_name, method, path, body, foreign, field) => {
  for (const id of [999_999, foreign()]) {
    const res = await app.request(method, path(), { token: me.token, body: body(id) });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: { [field]: [`O ${field} selecionado é inválido.`] } });
  }
});
