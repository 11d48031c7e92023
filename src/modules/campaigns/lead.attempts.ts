import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../config';
import type { Call } from '../calls/call.entity';
import { emitEvents } from '../events/event.outbox';
import { leadEvents } from '../leads/lead.snapshot';
import { DIALABLE_STATUSES } from './lead.sql';

/**
 * What happens to a campaign's lead when one of its calls moves on, in the transaction of
 * that call's event: in flight while it rings and talks, then settled by the campaign's
 * retry policy when it ends.
 */

/** The phone rings or is answered: the lead's call is in flight. */
export async function attemptProgressed(em: EntityManager, call: Call): Promise<void> {
  if (call.lead_id === null || call.attempt === null) return;
  const rows: Record<string, any>[] = await em.execute(
    `update leads set status = 'processing', updated_at = now() where id = ? and status = 'scheduled' and attempts = ? returning *`,
    [call.lead_id, call.attempt],
  );
  await emitEvents(em, leadEvents(call.account_id, rows));
}

interface LeadPolicy {
  status: string;
  attempts: number;
  contact_index: number;
  contact_attempts: number;
  contacts: number;
  max_retries: number;
  retry_interval: number;
  retry_on_voicemail: boolean;
  retry_on_goal_incomplete: boolean;
  goal_completion_variable: string | null;
}

/**
 * The outcome of an attempt, by the contract: a person answered and the call ended ->
 * completed, unless the goal rule asks for a retry; a machine answered -> a retry when
 * `retry_on_voicemail`, else completed; a carrier's intercept (answered_by `unavailable`), busy,
 * no answer, failed -> a retry. A retry waits
 * `retry_interval` (divided by DIALER_TIME_SCALE); a contact that has had 1 + `max_retries`
 * attempts hands over to the lead's next secondary contact, dialled at once; when none is
 * left the lead has reached its maximum. Only the lead's current attempt counts: a client
 * who set the lead's status meanwhile has the last word. Answers whether this was the lead's
 * last attempt (null for a call the dialer did not place).
 */
export async function settleAttempt(em: EntityManager, config: Config, call: Call): Promise<boolean | null> {
  if (call.lead_id === null || call.attempt === null) return null;
  const [lead]: LeadPolicy[] = await em.execute(
    `select l.status, l.attempts, l.contact_index, l.contact_attempts,
       (select count(*)::int from secondary_contacts s where s.lead_id = l.id) as contacts,
       c.max_retries, c.retry_interval, c.retry_on_voicemail, c.retry_on_goal_incomplete, c.goal_completion_variable
     from leads l join campaigns c on c.id = l.campaign_id where l.id = ? for no key update of l`,
    [call.lead_id],
  );
  // A client changed the lead meanwhile: the dialer calls it again only if it is dialable.
  if (!lead || (lead.status !== 'scheduled' && lead.status !== 'processing') || lead.attempts !== call.attempt) {
    return lead ? !(DIALABLE_STATUSES as readonly string[]).includes(lead.status) : true;
  }

  let rows: Record<string, any>[];
  if (reached(call, lead)) {
    rows = await em.execute(`update leads set status = 'completed', next_attempt_at = null, updated_at = now() where id = ? returning *`, [call.lead_id]);
  } else if (lead.contact_attempts <= lead.max_retries) {
    const due = new Date(Date.now() + (lead.retry_interval * 60_000) / config.dialerTimeScale);
    rows = await em.execute(`update leads set status = 'rescheduled', next_attempt_at = ?, updated_at = now() where id = ? returning *`, [
      due.toISOString(),
      call.lead_id,
    ]);
  } else if (lead.contact_index < lead.contacts) {
    rows = await em.execute(
      `update leads set status = 'rescheduled', contact_index = contact_index + 1, contact_attempts = 0, next_attempt_at = now(), updated_at = now()
       where id = ? returning *`,
      [call.lead_id],
    );
  } else {
    rows = await em.execute(`update leads set status = 'reached-max-retries', next_attempt_at = null, updated_at = now() where id = ? returning *`, [
      call.lead_id,
    ]);
  }
  await emitEvents(em, leadEvents(call.account_id, rows));
  return rows[0].status !== 'rescheduled';
}

/** Whether the attempt reached the lead, as far as the campaign's policy is concerned. */
function reached(call: Call, policy: LeadPolicy): boolean {
  if (call.answered_at === null) return false;
  if (call.answered_by === 'machine') return !policy.retry_on_voicemail;
  // A carrier's intercept (the phone off, out of coverage): nobody was reached, as with no answer.
  if (call.answered_by === 'unavailable') return false;
  if (!policy.retry_on_goal_incomplete || policy.goal_completion_variable === null) return true;
  return truthy(call.variables[policy.goal_completion_variable]);
}

/** A goal value that says "done": true, a non-zero number, or a text other than false/no/0. */
function truthy(value: unknown): boolean {
  if (typeof value === 'string') return !['', 'false', 'no', 'não', 'nao', '0'].includes(value.trim().toLowerCase());
  return Boolean(value);
}
