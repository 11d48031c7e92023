import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { selectPrepared } from '../../db/prepared';
import { DomainError, FieldMessages, Messages, NotFoundError, ValidationError } from '../../errors';
import type { Scope } from '../scope';
import type { OutgoingSms, SmsProvider } from '../sms/sms.ports';
import { deliverSms } from '../sms/sms.service';
import { isMessagingChannel, MAX_OUTBOUND, reservePersonMessage } from './conversation.channels';
import { closedError, repliedAfterClose } from './conversation.close';
import { givingBackLease, pollPause, REPLY_WAIT_MS, REPLYING, takingLease } from './conversation.lease';
import type { ConversationReplier, ReplyResult } from './conversation.ports';
import { inTurn } from './conversation.queue';
import { COLUMNS, toConversation, toMessage, type ConversationRow } from './conversation.rows';
import { HISTORY_MESSAGES, type MessageRole, type Sender } from './conversation.rules';
import { ReplyStream, storeAnnounced, storeAnnouncedIf } from './conversation.stream';
import { ConversationExchange, type Conversation, type ConversationMessage } from './conversation.types';

/**
 * A message to a conversation and, when the assistant answers it, its reply: one message of a
 * conversation at a time, in the order they came. No database connection waits on the model:
 * the message is stored with the conversation's update that takes its reply lease, the model
 * answers, and one statement stores the reply with its usage and gives the lease back. A
 * message meanwhile waits in this process (inTurn) or, on another, for the lease. The message
 * is kept whatever the model does; the reply is stored whole, or not at all. A person's
 * message in an SMS or WhatsApp conversation is reserved with it and sent through `sms` after
 * it commits.
 *
 * A reply is the statements it makes: the conversation read (with the history its reply needs
 * and whether its assistant changed), the message stored with the conversation's update, the
 * reply stored with it again, each a round trip whatever the load, and no transaction.
 * `scope.em` runs statements only, and may be the ORM's own (readScopeOf): what needs entities
 * (a person's message reserved and sent) forks it.
 */
export function exchange(
  scope: Scope,
  uuid: string,
  text: string,
  sender: Sender,
  replier: ConversationReplier | null | undefined,
  sms: SmsProvider | null,
): Promise<ConversationExchange> {
  return inTurn(uuid, async () => {
    const turn = await beginTurn(scope, uuid, text, sender, replier, sms);
    if (turn.outgoing) {
      const sent = await deliverSms(scope.em, sms!, turn.outgoing);
      if (sent.status === 'failed') throw new DomainError('PROVIDER_FAILURE', Messages.conversationFailed, undefined, { error: sent.error ?? '' });
    }
    if (!turn.reply) return exchanged(turn.message, null, turn.conversation);
    const { lease, history } = turn.reply;
    const { conversation } = turn;
    // Piece by piece only to someone who follows the conversation: nobody else would read them.
    const stream = turn.reply.watched ? new ReplyStream(scope.em.fork(), scope.accountId, conversation.uuid) : null;
    let answer: ReplyResult | null = null;
    let failure: unknown = null;
    try {
      answer = await replier!.reply({
        accountId: scope.accountId,
        assistantId: conversation.assistant_id!,
        variables: conversation.variables,
        history,
        setupVersion: turn.reply.setupVersion,
        onText: stream ? (delta) => stream.write(delta) : undefined,
      });
    } catch (error) {
      failure = error;
    }
    await stream?.flush();
    const { reply, after } = await endTurn(scope, conversation, lease, answer);
    // A conversation closed while its reply was written: its post-call work, waiting for the lease, runs now.
    if (after.closed_at) await repliedAfterClose(scope.em.fork(), after.id);
    // The customer's message stays, without a reply.
    if (failure) throw failure;
    return exchanged(turn.message, reply, after);
  });
}

export const modelMissing = () => new DomainError('UNAVAILABLE', Messages.conversationModelMissing, undefined, { retry_after: 60 });

