/** Conversations' vocabulary and bounds (design.md, "Conversations"), in one place. */

export const CONVERSATION_TYPES = ['test', 'widget', 'api', 'sms', 'whatsapp'] as const;
export type ConversationType = (typeof CONVERSATION_TYPES)[number];

/** Types opened through the API today; sms and whatsapp come with Twilio's messaging webhook. */
export const OPEN_TYPES: readonly ConversationType[] = ['test', 'widget', 'api'];
/** What `POST /conversations` opens when no type is sent: the free one, for trying an assistant. */
export const DEFAULT_TYPE: ConversationType = 'test';

export const MESSAGE_ROLES = ['user', 'assistant', 'human'] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];
/** Who sends a message through the API: the customer, or a person of the business (human takeover). */
export const SENDERS = ['user', 'human'] as const;
export type Sender = (typeof SENDERS)[number];

/** The longest message, as the original platform's. */
export const MAX_MESSAGE = 2000;
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
