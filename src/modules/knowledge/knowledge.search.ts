import type { EntityManager } from '@mikro-orm/postgresql';
import { Field, Float, Int, ObjectType } from 'type-graphql';
import { FieldErrorCollector, FieldMessages } from '../../errors';
import { checkIntRange } from '../../lib/checks';
import type { Scope } from '../scope';
import { SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT, SEARCH_MAX_QUERY, SEARCH_MAX_RANKED } from './knowledge.rules';
import type { Embedder } from './knowledge.ports';
import { requireKnowledgeBase } from './knowledge.service';

@ObjectType('KnowledgeSearchHit', { simpleResolvers: true, description: 'A chunk of a document that matches a search, with its score (higher is better).' })
export class KnowledgeSearchHit {
  @Field(() => Int)
  document_id!: number;

  @Field(() => Int)
  chunk_id!: number;

  @Field(() => String)
  content!: string;

  @Field(() => Float, { description: 'PostgreSQL’s ts_rank_cd of the chunk for the query.' })
  score!: number;
}

/**
 * The query as PostgreSQL reads it: websearch_to_tsquery in the base's configuration (stems,
 * stop words dropped, "quoted phrases", -excluded words), `strict`; and its words OR'd instead
 * of AND'd, `loose`: people ask questions, and a question's words are rarely all in the chunk
 * that answers it. ts_rank_cd of `loose` then puts first the chunks where more of them stand
 * closer together. A query with an excluded word keeps its ANDs: `a | !b` would match nearly
 * every chunk.
 */
const QUERIES = `select w.t::tsquery as strict, (case when strpos(w.t, '!') > 0 then w.t else replace(w.t, ' & ', ' | ') end)::tsquery as loose
                   from (select websearch_to_tsquery(?::regconfig, ?)::text as t) w`;

/**
 * Ranking reads each candidate's tsv, so the candidates are bounded: the chunks with every word
 * of the query (`strict`), at most SEARCH_MAX_RANKED; only when fewer than the answer's `limit`
 * have them all, the chunks with some of them too (`loose`: the second branch's gate is an
 * InitPlan, so otherwise its index is not even read). A question of common words then costs
 * about the same in a base of 100,000 chunks as in one of 1,000 (bench/results/kb.md).
 * Its values: the language, the query, the base, SEARCH_MAX_RANKED, the limit, the base,
 * SEARCH_MAX_RANKED, the limit.
 */
export const SEARCH_SQL = `with q as materialized (${QUERIES}),
     strict as materialized (
       select c.id, c.document_id, c.content, c.tsv from knowledge_chunks c
        where c.knowledge_base_id = ? and c.tsv @@ (select strict from q)
        limit ?)
   select h.id as chunk_id, h.document_id, h.content, ts_rank_cd(h.tsv, (select loose from q)) as score
     from (select * from strict
           union all
           (select c.id, c.document_id, c.content, c.tsv from knowledge_chunks c
             where (select count(*) from strict) < ?
               and c.knowledge_base_id = ? and c.tsv @@ (select loose from q) and not c.tsv @@ (select strict from q)
             limit ?)) h
    order by score desc, h.id
    limit ?`;

/** What a search runs with from outside the domain: the embeddings' model, when one is configured. */
export interface SearchDeps {
  embedder?: Embedder | null;
}

/**
 * A base's chunks for `text` (already checked: not blank, at most SEARCH_MAX_QUERY), best first;
 * the one search the API, GraphQL and calls (search_knowledge_base, `prompt` mode) run.
 */
export async function searchBase(
  em: EntityManager,
  base: { id: number; language: string },
  text: string,
  limit: number,
  _deps: SearchDeps = {},
): Promise<KnowledgeSearchHit[]> {
  const rows: { chunk_id: number; document_id: number; content: string; score: number }[] = await em.execute(SEARCH_SQL, [
    base.language,
    text,
    base.id,
    SEARCH_MAX_RANKED,
    limit,
    base.id,
    SEARCH_MAX_RANKED,
    limit,
  ]);
  return rows.map((row) => ({ chunk_id: row.chunk_id, document_id: row.document_id, content: row.content, score: Number(row.score) }));
}

/** Search of a base of the account's, its arguments checked (design.md, "Knowledge bases"). */
export async function searchKnowledgeBase(
  scope: Scope,
  id: number,
  q: string | null | undefined,
  limit: number | null | undefined,
  deps: SearchDeps = {},
): Promise<KnowledgeSearchHit[]> {
  const errors = new FieldErrorCollector();
  const text = (q ?? '').trim();
  if (!text) errors.add('q', FieldMessages.required('q'));
  else if (text.length > SEARCH_MAX_QUERY) errors.add('q', FieldMessages.maxLength('q', SEARCH_MAX_QUERY));
  const count = limit ?? SEARCH_DEFAULT_LIMIT;
  checkIntRange(errors, 'limit', count, 1, SEARCH_MAX_LIMIT);
  errors.throwIfAny();
  const base = await requireKnowledgeBase(scope, id);
  return searchBase(scope.em, base, text, count, deps);
}