/** A message stored, and what its reply needs: null when nobody answers it; a person's message to the customer, reserved. */
interface Turn {
  message: ConversationMessage;
  conversation: Conversation;
  /** `watched`: someone follows the conversation (its reply is streamed). */
  reply: { lease: string; history: { role: MessageRole; content: string }[]; watched: boolean; setupVersion?: string | null } | null;
  outgoing: OutgoingSms | null;
}

/** Why a person's message's transaction ends unwritten: the conversation changed since it was read. */
const ROW_CHANGED = new Error('the conversation changed since it was read');

/** The conversation as a message's turn reads it, with what deciding the message needs. */
type SeenRow = ConversationRow & {
  /** The row's version (its xmin): the message is stored only while the row is still this one. */
  version: string;
  replying: boolean;
  watched: boolean;
  /** The messages it took in the last minute (CONVERSATION_MESSAGES_PER_MINUTE), and when the oldest leaves it. */
  recent: number;
  free_in: number | null;
  /** Its last messages, oldest first: the history of a reply, but for the message being stored. */
  history: { role: MessageRole; content: string }[];
  /** Its assistant's setup version (ConversationReplier.setupVersion), when the replier has one. */
  setup_version?: string | null;
};

/**
 * Stores the message once no reply of the conversation is being written (by another process:
 * this one's wait in inTurn), and takes the reply's lease when the assistant answers it. What
 * the conversation's state refuses (closed, a person while the AI is on, the pace, a person's
 * text the channel cannot carry) is decided on the conversation as one statement read it; a
 * second stores the message with the conversation's update only if the row is still the one
 * read, and else the turn reads it again. A message stored here, a lease taken or given back,
 * a watch, a close and a change of setting all update the row, so what was decided still holds
 * when the message is stored: two statements, no transaction, no connection held between
 * them. A person's message to the customer is reserved with it, in a transaction.
 */
async function beginTurn(
  scope: Scope,
  uuid: string,
  text: string,
  sender: Sender,
  replier: ConversationReplier | null | undefined,
  sms: SmsProvider | null,
): Promise<Turn> {
  const deadline = Date.now() + REPLY_WAIT_MS;
  for (;;) {
    const seen = await readConversation(scope, uuid, replier);
    const conversation = toConversation(seen);
    if (conversation.closed_at) throw closedError();
    if (sender === 'human' && conversation.ai_enabled) throw new ValidationError({ sender: [FieldMessages.humanWhileAiOn] });
    const answers = sender === 'user' && conversation.ai_enabled;
    if (answers) {
      needsReplier(conversation, replier);
      await replier.ensureAnswerable?.({ accountId: scope.accountId, assistantId: conversation.assistant_id!, setupVersion: seen.setup_version });
    }
    const channel = sender === 'human' && isMessagingChannel(conversation.type) ? conversation.type : null;
    if (channel && [...text].length > MAX_OUTBOUND[channel]) throw new ValidationError({ message: [FieldMessages.maxLength('message', MAX_OUTBOUND[channel])] });
    const { messagesPerMinute } = scope.config.conversationLimits;
    if (messagesPerMinute > 0 && seen.recent >= messagesPerMinute) {
      const retryAfter = Math.max(1, seen.free_in ?? 60);
      throw new DomainError('RATE_LIMITED', Messages.conversationTooFast(messagesPerMinute, retryAfter), undefined, { retry_after: retryAfter });
    }
    if (!seen.replying) {
      const lease = answers ? randomUUID() : null;
      const take = lease ? takingLease(lease) : null;
      const update = {
        sql: `update conversations set updated_at = clock_timestamp()${take ? `, ${take.sql}` : ''} where id = ? and xmin = ?::text::xid returning ${COLUMNS}`,
        params: [...(take?.params ?? []), conversation.id, seen.version],
      };
      // Announced when someone follows the conversation: a watch begun since the read changed the row.
      const store = (em: EntityManager) =>
        storeAnnouncedIf<ConversationRow>(em, scope.accountId, conversation, sender, text, update, { sql: '?::boolean', params: [seen.watched] });
      const stored = channel
        ? await scope.em
            .fork()
            .transactional(async (tx) => {
              const outgoing = await reservePersonMessage(tx, scope.config, sms!, scope.accountId, { ...conversation, type: channel, customer_phone: conversation.customer_phone! }, text);
              const message = await store(tx);
              // The reservation goes back with a message that was not stored.
              if (!message) throw ROW_CHANGED;
              return { message, outgoing };
            })
            .catch((error: unknown) => {
              if (error === ROW_CHANGED) return null;
              throw error;
            })
        : await store(scope.em).then((message) => message && { message, outgoing: null });
      if (stored) {
        const history = lease ? [...seen.history, { role: sender, content: text }] : [];
        const reply = lease ? { lease, history, watched: seen.watched, setupVersion: seen.setup_version } : null;
        return { message: toMessage(stored.message), conversation: toConversation(stored.message.alongside), reply, outgoing: stored.outgoing };
      }
    }
    if (Date.now() > deadline) throw new DomainError('UNAVAILABLE', Messages.conversationReplying, undefined, { retry_after: 5 });
    // A reply being written is waited for; a row that changed since it was read is read again at once.
    if (seen.replying) await pollPause();
  }
}

