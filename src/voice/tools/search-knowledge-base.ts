import type { BuiltInFunction } from './function';

/**
 * `search_knowledge_base`: the model looks something up in the assistant's knowledge base
 * (design.md, "Knowledge bases"), offered when the assistant has one in `function_call` mode,
 * on both engines. It answers the best chunks, best first; the search is kept with the
 * assistant's next turn (LiveCall.searchKnowledge). A query that is no text is told back to
 * the model as an error, never thrown.
 */
export const searchKnowledgeBase: BuiltInFunction = {
  name: 'search_knowledge_base',
  offer: ({ knowledgeBase }) =>
    knowledgeBase?.mode === 'function_call'
      ? {
          name: 'search_knowledge_base',
          description:
            'Search the company’s knowledge base (its own documents: products, prices, hours, policies, procedures) for what you need to answer the caller. Use it before answering a question about the company that the conversation has not answered; answer only from what it finds.',
          parameters: {
            type: 'object',
            properties: { query: { type: 'string', description: 'What to look up, in the language of the documents: a short question or its key words.' } },
            required: ['query'],
          },
        }
      : null,
  run: async (args, { call, setup }) => {
    const query = queryOf(args);
    if (query === null) return JSON.stringify({ error: 'query must be a text to search for' });
    const hits = await call.searchKnowledge(setup.knowledgeBase!, query, 'function_call');
    if (hits.length === 0) return JSON.stringify({ results: [], note: 'nothing in the knowledge base matches' });
    return JSON.stringify({ results: hits.map((hit) => ({ content: hit.content, score: Number(hit.score.toPrecision(4)) })) });
  },
};

/** The `query` argument when it is a text with a word in it, else null. */
function queryOf(args: string): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    return null;
  }
  const query = parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>).query : undefined;
  return typeof query === 'string' && query.trim() !== '' ? query : null;
}
