import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, FieldErrorCollector, FieldMessages, Messages, NotFoundError, ValidationError } from '../../errors';
import { checkOneOf, checkPositiveInt } from '../../lib/checks';
import { parsePhone } from '../../lib/phone';
import { customerWindow, MAX_OUTBOUND } from '../conversations/conversation.channels';
import { announceMessage } from '../conversations/conversation.stream';
import { SmsProviderError, type OutgoingSms, type SmsProvider } from '../sms/sms.ports';
import { deliverSms, reserveSms } from '../sms/sms.service';
import type { Scope } from '../scope';

/**
 * WhatsApp senders and templates as the original platform's MCP server reads them (design.md,
 * "Conversations"). A sender is one of the account's numbers marked `whatsapp`; a template is
 * the provider's (Twilio's Content API), known to the account by an integer id. A message goes
 * out through the SMS provider on the whatsapp channel, charged like an SMS, and is written
 * into the customer's whatsapp conversation with the sender's inbound assistant, as a person's
 * (`human`) message: nobody's model wrote it.
 */

/** WhatsApp's limit on a free-form message's text. */
export const MAX_FREEFORM = MAX_OUTBOUND.whatsapp;
const MAX_VARIABLES = 100;
const MAX_VARIABLE = 1024;

export const SENDER_STATUSES = ['online', 'offline', 'all'] as const;
export const TEMPLATE_STATUSES = ['approved', 'pending', 'rejected', 'unsubmitted', 'all'] as const;

export interface SenderRecord {
  id: number;
  phone_number: string;
  /** online: it sends; offline: its subscription expired. */
  status: string;
  assistant_id: number | null;
  expires_at: string | null;
}

export interface TemplateRecord {
  id: number;
  sid: string;
  name: string;
  language: string | null;
  category: string | null;
  status: string;
  body: string | null;
  variables: Record<string, string>;
}

export interface WhatsappSendRecord {
  id: number;
  sender_id: number;
  recipient_phone: string;
  body: string;
  template_id: number | null;
  status: string;
  segments: number;
  total_cost: string;
  message_sid: string | null;
  conversation_uuid: string;
}

export interface SessionStatusRecord {
  sender_id: number;
  recipient_phone: string;
  session_open: boolean;
  last_inbound_at: string | null;
  expires_at: string | null;
}

interface SenderRow {
  id: number;
  number: string;
  expired: boolean;
  /** The number's inbound assistant: its whatsapp conversations are the sender's. */
  assistant_id: number | null;
}

/**
 * A sender's (`p`, a phone number) state in a select list: whether its subscription expired,
 * and its inbound assistant, whose whatsapp conversations are the sender's.
 */
const SENDER_STATE = `coalesce(p.subscription_expires_at < current_date, false) as expired,
       (select min(a.id) from assistants a where a.phone_number_id = p.id and a.calls_direction = 'receive') as assistant_id`;

/** The account's WhatsApp senders, oldest first: by default the online ones. */
export async function listSenders(scope: Scope, status?: string | null): Promise<SenderRecord[]> {
  const errors = new FieldErrorCollector();
  const wanted = status ?? 'online';
  checkOneOf(errors, 'status', wanted, SENDER_STATUSES);
  errors.throwIfAny();
  const rows = await scope.em.execute<(SenderRecord & { expired: boolean })[]>(
    `select p.id, p.number as phone_number, to_char(p.subscription_expires_at, 'YYYY-MM-DD') as expires_at,
       ${SENDER_STATE}
     from phone_numbers p where p.account_id = ? and p.whatsapp_enabled order by p.id`,
    [scope.accountId],
  );
  return rows
    .map(({ expired, ...row }) => ({ ...row, status: expired ? 'offline' : 'online' }))
    .filter((row) => wanted === 'all' || row.status === wanted);
}

