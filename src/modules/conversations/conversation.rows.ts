import { Conversation, ConversationMessage } from './conversation.types';

/** A conversation's and a message's rows as the service reads them, and their GraphQL objects. */

/**
 * `total_cost`: the conversation's own (its model's, none yet) plus the SMS its replies went
 * out as (sms and whatsapp conversations), those that stand: a refused one was refunded.
 */
export const COLUMNS = `id::text, uuid::text, type, assistant_id, customer_phone, external_identifier, variables, ai_enabled,
  llm_input_tokens, llm_output_tokens, created_at, updated_at, closed_at, extracted_variables, evaluation,
  (total_cost + coalesce((select sum(s.total_cost) from sms_messages s where s.conversation_id = conversations.id and s.status <> 'failed'), 0))::text as total_cost`;

export interface ConversationRow {
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

export interface MessageRow {
  id: string;
  role: string;
  content: string;
  created_at: Date;
}

export function toConversation(row: ConversationRow): Conversation {
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

export function toMessage(row: MessageRow): ConversationMessage {
  return Object.assign(new ConversationMessage(), { role: row.role, content: row.content, created_at: new Date(row.created_at).toISOString() });
}

/** A conversation's public id: anything else is no conversation's. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
