/** Conversations' vocabulary and bounds (design.md, "Conversations"), in one place. */

export const CONVERSATION_TYPES = ['test', 'widget', 'api', 'sms', 'whatsapp'] as const;
export type ConversationType = (typeof CONVERSATION_TYPES)[number];

/**
 * Types opened through the API; sms and whatsapp conversations are opened by the customer's
 * first message through Twilio's messaging webhook (conversation.inbound.ts).
 */
export const OPEN_TYPES: readonly ConversationType[] = ['test', 'widget', 'api'];
/** What `POST /conversations` opens when no type is sent: the free one, for trying an assistant. */
export const DEFAULT_TYPE: ConversationType = 'test';

export const MESSAGE_ROLES = ['user', 'assistant', 'human'] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];
/** Who sends a message through the API: the customer, or a person of the business (human takeover). */
export const SENDERS = ['user', 'human'] as const;
export type Sender = (typeof SENDERS)[number];

/** The longest `customer_identifier` (the MCP server's description). */
export const MAX_CUSTOMER_IDENTIFIER = 255;

export const DEFAULT_PER_PAGE = 15;
export const MAX_PER_PAGE = 100;

/** The messages of a conversation the model is given (the newest), as the pipeline's context keeps. */
export const HISTORY_MESSAGES = 200;

/**
 * The demo account's conversation (src/seed.ts): an api conversation with DEMO_CUSTOMER that a
 * person has taken over, so that the reference page's examples work on a first start without
 * an LLM key (its messages are kept, not answered).
 */
export const DEMO_CONVERSATION = '00000000-0000-4000-8000-00000000de00';
export const DEMO_CUSTOMER = 'crm-demo-1';
/** The demo's WhatsApp customer, who wrote to the demo's number at the first start. */
export const DEMO_WHATSAPP_CUSTOMER = '+5511987654321';

/**
 * Opt-out keywords of an inbound SMS or WhatsApp message (the whole message, trimmed, any
 * case, accents and a final punctuation mark ignored): Twilio's own (STOP, STOPALL,
 * UNSUBSCRIBE, CANCEL, END, QUIT, and OPTOUT and REVOKE, which its Advanced Opt-Out adds), and
 * those Brazilian and Spanish-speaking customers send: SAIR and PARAR (the words Brazilian
 * senders' "envie SAIR" footers ask for), CANCELAR and DESCADASTRAR, and BAJA (the Spanish
 * "darse de baja"). Each is a word nobody sends alone as part of a conversation.
 */
export const OPT_OUT_KEYWORDS: ReadonlySet<string> = new Set([
  'STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'OPTOUT', 'REVOKE',
  'SAIR', 'PARAR', 'CANCELAR', 'DESCADASTRAR', 'BAJA',
]);
/**
 * Opt-in keywords: START and UNSTOP, Twilio's, and only for a customer who opted out by text
 * (an entry the business made stays). Not Twilio's YES: customers write "yes" in a conversation.
 */
export const OPT_IN_KEYWORDS: ReadonlySet<string> = new Set(['START', 'UNSTOP']);
/** Why a number is on the do-not-call list when its customer opted out by text (dnc_numbers.reason). */
export const OPT_OUT_REASON = 'sms_stop';

/** The keyword a message is, as the lists above have it (uppercase, without accents), or null. */
export function keywordOf(text: string): string | null {
  const word = text
    .trim()
    .replace(/[.!]+$/, '')
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toUpperCase();
  return OPT_OUT_KEYWORDS.has(word) || OPT_IN_KEYWORDS.has(word) ? word : null;
}
