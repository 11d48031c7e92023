import type { EntityManager } from '@mikro-orm/postgresql';
import { Field, Float, Int, ObjectType } from 'type-graphql';
import { FieldErrorCollector, FieldMessages } from '../../errors';
import { checkIntRange } from '../../lib/checks';
import type { Scope } from '../scope';
import {
  EMBED_QUESTION_MS,
  HYBRID_DEPTH,
  SEARCH_DEFAULT_LIMIT,
  SEARCH_MAX_LIMIT,
  SEARCH_MAX_QUERY,
  SEARCH_MAX_RANKED,
  VECTOR_CACHE_BYTES,
  VECTOR_WHOLE_BASE_CHUNKS,
} from './knowledge.rules';
import type { Embedder } from './knowledge.ports';
import { requireKnowledgeBase } from './knowledge.service';
import { fuse, nearest, normalise, vectorSet, vectorSetOfPages, VectorCache, type VectorSet } from './knowledge.vectors';

@ObjectType('KnowledgeSearchHit', { simpleResolvers: true, description: 'A chunk of a document that matches a search, with its score (higher is better).' })
export class KnowledgeSearchHit {
  @Field(() => Int)
  document_id!: number;

  @Field(() => Int)
  chunk_id!: number;

  @Field(() => String)
  content!: string;

  @Field(() => Float, {
    description: 'With embeddings (EMBEDDINGS_MODEL): the reciprocal-rank fusion of its full-text and vector ranks, Σ 1/(60 + rank); else PostgreSQL’s ts_rank_cd of the chunk for the query.',
  })
  score!: number;
}

/**
 * The query as PostgreSQL reads it: websearch_to_tsquery in the base's configuration (stems,
 * stop words dropped, "quoted phrases", -excluded words), `strict`; and its words OR'd instead
 * of AND'd, `rank`: people ask questions, and a question's words are rarely all in the chunk
 * that answers it. ts_rank_cd of `rank` then puts first the chunks where more of them stand
 * closer together. A query with an excluded word keeps its ANDs: `a | !b` would match nearly
 * every chunk. `loose`, the query that finds the chunks with some of the words, is `rank`
 * unless the words too common in the base were left out of it.
 * The three are values of the search's statement, not computed in it: the planner then reads
 * each word's frequency from the column's statistics, and for words most chunks have walks the
 * base's chunks until it has enough instead of building GIN's bitmap of nearly all of them
 * (bench/results/kb.md: 57 ms to 0.6 ms for a question of the two commonest words).
 */
interface Queries {
  strict: string;
  rank: string;
  loose: string;
  /** `strict` without its words most chunks have, for the index (null: `strict` itself); `strict` is then checked on the rows it finds. */
  strictIndex: string | null;
}

/**
 * Ranking reads each candidate's tsv, so the candidates are bounded: the chunks with every word
 * of the query (`strict`), at most SEARCH_MAX_RANKED; only when fewer than the answer's `limit`
 * have them all, the chunks with some of them too (`loose`: the second branch's gate is an
 * InitPlan, so otherwise its index is not even read). A question of common words then costs
 * about the same in a base of 100,000 chunks as in one of 1,000 (bench/results/kb.md).
 * The chunks' content is read for the answer's rows only; `ids` leaves it out (hybrid search
 * reads it for the fused answer).
 * The chunks with every word are found by the index with the words most chunks have left out
 * (strictIndex), then checked for all of them: GIN pays for each such word at every chunk the
 * others find (a leaf of its posting tree decoded each time: 5 ms for 2 chunks with 4 such words
 * in bench/results/kb.md), the check once a chunk. ts_match_vq is `@@` that the planner cannot
 * take for the index.
 * Its values: the base, strictIndex or strict, strict or null (twice), SEARCH_MAX_RANKED, the
 * limit, the base, loose, strict, SEARCH_MAX_RANKED, rank, the limit.
 */