/**
 * The account's conversation `uuid` with its row's version, its pace, its last messages and
 * its assistant's setup version, in one statement.
 */
async function readConversation(scope: Scope, uuid: string, replier: ConversationReplier | null | undefined): Promise<SeenRow> {
  const setupVersion = replier?.setupVersion ? `, ${replier.setupVersion('conversations.assistant_id')} as setup_version` : '';
  const [seen] = await selectPrepared<SeenRow>(
    scope.em,
    `select ${COLUMNS}, xmin::text as version, ${REPLYING}, coalesce(watched_until > now(), false) as watched, recent.n as recent, recent.free_in, last.history${setupVersion}
     from conversations,
       lateral (
         select count(*)::int as n, ceil(extract(epoch from min(m.created_at) + interval '1 minute' - now()))::int as free_in
         from conversation_messages m where m.conversation_id = conversations.id and m.role <> 'assistant' and m.created_at > now() - interval '1 minute') recent,
       lateral (
         select coalesce(json_agg(json_build_object('role', h.role, 'content', h.content) order by h.id), '[]') as history
         from (select id, role, content from conversation_messages where conversation_id = conversations.id order by id desc limit ?) h) last
     where conversations.uuid = ? and conversations.account_id = ?`,
    [HISTORY_MESSAGES - 1, uuid, scope.accountId],
  );
  if (!seen) throw new NotFoundError(Messages.conversationNotFound);
  return seen;
}

/** Stores the reply (when the model gave one) with its usage and gives the lease back, in one statement. */
async function endTurn(
  scope: Scope,
  conversation: Conversation,
  lease: string,
  answer: ReplyResult | null,
): Promise<{ reply: ConversationMessage | null; after: Conversation }> {
  const giveBack = givingBackLease(lease);
  const update = {
    sql: `update conversations set llm_input_tokens = llm_input_tokens + ?, llm_output_tokens = llm_output_tokens + ?, updated_at = clock_timestamp(), ${giveBack.sql}
          where id = ? returning ${COLUMNS}, coalesce(watched_until > now(), false) as watched`,
    params: [answer?.usage.llm_input_tokens ?? 0, answer?.usage.llm_output_tokens ?? 0, ...giveBack.params, conversation.id],
  };
  const { em } = scope;
  if (!answer) {
    const [after] = await selectPrepared<ConversationRow>(em, update.sql, update.params);
    return { reply: null, after: toConversation(after) };
  }
  // Announced when someone follows the conversation now: a subscription begun during the model's answer included.
  const stored = await storeAnnounced<ConversationRow>(em, scope.accountId, conversation, 'assistant', answer.text, update, { sql: 'c.watched', params: [] });
  return { reply: toMessage(stored), after: toConversation(stored.alongside) };
}

function needsReplier(conversation: Conversation, replier: ConversationReplier | null | undefined): asserts replier is ConversationReplier {
  if (conversation.assistant_id === null) throw new NotFoundError(Messages.assistantNotFound);
  if (!replier) throw modelMissing();
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
