import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, FieldErrorCollector, FieldMessages, Messages, NotFoundError } from '../../errors';
import { checkIntRange, checkLength, checkOneOf, checkPositiveInt } from '../../lib/checks';
import { requireAssistant } from '../assistants/assistant.service';
import type { Scope } from '../scope';
import type { SmsProvider } from '../sms/sms.ports';
import type { CreateConversationInput, GenerateAiReplyInput, SendConversationMessageInput } from './conversation.inputs';
import type { ConversationReplier } from './conversation.ports';
import { closedError, closeRow } from './conversation.close';
import { exchange, modelMissing } from './conversation.exchange';
import { COLUMNS, toConversation, toMessage, UUID, type ConversationRow, type MessageRow } from './conversation.rows';
import {
  CONVERSATION_TYPES,
  DEFAULT_PER_PAGE,
  DEMO_CONVERSATION,
  DEMO_CUSTOMER,
  DEMO_WHATSAPP_CUSTOMER,
  DEFAULT_TYPE,
  MAX_CUSTOMER_IDENTIFIER,
  MAX_PER_PAGE,
  OPEN_TYPES,
  SENDERS,
  type Sender,
} from './conversation.rules';
import { Conversation, ConversationExchange, ConversationMessage, ConversationPage } from './conversation.types';

/** The account's conversation; another account's, or a uuid of nothing (or no uuid at all), is not found alike. */
export async function requireConversation(scope: Scope, uuid: string): Promise<Conversation> {
  const [row] = UUID.test(uuid)
    ? await scope.em.execute<ConversationRow[]>(`select ${COLUMNS} from conversations where uuid = ? and account_id = ?`, [uuid, scope.accountId])
    : [];
  if (!row) throw new NotFoundError(Messages.conversationNotFound);
  return toConversation(row);
}

/** The messages of each conversation, oldest first (one statement for a page of them). */
export async function messagesOf(em: EntityManager, ids: readonly string[]): Promise<ConversationMessage[][]> {
  const rows = await em.execute<(MessageRow & { conversation_id: string })[]>(
    'select conversation_id::text, role, content, created_at from conversation_messages where conversation_id = any(?::bigint[]) order by id',
    // As an array literal: the query builder would spread a JS array into a list of parameters.
    [`{${ids.join(',')}}`],
  );
  const byConversation = new Map<string, ConversationMessage[]>(ids.map((id) => [id, []]));
  for (const row of rows) byConversation.get(row.conversation_id)?.push(toMessage(row));
  return ids.map((id) => byConversation.get(id) ?? []);
}

/** A stored message of the account's conversation `uuid` (null: not one of it). */
export async function storedMessage(scope: Scope, uuid: string, messageId: string): Promise<ConversationMessage | null> {
  const [row] = await scope.em.execute<MessageRow[]>(
    `select m.id::text, m.role, m.content, m.created_at from conversation_messages m join conversations c on c.id = m.conversation_id
     where m.id = ?::bigint and c.uuid = ? and c.account_id = ?`,
    [messageId, uuid, scope.accountId],
  );
  return row ? toMessage(row) : null;
}

export interface ConversationFilters {
  type?: string | null;
  assistant_id?: number | null;
  customer_phone?: string | null;
  external_identifier?: string | null;
  per_page?: number | null;
  cursor?: string | null;
}

/** The cursor of the page after the conversation `id` (the pages go newest first). */
const cursorOf = (id: string) => Buffer.from(`c:${id}`).toString('base64url');

function cursorId(cursor: string): string | null {
  const match = /^c:([1-9][0-9]{0,17})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return match ? match[1] : null;
}

