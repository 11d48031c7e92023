/** The knowledge bases' rules, one owner for the entities, the service, the inputs and the README. */

export const DOCUMENT_TYPES = ['website', 'text', 'pdf', 'docx', 'txt'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];
/** The types whose document is an uploaded file (multipart `file`). */
export const FILE_TYPES: readonly DocumentType[] = ['pdf', 'docx', 'txt'];

export const DOCUMENT_STATUSES = ['processing', 'ready', 'failed'] as const;
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number];
export const KNOWLEDGE_BASE_STATUSES = ['empty', 'processing', 'ready', 'failed'] as const;
export type KnowledgeBaseStatus = (typeof KNOWLEDGE_BASE_STATUSES)[number];

/**
 * PostgreSQL's built-in text-search configurations, by the names a base's `language` takes.
 * `simple` (no stemming, no stop words) is for the languages PostgreSQL has none for.
 */
export const SEARCH_LANGUAGES = [
  'portuguese', 'english', 'spanish', 'german', 'french', 'italian', 'dutch', 'danish', 'finnish', 'hungarian', 'norwegian',
  'romanian', 'russian', 'swedish', 'turkish', 'simple',
] as const;
export type SearchLanguage = (typeof SEARCH_LANGUAGES)[number];

export const MAX_NAME = 255;
export const MAX_DESCRIPTION = 255;
/** The default of `relative_links_limit`, as the original platform's. */
export const DEFAULT_RELATIVE_LINKS = 10;
/** Chunks: at most CHUNK_CHARS characters, each starting with up to CHUNK_OVERLAP characters of the one before. */
export const CHUNK_CHARS = 800;
export const CHUNK_OVERLAP = 100;

/** Search: `limit` from 1 to SEARCH_MAX_LIMIT, default SEARCH_DEFAULT_LIMIT; a query of at most SEARCH_MAX_QUERY characters. */
export const SEARCH_DEFAULT_LIMIT = 5;
export const SEARCH_MAX_LIMIT = 50;
export const SEARCH_MAX_QUERY = 1000;
/**
 * The most chunks one search ranks among those with all the query's words (and again among
 * those with some, when fewer than the answer's limit have them all). A question of words
 * every chunk has would otherwise rank the whole base; ts_rank_cd costs about 35 µs a chunk
 * of 800 characters, so 250 of them were a third of a search (bench/results/kb.md). Twice
 * HYBRID_DEPTH, so that hybrid search still fuses 50 full-text chunks.
 */
export const SEARCH_MAX_RANKED = 100;
/** The chunks a search during a call gives the model (search_knowledge_base, and `prompt` mode): enough to answer, little to read. */
export const CALL_SEARCH_RESULTS = 3;

/**
 * Hybrid search (EMBEDDINGS_MODEL): a base with at most VECTOR_WHOLE_BASE_CHUNKS chunks of the
 * model's vectors is ranked whole by them, from memory; a larger one ranks by them the
 * full-text candidates only. The bound is what is read from PostgreSQL well within a second
 * the first time (about 0.15 s per 1,000 vectors of 1536 dimensions here, PostgreSQL's text
 * encoding of bytea most of it) and ranked within a search's budget (bench/results/kb.md);
 * it was 10,000: 10.8 s to read as `real[]`, 1.5 s packed, and 50-80 ms a search to rank.
 * The vectors in memory take at most VECTOR_CACHE_BYTES a process. Each ranking gives the
 * fusion its first HYBRID_DEPTH chunks; the question's vector is waited for at most
 * EMBED_QUESTION_MS, then the search answers by full text alone.
 */
export const VECTOR_WHOLE_BASE_CHUNKS = 3_000;
export const VECTOR_CACHE_BYTES = 256 * 1024 * 1024;
export const HYBRID_DEPTH = 50;
export const EMBED_QUESTION_MS = 2_000;
