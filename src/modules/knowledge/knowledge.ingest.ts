import type { EntityManager } from '@mikro-orm/postgresql';
import { enqueue } from '../../jobs/queue';
import { chunkText, normaliseText } from './knowledge.chunking';
import { UnreadableDocumentError, readDocument } from './knowledge.readers';
import type { DocumentReaders, Embedder } from './knowledge.ports';
import { DEFAULT_RELATIVE_LINKS, type DocumentType } from './knowledge.rules';
import { packVectors } from './knowledge.vectors';
import { crawlWebsite, type CrawlOptions } from './knowledge.website';

/** Chunks written per statement: a 10 MB text is about 15,000 of them. */
const INSERT_BATCH = 500;

/** The reason a document failed when its ingestion kept failing for reasons of ours (the last attempt). */
export const INGESTION_FAILED = 'A ingestão falhou por um erro interno; exclua o documento e envie-o de novo.';

/** Adds the document's ingestion job, in the caller's transaction (the one that created the document). */
export function enqueueIngestion(em: EntityManager, documentId: number): Promise<void> {
  return enqueue(em, 'knowledge:ingest', { document_id: documentId });
}

export async function failDocument(em: EntityManager, documentId: number, reason: string): Promise<void> {
  await em.execute(`update knowledge_documents set status = 'failed', failure = ?, updated_at = now() where id = ? and status = 'processing'`, [
    reason.slice(0, 500),
    documentId,
  ]);
}

interface DocumentRow {
  type: DocumentType;
  source: Buffer | null;
  url: string | null;
  links: { link: string }[];
  relative_links_limit: number | null;
  knowledge_base_id: number;
}

/** What ingestion reads with: the file formats' readers (a port) and the crawl's bounds; the embeddings' model when one is configured. */
export interface IngestDeps {
  readers: DocumentReaders;
  crawl?: CrawlOptions;
  embedder?: Embedder | null;
  /**
   * The job's last attempt: a failure of the embeddings then keeps the chunks without vectors
   * (the document `ready`, searched by full text) instead of failing the run; a document is
   * never lost for the embeddings.
   */
  lastAttempt?: boolean;
}

/** What a run did that its caller logs: the chunks kept without vectors, and why. */
export interface IngestOutcome {
  withoutVectors?: string;
}

const DEFAULT_CRAWL: CrawlOptions = { allowPrivate: false, maxPages: 50 };

/** A document's texts: a website's pages, each chunked by itself (no chunk spans two pages), or the one text of the others. */
async function textsOf(row: DocumentRow, deps: IngestDeps): Promise<string[]> {
  if (row.type !== 'website') return [await readDocument(row.type, row.source, deps.readers)];
  const links = (row.links ?? []).map((item) => item.link);
  const { pages, refused } = await crawlWebsite(row.url, links, row.relative_links_limit ?? DEFAULT_RELATIVE_LINKS, deps.crawl ?? DEFAULT_CRAWL);
  if (pages.length === 0) throw new UnreadableDocumentError(`Nenhuma página foi lida: ${refused.slice(0, 3).join('; ') || 'nenhuma página'}`);
  return pages.map((page) => page.text);
}

/**
 * Ingests a document: reads its text, normalises and chunks it (knowledge.chunking.ts), then in
 * ONE transaction replaces its chunks and marks it ready. A failure or a crash anywhere leaves
 * it `processing` with the chunks it had (none, the first time), and the job is retried; a
 * document that cannot be read (binary, a broken PDF or DOCX, a scan without text) fails for good with the reason.
 * A document deleted meanwhile is left alone.
 */
export async function ingestDocument(em: EntityManager, documentId: number, deps: IngestDeps): Promise<IngestOutcome> {
  const [row]: DocumentRow[] = await em.execute(
    `select d.type, d.source, d.url, d.links, d.relative_links_limit, d.knowledge_base_id
       from knowledge_documents d
      where d.id = ?`,
    [documentId],
  );
  if (!row) return {};
  let chunks: string[];
  try {
    chunks = (await textsOf(row, deps)).flatMap((text) => chunkText(normaliseText(text)));
  } catch (error) {
    if (!(error instanceof UnreadableDocumentError)) throw error;
    await failDocument(em, documentId, error.message);
    return {};
  }
  if (chunks.length === 0) {
    await failDocument(em, documentId, 'O documento não tem texto.');
    return {};
  }
  // Before the transaction: the model may take seconds, and no lock waits on it.
  let vectors: Buffer | null = null;
  let width = 0;
  const outcome: IngestOutcome = {};
  if (deps.embedder) {
    try {
      const answered = await deps.embedder.embed(chunks);
      if (answered.length !== chunks.length) throw new Error(`the model answered ${answered.length} vectors for ${chunks.length} chunks`);
      vectors = packVectors(answered);
      width = vectors.length / chunks.length;
    } catch (error) {
      if (!deps.lastAttempt) throw error;
      outcome.withoutVectors = error instanceof Error ? error.message : String(error);
    }
  }
  await em.transactional(async (tx) => {
    // The base first, then the document (the order every writer of both takes): a new language
    // (updateKnowledgeBase re-indexes the base's chunks under the base's lock) cannot pass this
    // write, so no chunk keeps the old one; a delete of the document waits for this transaction,
    // or this one finds it gone.
    const [base]: { language: string }[] = await tx.execute('select language from knowledge_bases where id = ? for no key update', [row.knowledge_base_id]);
    const [document] = base ? await tx.execute('select id from knowledge_documents where id = ? for no key update', [documentId]) : [];
    if (!document) return;
    await tx.execute('delete from knowledge_chunks where document_id = ?', [documentId]);
    for (let start = 0; start < chunks.length; start += INSERT_BATCH) {
      const end = start + INSERT_BATCH;
      // The batch's vectors as one parameter (a Buffer goes in binary), each chunk's its slice.
      await tx.execute(
        `insert into knowledge_chunks (document_id, knowledge_base_id, ordinal, content, language, embedding)
         select ?, ?, t.ordinal - 1 + ?, t.content, ?::regconfig,
                case when p.width > 0 then substring(p.bytes from (t.ordinal::int - 1) * p.width + 1 for p.width) end
           from jsonb_array_elements_text(?::jsonb) with ordinality as t(content, ordinal),
                (select ?::bytea as bytes, ?::int as width) p`,
        [
          documentId,
          row.knowledge_base_id,
          start,
          base.language,
          JSON.stringify(chunks.slice(start, end)),
          vectors ? vectors.subarray(start * width, Math.min(end, chunks.length) * width) : Buffer.alloc(0),
          vectors ? width : 0,
        ],
      );
    }
    await tx.execute(
      `update knowledge_documents set status = 'ready', failure = null, chunks_count = ?, embeddings_model = ?, updated_at = clock_timestamp() where id = ?`,
      [chunks.length, vectors ? deps.embedder!.model : null, documentId],
    );
  });
  return outcome;
}
