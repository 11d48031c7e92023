import type { Config } from '../config';
import { startEmbeddedPostgres } from './embedded';

export interface Database {
  url: string;
  /** True when this process runs on the embedded PostgreSQL. */
  embedded: boolean;
  /** Stops the embedded cluster if this process started it; otherwise nothing. */
  stop(): Promise<void>;
}

/** DATABASE_URL when it is set; otherwise the embedded PostgreSQL in DATA_DIR. */
export async function openDatabase(config: Config, log: (line: string) => void): Promise<Database> {
  if (config.databaseUrl) return { url: config.databaseUrl, embedded: false, stop: async () => {} };
  const cluster = await startEmbeddedPostgres(config.dataDir, log);
  return { url: cluster.url, embedded: true, stop: () => cluster.stop() };
}
