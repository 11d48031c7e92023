import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../config';
import { DomainError, FieldMessages, Messages, ValidationError } from '../../errors';
import { parsePhone } from '../../lib/phone';
import type { OutgoingSms, SmsProvider } from '../sms/sms.ports';
import { reserveSms } from '../sms/sms.service';

/**
 * What an SMS or WhatsApp conversation needs of its channel: the number its messages go out
 * from (its assistant's, the one that answers the number's calls), and WhatsApp's 24-hour
 * customer service window. The assistant's replies (conversation.inbound.ts), a person's
 * messages (`sender: human`) and the WhatsApp sends (whatsapp.service.ts) all go out by them.
 */

export type MessagingChannel = 'sms' | 'whatsapp';

export const isMessagingChannel = (type: string): type is MessagingChannel => type === 'sms' || type === 'whatsapp';

/** WhatsApp's 24-hour customer service window: a free-form message only this long after the customer's last one. */
export const SESSION_WINDOW_MS = 24 * 60 * 60 * 1000;

/** The longest text a message carries: the Messages API's Body limit for an SMS, WhatsApp's for a free-form message. */
export const MAX_OUTBOUND: Record<MessagingChannel, number> = { sms: 1600, whatsapp: 4096 };

/** A number a conversation's messages go out from. */
export interface ChannelSender {
  id: number;
  number: string;
}

/**
 * The number the assistant's messages go out from on the channel: the assistant's own, able
 * to send on it (`sms_enabled`, or marked `whatsapp`) and not expired; null when it has none.
 */
export async function conversationSender(em: EntityManager, assistantId: number | null, channel: MessagingChannel): Promise<ChannelSender | null> {
  if (assistantId === null) return null;
  const [sender] = await em.execute<ChannelSender[]>(
    `select p.id, p.number from assistants a join phone_numbers p on p.id = a.phone_number_id
     where a.id = ? and p.${channel === 'sms' ? 'sms_enabled' : 'whatsapp_enabled'} and coalesce(p.subscription_expires_at >= current_date, true)`,
    [assistantId],
  );
  return sender ?? null;
}

export interface CustomerWindow {
  /** When the customer last wrote over WhatsApp to the assistant's number. */
  lastInboundAt: Date | null;
  expiresAt: Date | null;
  open: boolean;
}

/**
 * The customer's window with the assistant's number: open while their last message over
 * WhatsApp to it (a `user` message Twilio brought, in a whatsapp conversation with the
 * assistant) is less than 24 hours old.
 */
export async function customerWindow(em: EntityManager, accountId: number, assistantId: number | null, customer: string): Promise<CustomerWindow> {
  const [last] =
    assistantId === null
      ? []
      : await em.execute<{ at: Date | null }[]>(
          `select max(m.created_at) as at from conversation_messages m join conversations c on c.id = m.conversation_id
           where c.account_id = ? and c.assistant_id = ? and c.type = 'whatsapp' and c.customer_phone = ? and m.role = 'user' and m.provider_message_id is not null`,
          [accountId, assistantId, customer],
        );
  const lastInboundAt = last?.at ? new Date(last.at) : null;
  const expiresAt = lastInboundAt ? new Date(lastInboundAt.getTime() + SESSION_WINDOW_MS) : null;
  return { lastInboundAt, expiresAt, open: expiresAt !== null && expiresAt.getTime() > Date.now() };
}

/** An SMS or WhatsApp conversation, as a person's message to its customer needs it. */
export interface MessagingConversation {
  id: string;
  type: MessagingChannel;
  assistant_id: number | null;
  customer_phone: string;
}

/**
 * A person's message (`sender: human`) to the customer of an SMS or WhatsApp conversation,
 * reserved in the caller's transaction (charged like an SMS, counted in the conversation's
 * cost) and sent once it commits. Refused, with nothing reserved: a customer on the
 * do-not-call list, an assistant with no number able to send on the channel, and over
 * WhatsApp a closed 24-hour window (a template must open it: POST /user/whatsapp/send).
 */
export async function reservePersonMessage(
  tx: EntityManager,
  config: Config,
  provider: SmsProvider,
  accountId: number,
  conversation: MessagingConversation,
  text: string,
): Promise<OutgoingSms> {
  const to = conversation.customer_phone;
  const [listed] = await tx.execute('select 1 from dnc_numbers where account_id = ? and phone_number = ?', [accountId, to]);
  if (listed) throw new ValidationError({ customer_phone: [FieldMessages.doNotCall] });
  const sender = await conversationSender(tx, conversation.assistant_id, conversation.type);
  if (!sender) throw new DomainError('FORBIDDEN', Messages.conversationCannotSend(conversation.type));
  if (conversation.type === 'whatsapp' && !(await customerWindow(tx, accountId, conversation.assistant_id, to)).open) {
    throw new ValidationError({ message: [Messages.whatsappWindowClosed] }, Messages.whatsappWindowClosed);
  }
  return reserveSms(tx, config, provider, {
    accountId,
    sender,
    to,
    country: parsePhone(to, null)?.country,
    body: text,
    channel: conversation.type,
    conversationId: conversation.id,
  });
}
