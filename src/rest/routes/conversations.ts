import { Messages } from '../../errors';
import type { JsonSchema } from '../openapi.components';
import { messageAnd } from '../openapi';
import { queryVariables, type Route } from './route';

/**
 * Conversations over text, on the original platform's paths as its MCP server sends them
 * (design.md, "Conversations"): a page as `{data, per_page, next_cursor}`, a conversation as
 * `{data}`, writes as `{message, data}`.
 */
const MESSAGE = 'role content created_at';
const CONVERSATION = `uuid type assistant_id customer_phone external_identifier variables ai_enabled
  usage { llm_input_tokens llm_output_tokens } total_cost created_at updated_at closed_at extracted_variables evaluation`;
const EXCHANGE = `uuid message { ${MESSAGE} } reply { ${MESSAGE} } ai_enabled usage { llm_input_tokens llm_output_tokens } total_cost`;

const dataOnly = (inner: JsonSchema): JsonSchema => ({ type: 'object', properties: { data: inner }, required: ['data'] });
const FILTERS = ['type', 'assistant_id', 'customer_phone', 'external_identifier', 'per_page', 'cursor'] as const;

/** `POST /ai/generate-reply`, also under `/user/` (the MCP server sends the first). */
const generateReply = (path: string): Route => ({
  method: 'POST',
  path,
  summary:
    'The assistant’s reply to a customer known by customer_identifier (a phone, an email, a CRM id): their api conversation with the assistant goes on from one request to the next; while a person has taken it over, the message is kept and reply is null',
  body: 'input',
  rejectUnknownFields: true,
  errors: ['PROVIDER_FAILURE', 'UNAVAILABLE'],
  envelope: messageAnd(),
  document: `mutation GenerateAiReply($input: GenerateAiReplyInput!) { generateAiReply(input: $input) { ${EXCHANGE} } }`,
  variables: (req) => ({ input: req.body }),
  respond: (data) => ({ body: { message: Messages.aiReplyGenerated, data: data.generateAiReply } }),
});

export const conversationRoutes: Route[] = [
  {
    method: 'GET',
    path: '/user/conversations',
    summary: 'The account’s conversations, newest first, by cursor: `next_cursor` (null on the last page) is the next request’s `cursor`',
    query: FILTERS,
    document: `query Conversations($type: String, $assistant_id: Int, $customer_phone: String, $external_identifier: String, $per_page: Int, $cursor: String) {
      conversations(type: $type, assistant_id: $assistant_id, customer_phone: $customer_phone, external_identifier: $external_identifier, per_page: $per_page, cursor: $cursor) {
        data { ${CONVERSATION} } per_page next_cursor
      }
    }`,
    variables: (req) => queryVariables(req.query, FILTERS),
    respond: (data) => ({ body: data.conversations }),
  },
  {
    method: 'POST',
    path: '/conversations',
    summary: 'Open a conversation with one of the account’s assistants: type test (free, the default), widget or api',
    status: 201,
    body: 'input',
    rejectUnknownFields: true,
    envelope: messageAnd(),
    document: `mutation CreateConversation($input: CreateConversationInput!) { createConversation(input: $input) { ${CONVERSATION} messages { ${MESSAGE} } } }`,
    variables: (req) => ({ input: req.body }),
    respond: (data) => ({ status: 201, body: { message: Messages.conversationCreated, data: data.createConversation } }),
  },
  {
    method: 'GET',
    path: '/conversations/{uuid}',
    summary: 'A conversation with its messages, oldest first',
    envelope: dataOnly,
    document: `query Conversation($uuid: String!) { conversation(uuid: $uuid) { ${CONVERSATION} messages { ${MESSAGE} } } }`,
    variables: (req) => ({ uuid: req.params.uuid }),
    respond: (data) => ({ body: { data: data.conversation } }),
    notFound: Messages.conversationNotFound,
  },
  {
    method: 'POST',
    path: '/conversations/{uuid}/messages',
    summary:
      'Send a message (at most 2,000 characters): the customer’s, answered by the assistant in the same answer while the AI is on (one message of a conversation at a time, in order); or, with sender human while the AI is off, a person’s (in an SMS or WhatsApp conversation sent to the customer, charged like an SMS)',
    body: 'input',
    rejectUnknownFields: true,
    errors: ['PROVIDER_FAILURE', 'UNAVAILABLE', 'CONFLICT', 'INSUFFICIENT_BALANCE', 'FORBIDDEN'],
    envelope: messageAnd(),
    document: `mutation SendConversationMessage($uuid: String!, $input: SendConversationMessageInput!) {
      sendConversationMessage(uuid: $uuid, input: $input) { ${EXCHANGE} }
    }`,
    variables: (req) => ({ uuid: req.params.uuid, input: req.body }),
    respond: (data) => ({ body: { message: Messages.conversationMessageSent, data: data.sendConversationMessage } }),
    notFound: Messages.conversationNotFound,
  },
  {
    method: 'POST',
    path: '/automate/conversations/{uuid}/disable-ai',
    summary: 'Human takeover: the assistant stays silent; a person answers through POST /conversations/{uuid}/messages with sender human',
    envelope: messageAnd(),
    document: `mutation DisableConversationAi($uuid: String!) { disableConversationAi(uuid: $uuid) { ${CONVERSATION} } }`,
    variables: (req) => ({ uuid: req.params.uuid }),
    respond: (data) => ({ body: { message: Messages.conversationAiDisabled, data: data.disableConversationAi } }),
    notFound: Messages.conversationNotFound,
  },
  generateReply('/ai/generate-reply'),
  generateReply('/user/ai/generate-reply'),
  // Last: the examples of the reference page run in this order on the demo's conversation, whose AI is off.
  {
    method: 'POST',
    path: '/automate/conversations/{uuid}/enable-ai',
    summary: 'End a human takeover: the assistant answers the customer’s messages again',
    envelope: messageAnd(),
    document: `mutation EnableConversationAi($uuid: String!) { enableConversationAi(uuid: $uuid) { ${CONVERSATION} } }`,
    variables: (req) => ({ uuid: req.params.uuid }),
    respond: (data) => ({ body: { message: Messages.conversationAiEnabled, data: data.enableConversationAi } }),
    notFound: Messages.conversationNotFound,
  },
  // After enable-ai: the reference page's examples close the demo's conversation last.
  {
    method: 'POST',
    path: '/conversations/{uuid}/close',
    summary:
      'Close the conversation: it takes no more messages (409 after, and on a second close); then the assistant’s post_call_schema is extracted from the transcript and its conversation-ended webhook posted',
    errors: ['CONFLICT'],
    envelope: messageAnd(),
    document: `mutation CloseConversation($uuid: String!) { closeConversation(uuid: $uuid) { ${CONVERSATION} } }`,
    variables: (req) => ({ uuid: req.params.uuid }),
    respond: (data) => ({ body: { message: Messages.conversationClosedOk, data: data.closeConversation } }),
    notFound: Messages.conversationNotFound,
  },
];