async function requireSender(em: EntityManager, scope: Scope, senderId: number, lock = false): Promise<SenderRow> {
  const [sender] = await em.execute<SenderRow[]>(
    `select p.id, p.number, ${SENDER_STATE}
     from phone_numbers p where p.id = ? and p.account_id = ? and p.whatsapp_enabled${lock ? ' for no key update of p' : ''}`,
    [senderId, scope.accountId],
  );
  if (!sender) throw new NotFoundError(Messages.whatsappSenderNotFound);
  return sender;
}

/**
 * The provider's templates for the sender, by default the approved ones. Each is kept for the
 * account (its id is the account's from then on), refreshed from the provider on every list.
 */
export async function listTemplates(scope: Scope, provider: SmsProvider, senderId: number, status?: string | null): Promise<TemplateRecord[]> {
  const errors = new FieldErrorCollector();
  const wanted = status ?? 'approved';
  checkOneOf(errors, 'status', wanted, TEMPLATE_STATUSES);
  errors.throwIfAny();
  await requireSender(scope.em, scope, senderId);
  let templates;
  try {
    templates = await provider.templates();
  } catch (error) {
    if (!(error instanceof SmsProviderError)) throw error;
    throw new DomainError('PROVIDER_FAILURE', Messages.whatsappTemplatesFailed, undefined, { error: error.detail });
  }
  if (templates.length === 0) return [];
  // One statement for the whole list: the templates as the provider has them now, with their ids.
  const rows = await scope.em.execute<(TemplateRecord & { content_sid: string })[]>(
    `insert into whatsapp_templates (account_id, content_sid, name, language, body, variables, category, status, updated_at)
     select ?, t.sid, t.name, t.language, t.body, t.variables, t.category, t.status, now()
     from jsonb_to_recordset(?::jsonb) as t(sid text, name text, language text, body text, variables jsonb, category text, status text)
     on conflict (account_id, content_sid) do update set name = excluded.name, language = excluded.language, body = excluded.body,
       variables = excluded.variables, category = excluded.category, status = excluded.status, updated_at = excluded.updated_at
     returning id, content_sid, name, language, category, status, body, variables`,
    [scope.accountId, JSON.stringify(templates)],
  );
  const order = new Map(templates.map((t, index) => [t.sid, index]));
  return rows
    .sort((a, b) => order.get(a.content_sid)! - order.get(b.content_sid)!)
    .filter((row) => wanted === 'all' || row.status === wanted)
    .map(({ content_sid, ...row }) => ({ ...row, sid: content_sid }));
}

export interface SendTemplateInput {
  sender_id: number;
  template_id: number;
  recipient_phone: string;
  recipient_name?: string | null;
  variables?: Record<string, unknown> | null;
}

export interface SendFreeformInput {
  sender_id: number;
  recipient_phone: string;
  message: string;
}

/** The template's text with its variables filled in: a variable not given keeps nothing of its sample. */
function render(body: string, variables: Record<string, string>): string {
  return body.replace(/\{\{\s*([^{}\s]+)\s*\}\}/g, (_, name: string) => variables[name] ?? '');
}

function checkVariables(errors: FieldErrorCollector, given: Record<string, unknown> | null | undefined): Record<string, string> {
  const variables: Record<string, string> = {};
  if (given == null) return variables;
  const entries = Object.entries(given);
  if (entries.length > MAX_VARIABLES) errors.add('variables', FieldMessages.whatsappVariables(MAX_VARIABLES, MAX_VARIABLE));
  for (const [name, value] of entries.slice(0, MAX_VARIABLES)) {
    if ((typeof value !== 'string' && typeof value !== 'number') || String(value).length > MAX_VARIABLE || name.length > 64) {
      errors.add('variables', FieldMessages.whatsappVariables(MAX_VARIABLES, MAX_VARIABLE));
      break;
    }
    variables[name] = String(value);
  }
  return variables;
}