/**
 * What the statement answers of its ranked chunks: their content; their ids alone; or their ids
 * with their vectors of the model's (base64: PostgreSQL's hex of bytea costs twice as much, and
 * reading them here saves hybrid search a statement).
 */
const ANSWERS = {
  content: 'select r.id as chunk_id, c.document_id, c.content, r.score from ranked r join knowledge_chunks c on c.id = r.id',
  ids: 'select r.id as chunk_id, r.score from ranked r',
  vectors: `select r.id as chunk_id, r.score, case when d.embeddings_model = ? then encode(c.embedding, 'base64') end as v
               from ranked r join knowledge_chunks c on c.id = r.id join knowledge_documents d on d.id = c.document_id`,
};

function searchSql(answer: 'content' | 'ids' | 'vectors'): string {
  return `with strict as materialized (
       select c.id, c.tsv from knowledge_chunks c
        where c.knowledge_base_id = ? and c.tsv @@ ?::tsquery and (?::tsquery is null or ts_match_vq(c.tsv, ?::tsquery))
        limit ?),
     ranked as (
       select h.id, r.score
         from (select s.id, s.tsv from strict s
               union all
               (select c.id, c.tsv from knowledge_chunks c
                 where (select count(*) from strict) < ?
                   and c.knowledge_base_id = ? and c.tsv @@ ?::tsquery and not c.tsv @@ ?::tsquery
                 limit ?)) h,
              lateral (select ts_rank_cd(h.tsv, ?::tsquery) as score) r
        order by r.score desc, h.id
        limit ?)
   ${ANSWERS[answer]}
    order by r.score desc, r.id`;
}
export const SEARCH_SQL = searchSql('content');
const IDS_SQL = searchSql('ids');
/** One more value: the model whose vectors are read. */
const VECTORS_SQL = searchSql('vectors');

/**
 * SEARCH_SQL's values, in its order: `limit` rows answered, the chunks with some of the words
 * looked for only when fewer than `gate` have them all (hybrid search answers more rows than
 * the answer's limit for the fusion, and looks for the loose ones as often as full text does).
 */
export function searchValues(baseId: number, queries: Queries, limit: number, gate = limit): unknown[] {
  const checked = queries.strictIndex === null ? null : queries.strict;
  return [baseId, queries.strictIndex ?? queries.strict, checked, checked, SEARCH_MAX_RANKED, gate, baseId, queries.loose, queries.strict, SEARCH_MAX_RANKED, queries.rank, limit];
}

/**
 * The words of a question too common in a large base are left out of the query that finds the
 * chunks with some of its words: GIN builds the bitmap of every chunk with any of them before
 * the first is read, and one word in most chunks made that most of the base (bench/results/kb.md:
 * p99 72 ms at 100,000 chunks). The words are taken rarest first while the share of the base's
 * chunks that have them adds up to at most LOOSE_SHARE (always the rarest), each word's share
 * read from a sample of the base (ts_stat over its first COMMON_SAMPLE chunks), kept per process
 * until the base's documents change. Bases under PRUNE_FROM_CHUNKS chunks keep every word: their
 * bitmaps are small. The ranking still counts every word.
 */
const PRUNE_FROM_CHUNKS = 5_000;
const COMMON_SAMPLE = 2_000;
const LOOSE_SHARE = 0.1;
/** A word in more than this share of a large base's chunks is checked on the chunks the question's rarer words find, not searched in the index. */
const COMMON_SHARE = 0.2;
/** The chunks the index may find for the check of the words left out of it (about 3 µs each). */
const CHECKED_ROWS = 1_000;
const BASES_SAMPLED = 200;
const sampled = new Map<number, { version: string; shares: Map<string, number> }>();

/** The lexemes of a plain conjunction (`'a' & 'b'`), as tsquery's text writes them; null for anything else (phrases, exclusions). */
function plainLexemes(query: string): string[] | null {
  if (!/^'(?:[^'\\]|''|\\.)+'(?: & '(?:[^'\\]|''|\\.)+')*$/.test(query)) return null;
  return [...query.matchAll(/'((?:[^'\\]|''|\\.)+)'/g)].map((match) => match[1].replace(/''/g, "'").replace(/\\(.)/g, '$1'));
}

