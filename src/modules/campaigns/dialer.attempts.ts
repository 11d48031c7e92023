import type { EntityManager } from '@mikro-orm/postgresql';
import Decimal from 'decimal.js';
import type { Config } from '../../config';
import { enqueue } from '../../jobs/queue';
import { ACCOUNT_CALLS_IN_FLIGHT } from '../calls/call.sql';
import { DIALABLE_STATUSES } from './lead.sql';
import type { Call } from '../calls/call.entity';
import { campaignEvents } from './campaign.snapshot';
import { emitEvents } from '../events/event.outbox';
import { leadEvents } from '../leads/lead.snapshot';
import type { PausedReason } from './campaign.entity';

/**
 * What happens to a campaign's lead when one of its calls moves on, in the transaction of
 * that call's event, and the wake-ups that follow: the dialer (dialer.ts) looks at a campaign
 * only when something may have given it work.
 */

/**
 * Asks the dialer to look at a campaign now, or at `at`, in the caller's transaction. One
 * pending job per campaign: asking again moves it (a wake for now replaces a later one).
 */
export function wakeDialer(em: EntityManager, campaignId: number, at?: Date): Promise<void> {
  return enqueue(em, 'dialer:campaign', { campaign_id: campaignId }, at);
}

/**
 * Wakes the campaign when it runs, at the end of a transaction that gave it work (a lead
 * added or made dialable). The shared row lock orders it after a dialer run in progress,
 * which could not see this transaction's leads: the wake-up then lands after that run's own.
 */
export async function wakeIfRunning(em: EntityManager, campaignId: number): Promise<void> {
  const [campaign] = await em.execute('select status from campaigns where id = ? for share', [campaignId]);
  if (campaign?.status === 'running') await wakeDialer(em, campaignId);
}

/** Pauses the account's running campaigns; the caller holds the account's row lock. */
export async function pauseRunningCampaigns(em: EntityManager, accountId: number, reason: PausedReason): Promise<number[]> {
  const rows: Record<string, any>[] = await em.execute(
    `update campaigns set status = 'paused', paused_reason = ?, updated_at = now() where account_id = ? and status = 'running' returning *`,
    [reason, accountId],
  );
  await emitEvents(em, campaignEvents(rows));
  return rows.map((row) => row.id);
}

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
 * A call has ended and been charged: pauses the account's running campaigns when the balance
 * is spent (`balance` is the balance after the call's cost, null when it cost nothing), and
 * wakes the campaigns it may have freed a slot for: its own, and the account's others when
 * the account was at its cap (they may have been waiting for this slot). The caller holds
 * the account's row lock, so each wake-up lands after the dialer run it could have missed.
 */
export async function slotFreed(em: EntityManager, config: Config, call: Call, balance: string | null): Promise<void> {
  if (balance !== null && !new Decimal(balance).greaterThan(0)) await pauseRunningCampaigns(em, call.account_id, 'insufficient_balance');
  const running: { id: number; in_flight: number }[] = await em.execute(
    `select id, ${ACCOUNT_CALLS_IN_FLIGHT} as in_flight
     from campaigns where account_id = ? and status = 'running'`,
    [call.account_id, call.account_id],
  );
  const accountWasFull = running.length > 0 && running[0].in_flight + 1 >= config.maxParallelCalls;
  for (const campaign of running) {
    if (campaign.id === call.campaign_id || accountWasFull) await wakeDialer(em, campaign.id);
  }
}

/**
 * The outcome of an attempt, by the contract: a person answered and the call ended ->
 * completed, unless the goal rule asks for a retry; a machine answered -> a retry when
 * `retry_on_voicemail`, else completed; busy, no answer, failed -> a retry. A retry waits
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
  if (!policy.retry_on_goal_incomplete || policy.goal_completion_variable === null) return true;
  return truthy(call.variables[policy.goal_completion_variable]);
}

/** A goal value that says "done": true, a non-zero number, or a text other than false/no/0. */
function truthy(value: unknown): boolean {
  if (typeof value === 'string') return !['', 'false', 'no', 'não', 'nao', '0'].includes(value.trim().toLowerCase());
  return Boolean(value);
}
