import { DEMO_CONVERSATION, DEMO_CUSTOMER, DEMO_WHATSAPP_CUSTOMER } from '../modules/conversations/conversation.rules';
import { MAX_PER_PAGE } from '../graphql/pagination';
import { ASSISTANT_RULES } from '../modules/assistants/assistant.service';
import { TEST_RULES, TEST_TYPES } from '../modules/assistant-tests/test.rules';
import { RESULT_STATUSES, RUN_STATUSES } from '../modules/assistant-tests/test.types';
import { CALLS_DIRECTIONS, ENDPOINT_TYPES, POST_CALL_TYPES, TRANSFER_MODES, WHO_SPEAKS_FIRST } from '../modules/assistants/assistant.entity';
import { CALL_STATUSES, CALL_TYPES } from '../modules/calls/call.entity';
import { CAMPAIGN_STATUSES, PAUSED_REASONS } from '../modules/campaigns/campaign.entity';
import { CAMPAIGN_RULES, WEEKDAYS } from '../modules/campaigns/campaign.rules';
import { MODEL_TYPES } from '../modules/catalog/model.entity';
import { ENGINE_TYPES, TTS_PROVIDERS } from '../modules/catalog/voice.entity';
import { EVENT_TYPES } from '../modules/events/event.outbox';
import { CLIENT_LEAD_STATUSES, LEAD_STATUSES } from '../modules/leads/lead.entity';
import { MAX_SECONDARY_CONTACTS } from '../modules/leads/lead.service';
import { BADGE_COLORS, MAX_BADGE_NAME } from '../modules/organize/organize.rules';
import { INBOUND_AUTHORIZATION_TYPES, SIP_CALLING_FORMATS, SIP_TRUNK_TYPES } from '../modules/accounts/sip-trunk.dial';
import { SMS_STATUSES } from '../modules/sms/sms.entity';
import { MAX_SMS_BODY } from '../modules/sms/sms.service';
import { TOOL_METHODS, TOOL_PARAMETER_TYPES } from '../modules/tools/tool.entity';
import { TOOL_RULES } from '../modules/tools/tool.service';
import type { JsonSchema } from './openapi.components';

/**
 * What the OpenAPI document says beyond the GraphQL types: the limits and vocabularies the
 * services check (read from their constants), the examples Swagger's "Try it out" sends, and
 * the area (tag) of each path. Keys are `Owner.field` (an input or output type, or the root
 * field whose argument it is), else a bare field name where noted.
 */
const oneOf = (values: readonly string[]): JsonSchema => ({ enum: [...values] });
/** A vocabulary whose field may also be null (none). */
const orNone = (values: readonly string[]): JsonSchema => ({ enum: [...values, null] });
const listOf = (values: readonly string[]): JsonSchema => ({ items: { type: 'string', enum: [...values] } });

