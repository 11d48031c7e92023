import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, FieldErrorCollector, FieldMessages, Messages, NotFoundError, ValidationError } from '../../errors';
import { checkIntRange, checkLength, checkOneOf, checkPositiveInt } from '../../lib/checks';
import { requireAssistant } from '../assistants/assistant.service';
import type { Scope } from '../scope';
import type { OutgoingSms, SmsProvider } from '../sms/sms.ports';
import { deliverSms } from '../sms/sms.service';
import { isMessagingChannel, MAX_OUTBOUND, reservePersonMessage } from './conversation.channels';
import type { CreateConversationInput, GenerateAiReplyInput, SendConversationMessageInput } from './conversation.inputs';
import type { ConversationReplier, ReplyResult } from './conversation.ports';
import { closedError, closeRow, repliedAfterClose } from './conversation.close';
import { givingBackLease, pollPause, REPLY_WAIT_MS, REPLYING, takingLease } from './conversation.lease';
import { inTurn } from './conversation.queue';
import { ReplyStream, storeAnnounced } from './conversation.stream';
import {
  CONVERSATION_TYPES,
  DEFAULT_PER_PAGE,
  DEMO_CONVERSATION,
  DEMO_CUSTOMER,
  DEMO_WHATSAPP_CUSTOMER,
  DEFAULT_TYPE,
  HISTORY_MESSAGES,
  MAX_CUSTOMER_IDENTIFIER,
  MAX_PER_PAGE,
  OPEN_TYPES,
  SENDERS,
  type MessageRole,
  type Sender,
} from './conversation.rules';
import { Conversation, ConversationExchange, ConversationMessage, ConversationPage } from './conversation.types';

/**
 * `total_cost`: the conversation's own (its model's, none yet) plus the SMS its replies went
 * out as (sms and whatsapp conversations), those that stand: a refused one was refunded.
 */
const COLUMNS = `id::text, uuid::text, type, assistant_id, customer_phone, external_identifier, variables, ai_enabled,
  llm_input_tokens, llm_output_tokens, created_at, updated_at, closed_at, extracted_variables, evaluation,
  (total_cost + coalesce((select sum(s.total_cost) from sms_messages s where s.conversation_id = conversations.id and s.status <> 'failed'), 0))::text as total_cost`;

interface ConversationRow {
  id: string;
  uuid: string;
  type: string;
  assistant_id: number | null;
  customer_phone: string | null;
  external_identifier: string | null;
  variables: Record<string, unknown>;
  ai_enabled: boolean;
  llm_input_tokens: string | number;
  llm_output_tokens: string | number;
  total_cost: string;
  created_at: Date;
  updated_at: Date;
  closed_at: Date | null;
  extracted_variables: Record<string, unknown> | null;
  evaluation: Record<string, unknown> | null;
}

interface MessageRow {
  id: string;
  role: string;
  content: string;
  created_at: Date;
}

function toConversation(row: ConversationRow): Conversation {
  return Object.assign(new Conversation(), {
    id: row.id,
    uuid: row.uuid,
    type: row.type,
    assistant_id: row.assistant_id,
    customer_phone: row.customer_phone,
    external_identifier: row.external_identifier,
    variables: row.variables,
    ai_enabled: row.ai_enabled,
    usage: { llm_input_tokens: Number(row.llm_input_tokens), llm_output_tokens: Number(row.llm_output_tokens) },
    total_cost: row.total_cost,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
    closed_at: row.closed_at ? new Date(row.closed_at).toISOString() : null,
    extracted_variables: row.extracted_variables,
    evaluation: row.evaluation,
  });
}

