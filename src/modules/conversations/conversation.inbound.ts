import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../config';
import { DomainError, Messages } from '../../errors';
import { enqueue } from '../../jobs/queue';
import { parsePhone } from '../../lib/phone';
import type { Logger } from '../../log';
import { listNumber } from '../dnc/dnc.service';
import type { SmsProvider } from '../sms/sms.ports';
import { deliverSms, reserveSms } from '../sms/sms.service';
import { conversationSender, MAX_OUTBOUND, type ChannelSender } from './conversation.channels';
import type { ConversationReplier } from './conversation.ports';
import { inTurn } from './conversation.queue';
import { announceMessage, storeAnnounced } from './conversation.stream';
import { giveBackLease, pollPause, REPLY_WAIT_MS, REPLYING, takeLease } from './conversation.lease';
import { HISTORY_MESSAGES, keywordOf, OPT_IN_KEYWORDS, OPT_OUT_KEYWORDS, OPT_OUT_REASON, type MessageRole } from './conversation.rules';

/**
 * SMS and WhatsApp in (design.md, "Conversations"): a customer's message to one of an
 * account's numbers, as Twilio's messaging webhook brings it, opens or continues the
 * customer's conversation with the number's inbound assistant (the one that answers its
 * calls). The webhook only stores the message and queues its answer, so that Twilio is
 * answered at once whatever the model takes; the job answers it through the SMS provider,
 * charged like an SMS. Twilio's MessageSid is unique among the messages: a retried or raced
 * webhook stores the message once, and a message is answered once (`handled_at`).
 */

export interface InboundMessage {
  /** Twilio's MessageSid. */
  sid: string;
  /** The customer: E.164, or `whatsapp:+E164`. */
  from: string;
  /** The account's number, likewise. */
  to: string;
  body: string;
  /** Twilio's OptOutType: present when Twilio's Advanced Opt-Out handled the keyword (and answered it) itself. */
  optOutType?: string;
}

export type InboundOutcome = 'stored' | 'repeated' | 'unanswered-number' | 'invalid';

const SID = /^[A-Za-z]{2}[0-9a-fA-F]{32}$/;

/**
 * Stores an inbound message in its conversation and queues its answer (one transaction),
 * taking no lock a reply in progress holds: a message that arrives while the assistant writes
 * is stored at once. Answers what became of it.
 */
export async function receiveInbound(em: EntityManager, config: Pick<Config, 'defaultPhoneRegion' | 'conversationLimits'>, message: InboundMessage): Promise<InboundOutcome> {
  const whatsapp = message.from.startsWith('whatsapp:');
  const bare = (address: string) => address.replace(/^whatsapp:/, '');
  const from = parsePhone(bare(message.from), config.defaultPhoneRegion)?.number;
  const to = parsePhone(bare(message.to), config.defaultPhoneRegion)?.number;
  if (!SID.test(message.sid) || !from || !to) return 'invalid';
  const [found] = await em.execute<{ assistant_id: number; account_id: number }[]>(
    `select a.id as assistant_id, a.account_id from assistants a join phone_numbers p on p.id = a.phone_number_id
     where p.number = ? and a.calls_direction = 'receive' and (p.subscription_expires_at is null or p.subscription_expires_at >= current_date)
     order by a.id limit 1`,
    [to],
  );
  if (!found) return 'unanswered-number';
  const type = whatsapp ? 'whatsapp' : 'sms';
  const text = [...message.body].slice(0, config.conversationLimits.messageChars).join('');
  return em.fork().transactional(async (tx) => {
    // The customer's open conversation, made by the first of two racing messages (the unique index).
    await tx.execute(
      `insert into conversations (uuid, account_id, assistant_id, type, customer_phone) values (?, ?, ?, ?, ?)
       on conflict (assistant_id, type, customer_phone) where type in ('sms', 'whatsapp') and closed_at is null do nothing`,
      [randomUUID(), found.account_id, found.assistant_id, type, from],
    );
    const [conversation] = await tx.execute<{ id: string; uuid: string }[]>(
      'select id::text, uuid::text from conversations where assistant_id = ? and type = ? and customer_phone = ? and closed_at is null',
      [found.assistant_id, type, from],
    );
    const [stored] = await tx.execute<{ id: string }[]>(
      `insert into conversation_messages (conversation_id, role, content, created_at, provider_message_id) values (?, 'user', ?, clock_timestamp(), ?)
       on conflict (provider_message_id) where provider_message_id is not null do nothing returning id::text`,
      [conversation.id, text, message.sid],
    );
    if (!stored) return 'repeated';
    await announceMessage(tx, found.account_id, conversation.uuid, stored.id);
    await enqueue(tx, 'conversations:inbound', { message_sid: message.sid, opt_out_type: message.optOutType ?? null });
    return 'stored';
  });
}

