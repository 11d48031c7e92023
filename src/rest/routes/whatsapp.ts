import { Messages } from '../../errors';
import type { JsonSchema } from '../openapi.components';
import { messageAnd } from '../openapi';
import { queryVariables, type Route } from './route';

/**
 * WhatsApp senders, templates and sends on the original platform's paths, as its MCP server
 * reads them (design.md, "Conversations"): lists as `{data: [...]}`, the session status as
 * `{data}`, sends as `{message, data}`.
 */
const SENDER = 'id phone_number status assistant_id expires_at';
const TEMPLATE = 'id sid name language category status body variables';
const MESSAGE = 'id sender_id recipient_phone body template_id status segments total_cost message_sid conversation_uuid';

const dataOnly = (inner: JsonSchema): JsonSchema => ({ type: 'object', properties: { data: inner }, required: ['data'] });

export const whatsappRoutes: Route[] = [
  {
    method: 'GET',
    path: '/user/whatsapp/senders',
    summary: 'The account’s WhatsApp senders (its numbers marked whatsapp): status online (the default), offline (expired) or all',
    query: ['status'],
    envelope: dataOnly,
    document: `query WhatsappSenders($status: String) { whatsappSenders(status: $status) { ${SENDER} } }`,
    variables: (req) => queryVariables(req.query, ['status']),
    respond: (data) => ({ body: { data: data.whatsappSenders } }),
  },
  {
    method: 'GET',
    path: '/user/whatsapp/senders/{sender_id}/templates',
    summary: 'A sender’s WhatsApp templates from Twilio’s Content API, with their approval: status approved (the default), pending, rejected, unsubmitted or all',
    query: ['status'],
    errors: ['PROVIDER_FAILURE'],
    envelope: dataOnly,
    document: `query WhatsappTemplates($sender_id: Int!, $status: String) { whatsappTemplates(sender_id: $sender_id, status: $status) { ${TEMPLATE} } }`,
    variables: (req) => ({ sender_id: req.params.sender_id, ...queryVariables(req.query, ['status']) }),
    respond: (data) => ({ body: { data: data.whatsappTemplates } }),
    notFound: Messages.whatsappSenderNotFound,
  },
  {
    method: 'GET',
    path: '/user/whatsapp/session-status',
    summary: 'Whether the recipient’s 24-hour window with the sender is open (their last WhatsApp message to it less than 24 hours ago), and until when',
    query: ['sender_id', 'recipient_phone'],
    envelope: dataOnly,
    document: `query WhatsappSessionStatus($sender_id: Int!, $recipient_phone: String!) {
      whatsappSessionStatus(sender_id: $sender_id, recipient_phone: $recipient_phone) { sender_id recipient_phone session_open last_inbound_at expires_at }
    }`,
    variables: (req) => queryVariables(req.query, ['sender_id', 'recipient_phone']),
    respond: (data) => ({ body: { data: data.whatsappSessionStatus } }),
  },
  {
    method: 'POST',
    path: '/user/whatsapp/send',
    summary: 'Send an approved template with its variables (ContentSid and ContentVariables), charged like an SMS and written into the recipient’s whatsapp conversation',
    body: 'input',
    rejectUnknownFields: true,
    errors: ['INSUFFICIENT_BALANCE', 'FORBIDDEN', 'PROVIDER_FAILURE'],
    envelope: messageAnd(),
    document: `mutation SendWhatsappTemplate($input: SendWhatsappTemplateInput!) { sendWhatsappTemplate(input: $input) { ${MESSAGE} } }`,
    variables: (req) => ({ input: req.body }),
    respond: (data) => ({ body: { message: Messages.whatsappSent, data: data.sendWhatsappTemplate } }),
  },
  {
    method: 'POST',
    path: '/user/whatsapp/send-freeform',
    summary: 'Send a free-form message (at most 4,096 characters), only inside the recipient’s 24-hour window (422 outside it), charged like an SMS',
    body: 'input',
    rejectUnknownFields: true,
    errors: ['INSUFFICIENT_BALANCE', 'FORBIDDEN', 'PROVIDER_FAILURE'],
    envelope: messageAnd(),
    document: `mutation SendWhatsappFreeform($input: SendWhatsappFreeformInput!) { sendWhatsappFreeform(input: $input) { ${MESSAGE} } }`,
    variables: (req) => ({ input: req.body }),
    respond: (data) => ({ body: { message: Messages.whatsappSent, data: data.sendWhatsappFreeform } }),
  },
];
