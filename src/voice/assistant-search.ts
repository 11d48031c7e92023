import type { KnowledgeBaseMode } from '../modules/assistants/assistant.entity';
import { CALL_SEARCH_RESULTS, SEARCH_MAX_QUERY } from '../modules/knowledge/knowledge.rules';
import { searchBase, type KnowledgeSearchHit } from '../modules/knowledge/knowledge.search';
import type { Runtime } from '../runtime';

/** An assistant's knowledge base on a call or in a conversation: its id, its text-search language, and how the assistant uses it. */
export interface CallKnowledgeBase {
  id: number;
  language: string;
  mode: KnowledgeBaseMode;
}

/**
 * How long an assistant's search waits for the question's vector before it answers by full
 * text alone: the caller (or the customer in a chat) is waiting, and an embeddings model answers
 * in a few hundred milliseconds; the API's own searches wait longer.
 */
const ASSISTANT_EMBED_MS = 800;

/**
 * An assistant's search of its knowledge base (the model's query, or the customer's words in
 * `prompt` mode), on a call or in a conversation: the best CALL_SEARCH_RESULTS chunks, and the
 * query as it was searched.
 */
export async function assistantSearch(
  deps: Pick<Runtime, 'orm' | 'embedder'>,
  base: CallKnowledgeBase,
  query: string,
): Promise<{ text: string; hits: KnowledgeSearchHit[] }> {
  const text = query.trim().slice(0, SEARCH_MAX_QUERY);
  const hits = await searchBase(deps.orm.em.fork(), base, text, CALL_SEARCH_RESULTS, { embedder: deps.embedder, embedTimeoutMs: ASSISTANT_EMBED_MS });
  return { text, hits };
}