/** Inputs (bodies, path and query parameters): by `Owner.field`, else by field name. */
export const INPUT_RULES: Record<string, JsonSchema> = {
  'CreateFolderInput.color': orNone(BADGE_COLORS),
  'UpdateFolderInput.color': orNone(BADGE_COLORS),
  'CreateLabelInput.color': orNone(BADGE_COLORS),
  'UpdateLabelInput.color': orNone(BADGE_COLORS),
  'CreateFolderInput.name': { minLength: 1, maxLength: MAX_BADGE_NAME },
  'CreateLabelInput.name': { minLength: 1, maxLength: MAX_BADGE_NAME },
  'UpdateFolderInput.name': { minLength: 1, maxLength: MAX_BADGE_NAME },
  'UpdateLabelInput.name': { minLength: 1, maxLength: MAX_BADGE_NAME },
  'CreateSipTrunkInput.sip_trunk_type': oneOf(SIP_TRUNK_TYPES),
  'CreateSipTrunkInput.sip_calling_format': oneOf(SIP_CALLING_FORMATS),
  'UpdateSipTrunkInput.sip_calling_format': oneOf(SIP_CALLING_FORMATS),
  'CreateSipTrunkInput.inbound_authorization_type': oneOf(INBOUND_AUTHORIZATION_TYPES),
  'UpdateSipTrunkInput.inbound_authorization_type': oneOf(INBOUND_AUTHORIZATION_TYPES),
  'CreateSipTrunkInput.sip_password': { minLength: 3, maxLength: 128 },
  'UpdateSipTrunkInput.sip_password': { minLength: 3, maxLength: 128 },
  'CreateSipTrunkInput.sip_username': { minLength: 3, maxLength: 128 },
  'UpdateSipTrunkInput.sip_username': { minLength: 3, maxLength: 128 },
  'UpdatePhoneNumberInput.nickname': { maxLength: 50 },
  'UpdateLeadInput.status': oneOf(CLIENT_LEAD_STATUSES),
  'leads.status': oneOf(LEAD_STATUSES),
  'calls.status': oneOf(CALL_STATUSES),
  'calls.type': oneOf(CALL_TYPES),
  'smsMessages.status': oneOf(SMS_STATUSES),
  'updateCampaignStatus.action': oneOf(['start', 'stop']),
  'createWebhookEndpoint.events': listOf(EVENT_TYPES),
  'PostCallSchemaItemInput.type': oneOf(POST_CALL_TYPES),
  'ToolParameterInput.type': oneOf(TOOL_PARAMETER_TYPES),
  'CreateToolInput.name': { minLength: 1, ...TOOL_RULES.name },
  'CreateAssistantTestInput.type': oneOf(TEST_TYPES),
  'UpdateAssistantTestInput.type': oneOf(TEST_TYPES),
  'CreateAssistantTestInput.name': { minLength: 1, maxLength: TEST_RULES.nameChars },
  'UpdateAssistantTestInput.name': { minLength: 1, maxLength: TEST_RULES.nameChars },
  'StartTestRunInput.attempts': { minimum: TEST_RULES.attempts.min, maximum: TEST_RULES.attempts.max },
  'UpdateToolInput.name': { minLength: 1, ...TOOL_RULES.name },
  'CreateCampaignInput.name': { minLength: CAMPAIGN_RULES.name.min, maxLength: CAMPAIGN_RULES.name.max },
  'SendSmsInput.body': { minLength: 1, maxLength: MAX_SMS_BODY },
  allowed_days: listOf(WEEKDAYS),
  per_page: { minimum: 1, maximum: MAX_PER_PAGE },
  page: { minimum: 1 },
  date_from: { format: 'date' },
  date_to: { format: 'date' },
  secondary_contacts: { maxItems: MAX_SECONDARY_CONTACTS },
  calls_direction: oneOf(CALLS_DIRECTIONS),
  engine_type: oneOf(ENGINE_TYPES),
  mode: oneOf(ENGINE_TYPES),
  endpoint_type: oneOf(ENDPOINT_TYPES),
  who_speaks_first: oneOf(WHO_SPEAKS_FIRST),
  method: { enum: TOOL_METHODS.flatMap((m) => [m, m.toLowerCase()]), description: 'Any case.' },
  post_call_schema: { maxItems: ASSISTANT_RULES.maxPostCallItems },
  ...Object.fromEntries(
    Object.entries(ASSISTANT_RULES.wordLists).map(([field, { maxItems, maxLength }]) => [field, { maxItems, items: { type: 'string', minLength: 1, maxLength } }]),
  ),
  pronunciations: { maxItems: ASSISTANT_RULES.pronunciations.maxItems },
  'PronunciationInput.word': { minLength: 1, maxLength: ASSISTANT_RULES.pronunciations.word },
  'PronunciationInput.say_as': { minLength: 1, maxLength: ASSISTANT_RULES.pronunciations.say_as },
  transfer_numbers: { maxItems: ASSISTANT_RULES.transfers.maxItems },
  'TransferNumberInput.number': { description: 'E.164 (+551130030000), or national in DEFAULT_PHONE_REGION; each number once.' },
  'TransferNumberInput.description': { minLength: 1, maxLength: ASSISTANT_RULES.transfers.description },
  transfer_mode: oneOf(TRANSFER_MODES),
  transfer_message: { maxLength: ASSISTANT_RULES.transfers.message },
  headers: { maxItems: TOOL_RULES.maxHeaders },
  schema: { maxItems: TOOL_RULES.maxParameters },
  timeout: { minimum: TOOL_RULES.timeout[0], maximum: TOOL_RULES.timeout[1] },
  speak_during: { maxLength: TOOL_RULES.speakDuring.maxLength },
  voicemail_message: { maxLength: ASSISTANT_RULES.voicemailMessage },
  webhook_url: { format: 'uri', maxLength: 2048 },
  endpoint: { format: 'uri', maxLength: 2048 },
  phone_number: { description: 'E.164 (+5511987654321), or national in DEFAULT_PHONE_REGION.' },
  ...Object.fromEntries(Object.entries(ASSISTANT_RULES.texts).map(([field, max]) => [field, { minLength: 1, maxLength: max }])),
  ...Object.fromEntries(
    Object.entries({ ...ASSISTANT_RULES.ranges, ...ASSISTANT_RULES.intRanges }).map(([field, [min, max]]) => [field, { minimum: min, maximum: max }]),
  ),
};