/** What answering an inbound message needs. */
export interface InboundDeps {
  config: Config;
  sms: SmsProvider;
  replier: ConversationReplier;
  logger: Logger;
}

interface LockedConversation {
  id: string;
  uuid: string;
  account_id: number;
  assistant_id: number | null;
  type: 'sms' | 'whatsapp';
  customer_phone: string;
  variables: Record<string, unknown>;
  ai_enabled: boolean;
  closed: boolean;
}

/**
 * The job of `conversations:inbound`: answers the inbound message `sid`, and first the
 * messages of its conversation that came before it and wait for their answer, in order. Each
 * is answered at most once: the decision is committed with the message marked handled (and,
 * when the assistant answers, the conversation's reply lease taken); the model answers
 * outside any transaction; the reply is stored, its SMS reserved and the lease given back in a
 * second one, and the SMS delivered after it.
 */
export async function answerInbound(em: EntityManager, deps: InboundDeps, sid: string, optOutType: string | null): Promise<void> {
  const [target] = await em.execute<{ id: string; conversation_id: string; uuid: string }[]>(
    `select m.id::text, m.conversation_id::text, c.uuid::text from conversation_messages m join conversations c on c.id = m.conversation_id
     where m.provider_message_id = ?`,
    [sid],
  );
  if (!target) return;
  // In turn with the API's messages to the conversation (conversation.exchange.ts), by its uuid.
  await inTurn(target.uuid, async () => {
    const waiting = await em.execute<{ id: string }[]>(
      `select id::text from conversation_messages where conversation_id = ? and provider_message_id is not null and handled_at is null and id <= ?::bigint order by id`,
      [target.conversation_id, target.id],
    );
    for (const { id } of waiting) await answerOne(em, deps, target.conversation_id, id, id === target.id ? optOutType : null);
  });
}

/** What answers a message: a fixed text (a keyword's confirmation), or the assistant's model under the reply's lease. */
type Decision =
  | { kind: 'text'; text: string }
  | { kind: 'model'; history: { role: MessageRole; content: string }[] };

