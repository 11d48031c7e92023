import { failImport, forgetImport, runImport } from '../../modules/leads/lead.import';
import type { Task } from './task';

/**
 * A lead import: what is left of its file, batch by batch. A run that fails is retried and
 * resumes after the last committed batch; when the last attempt fails, the import is marked
 * failed (the batches written stay) so that nobody waits on it for ever.
 */
export const importLeadsTask: Task<'leads:import'> = {
  async run(runtime, { import_id }, helpers) {
    try {
      await runImport(runtime.orm.em.fork(), runtime.config, import_id);
    } catch (error) {
      if (helpers.job.attempts >= helpers.job.max_attempts) await failImport(runtime.orm.em.fork(), import_id);
      throw error;
    }
  },
};

/** A finished import's record, once its retention is over. */
export const forgetLeadImportTask: Task<'leads:import-forget'> = {
  run: (runtime, { import_id }) => forgetImport(runtime.orm.em.fork(), import_id),
};
