import type { EntityManager } from '@mikro-orm/postgresql';
import type { AnsweredBy } from './call.entity';
import { ONCE_A_CALL } from './call.vendor-events';

/**
 * Who answered a call, as a voice engine's detector found it (design.md, "Calls that act"):
 * kept on the call (`answered_by`) and as one event of its history, with what decided it. The
 * engine's verdict is the call's from then on: Twilio's AMD, tuned to US greetings and
 * seconds late, no longer changes it (twilio.callbacks.ts asks `ENGINE_VERDICT_SQL`).
 */

/** The call_events status of the engine's verdict (one a call: the table is unique per call and status). */
export const ANSWERED_BY_EVENT = 'answered-by';

/** A condition on `calls c`: the engine has given its verdict on the call. */
export const ENGINE_VERDICT_SQL = `exists (select 1 from call_events e where e.call_id = c.id and e.status = '${ANSWERED_BY_EVENT}')`;

export interface AnsweredByVerdict {
  answered_by: Exclude<AnsweredBy, 'unknown'>;
  /** phrase, twilio or timing. */
  source: string;
  reason: string;
  /** Ms after the answer. */
  at_ms: number;
}

/** Records the verdict once, while the call is in flight; a second one changes nothing. */
export async function recordAnsweredBy(em: EntityManager, callId: number, verdict: AnsweredByVerdict): Promise<void> {
  await em.execute(
    `with verdict as (
       insert into call_events (call_id, status, detail)
       select c.id, '${ANSWERED_BY_EVENT}', ?::jsonb from calls c where c.id = ? and c.finished_at is null
       on conflict ${ONCE_A_CALL} do nothing returning call_id)
     update calls c set answered_by = ?, updated_at = now() from verdict v where c.id = v.call_id`,
    [JSON.stringify({ event: 'answered-by', ...verdict }), callId, verdict.answered_by],
  );
}

/** Who answered, as the call keeps it now (Twilio's AMD callback writes it). */
export async function answeredByNow(em: EntityManager, callId: number): Promise<AnsweredBy | null> {
  const [row]: { answered_by: AnsweredBy | null }[] = await em.execute('select answered_by from calls where id = ?', [callId]);
  return row?.answered_by ?? null;
}
