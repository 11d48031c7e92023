import type { EntityManager } from '@mikro-orm/postgresql';
import Decimal from 'decimal.js';
import type { Config } from '../../config';
import type { Logger } from '../../log';
import type { TelephonyProvider } from '../calls/call.ports';
import { Assistant } from '../assistants/assistant.entity';
import { callReservation } from '../calls/call.pricing';
import type { Call } from '../calls/call.entity';
import { coversReservation, reserveForCalls, startCall } from '../calls/call.service';
import type { Campaign, PausedReason } from './campaign.entity';
import { windowAt } from './campaign.window';
import { campaignEvents } from './campaign.snapshot';
import { emitEvents } from '../events/event.outbox';
import { leadEvents } from '../leads/lead.snapshot';
import { pauseRunningCampaigns, wakeDialer } from './dialer.wake';
import { CALL_IN_FLIGHT } from '../calls/call.sql';
import { LEAD_DIALABLE, LEAD_DUE, LEAD_DUE_AT, LEAD_OPEN } from './lead.sql';

/**
 * The campaign dialer: one job per campaign (DIAL_TASK), run whenever something may have
 * given the campaign work (a call ended, a lead was added or reset, the campaign was started
 * or edited, a retry or the window is due). A run places as many calls as the campaign and
 * the account have free slots, in one transaction, and says when it wants to run next.
 *
 * Any number of worker processes may run it. Every writer takes its locks in one order
 * (account, campaign, leads), so none waits on another in a circle:
 * - a run locks the account row (as a single call's start does, so the account's cap and
 *   balance are decided one start after the other) and then the campaign row, so runs of
 *   one campaign follow each other and each counts the calls the one before it placed;
 * - it claims due leads with FOR UPDATE SKIP LOCKED and never one that has a call in flight;
 * - what wakes a campaign commits after the run that could miss it: an ending call waits for
 *   the account lock, a new or reset lead for the campaign lock (a shared one), so a run's own
 *   "next time" never hides the wake-up of something it could not see.
 */

/** How long a run waits before looking again at a due lead a client's write held. */
const SKIPPED_LEAD_RETRY_MS = 250;
/** How long a run held by the media processes' load waits before it looks again (their reports come sooner). */
export const MEDIA_OVERLOAD_RETRY_MS = 1_000;

/**
 * Whether the processes that take the calls' media report overload (admission control,
 * voice/load.report.ts; boot.ts plugs it in). A call placed then would degrade every call on
 * the line, so the dialer holds its next dials: outbound calls wait instead of degrading.
 */
export interface MediaLoad {
  overloaded(em: EntityManager): Promise<boolean>;
}

export interface DialerDeps {
  config: Config;
  telephony: TelephonyProvider;
  logger?: Logger;
  /** None: nothing holds the dials (a process with no report to read). */
  mediaLoad?: MediaLoad;
}

type CampaignRow = Pick<
  Campaign,
  'id' | 'name' | 'status' | 'assistant_id' | 'timezone' | 'max_calls_in_parallel' | 'allowed_days' | 'allowed_hours_start_time' | 'allowed_hours_end_time'
> & { account_id: number; mark_complete_when_no_leads: boolean; phone_number_ids: number[]; dials: string };

interface DueLead {
  id: number;
  phone_number: string;
  variables: Record<string, unknown>;
  attempts: number;
  contact_index: number;
}

/** What one run did; the benchmark and the logs read it. */
export interface DialReport {
  placed: number;
  /** Why the run placed nothing more, when it stopped early. */
  stopped?: 'not-running' | 'window-closed' | 'no-slot' | 'media-overloaded' | PausedReason;
  completed?: boolean;
}