/** The account's conversations, newest first, by cursor (`next_cursor`), with the MCP server's filters. */
export async function listConversations(scope: Scope, filters: ConversationFilters): Promise<ConversationPage> {
  const errors = new FieldErrorCollector();
  if (filters.type != null) checkOneOf(errors, 'type', filters.type, CONVERSATION_TYPES);
  if (filters.assistant_id != null) checkPositiveInt(errors, 'assistant_id', filters.assistant_id);
  const perPage = filters.per_page ?? DEFAULT_PER_PAGE;
  checkIntRange(errors, 'per_page', perPage, 1, MAX_PER_PAGE);
  const after = filters.cursor ? cursorId(filters.cursor) : null;
  if (filters.cursor && !after) errors.add('cursor', FieldMessages.cursor);
  errors.throwIfAny();

  const where = ['account_id = ?'];
  const params: unknown[] = [scope.accountId];
  const filter = (sql: string, value: unknown) => {
    where.push(sql);
    params.push(value);
  };
  if (filters.type != null) filter('type = ?', filters.type);
  if (filters.assistant_id != null) filter('assistant_id = ?', filters.assistant_id);
  if (filters.customer_phone) filter('customer_phone = ?', filters.customer_phone);
  if (filters.external_identifier) filter('external_identifier = ?', filters.external_identifier);
  if (after) filter('id < ?::bigint', after);
  // By the table's id: COLUMNS shows it as text, which would sort 10 before 9.
  const rows = await scope.em.execute<ConversationRow[]>(`select ${COLUMNS} from conversations where ${where.join(' and ')} order by conversations.id desc limit ?`, [
    ...params,
    perPage + 1,
  ]);
  const data = rows.slice(0, perPage).map(toConversation);
  return Object.assign(new ConversationPage(), { data, per_page: perPage, next_cursor: rows.length > perPage ? cursorOf(data[data.length - 1].id) : null });
}

/** Opens a conversation with one of the account's assistants. */
export async function createConversation(scope: Scope, input: CreateConversationInput): Promise<Conversation> {
  const errors = new FieldErrorCollector();
  checkPositiveInt(errors, 'assistant_id', input.assistant_id);
  const type = input.type ?? DEFAULT_TYPE;
  checkType(errors, type);
  errors.throwIfAny();
  await requireAssistant(scope, input.assistant_id);
  const [row] = await scope.em.fork().transactional(async (tx) => {
    await checkOpenLimit(tx, scope);
    return tx.execute<ConversationRow[]>(
      `insert into conversations (uuid, account_id, assistant_id, type, variables) values (?, ?, ?, ?, ?::jsonb) returning ${COLUMNS}`,
      [randomUUID(), scope.accountId, input.assistant_id, type, JSON.stringify(input.variables ?? {})],
    );
  });
  return toConversation(row);
}

/**
 * The plan's open conversations per account (CONVERSATION_MAX_OPEN), before one is opened in
 * `tx`: the account's row is locked while they are counted, so parallel opens cannot pass the
 * limit together. A customer's SMS or WhatsApp is never refused for it (the customer cannot
 * know the limit): those open as messages come.
 */
async function checkOpenLimit(tx: EntityManager, scope: Scope): Promise<void> {
  const limit = scope.config.conversationLimits.openPerAccount;
  await tx.execute('select id from accounts where id = ? for no key update', [scope.accountId]);
  const [{ open }] = await tx.execute<{ open: number }[]>('select count(*)::int as open from conversations where account_id = ? and closed_at is null', [
    scope.accountId,
  ]);
  if (open >= limit) throw new DomainError('PLAN_LIMIT', Messages.conversationPlanLimit(limit));
}

function checkType(errors: FieldErrorCollector, type: string): void {
  if (!checkOneOf(errors, 'type', type, CONVERSATION_TYPES)) return;
  if (!OPEN_TYPES.includes(type as (typeof OPEN_TYPES)[number])) errors.add('type', FieldMessages.conversationChannelLater(type));
}

/**
 * A message to a conversation: the customer's (answered by the assistant while the AI is on),
 * or a person's (`sender: human`, while it is off), which in an SMS or WhatsApp conversation
 * goes to the customer through `sms`, charged like an SMS. What the conversation's state
 * refuses is checked under its lock (beginTurn).
 */
export async function sendConversationMessage(
  scope: Scope,
  uuid: string,
  input: SendConversationMessageInput,
  replier: ConversationReplier | null | undefined,
  sms: SmsProvider,
): Promise<ConversationExchange> {
  const errors = new FieldErrorCollector();
  const text = checkLength(errors, 'message', input.message, 1, scope.config.conversationLimits.messageChars);
  const sender = input.sender ?? 'user';
  checkOneOf(errors, 'sender', sender, SENDERS);
  errors.throwIfAny();
  if (!UUID.test(uuid)) throw new NotFoundError(Messages.conversationNotFound);
  return exchange(scope, uuid, text!, sender as Sender, replier, sms);
}

/**
 * POST /ai/generate-reply: the assistant's reply to a customer known by `customer_identifier`,
 * whose `api` conversation with the assistant goes on from one request to the next (opened by
 * the first; while a person has taken it over, the message is kept and nothing answered).
 */