/** Sends an approved template to the recipient, charged like an SMS, and writes it into their conversation. */
export async function sendTemplate(scope: Scope, provider: SmsProvider, input: SendTemplateInput): Promise<WhatsappSendRecord> {
  const errors = new FieldErrorCollector();
  checkPositiveInt(errors, 'sender_id', input.sender_id);
  checkPositiveInt(errors, 'template_id', input.template_id);
  const variables = checkVariables(errors, input.variables);
  errors.throwIfAny();
  return send(scope, provider, input, async (tx) => {
    const [template] = await tx.execute<{ id: number; content_sid: string; body: string | null; variables: Record<string, string>; status: string }[]>(
      'select id, content_sid, body, variables, status from whatsapp_templates where id = ? and account_id = ?',
      [input.template_id, scope.accountId],
    );
    if (!template) throw new NotFoundError(Messages.whatsappTemplateNotFound);
    if (template.status !== 'approved') throw new ValidationError({ template_id: [FieldMessages.whatsappTemplateNotApproved(template.status)] });
    const missing = Object.keys(template.variables).filter((name) => !(name in variables));
    if (missing.length) throw new ValidationError({ variables: [FieldMessages.whatsappVariablesMissing(missing)] });
    return { body: render(template.body ?? '', variables), templateId: template.id, contentSid: template.content_sid, contentVariables: variables };
  });
}

/** Sends a free-form message, only inside the recipient's 24-hour window with the sender. */
export async function sendFreeform(scope: Scope, provider: SmsProvider, input: SendFreeformInput): Promise<WhatsappSendRecord> {
  const errors = new FieldErrorCollector();
  checkPositiveInt(errors, 'sender_id', input.sender_id);
  const characters = [...input.message].length;
  if (input.message.trim() === '') errors.add('message', FieldMessages.required('message'));
  else if (characters > MAX_FREEFORM) errors.add('message', FieldMessages.maxLength('message', MAX_FREEFORM));
  errors.throwIfAny();
  return send(scope, provider, input, async (tx, sender, to) => {
    const window = await sessionOf(tx, scope.accountId, sender, to);
    if (!window.session_open) throw new ValidationError({ recipient_phone: [Messages.whatsappWindowClosed] }, Messages.whatsappWindowClosed);
    return { body: input.message, templateId: null };
  });
}

interface Prepared {
  body: string;
  templateId: number | null;
  contentSid?: string;
  contentVariables?: Record<string, string>;
}

/**
 * A send in the order of send_sms's checks: the sender, the recipient, the do-not-call list,
 * then what `prepare` checks, then the reservation (the balance) with the conversation's
 * message in the same transaction; the provider is called after it commits.
 */
