import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildSchema, getNamedType, isInputObjectType, type GraphQLInputField, type GraphQLArgument } from 'graphql';
import { routes } from '../../src/rest/routes';
import { startTestApp, UNREACHABLE_VOICE, type HttpResult, type TestApp } from '../helpers/app';
import { MISSING, VALID_REST_REQUESTS, assistantInput, createTenant, idOf, snapshot, type Kind, type RestRequest, type Tenant } from '../helpers/tenant';

/**
 * Another account's ids behave exactly like ids of nothing, on every GraphQL operation and
 * every REST route. The id-bearing arguments come from the checked-in schema and the path
 * parameters from the route table, so an operation or route added without a case here
 * fails the suite. Each case runs three times: with the attacker's own id (it must work,
 * which proves the id is what the other two runs change), with the victim's id and with a
 * missing id; the last two must answer the same status and body, and write nothing.
 */
let app: TestApp;
/** One attacker per API: each suite ends by deleting its attacker's fixtures. */
let attacker: Tenant;
let graphqlAttacker: Tenant;
let restAttacker: Tenant;
let victim: Tenant;

beforeAll(async () => {
  // Vendors' keys (never reached: no browser connects), so that a web call's start is not
  // refused for lacking them (voice_ready) but only for the id it is given.
  app = await startTestApp({ voice: UNREACHABLE_VOICE });
  graphqlAttacker = await createTenant(app);
  restAttacker = await createTenant(app);
  // The victim's ids start far from anything else, so they cannot be confused in a response.
  victim = await createTenant(app, 7_000_000);
});
afterAll(() => app?.close());

type Variables = Record<string, unknown>;

interface Slot {
  /** Where the id goes: a dotted path into the variables (GraphQL) or into the request (REST). */
  at: string;
  kind: Kind;
  /** The id is one element of a list. */
  list?: boolean;
  /** Ids the case's own requests take instead of the tenant's (a deleting request's second id deletes another row). */
  view?: (own: Tenant) => Partial<Tenant>;
}

/** The tenant as a case's own requests see it. */
const viewed = (tenant: Tenant, slot: Slot): Tenant => (slot.view ? { ...tenant, ...slot.view(tenant) } : tenant);

/** A second delete of a document takes the second spare. */
const SECOND_SPARE = (o: Tenant) => ({ spareDocument: o.spareDocument2 });

function withId<T extends object>(base: T, slot: Slot, id: unknown): T {
  const copy = structuredClone(base);
  const keys = slot.at.split('.');
  let target = copy as Record<string, unknown>;
  for (const key of keys.slice(0, -1)) target = (target[key] ??= {}) as Record<string, unknown>;
  target[keys.at(-1)!] = slot.list ? [id] : id;
  return copy;
}

/** The answer with the id written as a placeholder, so a foreign and a missing id compare. */
function normalised(res: HttpResult, ids: unknown[]): unknown {
  let text = res.text;
  for (const id of ids) text = text.split(String(id)).join('<id>');
  const headers = Object.fromEntries([...res.headers].filter(([name]) => !['date', 'x-request-id', 'content-length', 'etag'].includes(name)));
  let headerText = JSON.stringify(headers);
  for (const id of ids) headerText = headerText.split(String(id)).join('<id>');
  return { status: res.status, body: text, headers: headerText };
}

async function expectForeignLikeMissing(send: (id: unknown) => Promise<HttpResult>, kind: Kind): Promise<HttpResult> {
  const foreignId = idOf(victim, kind);
  const before = await snapshot(app);
  const foreign = await send(foreignId);
  const missing = await send(MISSING[kind]);
  expect(normalised(foreign, [foreignId, MISSING[kind]])).toEqual(normalised(missing, [foreignId, MISSING[kind]]));
  expect(foreign.status).toBeLessThan(500);
  expect(await snapshot(app)).toEqual(before);
  return foreign;
}

// ---------------------------------------------------------------------------------------
// GraphQL: every operation with an id-bearing argument.

interface Operation {
  document: string;
  variables: (own: Tenant) => Variables;
  slots: Slot[];
}