const quoteLexeme = (lexeme: string) => `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

/**
 * What a search reads first, in one statement: the question as tsquery text, and the base's
 * ready documents as a version (how many, their chunks, the newest id and update: ingestion,
 * which sets updated_at, a delete and a new document each change it), with their chunks, and
 * the chunks of those embedded by `model` (none without one).
 */
interface Terms {
  tsquery: string;
  chunks: number;
  version: string;
  modelChunks: number;
}

async function termsOf(em: EntityManager, base: { id: number; language: string }, text: string, model: string | null): Promise<Terms> {
  const [row]: { t: string; chunks: number; version: string; model_chunks: number }[] = await em.execute(
    `select websearch_to_tsquery(?::regconfig, ?)::text as t, coalesce(sum(chunks_count), 0)::int as chunks,
            concat_ws(':', count(*), sum(chunks_count), max(id), max(updated_at)) as version,
            coalesce(sum(chunks_count) filter (where embeddings_model = ?), 0)::int as model_chunks
       from knowledge_documents where knowledge_base_id = ? and status = 'ready'`,
    [base.language, text, model, base.id],
  );
  return { tsquery: row.t, chunks: row.chunks, version: row.version, modelChunks: row.model_chunks };
}

/** The queries of a question (Queries), the words too common in a large base left out of `loose` and of `strictIndex`. */
async function queriesOf(em: EntityManager, baseId: number, terms: Terms): Promise<Queries> {
  const strict = terms.tsquery;
  const rank = strict.includes('!') ? strict : strict.replaceAll(' & ', ' | ');
  const lexemes = terms.chunks < PRUNE_FROM_CHUNKS ? null : plainLexemes(strict);
  if (!lexemes || lexemes.length < 2) return { strict, rank, loose: rank, strictIndex: null };
  const shares = await sharesOf(em, baseId, terms);
  const rarest = [...new Set(lexemes)].sort((a, b) => (shares.get(a) ?? 0) - (shares.get(b) ?? 0));
  const kept: string[] = [];
  let share = 0;
  for (const lexeme of rarest) {
    share += shares.get(lexeme) ?? 0;
    if (kept.length > 0 && share > LOOSE_SHARE) break;
    kept.push(lexeme);
  }
  // The rarest word, every word not too common, and more words while those would still find
  // more than CHECKED_ROWS chunks (each checked then: a word of 10% alone had 7,600 checked).
  const indexed: string[] = [];
  let found = terms.chunks;
  for (const lexeme of rarest) {
    const own = shares.get(lexeme) ?? 0;
    if (indexed.length > 0 && own > COMMON_SHARE && found <= CHECKED_ROWS) continue;
    indexed.push(lexeme);
    found *= own;
  }
  return {
    strict,
    rank,
    loose: kept.length === rarest.length ? rank : kept.map(quoteLexeme).join(' | '),
    strictIndex: indexed.length === rarest.length ? null : indexed.map(quoteLexeme).join(' & '),
  };
}

/** Each word's share of the base's chunks, read from a sample (PRUNE_FROM_CHUNKS' comment), kept per process until its documents change. */
async function sharesOf(em: EntityManager, baseId: number, terms: Terms): Promise<Map<string, number>> {
  let entry = sampled.get(baseId);
  if (!entry || entry.version !== terms.version) {
    const stats: { word: string; ndoc: number }[] = await em.execute(
      `select word, ndoc from ts_stat(format('select tsv from knowledge_chunks where knowledge_base_id = %s order by id limit %s', ?::int, ?::int))`,
      [baseId, COMMON_SAMPLE],
    );
    const size = Math.min(COMMON_SAMPLE, terms.chunks);
    entry = { version: terms.version, shares: new Map(stats.map((stat) => [stat.word, stat.ndoc / size])) };
    sampled.delete(baseId);
    sampled.set(baseId, entry);
    if (sampled.size > BASES_SAMPLED) sampled.delete(sampled.keys().next().value!);
  }
  return entry.shares;
}

/** What a search runs with from outside the domain: the embeddings' model, when one is configured. */
export interface SearchDeps {
  embedder?: Embedder | null;
  /** How long the question's vector is waited for (default EMBED_QUESTION_MS); then full text alone. */
  embedTimeoutMs?: number;
  /** The vectors of the bases ranked whole (default: the process's, VECTOR_CACHE_BYTES). */
  vectors?: VectorCache;
  /** The most chunks of a base ranked whole by vectors (default VECTOR_WHOLE_BASE_CHUNKS); the bench and tests change it. */
  wholeBaseChunks?: number;
}

type Hit = KnowledgeSearchHit;

const processVectors = new VectorCache(VECTOR_CACHE_BYTES);

/** The full-text ranking: the first `limit` chunks with their content, best first, scored by ts_rank_cd. */
async function fullText(em: EntityManager, base: { id: number }, terms: Terms, limit: number): Promise<Hit[]> {
  // Only stop words, or none: no chunk matches an empty query.
  if (!terms.tsquery) return [];
  const queries = await queriesOf(em, base.id, terms);
  const rows: { chunk_id: number; document_id: number; content: string; score: number }[] = await em.execute(SEARCH_SQL, searchValues(base.id, queries, limit));
  return rows.map((row) => ({ ...row, score: Number(row.score) }));
}

/** The full-text ranking's ids, best first, and (with `model`) their vectors of the model's, base64. */
async function fullTextIds(em: EntityManager, base: { id: number }, terms: Terms, limit: number, gate: number, model: string | null): Promise<{ chunk_id: number; v?: string | null }[]> {
  if (!terms.tsquery) return [];
  const queries = await queriesOf(em, base.id, terms);
  const values = searchValues(base.id, queries, limit, gate);
  return em.execute(model === null ? IDS_SQL : VECTORS_SQL, model === null ? values : [...values, model]);
}

/** The question's vector, or null when the model fails or is slower than `timeoutMs`: a search never fails for the embeddings. */
async function questionVector(embedder: Embedder, text: string, timeoutMs: number): Promise<Float32Array | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), timeoutMs)));
  try {
    const vector = await Promise.race([embedder.embed([text]).then((vectors) => vectors[0] ?? null, () => null), late]);
    return vector ? normalise(Float32Array.from(vector)) : null;
  } finally {
    clearTimeout(timer);
  }
}

/** Chunks whose vectors are read per statement when a base's vectors are loaded (6 MB at 1536 dimensions). */
const LOAD_ROWS = 1000;

/**
 * Every vector of the base's documents embedded by `model`, read in pages by id, each page's
 * vectors as one base64 text: bytea's text output (hex) cost PostgreSQL itself 1.3 s for 10,000
 * vectors of 1536 dimensions, base64 of one value a page half of that (bench/results/kb.md).
 * Vectors of another length than the question's are left out here, so a page's bytes split evenly.
 */
async function loadBase(em: EntityManager, baseId: number, model: string, dimensions: number): Promise<VectorSet> {
  const pages: { ids: number[]; bytes: Buffer }[] = [];
  for (let after = 0; ; ) {
    const [page]: { ids: number[] | null; v: string | null }[] = await em.execute(
      `select array_agg(p.id order by p.id) as ids, encode(string_agg(p.embedding, ''::bytea order by p.id), 'base64') as v
         from (select c.id, c.embedding
                 from knowledge_chunks c join knowledge_documents d on d.id = c.document_id
                where c.knowledge_base_id = ? and d.embeddings_model = ? and length(c.embedding) = ? and c.id > ?
                order by c.id
                limit ?) p`,
      [baseId, model, dimensions * 4, after, LOAD_ROWS],
    );
    const ids = page?.ids ?? [];
    if (ids.length > 0) pages.push({ ids, bytes: Buffer.from(page.v!, 'base64') });
    if (ids.length < LOAD_ROWS) break;
    after = ids[ids.length - 1];
  }
  return vectorSetOfPages(pages, dimensions);
}

/**
 * Hybrid search: the full-text ranking and the vectors' (cosine with the question's vector) fused
 * by reciprocal rank (RRF_K = 60), each giving its first HYBRID_DEPTH chunks; the score is the
 * fused one. The vectors rank the whole base when it has at most VECTOR_WHOLE_BASE_CHUNKS chunks
 * of the model's (so a chunk that shares no word with the question can be found), else the
 * full-text candidates. Without the question's vector (the model failed or was late) the
 * full-text ranking alone is fused.
 */
async function hybrid(em: EntityManager, base: { id: number; language: string }, text: string, limit: number, embedder: Embedder, deps: SearchDeps): Promise<Hit[]> {
  const asked = questionVector(embedder, text, deps.embedTimeoutMs ?? EMBED_QUESTION_MS);
  const terms = await termsOf(em, base, text, embedder.model);
  const whole = terms.modelChunks > 0 && terms.modelChunks <= (deps.wholeBaseChunks ?? VECTOR_WHOLE_BASE_CHUNKS);
  // A larger base's vectors are its full-text candidates', read with them.
  const textual = await fullTextIds(em, base, terms, Math.max(limit, HYBRID_DEPTH), limit, whole || terms.modelChunks === 0 ? null : embedder.model);
  const question = await asked;
  let nearby: number[] = [];
  if (question && terms.modelChunks > 0) {
    const set = whole
      ? await (deps.vectors ?? processVectors).get(base.id, `${embedder.model}:${question.length}:${terms.version}`, () => loadBase(em, base.id, embedder.model, question.length))
      : vectorSet(textual.map((row) => ({ id: row.chunk_id, v: row.v ? Buffer.from(row.v, 'base64') : null })), question.length);
    nearby = nearest(set, question, HYBRID_DEPTH);
  }
  const fused = fuse([textual.map((hit) => hit.chunk_id), nearby]).slice(0, limit);
  if (fused.length === 0) return [];
  const rows: { chunk_id: number; document_id: number; content: string }[] = await em.execute(
    'select id as chunk_id, document_id, content from knowledge_chunks where id = any(?::int[]) and knowledge_base_id = ?',
    [`{${fused.map(({ id }) => id).join(',')}}`, base.id],
  );
  const known = new Map(rows.map((row) => [row.chunk_id, row]));
  // A chunk deleted between the rankings and the read of its text is left out.
  return fused.flatMap(({ id, score }) => {
    const hit = known.get(id);
    return hit ? [{ chunk_id: hit.chunk_id, document_id: hit.document_id, content: hit.content, score }] : [];
  });
}

/**
 * A base's chunks for `text` (already checked: not blank, at most SEARCH_MAX_QUERY), best first;
 * the one search the API, GraphQL and calls (search_knowledge_base, `prompt` mode) run: hybrid
 * with an embedder, else full text.
 */
export async function searchBase(
  em: EntityManager,
  base: { id: number; language: string },
  text: string,
  limit: number,
  deps: SearchDeps = {},
): Promise<KnowledgeSearchHit[]> {
  return deps.embedder ? hybrid(em, base, text, limit, deps.embedder, deps) : fullText(em, base, await termsOf(em, base, text, null), limit);
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

/** The full-text statement and its values for a question, as a search runs it: for the bench's plans (EXPLAIN). */
export async function fullTextStatement(em: EntityManager, base: { id: number; language: string }, text: string, limit: number): Promise<{ sql: string; values: unknown[] }> {
  const queries = await queriesOf(em, base.id, await termsOf(em, base, text, null));
  return { sql: SEARCH_SQL, values: searchValues(base.id, queries, limit) };
}