export async function dialCampaign(em: EntityManager, deps: DialerDeps, campaignId: number, now = new Date()): Promise<DialReport> {
  return em.transactional(async (tx) => {
    const [account] = await tx.execute('select balance from accounts where id = (select account_id from campaigns where id = ?) for no key update', [campaignId]);
    if (!account) return { placed: 0, stopped: 'not-running' };
    const [campaign]: CampaignRow[] = await tx.execute('select * from campaigns where id = ? for no key update', [campaignId]);
    if (!campaign || campaign.status !== 'running') return { placed: 0, stopped: 'not-running' };

    const window = windowAt(campaign, now);
    if (!window.open) {
      // A campaign with nothing left to dial completes now, not at the opening (a campaign
      // started with no lead outside its hours would otherwise say `running` until then).
      if (campaign.mark_complete_when_no_leads) {
        const [left] = await tx.execute(
          `select exists (select 1 from leads l where l.campaign_id = ? and ${LEAD_OPEN}) as open,
                  exists (select 1 from calls c where c.campaign_id = ? and ${CALL_IN_FLIGHT}) as busy`,
          [campaignId, campaignId],
        );
        if (!left.open && !left.busy) return { placed: 0, ...(await complete(tx, campaign)) };
      }
      if (window.opensAt) await wakeDialer(tx, campaignId, window.opensAt);
      return { placed: 0, stopped: 'window-closed' };
    }
    // After the locks, in statements of their own: they see every call committed before.
    const [flight] = await tx.execute(
      `select count(*) filter (where c.campaign_id = ?)::int as campaign, count(*)::int as account from calls c where c.account_id = ? and ${CALL_IN_FLIGHT}`,
      [campaignId, campaign.account_id],
    );
    const free = Math.min(campaign.max_calls_in_parallel - flight.campaign, deps.config.maxParallelCalls - flight.account);
    if (free <= 0) return { placed: 0, stopped: 'no-slot' };
    if (await deps.mediaLoad?.overloaded(tx)) {
      await wakeDialer(tx, campaignId, new Date(now.getTime() + MEDIA_OVERLOAD_RETRY_MS));
      return { placed: 0, stopped: 'media-overloaded' };
    }

    const due: DueLead[] = await tx.execute(
      `select l.id, l.phone_number, l.variables, l.attempts, l.contact_index from leads l
       where l.campaign_id = ? and ${LEAD_DUE}
       order by ${LEAD_DUE_AT}, l.id limit ? for no key update of l skip locked`,
      [campaignId, now.toISOString(), free],
    );
    if (!due.length) return { placed: 0, ...(await planNext(tx, campaign, flight.campaign, now)) };
    const assistant = campaign.assistant_id ? await tx.findOne(Assistant, { id: campaign.assistant_id }) : null;
    if (!assistant || assistant.calls_direction !== 'make') return pause(tx, campaign, 'no_assistant');
    const callerIds = await usableCallerIds(tx, campaign, assistant, now);
    if (callerIds.length === 0) return pause(tx, campaign, 'no_phone_number');
    const targets = await dialTargets(tx, campaign.account_id, due);

    let available = new Decimal(account.balance);
    const calls: Call[] = [];
    let setAside = 0;
    for (const lead of due) {
      const target = targets.get(lead.id)!;
      if (target.kind !== 'dial') {
        await setAsideLead(tx, campaign.account_id, lead.id, target);
        setAside++;
        continue;
      }
      const reservation = callReservation(deps.config, target.phone);
      if (!coversReservation(available, reservation)) {
        const paused = await pauseRunningCampaigns(tx, campaign.account_id, 'insufficient_balance');
        deps.logger?.info('dialer: the balance cannot start a call; campaigns paused', { account_id: campaign.account_id, campaigns: paused });
        await markDialled(tx, deps.config, campaign, calls);
        return { placed: calls.length, stopped: 'insufficient_balance' };
      }
      if (target.contact_index !== lead.contact_index) {
        await tx.execute('update leads set contact_index = ?, contact_attempts = 0 where id = ?', [target.contact_index, lead.id]);
      }
      const call = await startCall(tx, deps.telephony, deps.config, {
        assistant,
        type: 'outbound',
        from: callerIds[(Number(campaign.dials) + calls.length) % callerIds.length],
        to: target.phone,
        variables: target.variables,
        reservation,
        lead: { id: lead.id, campaign_id: campaignId, campaign_name: campaign.name, attempt: lead.attempts + 1 },
      });
      available = available.minus(reservation);
      calls.push(call);
    }
    await markDialled(tx, deps.config, campaign, calls);
    if (due.length === free) {
      // As many leads as slots: more may be due, and the slots of leads set aside are free.
      if (setAside > 0) await wakeDialer(tx, campaignId);
      return { placed: calls.length };
    }
    return { placed: calls.length, ...(await planNext(tx, campaign, flight.campaign + calls.length, now)) };
  });
}

