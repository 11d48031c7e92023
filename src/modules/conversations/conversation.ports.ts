import type { MessageRole } from './conversation.rules';

/** What the assistant is asked to answer: its conversation so far, the last message the one to answer. */
export interface ReplyRequest {
  accountId: number;
  assistantId: number;
  /** The conversation's variables (the assistant's own go under them). */
  variables: Record<string, unknown>;
  history: { role: MessageRole; content: string }[];
  /** The assistant's `setupVersion`, read with the conversation (absent: the replier reads it). */
  setupVersion?: string | null;
  /** Each piece of the reply's text as the model writes it (it must not throw nor wait). */
  onText?: (delta: string) => void;
}

export interface ReplyResult {
  text: string;
  usage: { llm_input_tokens: number; llm_output_tokens: number };
}

/**
 * The assistant's brain over text (src/chat/ implements it with the pipeline engine's model,
 * tools and knowledge base). `reply` rejects with a DomainError the client may see (the
 * model failed: PROVIDER_FAILURE; no model configured: UNAVAILABLE); anything else is a bug.
 */
export interface ConversationReplier {
  reply(request: ReplyRequest): Promise<ReplyResult>;
  /**
   * Rejects, as `reply` would, when no model on this server can answer the account's assistant
   * (UNAVAILABLE): asked before the customer's message is stored, so that a refusal writes
   * nothing. `setupVersion` as in ReplyRequest. It is asked in no transaction: a second
   * connection taken under one could wait for ever on a pool that transactions like it hold.
   */
  ensureAnswerable?(request: Pick<ReplyRequest, 'accountId' | 'assistantId' | 'setupVersion'>): Promise<void>;
  /**
   * An SQL expression of the assistant whose id is the SQL expression `assistantIdSql` (a
   * column of the statement that selects it): its value changes when anything its reply reads
   * does. The statement that reads the conversation selects it too, so that a reply costs no
   * round trip of its own to learn whether the assistant changed.
   */
  setupVersion?(assistantIdSql: string): string;
}