const count = { type: 'integer', minimum: 0 };

/** Fields a REST answer leaves out when they have no value (`Type.field`), so the spec's shape stays as it is. */
export const OPTIONAL_OUTPUTS = new Set(['Tool.warning']);

/** What answers hold: by `Type.field` only (an input's rule may not hold for what is stored). */
export const OUTPUT_RULES: Record<string, JsonSchema> = {
  'Lead.status': oneOf(LEAD_STATUSES),
  'SecondaryContact.status': oneOf(LEAD_STATUSES),
  'Call.status': oneOf(CALL_STATUSES),
  'Call.type': oneOf(CALL_TYPES),
  'Call.answered_by': oneOf(['human', 'machine', 'unavailable', 'unknown']),
  'CallStarted.status': oneOf(CALL_STATUSES),
  'Campaign.status': oneOf(CAMPAIGN_STATUSES),
  'Campaign.paused_reason': oneOf(PAUSED_REASONS),
  'Campaign.allowed_days': listOf(WEEKDAYS),
  'CampaignStats.leads': {
    type: 'object',
    description: 'Leads by status: each of the seven lead statuses, with its count.',
    properties: Object.fromEntries(LEAD_STATUSES.map((status) => [status, count])),
    required: [...LEAD_STATUSES],
    additionalProperties: false,
  },
  'Sms.status': oneOf(SMS_STATUSES),
  'Assistant.type': oneOf(['inbound', 'outbound']),
  'Assistant.mode': oneOf(ENGINE_TYPES),
  'Assistant.calls_direction': oneOf(CALLS_DIRECTIONS),
  'Assistant.engine_type': oneOf(ENGINE_TYPES),
  'Assistant.endpoint_type': oneOf(ENDPOINT_TYPES),
  'Assistant.who_speaks_first': oneOf(WHO_SPEAKS_FIRST),
  'PostCallSchemaItem.type': oneOf(POST_CALL_TYPES),
  'Tool.method': oneOf(TOOL_METHODS),
  'ToolParameter.type': oneOf(TOOL_PARAMETER_TYPES),
  'Voice.mode': oneOf(ENGINE_TYPES),
  'Folder.color': orNone(BADGE_COLORS),
  'Label.color': orNone(BADGE_COLORS),
  'Voice.provider': oneOf(TTS_PROVIDERS),
  'Model.type': oneOf(MODEL_TYPES),
  'AssistantTest.type': oneOf(TEST_TYPES),
  'TestRun.status': oneOf(RUN_STATUSES),
  'TestResult.status': oneOf(RESULT_STATUSES),
  'WebhookEndpoint.events': listOf(EVENT_TYPES),
  'CreatedWebhookEndpoint.events': listOf(EVENT_TYPES),
};

/**
 * Examples of request fields, chosen so that a body made of them works as given on the demo
 * account of a first start (account 1: campaign 1, assistant 1 on its SMS-capable number 1,
 * voice 1). Bodies and path parameters only: an example in a query filter would be sent by
 * "Try it out" as a filter nobody asked for. Bare names: `id`, `phone_number`, `campaign_id`,
 * `assistant_id`, `sender_id`.
 */