/**
 * The claimed leads whose calls were placed: `scheduled`, one attempt more; the calls'
 * reservations taken from the balance; the caller-id rotation moves on.
 */
async function markDialled(tx: EntityManager, config: Config, campaign: CampaignRow, calls: Call[]): Promise<void> {
  if (!calls.length) return;
  const leadIds = calls.map((call) => call.lead_id!);
  await reserveForCalls(tx, config, campaign.account_id, calls);
  const rows: Record<string, any>[] = await tx.execute(
    `with rotated as (update campaigns set dials = dials + ? where id = ?)
     update leads set status = 'scheduled', attempts = attempts + 1, contact_attempts = contact_attempts + 1, next_attempt_at = null, updated_at = now()
     where id = any(?::int[]) returning *`,
    [leadIds.length, campaign.id, `{${leadIds.join(',')}}`],
  );
  await emitEvents(tx, leadEvents(campaign.account_id, rows));
}

/**
 * Fewer leads were due than slots were free. Wakes the campaign when its next retry is due
 * (a run at a closed window then schedules the opening), soon when a due lead was skipped
 * because a client's write held it, or completes the campaign when nothing is left to dial
 * or in flight and the campaign asks for that. Each question is an index range, not a count.
 */
async function planNext(tx: EntityManager, campaign: CampaignRow, inFlight: number, now: Date): Promise<Pick<DialReport, 'completed'>> {
  const [next] = await tx.execute(
    `select
       (select l.next_attempt_at from leads l where l.campaign_id = ? and ${LEAD_DIALABLE} and ${LEAD_DUE_AT} > ?
        order by ${LEAD_DUE_AT} limit 1) as later,
       exists (select 1 from leads l where l.campaign_id = ? and ${LEAD_DUE}) as skipped,
       exists (select 1 from leads l where l.campaign_id = ? and ${LEAD_OPEN}) as open`,
    [campaign.id, now.toISOString(), campaign.id, now.toISOString(), campaign.id],
  );
  if (next.skipped) await wakeDialer(tx, campaign.id, new Date(now.getTime() + SKIPPED_LEAD_RETRY_MS));
  else if (next.later) await wakeDialer(tx, campaign.id, new Date(next.later));
  if (next.open || inFlight > 0 || !campaign.mark_complete_when_no_leads) return {};
  return complete(tx, campaign);
}

/** Nothing is left to dial or in flight, and the campaign asks to complete then (mark_complete_when_no_leads). */
async function complete(tx: EntityManager, campaign: CampaignRow): Promise<Pick<DialReport, 'completed'>> {
  const rows = await tx.execute(`update campaigns set status = 'completed', paused_reason = null, updated_at = now() where id = ? returning *`, [campaign.id]);
  await emitEvents(tx, campaignEvents(rows));
  return { completed: true };
}

async function pause(tx: EntityManager, campaign: CampaignRow, reason: PausedReason): Promise<DialReport> {
  const rows = await tx.execute(`update campaigns set status = 'paused', paused_reason = ?, updated_at = now() where id = ? returning *`, [reason, campaign.id]);
  await emitEvents(tx, campaignEvents(rows));
  return { placed: 0, stopped: reason };
}