export async function generateAiReply(scope: Scope, input: GenerateAiReplyInput, replier: ConversationReplier | null | undefined): Promise<ConversationExchange> {
  const errors = new FieldErrorCollector();
  checkPositiveInt(errors, 'assistant_id', input.assistant_id);
  const customer = checkLength(errors, 'customer_identifier', input.customer_identifier, 1, MAX_CUSTOMER_IDENTIFIER);
  const text = checkLength(errors, 'message', input.message, 1, scope.config.conversationLimits.messageChars);
  errors.throwIfAny();
  await requireAssistant(scope, input.assistant_id);
  if (!replier) throw modelMissing();
  // Before the conversation is opened: a reply no model can write leaves nothing behind.
  await replier.ensureAnswerable?.({ accountId: scope.accountId, assistantId: input.assistant_id });
  const variables = JSON.stringify(input.variables ?? {});
  const open = (em: EntityManager) =>
    em.execute<{ id: string; uuid: string }[]>(
      `select id::text, uuid::text from conversations where assistant_id = ? and type = 'api' and external_identifier = ? and account_id = ? and closed_at is null`,
      [input.assistant_id, customer, scope.accountId],
    );
  const uuid = await scope.em.fork().transactional(async (tx) => {
    const [found] = await open(tx);
    if (found) {
      await tx.execute('update conversations set variables = variables || ?::jsonb where id = ?', [variables, found.id]);
      return found.uuid;
    }
    // A new conversation for the customer: within the plan (the account's row locked, so the
    // first of two racing requests opens it and the second finds it).
    await checkOpenLimit(tx, scope);
    const [made] = await open(tx);
    if (made) return made.uuid;
    const [row] = await tx.execute<{ uuid: string }[]>(
      `insert into conversations (uuid, account_id, assistant_id, type, external_identifier, variables) values (?, ?, ?, 'api', ?, ?::jsonb) returning uuid::text`,
      [randomUUID(), scope.accountId, input.assistant_id, customer, variables],
    );
    return row.uuid;
  });
  return exchange(scope, uuid, text!, 'user', replier, null);
}

/**
 * POST /conversations/{uuid}/close: no more messages (409 CONFLICT after: the request is
 * well formed, the conversation's state refuses it); its post-call work and
 * conversation-ended webhook go on the job queue with the close. Closing a closed one is a
 * conflict too.
 */
export async function closeConversation(scope: Scope, uuid: string): Promise<Conversation> {
  const conversation = await requireConversation(scope, uuid);
  const closed = await scope.em.fork().transactional((tx) => closeRow(tx, conversation.id));
  if (!closed) throw closedError();
  return requireConversation(scope, uuid);
}

/** Human takeover: the AI off (a person answers, with `sender: human`), or on again. */
export async function setConversationAi(scope: Scope, uuid: string, enabled: boolean): Promise<Conversation> {
  const [row] = UUID.test(uuid)
    ? await scope.em.execute<ConversationRow[]>(
        `update conversations set ai_enabled = ?, updated_at = now() where uuid = ? and account_id = ? returning ${COLUMNS}`,
        [enabled, uuid, scope.accountId],
      )
    : [];
  if (!row) throw new NotFoundError(Messages.conversationNotFound);
  return toConversation(row);
}

/**
 * The demo's WhatsApp customer (DEMO_WHATSAPP_CUSTOMER), whose message the demo's number took at
 * a first start, as Twilio's messaging webhook stores one: its conversation with the number's
 * inbound assistant, taken over by a person (nothing is answered), its window open for a day.
 */
export async function seedDemoWhatsapp(em: EntityManager, accountId: number, assistantId: number): Promise<void> {
  await em.execute(
    `with c as (
       insert into conversations (uuid, account_id, assistant_id, type, customer_phone, ai_enabled) values (?, ?, ?, 'whatsapp', ?, false) returning id)
     insert into conversation_messages (conversation_id, role, content, provider_message_id, handled_at) select c.id, 'user', ?, ?, now() from c`,
    [randomUUID(), accountId, assistantId, DEMO_WHATSAPP_CUSTOMER, 'Oi! Meu pedido já saiu?', `SM${'de'.repeat(16)}`],
  );
}

/** The demo account's conversation (DEMO_CONVERSATION), on a first start. */
export async function seedDemoConversation(em: EntityManager, accountId: number, assistantId: number): Promise<void> {
  await em.execute(
    `insert into conversations (uuid, account_id, assistant_id, type, external_identifier, ai_enabled) values (?, ?, ?, 'api', ?, false)`,
    [DEMO_CONVERSATION, accountId, assistantId, DEMO_CUSTOMER],
  );
}