export const EXAMPLES: Record<string, unknown> = {
  id: 1,
  phone_number: '+5511987654321',
  campaign_id: 1,
  assistant_id: 1,
  uuid: DEMO_CONVERSATION,
  sender_id: 1,
  'SendConversationMessageInput.message': 'Olá! Meu pedido já saiu?',
  'GenerateAiReplyInput.message': 'Meu pedido já saiu?',
  'GenerateAiReplyInput.customer_identifier': DEMO_CUSTOMER,
  'SendWhatsappTemplateInput.template_id': 1,
  'SendWhatsappTemplateInput.recipient_phone': DEMO_WHATSAPP_CUSTOMER,
  'SendWhatsappTemplateInput.variables': { '1': 'Ana', '2': 'A-1027' },
  'SendWhatsappFreeformInput.recipient_phone': DEMO_WHATSAPP_CUSTOMER,
  'SendWhatsappFreeformInput.message': 'Olá! Seu pedido A-1027 saiu para entrega hoje.',
  'CreateLeadInput.variables': { customer_name: 'Ana', email: 'ana@example.com' },
  'UpdateLeadInput.variables': { order: 'A-1027' },
  'MakeCallInput.variables': { customer_name: 'Ana', order: 'A-1027' },
  'CreateCampaignInput.name': 'Campanha de julho',
  'UpdateCampaignInput.max_calls_in_parallel': 2,
  'UpdateCampaignInput.allowed_days': ['monday', 'wednesday', 'friday'],
  'updateCampaignStatus.action': 'start',
  'CreateToolInput.name': 'check_order',
  'CreateToolInput.description': 'Looks an order up by its number when the customer asks where it is.',
  'CreateToolInput.endpoint': 'https://example.com/orders/lookup',
  'CreateToolInput.method': 'POST',
  'CreateToolInput.schema': [{ name: 'order_number', type: 'string', description: 'The order number the customer gives.' }],
  'UpdateToolInput.timeout': 15,
  'CreateAssistantInput.assistant_name': 'Ana',
  'CreateAssistantInput.voice_id': 1,
  'CreateAssistantInput.language': 'Portuguese',
  'CreateAssistantInput.llm_model': 'gpt-4o-mini',
  'CreateAssistantInput.calls_direction': 'make',
  'CreateAssistantInput.engine_type': 'pipeline',
  'CreateAssistantInput.timezone': 'America/Sao_Paulo',
  'CreateAssistantInput.initial_message': 'Olá, aqui é a Ana, da Loja Centro. Tudo bem?',
  'CreateAssistantInput.system_prompt': 'Você confirma a entrega de pedidos com os clientes da Loja Centro. Seja breve e educada.',
  'UpdateAssistantInput.speech_speed': 1.1,
  'CreateFolderInput.name': 'Loja Centro',
  'CreateFolderInput.color': 'blue',
  'UpdateFolderInput.name': 'Loja Centro e Sul',
  'CreateLabelInput.name': 'VIP',
  'CreateLabelInput.color': 'amber',
  'UpdateLabelInput.color': 'purple',
  'enableInboundWebhook.webhook_url': 'https://example.com/webhooks/calls',
  'enableConversationEndedWebhook.webhook_url': 'https://example.com/webhooks/conversations',
  'SendSmsInput.from': 1,
  'SendSmsInput.to': '+5511987654321',
  'SendSmsInput.body': 'Seu pedido A-1027 saiu para entrega.',
  // Another number than the other examples': on the list, it could not be called.
  'addDncNumber.phone_number': '+5511987650000',
  'removeDncNumber.phone_number': '+5511987650000',
  'createWebhookEndpoint.url': 'https://example.com/webhooks/vozgate',
  'createWebhookEndpoint.events': ['call.finished', 'lead.status_changed'],
  kb: 1,
  doc: 1,
  'CreateKnowledgeBaseInput.name': 'Perguntas frequentes',
  'CreateKnowledgeBaseInput.description': 'Horários, entregas e trocas da Loja Centro',
  'UpdateKnowledgeBaseInput.name': 'Perguntas frequentes 2026',
  'CreateKnowledgeDocumentInput.name': 'Entregas',
  'CreateKnowledgeDocumentInput.type': 'text',
  'CreateKnowledgeDocumentInput.content': 'Entregamos em todo o Brasil. A entrega é grátis em compras acima de R$ 100 e leva até 5 dias úteis.',
  'UpdateKnowledgeDocumentInput.description': 'Prazos e custos de entrega',
  // One of the simulator's inventory (GET /user/phone-numbers/search?country_code=BR), not the demo's own number.
  'PurchasePhoneNumberInput.phone_number': '+551140045001',
  'UpdatePhoneNumberInput.nickname': 'Vendas',
  test_id: 1,
  'CreateAssistantTestInput.name': 'Horário de abertura',
  'CreateAssistantTestInput.type': 'reply',
  'CreateAssistantTestInput.config': { messages: [{ role: 'user', content: 'Que horas vocês abrem?' }], success_criteria: ['Diz o horário de abertura da loja'] },
  'UpdateAssistantTestInput.name': 'Horário de abertura (sábado)',
  'StartTestRunInput.attempts': 2,
  // The demo's first trunk: the number after the demo's own and the one the purchase example buys.
  'sipTrunk.id': 3,
  'updateSipTrunk.id': 3,
  'CreateSipTrunkInput.sip_trunk_type': 'number',
  'CreateSipTrunkInput.phone_number': '+551130309000',
  'CreateSipTrunkInput.sip_username': 'pbx-loja-centro',
  'CreateSipTrunkInput.sip_password': 'troque-esta-senha',
  'CreateSipTrunkInput.sip_address': 'sip.operadora.example',
  'CreateSipTrunkInput.sip_calling_format': '+e164',
  'CreateSipTrunkInput.inbound_authorization_type': 'ip',
  'CreateSipTrunkInput.allowed_inbound_ips': ['203.0.113.0/24'],
  'CreateSipTrunkInput.country_code': 'BR',
  'UpdateSipTrunkInput.sip_calling_format': 'national',
  'ImportLeadsInput.csv': 'phone_number,customer_name\n+5511987654322,Ana Souza\n+5511987654323,Bruno Lima\n',
};