/**
 * The campaign's caller ids, in its order: its numbers that are still the account's and
 * whose subscription has not expired, else the assistant's number.
 */
async function usableCallerIds(tx: EntityManager, campaign: CampaignRow, assistant: Assistant, now: Date): Promise<string[]> {
  const ids = campaign.phone_number_ids.length ? campaign.phone_number_ids : assistant.phone_number ? [assistant.phone_number.id] : [];
  if (!ids.length) return [];
  const rows: { id: number; number: string }[] = await tx.execute(
    `select id, number from phone_numbers where id = any(?::int[]) and account_id = ? and (subscription_expires_at is null or subscription_expires_at >= ?::date)`,
    [`{${ids.join(',')}}`, campaign.account_id, now.toISOString().slice(0, 10)],
  );
  return ids.flatMap((id) => rows.filter((row) => row.id === id).map((row) => row.number));
}

type Target =
  /** `contact_index` may be past the lead's when the contacts in between are on the list. */
  | { kind: 'dial'; phone: string; variables: Record<string, unknown>; contact_index: number }
  /** The lead's own number is on the do-not-call list. */
  | { kind: 'blacklisted' }
  /** The contacts it had left are all on the list (or gone). */
  | { kind: 'exhausted' };

/**
 * The number each claimed lead is dialled at: its own, or the secondary contact it has moved
 * on to (variables merged over the lead's), passing over contacts on the do-not-call list.
 * Two statements for the whole batch.
 */
async function dialTargets(tx: EntityManager, accountId: number, due: DueLead[]): Promise<Map<number, Target>> {
  const onContacts = due.filter((lead) => lead.contact_index > 0).map((lead) => lead.id);
  const contacts: { lead_id: number; phone_number: string; variables: Record<string, unknown> }[] = onContacts.length
    ? await tx.execute('select lead_id, phone_number, variables from secondary_contacts where lead_id = any(?::int[]) order by lead_id, id', [
        `{${onContacts.join(',')}}`,
      ])
    : [];
  const numbers = [...new Set([...due.map((lead) => lead.phone_number), ...contacts.map((contact) => contact.phone_number)])];
  const rows: { phone_number: string }[] = numbers.length
    ? await tx.execute('select phone_number from dnc_numbers where account_id = ? and phone_number = any(?::text[])', [accountId, `{${numbers.join(',')}}`])
    : [];
  const listed = new Set(rows.map((row) => row.phone_number));
  const targets = new Map<number, Target>();
  for (const lead of due) {
    if (listed.has(lead.phone_number)) {
      targets.set(lead.id, { kind: 'blacklisted' });
      continue;
    }
    if (lead.contact_index === 0) {
      targets.set(lead.id, { kind: 'dial', phone: lead.phone_number, variables: lead.variables, contact_index: 0 });
      continue;
    }
    const own = contacts.filter((contact) => contact.lead_id === lead.id);
    let index = lead.contact_index;
    while (index <= own.length && listed.has(own[index - 1].phone_number)) index++;
    const contact = own[index - 1];
    targets.set(
      lead.id,
      contact ? { kind: 'dial', phone: contact.phone_number, variables: { ...lead.variables, ...contact.variables }, contact_index: index } : { kind: 'exhausted' },
    );
  }
  return targets;
}

async function setAsideLead(tx: EntityManager, accountId: number, leadId: number, target: Exclude<Target, { kind: 'dial' }>): Promise<void> {
  const status = target.kind === 'blacklisted' ? 'blacklisted' : 'reached-max-retries';
  const rows = await tx.execute('update leads set status = ?, next_attempt_at = null, updated_at = now() where id = ? returning *', [status, leadId]);
  await emitEvents(tx, leadEvents(accountId, rows));
}
