import { Field, Float, Int, ObjectType } from 'type-graphql';
import { FieldErrorCollector, FieldMessages } from '../../errors';
import { checkIntRange } from '../../lib/checks';
import type { Scope } from '../scope';
import { SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT, SEARCH_MAX_QUERY } from './knowledge.rules';
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
 * stop words dropped, "quoted phrases", -excluded words), its words then OR'd instead of AND'd:
 * people ask questions, and a question's words are rarely all in the chunk that answers it.
 * ts_rank_cd then puts first the chunks where more of them stand closer together. A query
 * with an excluded word keeps its ANDs: `a | !b` would match nearly every chunk.
 */
const QUERY = `(select (case when strpos(w.t, '!') > 0 then w.t else replace(w.t, ' & ', ' | ') end)::tsquery
                  from (select websearch_to_tsquery(?::regconfig, ?)::text as t) w)`;

/** Full-text search of a base's chunks, best first (design.md, "Knowledge bases"). */
export async function searchKnowledgeBase(scope: Scope, id: number, q: string | null | undefined, limit: number | null | undefined): Promise<KnowledgeSearchHit[]> {
  const errors = new FieldErrorCollector();
  const text = (q ?? '').trim();
  if (!text) errors.add('q', FieldMessages.required('q'));
  else if (text.length > SEARCH_MAX_QUERY) errors.add('q', FieldMessages.maxLength('q', SEARCH_MAX_QUERY));
  const count = limit ?? SEARCH_DEFAULT_LIMIT;
  checkIntRange(errors, 'limit', count, 1, SEARCH_MAX_LIMIT);
  errors.throwIfAny();
  const base = await requireKnowledgeBase(scope, id);
  const rows: { chunk_id: number; document_id: number; content: string; score: number }[] = await scope.em.execute(
    `select c.id as chunk_id, c.document_id, c.content, ts_rank_cd(c.tsv, q.query) as score
       from knowledge_chunks c, (select ${QUERY} as query) q
      where c.knowledge_base_id = ? and c.tsv @@ q.query
      order by score desc, c.id
      limit ?`,
    [base.language, text, base.id, count],
  );
  return rows.map((row) => ({ chunk_id: row.chunk_id, document_id: row.document_id, content: row.content, score: Number(row.score) }));
}