/** The areas of the REST API, in the reference page's order. */
export const TAGS = [
  { name: 'Leads', description: 'Contacts of a campaign, with free-form variables and secondary contacts.' },
  { name: 'Campaigns', description: 'Campaigns that call their leads by themselves, and the do-not-call list.' },
  { name: 'Assistants', description: 'AI voice assistants, their webhooks, and the catalogue they are made from (languages, voices, models).' },
  { name: 'Mid-call tools', description: 'HTTP endpoints an assistant calls during a call.' },
  { name: 'Calls', description: 'Outbound calls, the call history and what each call cost.' },
  { name: 'SMS', description: 'Text messages charged to the balance.' },
  { name: 'Account', description: 'The account and its phone numbers.' },
  { name: 'Webhook endpoints', description: 'The account’s subscriptions to events, signed as Standard Webhooks say.' },
  { name: 'Knowledge bases', description: 'Documents an assistant can look things up in: websites, texts and files, chunked and searched with PostgreSQL’s full-text search.' },
  { name: 'Conversations', description: 'The same assistant over text: its prompt, variables, tools and knowledge base, with human takeover.' },
  { name: 'Assistant tests', description: 'What an assistant must do, run again after each change: replies and tool calls judged, and simulated callers, each attempt with its verdicts.' },
  { name: 'Twilio', description: 'What Twilio requests of vozgate (TELEPHONY_PROVIDER=twilio).' },
  { name: 'Engine API', description: 'For external voice engines, with the call’s own token.' },
] as const;

export type Tag = (typeof TAGS)[number]['name'];

/**
 * The area of a path, from its first segment below /user (or its first): a new route under a
 * known area needs nothing here.
 */
const AREAS: Record<string, Tag> = {
  lead: 'Leads',
  leads: 'Leads',
  campaign: 'Campaigns',
  campaigns: 'Campaigns',
  dnc: 'Campaigns',
  assistant: 'Assistants',
  assistants: 'Assistants',
  folders: 'Assistants',
  folder: 'Assistants',
  labels: 'Assistants',
  label: 'Assistants',
  tools: 'Mid-call tools',
  make_call: 'Calls',
  calls: 'Calls',
  'calls.csv': 'Calls',
  sms: 'SMS',
  me: 'Account',
  'phone-numbers': 'Account',
  webhooks: 'Webhook endpoints',
  knowledgebases: 'Knowledge bases',
  conversations: 'Conversations',
  whatsapp: 'Conversations',
  automate: 'Conversations',
  ai: 'Conversations',
  'assistant-tests': 'Assistant tests',
  'test-runs': 'Assistant tests',
};

export function tagOf(path: string): Tag {
  const segments = path.split('/').filter(Boolean);
  const area = segments[0] === 'user' ? segments[1] : segments[0];
  const tag = Object.hasOwn(AREAS, area) ? AREAS[area] : undefined;
  if (!tag) throw new Error(`OpenAPI: no area for ${path}: add its first segment to AREAS in src/rest/openapi.rules.ts`);
  return tag;
}
