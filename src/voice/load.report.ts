import type { EntityManager } from '@mikro-orm/postgresql';
import type { MediaLoad } from '../modules/campaigns/dialer';
import type { LoadReading } from './load.monitor';

/**
 * The table `media_loads`: each process that takes calls' media writes its measured load there
 * (admission.ts), and the dialer reads it before it dials (a campaign's calls land on those
 * processes). A report is believed while it is fresher than the heartbeat's staleness: a process
 * that died overloaded holds the dials no longer than that.
 */

export async function reportLoad(em: EntityManager, processId: string, overloaded: boolean, load: LoadReading): Promise<void> {
  await em.execute(
    `insert into media_loads (process_id, overloaded, loop_delay_ms, vad_lag_ms, reported_at) values (?, ?, ?, ?, now())
     on conflict (process_id) do update set overloaded = excluded.overloaded, loop_delay_ms = excluded.loop_delay_ms,
       vad_lag_ms = excluded.vad_lag_ms, reported_at = excluded.reported_at`,
    [processId, overloaded, load.loop_delay_ms, load.vad_lag_ms],
  );
}

/** A process that stops takes its report away, and those of processes killed over a day ago (stale long since) with it. */
export async function forgetLoad(em: EntityManager, processId: string): Promise<void> {
  await em.execute(`delete from media_loads where process_id = ? or reported_at < now() - interval '1 day'`, [processId]);
}

/** The dialer's port: whether a fresh report (younger than `staleAfterMs`) says a media process is overloaded. */
export function mediaLoadReports(staleAfterMs: number): MediaLoad {
  return {
    async overloaded(em) {
      const [row] = await em.execute(
        `select exists (select 1 from media_loads where overloaded and reported_at > now() - (? * interval '1 millisecond')) as overloaded`,
        [staleAfterMs],
      );
      return row.overloaded === true;
    },
  };
}