const CALL_SELECTION = 'id status';
const OPERATIONS: Record<string, Operation> = {
  assistant: { document: 'query($id: Int!) { assistant(id: $id) { id name } }', variables: (o) => ({ id: o.assistant }), slots: [{ at: 'id', kind: 'assistant' }] },
  call: { document: `query($id: Int!) { call(id: $id) { ${CALL_SELECTION} } }`, variables: (o) => ({ id: o.call }), slots: [{ at: 'id', kind: 'call' }] },
  lead: { document: 'query($id: Int!) { lead(id: $id) { id } }', variables: (o) => ({ id: o.lead }), slots: [{ at: 'id', kind: 'lead' }] },
  sms: { document: 'query($id: Int!) { sms(id: $id) { id } }', variables: (o) => ({ id: o.sms }), slots: [{ at: 'id', kind: 'sms' }] },
  sipTrunk: { document: 'query($id: Int!) { sipTrunk(id: $id) { id } }', variables: (o) => ({ id: o.sipTrunk }), slots: [{ at: 'id', kind: 'sipTrunk' }] },
  updateSipTrunk: {
    document: 'mutation($id: Int!) { updateSipTrunk(id: $id, input: { sip_calling_format: "national" }) { id sip_calling_format } }',
    variables: (o) => ({ id: o.sipTrunk }),
    slots: [{ at: 'id', kind: 'sipTrunk' }],
  },
  updatePhoneNumber: {
    document: 'mutation($id: Int!) { updatePhoneNumber(id: $id, input: { nickname: "Vendas" }) { id nickname } }',
    variables: (o) => ({ id: o.phone }),
    slots: [{ at: 'id', kind: 'phone' }],
  },
  tool: { document: 'query($id: Int!) { tool(id: $id) { id } }', variables: (o) => ({ id: o.tool }), slots: [{ at: 'id', kind: 'tool' }] },
  calls: {
    document: 'query($assistant_id: Int, $campaign_id: Int) { calls(assistant_id: $assistant_id, campaign_id: $campaign_id) { total data { id } } }',
    variables: (o) => ({ assistant_id: o.assistant, campaign_id: o.campaignId }),
    slots: [
      { at: 'assistant_id', kind: 'assistant' },
      { at: 'campaign_id', kind: 'campaign' },
    ],
  },
  analytics: {
    document: `query($from: DateTime!, $to: DateTime!, $assistant_id: Int, $campaign_id: Int) {
      analytics(from: $from, to: $to, assistant_id: $assistant_id, campaign_id: $campaign_id) { totals { calls } } }`,
    variables: (o) => ({ from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z', assistant_id: o.assistant, campaign_id: o.campaignId }),
    slots: [
      { at: 'assistant_id', kind: 'assistant' },
      { at: 'campaign_id', kind: 'campaign' },
    ],
  },
  callFeed: {
    document: 'query($assistant_id: Int, $campaign_id: Int) { callFeed(assistant_id: $assistant_id, campaign_id: $campaign_id) { data { id } next_after } }',
    variables: (o) => ({ assistant_id: o.assistant, campaign_id: o.campaignId }),
    slots: [
      { at: 'assistant_id', kind: 'assistant' },
      { at: 'campaign_id', kind: 'campaign' },
    ],
  },
  leads: {
    document: 'query($campaign_id: Int) { leads(campaign_id: $campaign_id) { total data { id } } }',
    variables: (o) => ({ campaign_id: o.campaignId }),
    slots: [{ at: 'campaign_id', kind: 'campaign' }],
  },
  smsMessages: {
    document: 'query($phone_number_id: Int) { smsMessages(phone_number_id: $phone_number_id) { total data { id } } }',
    variables: (o) => ({ phone_number_id: o.phone }),
    slots: [{ at: 'phone_number_id', kind: 'phone' }],
  },
  createLead: {
    document: 'mutation($input: CreateLeadInput!) { createLead(input: $input) { id } }',
    variables: (o) => ({ input: { campaign_id: o.campaignId, phone_number: '+5511987650001' } }),
    slots: [{ at: 'input.campaign_id', kind: 'campaign' }],
  },
  updateLead: {
    document: 'mutation($id: Int!, $input: UpdateLeadInput!) { updateLead(id: $id, input: $input) { id } }',
    variables: (o) => ({ id: o.lead, input: { campaign_id: o.campaignId, variables: { note: 'changed' } } }),
    slots: [
      { at: 'id', kind: 'lead' },
      { at: 'input.campaign_id', kind: 'campaign' },
    ],
  },
  updateTool: {
    document: 'mutation($id: Int!, $input: UpdateToolInput!) { updateTool(id: $id, input: $input) { id } }',
    variables: (o) => ({ id: o.tool, input: { timeout: 7 } }),
    slots: [{ at: 'id', kind: 'tool' }],
  },
  createAssistant: {
    document: 'mutation($input: CreateAssistantInput!) { createAssistant(input: $input) { id } }',
    variables: (o) => ({ input: assistantInput(o, o.sparePhones[0]) }),
    slots: [
      { at: 'input.voice_id', kind: 'voice' },
      { at: 'input.fallback_voice_id', kind: 'voice' },
      { at: 'input.phone_number_id', kind: 'phone' },
      { at: 'input.tool_ids', kind: 'tool', list: true },
      { at: 'input.knowledgebase_id', kind: 'knowledgeBase' },
      { at: 'input.folder_id', kind: 'folder' },
      { at: 'input.label_ids', kind: 'label', list: true },
    ],
  },
  updateAssistant: {
    document: 'mutation($id: Int!, $input: UpdateAssistantInput!) { updateAssistant(id: $id, input: $input) { id } }',
    variables: (o) => ({ id: o.assistant, input: { voice_id: o.voice, phone_number_id: o.sparePhones[1], tool_ids: [o.tool] } }),
    slots: [
      { at: 'id', kind: 'assistant' },
      { at: 'input.voice_id', kind: 'voice' },
      { at: 'input.fallback_voice_id', kind: 'voice' },
      { at: 'input.phone_number_id', kind: 'phone' },
      { at: 'input.tool_ids', kind: 'tool', list: true },
      { at: 'input.knowledgebase_id', kind: 'knowledgeBase' },
      { at: 'input.folder_id', kind: 'folder' },
      { at: 'input.label_ids', kind: 'label', list: true },
    ],
  },
  assistants: {
    document: 'query($folder_id: Int, $label_id: Int) { assistants(folder_id: $folder_id, label_id: $label_id) { id } }',
    variables: (o) => ({ folder_id: o.folder, label_id: o.label }),
    slots: [
      { at: 'folder_id', kind: 'folder' },
      { at: 'label_id', kind: 'label' },
    ],
  },
  updateFolder: {
    document: 'mutation($id: Int!) { updateFolder(id: $id, input: { color: "pink" }) { id color } }',
    variables: (o) => ({ id: o.folder }),
    slots: [{ at: 'id', kind: 'folder' }],
  },
  updateLabel: {
    document: 'mutation($id: Int!) { updateLabel(id: $id, input: { color: "pink" }) { id color } }',
    variables: (o) => ({ id: o.label }),
    slots: [{ at: 'id', kind: 'label' }],
  },
  deleteFolder: { document: 'mutation($id: Int!) { deleteFolder(id: $id) }', variables: (o) => ({ id: o.spareFolder }), slots: [{ at: 'id', kind: 'spareFolder' }] },
  deleteLabel: { document: 'mutation($id: Int!) { deleteLabel(id: $id) }', variables: (o) => ({ id: o.spareLabel }), slots: [{ at: 'id', kind: 'spareLabel' }] },
  enableInboundWebhook: {
    document: 'mutation($assistant_id: Int!, $webhook_url: String!) { enableInboundWebhook(assistant_id: $assistant_id, webhook_url: $webhook_url) { id } }',
    variables: (o) => ({ assistant_id: o.assistant, webhook_url: 'https://hooks.example.com/other' }),
    slots: [{ at: 'assistant_id', kind: 'assistant' }],
  },
  redeliverWebhook: {
    document: 'mutation($delivery_id: String!) { redeliverWebhook(delivery_id: $delivery_id) }',
    variables: (o) => ({ delivery_id: o.delivery }),
    slots: [{ at: 'delivery_id', kind: 'delivery' }],
  },
  makeCall: {
    document: 'mutation($input: MakeCallInput!) { makeCall(input: $input) { call_id } }',
    variables: (o) => ({ input: { assistant_id: o.assistant, phone_number: '+5511987650002' } }),
    slots: [{ at: 'input.assistant_id', kind: 'assistant' }],
  },
  importLeads: {
    document: 'mutation($input: ImportLeadsInput!) { importLeads(input: $input) { id } }',
    variables: (o) => ({ input: { campaign_id: o.campaignId, csv: 'phone_number\n+5511987650031\n' } }),
    slots: [{ at: 'input.campaign_id', kind: 'campaign' }],
  },
  leadImport: { document: 'query($id: Int!) { leadImport(id: $id) { id status } }', variables: (o) => ({ id: o.leadImport }), slots: [{ at: 'id', kind: 'leadImport' }] },
  campaignLeadsExport: {
    document: 'query($campaign_id: Int!) { campaignLeadsExport(campaign_id: $campaign_id) { next_after } }',
    variables: (o) => ({ campaign_id: o.campaignId }),
    slots: [{ at: 'campaign_id', kind: 'campaign' }],
  },
  campaignLeadsExportColumns: {
    document: 'query($campaign_id: Int!) { campaignLeadsExportColumns(campaign_id: $campaign_id) { variables } }',
    variables: (o) => ({ campaign_id: o.campaignId }),
    slots: [{ at: 'campaign_id', kind: 'campaign' }],
  },
  startWebCall: {
    document: 'mutation($input: WebCallInput!) { startWebCall(input: $input) { call_id } }',
    variables: (o) => ({ input: { assistant_id: o.assistant } }),
    slots: [{ at: 'input.assistant_id', kind: 'assistant' }],
  },
  sendSms: {
    document: 'mutation($input: SendSmsInput!) { sendSms(input: $input) { id } }',
    variables: (o) => ({ input: { from: o.phone, to: '+5511987650003', body: 'Olá de novo' } }),
    slots: [{ at: 'input.from', kind: 'phone' }],
  },
  simulateInboundCall: {
    document: 'mutation($to: String!, $from: String!) { simulateInboundCall(to: $to, from: $from) { id } }',
    variables: (o) => ({ to: o.inboundNumber, from: '+5511987650004' }),
    slots: [{ at: 'to', kind: 'inboundNumber' }],
  },
  conversations: {
    document: 'query($assistant_id: Int) { conversations(assistant_id: $assistant_id) { data { uuid } next_cursor } }',
    variables: (o) => ({ assistant_id: o.assistant }),
    slots: [{ at: 'assistant_id', kind: 'assistant' }],
  },
  conversation: { document: 'query($uuid: String!) { conversation(uuid: $uuid) { uuid messages { role } } }', variables: (o) => ({ uuid: o.conversation }), slots: [{ at: 'uuid', kind: 'conversation' }] },
  createConversation: {
    document: 'mutation($input: CreateConversationInput!) { createConversation(input: $input) { uuid } }',
    variables: (o) => ({ input: { assistant_id: o.assistant, type: 'widget' } }),
    slots: [{ at: 'input.assistant_id', kind: 'assistant' }],
  },
  sendConversationMessage: {
    document: 'mutation($uuid: String!) { sendConversationMessage(uuid: $uuid, input: { message: "Olá", sender: "human" }) { uuid message { role } } }',
    variables: (o) => ({ uuid: o.conversation }),
    slots: [{ at: 'uuid', kind: 'conversation' }],
  },
  disableConversationAi: {
    document: 'mutation($uuid: String!) { disableConversationAi(uuid: $uuid) { uuid ai_enabled } }',
    variables: (o) => ({ uuid: o.conversation }),
    slots: [{ at: 'uuid', kind: 'conversation' }],
  },
  generateAiReply: {
    document: 'mutation($input: GenerateAiReplyInput!) { generateAiReply(input: $input) { uuid reply { content } } }',
    variables: (o) => ({ input: { assistant_id: o.assistant, customer_identifier: o.customerIdentifier, message: 'Oi' } }),
    slots: [{ at: 'input.assistant_id', kind: 'assistant' }],
  },
  // After the conversation's other cases: the AI on, its messages would need a model.
  enableConversationAi: {
    document: 'mutation($uuid: String!) { enableConversationAi(uuid: $uuid) { uuid ai_enabled } }',
    variables: (o) => ({ uuid: o.conversation }),
    slots: [{ at: 'uuid', kind: 'conversation' }],
  },
  // Last of the conversation's: its own-id run closes the attacker's conversation.
  closeConversation: {
    document: 'mutation($uuid: String!) { closeConversation(uuid: $uuid) { uuid closed_at } }',
    variables: (o) => ({ uuid: o.conversation }),
    slots: [{ at: 'uuid', kind: 'conversation' }],
  },
  enableConversationEndedWebhook: {
    document: 'mutation($assistant_id: Int!, $webhook_url: String!) { enableConversationEndedWebhook(assistant_id: $assistant_id, webhook_url: $webhook_url) { id } }',
    variables: (o) => ({ assistant_id: o.assistant, webhook_url: 'https://hooks.example.com/chat' }),
    slots: [{ at: 'assistant_id', kind: 'assistant' }],
  },
  disableConversationEndedWebhook: {
    document: 'mutation($assistant_id: Int!) { disableConversationEndedWebhook(assistant_id: $assistant_id) { id } }',
    variables: (o) => ({ assistant_id: o.assistant }),
    slots: [{ at: 'assistant_id', kind: 'assistant' }],
  },
  whatsappTemplates: {
    document: 'query($sender_id: Int!) { whatsappTemplates(sender_id: $sender_id, status: "all") { id } }',
    variables: (o) => ({ sender_id: o.whatsappSender }),
    slots: [{ at: 'sender_id', kind: 'whatsappSender' }],
  },
  whatsappSessionStatus: {
    document: 'query($sender_id: Int!, $recipient_phone: String!) { whatsappSessionStatus(sender_id: $sender_id, recipient_phone: $recipient_phone) { session_open } }',
    variables: (o) => ({ sender_id: o.whatsappSender, recipient_phone: o.whatsappCustomer }),
    slots: [{ at: 'sender_id', kind: 'whatsappSender' }],
  },
  sendWhatsappTemplate: {
    document: 'mutation($input: SendWhatsappTemplateInput!) { sendWhatsappTemplate(input: $input) { id } }',
    variables: (o) => ({ input: { sender_id: o.whatsappSender, template_id: o.whatsappTemplate, recipient_phone: o.whatsappCustomer, variables: { '1': 'Ana', '2': '4521' } } }),
    slots: [
      { at: 'input.sender_id', kind: 'whatsappSender' },
      { at: 'input.template_id', kind: 'whatsappTemplate' },
    ],
  },
  sendWhatsappFreeform: {
    document: 'mutation($input: SendWhatsappFreeformInput!) { sendWhatsappFreeform(input: $input) { id } }',
    variables: (o) => ({ input: { sender_id: o.whatsappSender, recipient_phone: o.whatsappCustomer, message: 'Olá!' } }),
    slots: [{ at: 'input.sender_id', kind: 'whatsappSender' }],
  },
  // The destructive ones last: their own-id run removes the attacker's fixture.
  disableWebhook: {
    document: 'mutation($assistant_id: Int!) { disableWebhook(assistant_id: $assistant_id) { id } }',
    variables: (o) => ({ assistant_id: o.assistant }),
    slots: [{ at: 'assistant_id', kind: 'assistant' }],
  },
  campaign: { document: 'query($id: Int!) { campaign(id: $id) { id stats { attempts } } }', variables: (o) => ({ id: o.campaignId }), slots: [{ at: 'id', kind: 'campaign' }] },
  createCampaign: {
    document: 'mutation($input: CreateCampaignInput!) { createCampaign(input: $input) { id } }',
    variables: (o) => ({ input: { name: 'Outra', assistant_id: o.assistant, phone_number_ids: [o.phone] } }),
    slots: [
      { at: 'input.assistant_id', kind: 'assistant' },
      { at: 'input.phone_number_ids', kind: 'phone', list: true },
    ],
  },
  updateCampaign: {
    document: 'mutation($id: Int!, $input: UpdateCampaignInput!) { updateCampaign(id: $id, input: $input) { id } }',
    variables: (o) => ({ id: o.campaignId, input: { assistant_id: o.assistant, phone_number_ids: [o.phone] } }),
    slots: [
      { at: 'id', kind: 'campaign' },
      { at: 'input.assistant_id', kind: 'assistant' },
      { at: 'input.phone_number_ids', kind: 'phone', list: true },
    ],
  },
  startCampaign: { document: 'mutation($id: Int!) { startCampaign(id: $id) { status } }', variables: (o) => ({ id: o.spareCampaigns[0] }), slots: [{ at: 'id', kind: 'spareCampaign' }] },
  stopCampaign: { document: 'mutation($id: Int!) { stopCampaign(id: $id) { status } }', variables: (o) => ({ id: o.spareCampaigns[0] }), slots: [{ at: 'id', kind: 'spareCampaign' }] },
  updateCampaignStatus: {
    document: 'mutation($campaign_id: Int!) { updateCampaignStatus(campaign_id: $campaign_id, action: "stop") { status } }',
    variables: (o) => ({ campaign_id: o.campaignId }),
    slots: [{ at: 'campaign_id', kind: 'campaign' }],
  },
  assistantTests: {
    document: 'query($assistant_id: Int!) { assistantTests(assistant_id: $assistant_id) { id } }',
    variables: (o) => ({ assistant_id: o.assistant }),
    slots: [{ at: 'assistant_id', kind: 'assistant' }],
  },
  assistantTest: { document: 'query($id: Int!) { assistantTest(id: $id) { id name } }', variables: (o) => ({ id: o.assistantTest }), slots: [{ at: 'id', kind: 'assistantTest' }] },
  createAssistantTest: {
    document: 'mutation($assistant_id: Int!) { createAssistantTest(assistant_id: $assistant_id, input: { name: "Nulo", type: "tool_call", config: { messages: [{ role: "user", content: "Oi" }], expect: { tool: null } } }) { id } }',
    variables: (o) => ({ assistant_id: o.assistant }),
    slots: [{ at: 'assistant_id', kind: 'assistant' }],
  },
  updateAssistantTest: {
    document: 'mutation($id: Int!) { updateAssistantTest(id: $id, input: { name: "Horário 2" }) { id name } }',
    variables: (o) => ({ id: o.assistantTest }),
    slots: [{ at: 'id', kind: 'assistantTest' }],
  },
  startTestRun: {
    document: 'mutation($assistant_id: Int!, $input: StartTestRunInput) { startTestRun(assistant_id: $assistant_id, input: $input) { id status } }',
    variables: (o) => ({ assistant_id: o.assistant, input: { test_ids: [o.assistantTest] } }),
    slots: [
      { at: 'assistant_id', kind: 'assistant' },
      { at: 'input.test_ids', kind: 'assistantTest', list: true },
    ],
  },
  testRun: { document: 'query($id: Int!) { testRun(id: $id) { id status } }', variables: (o) => ({ id: o.testRun }), slots: [{ at: 'id', kind: 'testRun' }] },
  testRuns: {
    document: 'query($assistant_id: Int!) { testRuns(assistant_id: $assistant_id) { data { id } total } }',
    variables: (o) => ({ assistant_id: o.assistant }),
    slots: [{ at: 'assistant_id', kind: 'assistant' }],
  },
  deleteAssistantTest: { document: 'mutation($id: Int!) { deleteAssistantTest(id: $id) }', variables: (o) => ({ id: o.spareAssistantTest }), slots: [{ at: 'id', kind: 'spareAssistantTest' }] },
  deleteCall: { document: 'mutation($id: Int!) { deleteCall(id: $id) }', variables: (o) => ({ id: o.call }), slots: [{ at: 'id', kind: 'call' }] },
  hangupCall: { document: 'mutation($id: Int!) { hangupCall(id: $id) { id status } }', variables: (o) => ({ id: o.liveCall }), slots: [{ at: 'id', kind: 'liveCall' }] },
  deleteLead: { document: 'mutation($id: Int!) { deleteLead(id: $id) }', variables: (o) => ({ id: o.lead }), slots: [{ at: 'id', kind: 'lead' }] },
  deleteAssistant: { document: 'mutation($id: Int!) { deleteAssistant(id: $id) }', variables: (o) => ({ id: o.assistant }), slots: [{ at: 'id', kind: 'assistant' }] },
  deleteTool: { document: 'mutation($id: Int!) { deleteTool(id: $id) }', variables: (o) => ({ id: o.tool }), slots: [{ at: 'id', kind: 'tool' }] },
  deleteCampaign: { document: 'mutation($id: Int!) { deleteCampaign(id: $id) }', variables: (o) => ({ id: o.spareCampaigns[1] }), slots: [{ at: 'id', kind: 'lastCampaign' }] },
  webhookEndpoint: {
    document: 'query($id: Int!) { webhookEndpoint(id: $id) { id url deliveries { id } } }',
    variables: (o) => ({ id: o.endpoint }),
    slots: [{ at: 'id', kind: 'endpoint' }],
  },
  deleteWebhookEndpoint: { document: 'mutation($id: Int!) { deleteWebhookEndpoint(id: $id) }', variables: (o) => ({ id: o.endpoint }), slots: [{ at: 'id', kind: 'endpoint' }] },
  knowledgeBase: { document: 'query($id: Int!) { knowledgeBase(id: $id) { id name } }', variables: (o) => ({ id: o.knowledgeBase }), slots: [{ at: 'id', kind: 'knowledgeBase' }] },
  knowledgeDocuments: {
    document: 'query($knowledgebase_id: Int!) { knowledgeDocuments(knowledgebase_id: $knowledgebase_id) { id } }',
    variables: (o) => ({ knowledgebase_id: o.knowledgeBase }),
    slots: [{ at: 'knowledgebase_id', kind: 'knowledgeBase' }],
  },
  knowledgeDocument: {
    document: 'query($id: Int!, $knowledgebase_id: Int!) { knowledgeDocument(id: $id, knowledgebase_id: $knowledgebase_id) { id name } }',
    variables: (o) => ({ id: o.document, knowledgebase_id: o.knowledgeBase }),
    slots: [
      { at: 'id', kind: 'document' },
      { at: 'knowledgebase_id', kind: 'knowledgeBase' },
    ],
  },
  searchKnowledgeBase: {
    document: 'query($id: Int!) { searchKnowledgeBase(id: $id, q: "entrega") { chunk_id } }',
    variables: (o) => ({ id: o.knowledgeBase }),
    slots: [{ at: 'id', kind: 'knowledgeBase' }],
  },
  createKnowledgeDocument: {
    document: 'mutation($knowledgebase_id: Int!) { createKnowledgeDocument(knowledgebase_id: $knowledgebase_id, input: { name: "Horários", type: "text", content: "Abrimos às 9h." }) { id } }',
    variables: (o) => ({ knowledgebase_id: o.knowledgeBase }),
    slots: [{ at: 'knowledgebase_id', kind: 'knowledgeBase' }],
  },
  updateKnowledgeBase: {
    document: 'mutation($id: Int!) { updateKnowledgeBase(id: $id, input: { description: "Perguntas" }) { id description } }',
    variables: (o) => ({ id: o.knowledgeBase }),
    slots: [{ at: 'id', kind: 'knowledgeBase' }],
  },
  updateKnowledgeDocument: {
    document: 'mutation($id: Int!, $knowledgebase_id: Int!) { updateKnowledgeDocument(id: $id, knowledgebase_id: $knowledgebase_id, input: { description: "Tabela" }) { id description } }',
    variables: (o) => ({ id: o.document, knowledgebase_id: o.knowledgeBase }),
    slots: [
      { at: 'id', kind: 'document' },
      { at: 'knowledgebase_id', kind: 'knowledgeBase' },
    ],
  },
  reingestKnowledgeDocument: {
    document: 'mutation($id: Int!, $knowledgebase_id: Int!) { reingestKnowledgeDocument(id: $id, knowledgebase_id: $knowledgebase_id) { id status } }',
    variables: (o) => ({ id: o.document, knowledgebase_id: o.knowledgeBase }),
    slots: [
      { at: 'id', kind: 'document' },
      { at: 'knowledgebase_id', kind: 'knowledgeBase' },
    ],
  },
  deleteKnowledgeDocument: {
    document: 'mutation($id: Int!, $knowledgebase_id: Int!) { deleteKnowledgeDocument(id: $id, knowledgebase_id: $knowledgebase_id) }',
    variables: (o) => ({ id: o.spareDocument, knowledgebase_id: o.knowledgeBase }),
    slots: [
      { at: 'id', kind: 'spareDocument' },
      { at: 'knowledgebase_id', kind: 'knowledgeBase', view: SECOND_SPARE },
    ],
  },
  deleteKnowledgeBase: { document: 'mutation($id: Int!) { deleteKnowledgeBase(id: $id) }', variables: (o) => ({ id: o.spareKnowledgeBase }), slots: [{ at: 'id', kind: 'spareKnowledgeBase' }] },
  releasePhoneNumber: { document: 'mutation($id: Int!) { releasePhoneNumber(id: $id) }', variables: (o) => ({ id: o.releasablePhone }), slots: [{ at: 'id', kind: 'releasablePhone' }] },
  revokeApiToken: { document: 'mutation($id: Int!) { revokeApiToken(id: $id) }', variables: (o) => ({ id: o.apiToken }), slots: [{ at: 'id', kind: 'apiToken' }] },
};

/** Arguments that carry an id without saying so in their name. */
const UNNAMED_IDS = [
  'sendSms.input.from',
  'simulateInboundCall.to',
  'conversation.uuid',
  'sendConversationMessage.uuid',
  'enableConversationAi.uuid',
  'disableConversationAi.uuid',
  'closeConversation.uuid',
];
const ID_NAME = /^(id|.+_id|.+_ids)$/;
/** Ids of the shared catalogue (languages, models): the same for every account, owned by none. */
const CATALOGUE_IDS = /\.(language_id|llm_model_id)$/;

/** Every id-bearing argument path of every query and mutation in schema.graphql. */
function idArguments(): string[] {
  const schema = buildSchema(readFileSync(path.join(__dirname, '..', '..', 'schema.graphql'), 'utf8'));
  const found: string[] = [];
  const visit = (prefix: string, field: GraphQLArgument | GraphQLInputField, depth: number) => {
    const here = `${prefix}.${field.name}`;
    const type = getNamedType(field.type);
    if (isInputObjectType(type) && depth < 4) for (const inner of Object.values(type.getFields())) visit(here, inner, depth + 1);
    else if ((ID_NAME.test(field.name) && !CATALOGUE_IDS.test(here)) || UNNAMED_IDS.includes(here)) found.push(here);
  };
  for (const root of [schema.getQueryType()!, schema.getMutationType()!]) {
    for (const field of Object.values(root.getFields())) for (const arg of field.args) visit(field.name, arg, 0);
  }
  return found.sort();
}

describe('GraphQL: another account’s ids are missing ids', () => {
  beforeAll(() => (attacker = graphqlAttacker));
  it('covers every id-bearing argument of the schema', () => {
    const covered = Object.entries(OPERATIONS).flatMap(([name, op]) => op.slots.map((slot) => `${name}.${slot.at}`));
    expect(covered.sort()).toEqual(idArguments());
  });

  const cases = Object.entries(OPERATIONS).flatMap(([name, op]) => op.slots.map((slot) => [`${name}(${slot.at})`, op, slot] as const));
  it.each(cases)('%s', async (_name, op, slot) => {
    const send = (id: unknown) => app.graphql(op.document, withId(op.variables(viewed(attacker, slot)), slot, id), attacker.token);
    const refused = await expectForeignLikeMissing(send, slot.kind);
    const own = await send(idOf(attacker, slot.kind));
    expect(own.body.errors).toBeUndefined();
    expect(own.body.data).not.toEqual(refused.body.data);
  });
});

// ---------------------------------------------------------------------------------------
// REST: every route, with its path parameters and the ids in its body and query.

interface RestCase {
  /** Ids in the body (`body.x`) or the query string (`query.x`); `{id}` is found in the path by itself. */
  slots: Slot[];
  /** The kind of the `{id}` path parameter. */
  pathKind?: Kind;
  /** The other ids in the path (`path.kb` for `{kb}`), each with its kind. */
  params?: Slot[];
}

const ASSISTANT_SLOTS: Slot[] = [
  { at: 'body.voice_id', kind: 'voice' },
  { at: 'body.fallback_voice_id', kind: 'voice' },
  { at: 'body.phone_number_id', kind: 'phone' },
  { at: 'body.tool_ids', kind: 'tool', list: true },
  { at: 'body.folder_id', kind: 'folder' },
  { at: 'body.label_ids', kind: 'label', list: true },
];

/** The list's filters. */
const ASSISTANT_FILTER_SLOTS: Slot[] = [
  { at: 'query.folder_id', kind: 'folder' },
  { at: 'query.label_id', kind: 'label' },
];

/** Keyed by `METHOD path` as in the route table (the requests are VALID_REST_REQUESTS); routes with no id have no slots. */
const REST_CASES: Record<string, RestCase> = {
  'GET /user/assistants/languages': { slots: [] },
  'GET /user/assistants/voices': { slots: [] },
  'GET /user/assistants/get': { slots: ASSISTANT_FILTER_SLOTS },
  'GET /user/assistants': { slots: ASSISTANT_FILTER_SLOTS },
  'GET /user/assistants/outbound': { slots: [] },
  'GET /user/phone-numbers': { slots: [] },
  'GET /user/phone-numbers/all': { slots: [] },
  'GET /user/assistants/phone-numbers': { slots: [] },
  'GET /user/phone-numbers/search': { slots: [] },
  'POST /user/phone-numbers/purchase': { slots: [] },
  'PUT /user/phone-numbers/{id}': { slots: [], pathKind: 'phone' },
  'GET /user/phone-numbers/sip-trunks': { slots: [] },
  'GET /user/phone-numbers/sip-trunks/{id}': { slots: [], pathKind: 'sipTrunk' },
  'POST /user/phone-numbers/sip-trunks': { slots: [] },
  'PUT /user/phone-numbers/sip-trunks/{id}': { slots: [], pathKind: 'sipTrunk' },
  'GET /user/assistants/models': { slots: [] },
  'GET /user/assistants/synthesizer-providers': { slots: [] },
  'GET /user/assistants/transcriber-providers': { slots: [] },
  'GET /user/campaigns': { slots: [] },
  'POST /user/campaigns': { slots: [{ at: 'body.assistant_id', kind: 'assistant' }, { at: 'body.phone_number_ids', kind: 'phone', list: true }] },
  'GET /user/campaigns/{id}': { slots: [], pathKind: 'campaign' },
  'PUT /user/campaigns/{id}': {
    slots: [{ at: 'body.assistant_id', kind: 'assistant' }, { at: 'body.phone_number_ids', kind: 'phone', list: true }],
    pathKind: 'campaign',
  },
  'POST /user/campaigns/update-status': { slots: [{ at: 'body.campaign_id', kind: 'campaign' }] },
  'GET /user/tools': { slots: [] },
  'POST /user/tools': { slots: [] },
  'GET /user/me': { slots: [] },
  'POST /user/lead': { slots: [{ at: 'body.campaign_id', kind: 'campaign' }] },
  'GET /user/leads': { slots: [{ at: 'query.campaign_id', kind: 'campaign' }] },
  'GET /user/leads/{id}': { slots: [], pathKind: 'lead' },
  'PUT /user/leads/{id}': { slots: [{ at: 'body.campaign_id', kind: 'campaign' }], pathKind: 'lead' },
  'PUT /leads/{id}': { slots: [], pathKind: 'lead' },
  'GET /user/tools/{id}': { slots: [], pathKind: 'tool' },
  'PUT /user/tools/{id}': { slots: [], pathKind: 'tool' },
  'POST /user/assistant': { slots: ASSISTANT_SLOTS },
  'GET /user/assistant/{id}': { slots: [], pathKind: 'assistant' },
  'PUT /user/assistant/{id}': { slots: ASSISTANT_SLOTS, pathKind: 'assistant' },
  'POST /user/assistants/enable-inbound-webhook': { slots: [{ at: 'body.assistant_id', kind: 'assistant' }] },
  'POST /user/make_call': { slots: [{ at: 'body.assistant_id', kind: 'assistant' }] },
  'POST /user/calls/web': { slots: [{ at: 'body.assistant_id', kind: 'assistant' }] },
  'GET /user/calls': {
    slots: [
      { at: 'query.assistant_id', kind: 'assistant' },
      { at: 'query.campaign_id', kind: 'campaign' },
    ],
  },
  'GET /user/calls/{id}': { slots: [], pathKind: 'call' },
  'GET /user/calls.csv': {
    slots: [
      { at: 'query.assistant_id', kind: 'assistant' },
      { at: 'query.campaign_id', kind: 'campaign' },
    ],
  },
  'GET /user/campaigns/{id}/leads.csv': { slots: [], pathKind: 'campaign' },
  'POST /user/leads/import': { slots: [{ at: 'body.campaign_id', kind: 'campaign' }] },
  'GET /user/leads/import/{id}': { slots: [], pathKind: 'leadImport' },
  'POST /user/sms': { slots: [{ at: 'body.from', kind: 'phone' }] },
  'GET /user/dnc': { slots: [] },
  'POST /user/dnc': { slots: [] },
  'GET /user/webhooks': { slots: [] },
  'POST /user/webhooks': { slots: [] },
  'GET /user/knowledgebases': { slots: [] },
  'POST /user/knowledgebases': { slots: [] },
  'GET /user/knowledgebases/{id}': { slots: [], pathKind: 'knowledgeBase' },
  'PUT /user/knowledgebases/{id}': { slots: [], pathKind: 'knowledgeBase' },
  'GET /user/knowledgebases/{id}/search': { slots: [], pathKind: 'knowledgeBase' },
  'GET /user/knowledgebases/{kb}/documents': { slots: [], params: [{ at: 'path.kb', kind: 'knowledgeBase' }] },
  'POST /user/knowledgebases/{kb}/documents': { slots: [], params: [{ at: 'path.kb', kind: 'knowledgeBase' }] },
  'GET /user/knowledgebases/{kb}/documents/{doc}': {
    slots: [],
    params: [
      { at: 'path.kb', kind: 'knowledgeBase' },
      { at: 'path.doc', kind: 'document' },
    ],
  },
  'PUT /user/knowledgebases/{kb}/documents/{doc}': {
    slots: [],
    params: [
      { at: 'path.kb', kind: 'knowledgeBase' },
      { at: 'path.doc', kind: 'document' },
    ],
  },
  'POST /user/knowledgebases/{kb}/documents/{doc}/reingest': {
    slots: [],
    params: [
      { at: 'path.kb', kind: 'knowledgeBase' },
      { at: 'path.doc', kind: 'document' },
    ],
  },
  'POST /user/assistants/{id}/tests': { slots: [], pathKind: 'assistant' },
  'GET /user/assistants/{id}/tests': { slots: [], pathKind: 'assistant' },
  'GET /user/assistant-tests/{test_id}': { slots: [], params: [{ at: 'path.test_id', kind: 'assistantTest' }] },
  'PUT /user/assistant-tests/{test_id}': { slots: [], params: [{ at: 'path.test_id', kind: 'assistantTest' }] },
  'POST /user/assistants/{id}/test-runs': { slots: [{ at: 'body.test_ids', kind: 'assistantTest', list: true }], pathKind: 'assistant' },
  'GET /user/test-runs/{id}': { slots: [], pathKind: 'testRun' },
  'GET /user/assistants/{id}/test-runs': { slots: [], pathKind: 'assistant' },
  'GET /user/whatsapp/senders': { slots: [] },
  'GET /user/whatsapp/senders/{sender_id}/templates': { slots: [], params: [{ at: 'path.sender_id', kind: 'whatsappSender' }] },
  'GET /user/whatsapp/session-status': { slots: [{ at: 'query.sender_id', kind: 'whatsappSender' }] },
  'POST /user/whatsapp/send': {
    slots: [
      { at: 'body.sender_id', kind: 'whatsappSender' },
      { at: 'body.template_id', kind: 'whatsappTemplate' },
    ],
  },
  'POST /user/whatsapp/send-freeform': { slots: [{ at: 'body.sender_id', kind: 'whatsappSender' }] },
  'GET /user/conversations': { slots: [{ at: 'query.assistant_id', kind: 'assistant' }] },
  'POST /conversations': { slots: [{ at: 'body.assistant_id', kind: 'assistant' }] },
  'GET /conversations/{uuid}': { slots: [], params: [{ at: 'path.uuid', kind: 'conversation' }] },
  'POST /conversations/{uuid}/messages': { slots: [], params: [{ at: 'path.uuid', kind: 'conversation' }] },
  'POST /automate/conversations/{uuid}/disable-ai': { slots: [], params: [{ at: 'path.uuid', kind: 'conversation' }] },
  'POST /ai/generate-reply': { slots: [{ at: 'body.assistant_id', kind: 'assistant' }] },
  'POST /user/ai/generate-reply': { slots: [{ at: 'body.assistant_id', kind: 'assistant' }] },
  // After the conversation's other cases: the AI on, its messages would need a model.
  'POST /automate/conversations/{uuid}/enable-ai': { slots: [], params: [{ at: 'path.uuid', kind: 'conversation' }] },
  // Last of the conversation's: its own-id run closes the attacker's conversation.
  'POST /conversations/{uuid}/close': { slots: [], params: [{ at: 'path.uuid', kind: 'conversation' }] },
  'POST /user/assistants/enable-conversation-ended-webhook': { slots: [{ at: 'body.assistant_id', kind: 'assistant' }] },
  'POST /user/assistants/disable-conversation-ended-webhook': { slots: [{ at: 'body.assistant_id', kind: 'assistant' }] },
  'GET /user/folders': { slots: [] },
  'POST /user/folders': { slots: [] },
  'PUT /user/folders/{id}': { slots: [], pathKind: 'folder' },
  'PUT /user/folder/{id}': { slots: [], pathKind: 'folder' },
  'GET /user/labels': { slots: [] },
  'POST /user/labels': { slots: [] },
  'PUT /user/labels/{id}': { slots: [], pathKind: 'label' },
  'PUT /user/label/{id}': { slots: [], pathKind: 'label' },
  // The destructive ones last.
  'POST /user/assistants/disable-webhook': { slots: [{ at: 'body.assistant_id', kind: 'assistant' }] },
  'POST /user/assistants/disable-inbound-webhook': { slots: [{ at: 'body.assistant_id', kind: 'assistant' }] },
  'POST /user/calls/{id}/hangup': { slots: [], pathKind: 'liveCall' },
  'DELETE /user/calls/{id}': { slots: [], pathKind: 'call' },
  'DELETE /user/dnc/{phone_number}': { slots: [] },
  'DELETE /user/leads/{id}': { slots: [], pathKind: 'lead' },
  'DELETE /user/assistant-tests/{test_id}': { slots: [], params: [{ at: 'path.test_id', kind: 'spareAssistantTest' }] },
  'DELETE /user/assistant/{id}': { slots: [], pathKind: 'assistant' },
  'DELETE /user/tools/{id}': { slots: [], pathKind: 'tool' },
  'DELETE /user/campaigns/{id}': { slots: [], pathKind: 'spareCampaign' },
  'DELETE /user/campaign/{id}': { slots: [], pathKind: 'lastCampaign' },
  'DELETE /user/webhooks/{id}': { slots: [], pathKind: 'endpoint' },
  'DELETE /user/knowledgebases/{kb}/documents/{doc}': {
    slots: [],
    params: [
      { at: 'path.doc', kind: 'spareDocument' },
      { at: 'path.kb', kind: 'knowledgeBase', view: SECOND_SPARE },
    ],
  },
  'DELETE /user/knowledgebases/{id}': { slots: [], pathKind: 'spareKnowledgeBase' },
  'DELETE /user/folders/{id}': { slots: [], pathKind: 'spareFolder' },
  'DELETE /user/folder/{id}': { slots: [], pathKind: 'lastFolder' },
  'DELETE /user/labels/{id}': { slots: [], pathKind: 'spareLabel' },
  'DELETE /user/label/{id}': { slots: [], pathKind: 'lastLabel' },
  'DELETE /user/phone-numbers/{id}': { slots: [], pathKind: 'releasablePhone' },
};

function restSend(route: string, parts: RestRequest) {
  const method = route.split(' ')[0];
  const search = new URLSearchParams(Object.entries(parts.query ?? {}).map(([k, v]): [string, string] => [k, String(v)])).toString();
  return app.request(method, `/api${parts.path}${search ? `?${search}` : ''}`, { token: attacker.token, body: parts.body });
}

describe('REST: another account’s ids are missing ids', () => {
  beforeAll(() => (attacker = restAttacker));
  it('has a case for every route, with the kind of every path parameter', () => {
    const table = routes.map((r) => `${r.method} ${r.path}`).sort();
    expect(Object.keys(REST_CASES).sort()).toEqual(table);
    expect(Object.keys(VALID_REST_REQUESTS).sort()).toEqual(table);
    for (const route of routes) {
      const c = REST_CASES[`${route.method} ${route.path}`];
      expect([route.path, route.path.includes('{id}')]).toEqual([route.path, c.pathKind !== undefined]);
      // Every other id in the path has a case (a phone number in the path is no row's id).
      const others = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).filter((name) => name !== 'id' && name !== 'phone_number');
      expect([route.path, (c.params ?? []).map((slot) => slot.at.slice('path.'.length)).sort()]).toEqual([route.path, others.sort()]);
    }
  });

  const cases = Object.entries(REST_CASES).flatMap(([route, c]) => [
    ...(c.pathKind ? [[`${route} (path id)`, route, c, null] as const] : []),
    ...[...(c.params ?? []), ...c.slots].map((slot) => [`${route} (${slot.at})`, route, c, slot] as const),
  ]);
  it.each(cases)('%s', async (_name, route, c, slot) => {
    const own = VALID_REST_REQUESTS[route](slot ? viewed(attacker, slot) : attacker);
    const send = (id: unknown) => {
      if (!slot) return restSend(route, { ...own, path: own.path.replace(String(idOf(attacker, c.pathKind!)), String(id)) });
      if (slot.at.startsWith('path.')) {
        // The parameter's segment of the path, by its place in the route's template.
        const at = route.split(' ')[1].split('/').indexOf(`{${slot.at.slice('path.'.length)}}`);
        return restSend(route, { ...own, path: own.path.split('/').map((segment, i) => (i === at ? String(id) : segment)).join('/') });
      }
      return restSend(route, withId(own, slot, id));
    };
    const kind = slot ? slot.kind : c.pathKind!;
    const refused = await expectForeignLikeMissing(send, kind);
    const mine = await send(idOf(attacker, kind));
    expect(mine.status).toBeLessThan(300);
    expect(mine.text).not.toEqual(refused.text);
  });

  it('left everything of the victim as it was made', async () => {
    const rows = await app.sql('select count(*)::int as n from leads where account_id = $1', [victim.accountId]);
    expect(rows[0].n).toBe(1);
    const [assistant] = await app.sql('select is_webhook_active, webhook_url from assistants where id = $1', [victim.assistant]);
    expect(assistant).toEqual({ is_webhook_active: true, webhook_url: 'https://hooks.example.com/vozgate' });
  });
});
