import { documentReaders } from '../../documents';
import { INGESTION_FAILED, failDocument, ingestDocument } from '../../modules/knowledge/knowledge.ingest';
import type { Task } from './task';

const readers = documentReaders();

/**
 * A knowledge-base document's ingestion. A run that fails is retried (its chunks are replaced
 * in one transaction, so a failed run leaves none of its own); when the last attempt fails,
 * the document is marked failed so that nobody waits on it for ever. A failure of the
 * embeddings' model is retried too; on the last attempt the chunks are kept without vectors
 * (the document is searched by full text) and the reason is logged.
 */
export const ingestDocumentTask: Task<'knowledge:ingest'> = {
  async run(runtime, { document_id }, helpers) {
    const lastAttempt = helpers.job.attempts >= helpers.job.max_attempts;
    try {
      const { allowPrivateNetworkTargets, knowledge } = runtime.config;
      const outcome = await ingestDocument(runtime.orm.em.fork(), document_id, {
        readers,
        crawl: { allowPrivate: allowPrivateNetworkTargets, maxPages: knowledge.maxWebsitePages },
        embedder: runtime.embedder,
        lastAttempt,
      });
      if (outcome.withoutVectors) {
        runtime.logger.warn('knowledge: a document kept without vectors (searched by full text only)', { document_id, reason: outcome.withoutVectors });
      }
    } catch (error) {
      if (lastAttempt) await failDocument(runtime.orm.em.fork(), document_id, INGESTION_FAILED);
      throw error;
    }
  },
};
