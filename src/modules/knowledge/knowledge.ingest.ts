import type { EntityManager } from '@mikro-orm/postgresql';
import { enqueue } from '../../jobs/queue';
import { chunkText, normaliseText } from './knowledge.chunking';
import { UnreadableDocumentError, readDocument } from './knowledge.readers';
import type { DocumentType } from './knowledge.rules';

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

/**
 * Ingests a document: reads its text, normalises and chunks it (knowledge.chunking.ts), then in
 * ONE transaction replaces its chunks and marks it ready. A failure or a crash anywhere leaves
 * it `processing` with the chunks it had (none, the first time), and the job is retried; a
 * document that cannot be read (binary, a type without a reader yet) fails for good with the reason.
 * A document deleted meanwhile is left alone.
 */
export async function ingestDocument(em: EntityManager, documentId: number): Promise<void> {
  const [row]: { type: DocumentType; source: Buffer | null; knowledge_base_id: number; language: string }[] = await em.execute(
    `select d.type, d.source, d.knowledge_base_id, b.language
       from knowledge_documents d join knowledge_bases b on b.id = d.knowledge_base_id
      where d.id = ?`,
    [documentId],
  );
  if (!row) return;
  let chunks: string[];
  try {
    chunks = chunkText(normaliseText(readDocument(row.type, row.source)));
  } catch (error) {
    if (!(error instanceof UnreadableDocumentError)) throw error;
    return failDocument(em, documentId, error.message);
  }
  if (chunks.length === 0) return failDocument(em, documentId, 'O documento não tem texto.');
  await em.transactional(async (tx) => {
    // Locked, so that a delete waits for this transaction or this one finds the document gone.
    const [document] = await tx.execute('select id from knowledge_documents where id = ? for no key update', [documentId]);
    if (!document) return;
    await tx.execute('delete from knowledge_chunks where document_id = ?', [documentId]);
    for (let start = 0; start < chunks.length; start += INSERT_BATCH) {
      await tx.execute(
        `insert into knowledge_chunks (document_id, knowledge_base_id, ordinal, content, language)
         select ?, ?, t.ordinal - 1 + ?, t.content, ?::regconfig
           from jsonb_array_elements_text(?::jsonb) with ordinality as t(content, ordinal)`,
        [documentId, row.knowledge_base_id, start, row.language, JSON.stringify(chunks.slice(start, start + INSERT_BATCH))],
      );
    }
    await tx.execute(`update knowledge_documents set status = 'ready', failure = null, chunks_count = ?, updated_at = now() where id = ?`, [
      chunks.length,
      documentId,
    ]);
  });
}