function toMessage(row: MessageRow): ConversationMessage {
  return Object.assign(new ConversationMessage(), { role: row.role, content: row.content, created_at: new Date(row.created_at).toISOString() });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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
 * goes to the customer through `sms`, charged like an SMS.
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
  const conversation = await requireConversation(scope, uuid);
  if (conversation.closed_at) throw closedError();
  if (sender === 'human' && conversation.ai_enabled) throw new ValidationError({ sender: [FieldMessages.humanWhileAiOn] });
  if (sender === 'user' && conversation.ai_enabled) needsReplier(conversation, replier);
  const channel = sender === 'human' && isMessagingChannel(conversation.type) ? conversation.type : null;
  if (channel && [...text!].length > MAX_OUTBOUND[channel]) throw new ValidationError({ message: [FieldMessages.maxLength('message', MAX_OUTBOUND[channel])] });
  return exchange(scope, conversation.id, text!, sender as Sender, replier, sms);
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
  const variables = JSON.stringify(input.variables ?? {});
  const open = (em: EntityManager) =>
    em.execute<{ id: string }[]>(
      `select id::text from conversations where assistant_id = ? and type = 'api' and external_identifier = ? and account_id = ? and closed_at is null`,
      [input.assistant_id, customer, scope.accountId],
    );
  const id = await scope.em.fork().transactional(async (tx) => {
    const [found] = await open(tx);
    if (found) {
      await tx.execute('update conversations set variables = variables || ?::jsonb where id = ?', [variables, found.id]);
      return found.id;
    }
    // A new conversation for the customer: within the plan (the account's row locked, so the
    // first of two racing requests opens it and the second finds it).
    await checkOpenLimit(tx, scope);
    const [made] = await open(tx);
    if (made) return made.id;
    const [row] = await tx.execute<{ id: string }[]>(
      `insert into conversations (uuid, account_id, assistant_id, type, external_identifier, variables) values (?, ?, ?, 'api', ?, ?::jsonb) returning id::text`,
      [randomUUID(), scope.accountId, input.assistant_id, customer, variables],
    );
    return row.id;
  });
  return exchange(scope, id, text!, 'user', replier, null);
}

function needsReplier(conversation: Conversation, replier: ConversationReplier | null | undefined): asserts replier is ConversationReplier {
  if (conversation.assistant_id === null) throw new NotFoundError(Messages.assistantNotFound);
  if (!replier) throw modelMissing();
}

const modelMissing = () => new DomainError('UNAVAILABLE', Messages.conversationModelMissing, undefined, { retry_after: 60 });

/** A message stored, and what its reply needs: null when nobody answers it; a person's message to the customer, reserved. */
interface Turn {
  message: ConversationMessage;
  conversation: Conversation;
  reply: { lease: string; history: { role: MessageRole; content: string }[] } | null;
  outgoing: OutgoingSms | null;
}

/**
 * Stores a message and, when the assistant answers it, its reply: one message of a conversation
 * at a time, in the order they came. No database connection waits on the model: the message is
 * stored in a short transaction that also takes the conversation's reply lease, the model
 * answers, and a second one stores the reply with its usage and gives the lease back. A message
 * meanwhile waits in this process (inTurn) or, on another, for the lease. The message is kept
 * whatever the model does; the reply is stored whole, or not at all. A person's message in an
 * SMS or WhatsApp conversation is reserved with it and sent through `sms` after it commits.
 */
function exchange(
  scope: Scope,
  id: string,
  text: string,
  sender: Sender,
  replier: ConversationReplier | null | undefined,
  sms: SmsProvider | null,
): Promise<ConversationExchange> {
  return inTurn(id, async () => {
    const turn = await beginTurn(scope, id, text, sender, replier, sms);
    if (turn.outgoing) {
      const sent = await deliverSms(scope.em, sms!, turn.outgoing);
      if (sent.status === 'failed') throw new DomainError('PROVIDER_FAILURE', Messages.conversationFailed, undefined, { error: sent.error ?? '' });
    }
    if (!turn.reply) return exchanged(turn.message, null, turn.conversation);
    const { lease, history } = turn.reply;
    const stream = new ReplyStream(scope.em.fork(), scope.accountId, turn.conversation.uuid);
    let answer: ReplyResult | null = null;
    let failure: unknown = null;
    try {
      answer = await replier!.reply({
        accountId: scope.accountId,
        assistantId: turn.conversation.assistant_id!,
        variables: turn.conversation.variables,
        history,
        onText: (delta) => stream.write(delta),
      });
    } catch (error) {
      failure = error;
    }
    await stream.flush();
    const { reply, conversation } = await scope.em.fork().transactional(async (tx) => {
      const stored = answer ? toMessage(await storeAnnounced(tx, scope.accountId, turn.conversation, 'assistant', answer.text)) : null;
      const giveBack = givingBackLease(lease);
      const [after] = await tx.execute<ConversationRow[]>(
        `update conversations set llm_input_tokens = llm_input_tokens + ?, llm_output_tokens = llm_output_tokens + ?, updated_at = clock_timestamp(), ${giveBack.sql}
         where id = ? returning ${COLUMNS}`,
        [answer?.usage.llm_input_tokens ?? 0, answer?.usage.llm_output_tokens ?? 0, ...giveBack.params, id],
      );
      if (after.closed_at) await repliedAfterClose(tx, id);
      return { reply: stored, conversation: toConversation(after) };
    });
    // The customer's message stays, without a reply.
    if (failure) throw failure;
    return exchanged(turn.message, reply, conversation);
  });
}