async function answerOne(em: EntityManager, deps: InboundDeps, conversationId: string, messageId: string, optOutType: string | null): Promise<void> {
  const { config, logger } = deps;
  const deadline = Date.now() + REPLY_WAIT_MS;
  let decided: { conversation: LockedConversation; sender: ChannelSender; decision: Decision; lease: string | null } | null | 'replying';
  for (;;) {
    decided = await em.fork().transactional(async (tx) => {
      // The reply's lease orders this reply with the API's messages (conversation.exchange.ts).
      const [conversation] = await tx.execute<(LockedConversation & { replying: boolean })[]>(
        `select id::text, uuid::text, account_id, assistant_id, type, customer_phone, variables, ai_enabled, closed_at is not null as closed, ${REPLYING}
         from conversations where id = ? for no key update`,
        [conversationId],
      );
      if (conversation.replying) return 'replying' as const;
      const [message] = await tx.execute<{ content: string }[]>(
        `update conversation_messages set handled_at = clock_timestamp() where id = ? and handled_at is null returning content`,
        [messageId],
      );
      if (!message) return null; // answered by an earlier run
      await tx.execute('update conversations set updated_at = clock_timestamp() where id = ?', [conversationId]);
      const decision = await decide(tx, deps, conversation, messageId, message.content, optOutType);
      if (!decision) return null;
      const sender = await conversationSender(tx, conversation.assistant_id, conversation.type);
      if (!sender) {
        logger.info('conversations: an inbound message is not answered: the assistant’s number cannot send on its channel', { conversation: conversation.uuid, channel: conversation.type });
        return null;
      }
      const lease = decision.kind === 'model' ? await takeLease(tx, conversationId) : null;
      return { conversation, sender, decision, lease };
    });
    if (decided !== 'replying') break;
    // A reply the API is writing (a message sent to this conversation through it): this one comes after it.
    if (Date.now() > deadline) throw new Error(`conversation ${conversationId}: a reply is still being written; the job is tried again`);
    await pollPause();
  }
  if (!decided) return;
  const { conversation, sender, decision, lease } = decided;
  let text: string | null = decision.kind === 'text' ? decision.text : null;
  let usage = { llm_input_tokens: 0, llm_output_tokens: 0 };
  if (decision.kind === 'model') {
    try {
      const answer = await deps.replier.reply({ accountId: conversation.account_id, assistantId: conversation.assistant_id!, variables: conversation.variables, history: decision.history });
      ({ text, usage } = answer);
    } catch (error) {
      if (!(error instanceof DomainError)) logger.error('conversations: an inbound message’s reply failed', error, { conversation: conversation.uuid });
      else logger.info('conversations: the assistant’s model did not answer an inbound message', { conversation: conversation.uuid, reason: error.code });
    }
  }
  const body = text === null ? '' : [...text].slice(0, MAX_OUTBOUND[conversation.type]).join('');
  const outgoing = await em.fork().transactional(async (tx) => {
    if (lease) await giveBackLease(tx, conversationId, lease);
    if (!body.trim()) return null;
    try {
      const sms = await reserveSms(tx, config, deps.sms, {
        accountId: conversation.account_id,
        sender,
        to: conversation.customer_phone,
        country: parsePhone(conversation.customer_phone, null)?.country,
        body,
        channel: conversation.type,
        conversationId,
      });
      await storeAnnounced(tx, conversation.account_id, conversation, 'assistant', body);
      await tx.execute('update conversations set llm_input_tokens = llm_input_tokens + ?, llm_output_tokens = llm_output_tokens + ? where id = ?', [
        usage.llm_input_tokens,
        usage.llm_output_tokens,
        conversation.id,
      ]);
      return sms;
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      logger.info('conversations: an inbound message is not answered', { conversation: conversation.uuid, reason: error.code });
      return null;
    }
  });
  if (!outgoing) return;
  const sms = await deliverSms(em, deps.sms, outgoing);
  if (sms.status === 'failed') logger.info('conversations: a reply was refused by the SMS provider', { sms_id: sms.id });
}

/**
 * What answers the message, if anything: an opt-out keyword puts the customer on the
 * do-not-call list and is confirmed once (not when Twilio's own opt-out answered it); an
 * opt-in keyword takes a customer who opted out by text off it, confirmed; a listed customer,
 * a closed conversation, a person's takeover or a message without text get nothing; else the
 * assistant's model answers (with the conversation up to this message).
 */
async function decide(
  tx: EntityManager,
  deps: InboundDeps,
  conversation: LockedConversation,
  messageId: string,
  content: string,
  optOutType: string | null,
): Promise<Decision | null> {
  const { account_id: accountId, customer_phone: phone } = conversation;
  const keyword = keywordOf(content);
  const [listed] = await tx.execute<{ reason: string | null }[]>('select reason from dnc_numbers where account_id = ? and phone_number = ?', [accountId, phone]);
  if (keyword && OPT_OUT_KEYWORDS.has(keyword)) {
    const added = await listNumber(tx, accountId, phone, OPT_OUT_REASON);
    return added && !optOutType ? { kind: 'text', text: Messages.smsOptedOut } : null;
  }
  if (keyword && OPT_IN_KEYWORDS.has(keyword) && listed?.reason === OPT_OUT_REASON) {
    await tx.execute('delete from dnc_numbers where account_id = ? and phone_number = ?', [accountId, phone]);
    return optOutType ? null : { kind: 'text', text: Messages.smsOptedIn };
  }
  if (listed || conversation.closed || !conversation.ai_enabled || conversation.assistant_id === null || !content.trim()) return null;
  const history = await tx.execute<{ role: MessageRole; content: string }[]>(
    `select role, content from (select id, role, content from conversation_messages where conversation_id = ? and id <= ?::bigint order by id desc limit ?) m order by id`,
    [conversation.id, messageId, HISTORY_MESSAGES],
  );
  return { kind: 'model', history };
}
