import { documentReaders } from '../../documents';
import { INGESTION_FAILED, failDocument, ingestDocument } from '../../modules/knowledge/knowledge.ingest';
import type { Task } from './task';

const readers = documentReaders();

/**
 * A knowledge-base document's ingestion. A run that fails is retried (its chunks are replaced
 * in one transaction, so a failed run leaves none of its own); when the last attempt fails,
 * the document is marked failed so that nobody waits on it for ever.
 */
export const ingestDocumentTask: Task<'knowledge:ingest'> = {
  async run(runtime, { document_id }, helpers) {
    try {
      const { allowPrivateNetworkTargets, knowledge } = runtime.config;
      await ingestDocument(runtime.orm.em.fork(), document_id, { readers, crawl: { allowPrivate: allowPrivateNetworkTargets, maxPages: knowledge.maxWebsitePages } });
    } catch (error) {
      if (helpers.job.attempts >= helpers.job.max_attempts) await failDocument(runtime.orm.em.fork(), document_id, INGESTION_FAILED);
      throw error;
    }
  },
};