/**
 * Stores the message in a short transaction, once no reply of the conversation is being
 * written (by another process: this one's wait in inTurn), and takes the reply's lease when
 * the assistant answers it.
 */
async function beginTurn(
  scope: Scope,
  id: string,
  text: string,
  sender: Sender,
  replier: ConversationReplier | null | undefined,
  sms: SmsProvider | null,
): Promise<Turn> {
  const deadline = Date.now() + REPLY_WAIT_MS;
  for (;;) {
    const turn = await scope.em.fork().transactional(async (tx): Promise<Turn | null> => {
      // No key update: the message's foreign key check (key share) is not blocked by it.
      // With the messages it took in the last minute (CONVERSATION_MESSAGES_PER_MINUTE), counted under its lock.
      const [locked] = await tx.execute<(ConversationRow & { replying: boolean; recent: number; free_in: number | null })[]>(
        `select ${COLUMNS}, ${REPLYING}, recent.n as recent, recent.free_in
         from conversations, lateral (
           select count(*)::int as n, ceil(extract(epoch from min(m.created_at) + interval '1 minute' - now()))::int as free_in
           from conversation_messages m where m.conversation_id = conversations.id and m.role <> 'assistant' and m.created_at > now() - interval '1 minute') recent
         where conversations.id = ? for no key update of conversations`,
        [id],
      );
      const conversation = toConversation(locked);
      // It may have been closed, or its AI turned on or off, while this message waited.
      if (conversation.closed_at) throw closedError();
      if (sender === 'human' && conversation.ai_enabled) throw new ValidationError({ sender: [FieldMessages.humanWhileAiOn] });
      const { messagesPerMinute } = scope.config.conversationLimits;
      if (messagesPerMinute > 0 && locked.recent >= messagesPerMinute) {
        const retryAfter = Math.max(1, locked.free_in ?? 60);
        throw new DomainError('RATE_LIMITED', Messages.conversationTooFast(messagesPerMinute, retryAfter), undefined, { retry_after: retryAfter });
      }
      const answers = sender === 'user' && conversation.ai_enabled;
      if (answers) needsReplier(conversation, replier);
      if (locked.replying) return null;
      const channel = sender === 'human' && isMessagingChannel(conversation.type) ? conversation.type : null;
      const outgoing = channel
        ? await reservePersonMessage(tx, scope.config, sms!, scope.accountId, { ...conversation, type: channel, customer_phone: conversation.customer_phone! }, text)
        : null;
      const message = await storeAnnounced(tx, scope.accountId, conversation, sender, text);
      const lease = answers ? randomUUID() : null;
      const take = lease ? takingLease(lease) : null;
      const [after] = await tx.execute<ConversationRow[]>(
        `update conversations set updated_at = clock_timestamp()${take ? `, ${take.sql}` : ''} where id = ? returning ${COLUMNS}`,
        [...(take?.params ?? []), id],
      );
      const history = answers
        ? await tx.execute<{ role: MessageRole; content: string }[]>(
            'select role, content from (select id, role, content from conversation_messages where conversation_id = ? order by id desc limit ?) m order by id',
            [id, HISTORY_MESSAGES],
          )
        : [];
      return { message: toMessage(message), conversation: toConversation(after), reply: lease ? { lease, history } : null, outgoing };
    });
    if (turn) return turn;
    if (Date.now() > deadline) throw new DomainError('UNAVAILABLE', Messages.conversationReplying, undefined, { retry_after: 5 });
    await pollPause();
  }
}

function exchanged(message: ConversationMessage, reply: ConversationMessage | null, conversation: Conversation): ConversationExchange {
  return Object.assign(new ConversationExchange(), {
    uuid: conversation.uuid,
    message,
    reply,
    ai_enabled: conversation.ai_enabled,
    usage: conversation.usage,
    total_cost: conversation.total_cost,
  });
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