async function send(
  scope: Scope,
  provider: SmsProvider,
  input: { sender_id: number; recipient_phone: string },
  prepare: (tx: EntityManager, sender: SenderRow, to: string) => Promise<Prepared>,
): Promise<WhatsappSendRecord> {
  const reserved = await scope.em.transactional(async (tx) => {
    // The sender's row lock orders the opening of its conversations (below).
    const sender = await requireSender(tx, scope, input.sender_id, true);
    if (sender.expired) throw new DomainError('FORBIDDEN', Messages.senderExpired);
    const recipient = parsePhone(input.recipient_phone ?? '', scope.config.defaultPhoneRegion);
    if (!recipient) throw new ValidationError({ recipient_phone: [FieldMessages.phone('recipient_phone')] }, Messages.recipientInvalid);
    const to = recipient.number;
    const [listed] = await tx.execute('select 1 from dnc_numbers where account_id = ? and phone_number = ?', [scope.accountId, to]);
    if (listed) throw new ValidationError({ recipient_phone: [FieldMessages.doNotCall] });
    const prepared = await prepare(tx, sender, to);
    const conversation = await openConversation(tx, scope.accountId, sender, to);
    const outgoing = await reserveSms(tx, scope.config, provider, {
      accountId: scope.accountId,
      sender,
      to,
      country: recipient.country,
      body: prepared.body,
      channel: 'whatsapp',
      conversationId: conversation.id,
    });
    const [row] = await tx.execute<{ id: string }[]>(
      `insert into conversation_messages (conversation_id, role, content, created_at) values (?, 'human', ?, clock_timestamp()) returning id::text`,
      [conversation.id, prepared.body],
    );
    await tx.execute('update conversations set updated_at = clock_timestamp() where id = ?', [conversation.id]);
    await announceMessage(tx, scope.accountId, conversation.uuid, row.id);
    const message: OutgoingSms = prepared.contentSid ? { ...outgoing, contentSid: prepared.contentSid, contentVariables: prepared.contentVariables } : outgoing;
    return { message, sender, to, conversation, templateId: prepared.templateId };
  });
  const sms = await deliverSms(scope.em, provider, reserved.message);
  if (sms.status === 'failed') throw new DomainError('PROVIDER_FAILURE', Messages.whatsappFailed, undefined, { error: sms.error ?? '' });
  return {
    id: sms.id,
    sender_id: reserved.sender.id,
    recipient_phone: reserved.to,
    body: sms.body,
    template_id: reserved.templateId,
    status: sms.status,
    segments: sms.segments,
    total_cost: String(sms.total_cost),
    message_sid: sms.sms_sid,
    conversation_uuid: reserved.conversation.uuid,
  };
}

/**
 * The customer's open whatsapp conversation with the sender's inbound assistant, opened when
 * there is none, as an inbound message opens it (conversation.inbound.ts): one per assistant
 * and customer, the unique index settling a race with an inbound message. A sender no
 * assistant answers has its conversations without one; the sender's row lock (taken by the
 * caller) keeps those to one.
 */
async function openConversation(tx: EntityManager, accountId: number, sender: SenderRow, to: string): Promise<{ id: string; uuid: string }> {
  const find = () =>
    tx.execute<{ id: string; uuid: string }[]>(
      `select id::text, uuid::text from conversations
       where account_id = ? and assistant_id is not distinct from ? and type = 'whatsapp' and customer_phone = ? and closed_at is null order by id limit 1`,
      [accountId, sender.assistant_id, to],
    );
  const [found] = await find();
  if (found) return found;
  await tx.execute(
    `insert into conversations (uuid, account_id, assistant_id, type, customer_phone) values (?, ?, ?, 'whatsapp', ?)
     on conflict (assistant_id, type, customer_phone) where type in ('sms', 'whatsapp') and closed_at is null do nothing`,
    [randomUUID(), accountId, sender.assistant_id, to],
  );
  const [made] = await find();
  return made;
}

/** The recipient's window with the sender: its inbound assistant's (conversation.channels.ts). */
async function sessionOf(em: EntityManager, accountId: number, sender: SenderRow, to: string): Promise<SessionStatusRecord> {
  const window = await customerWindow(em, accountId, sender.assistant_id, to);
  return {
    sender_id: sender.id,
    recipient_phone: to,
    session_open: window.open,
    last_inbound_at: window.lastInboundAt?.toISOString() ?? null,
    expires_at: window.expiresAt?.toISOString() ?? null,
  };
}

/** Whether the recipient's 24-hour window with the sender is open, and until when. */
export async function sessionStatus(scope: Scope, senderId: number, recipientPhone: string): Promise<SessionStatusRecord> {
  const errors = new FieldErrorCollector();
  checkPositiveInt(errors, 'sender_id', senderId);
  errors.throwIfAny();
  const sender = await requireSender(scope.em, scope, senderId);
  const recipient = parsePhone(recipientPhone, scope.config.defaultPhoneRegion);
  if (!recipient) throw new ValidationError({ recipient_phone: [FieldMessages.phone('recipient_phone')] }, Messages.recipientInvalid);
  return sessionOf(scope.em, scope.accountId, sender, recipient.number);
}
