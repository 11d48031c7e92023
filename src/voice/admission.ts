import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../config';
import type { Logger } from '../log';
import { readVadLagSeconds, voiceCallsRefused, watchLoad } from '../metrics';
import type { AdmittedCall, CallAdmission } from '../modules/calls/call.ports';
import { eventLoopDelaySource, LOAD_SAMPLE_MS, LOAD_WINDOW_MS, LoadMonitor, type LoadSources } from './load.monitor';
import { forgetLoad, reportLoad } from './load.report';

/** What a refused caller is told to wait: the window a recovered load takes to show. */
export const ADMISSION_RETRY_AFTER_SECONDS = Math.ceil(LOAD_WINDOW_MS / 1000);

export interface Admission extends CallAdmission {
  readonly monitor: LoadMonitor;
  /** Stops measuring and reporting, and takes this process's report away (no dial waits on a process gone). */
  stop(): Promise<void>;
}

/**
 * Admission control of an HTTP process (it takes the calls' media): its measured load decides
 * whether a new call is taken, and is reported beside the workers' heartbeat for the dialer
 * (load.report.ts): at once when it crosses the bound, and every WORKER_HEARTBEAT_MS anyway, so
 * a report stays fresh while the process lives.
 */
export function startAdmission(
  config: Pick<Config, 'maxLoadDelayMs' | 'workers'>,
  database: { em: () => EntityManager; logger: Logger } | null,
  sources?: LoadSources,
): Admission {
  const loop = sources ? null : eventLoopDelaySource(LOAD_SAMPLE_MS);
  const monitor = new LoadMonitor({
    boundMs: config.maxLoadDelayMs,
    sources: sources ?? { loopDelayMs: () => loop!.loopDelayMs(), vadLagMs: () => readVadLagSeconds() * 1000 },
  });
  watchLoad(() => monitor.load());
  const processId = `${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  let reported: { overloaded: boolean; at: number } | null = null;
  let writing: Promise<void> | null = null;
  const report = () => {
    // Off (a bound of 0): never overloaded, so nothing to tell the dialer.
    if (!database || writing || config.maxLoadDelayMs <= 0) return;
    const overloaded = monitor.overloaded();
    const now = performance.now();
    if (reported && reported.overloaded === overloaded && now - reported.at < config.workers.heartbeatMs) return;
    writing = reportLoad(database.em(), processId, overloaded, monitor.load())
      .then(() => void (reported = { overloaded, at: now }))
      .catch((error) => database.logger.warn('admission: the load report failed', { message: (error as Error).message }))
      .finally(() => (writing = null));
  };
  const stopSampling = monitor.start(LOAD_SAMPLE_MS, report);
  return {
    monitor,
    refusal(kind: AdmittedCall) {
      if (!monitor.overloaded()) return null;
      voiceCallsRefused.inc({ kind });
      return { retryAfterSeconds: ADMISSION_RETRY_AFTER_SECONDS };
    },
    async stop() {
      stopSampling();
      loop?.stop();
      await writing;
      if (database) await forgetLoad(database.em(), processId).catch(() => {});
    },
  };
}
