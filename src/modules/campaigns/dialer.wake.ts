import type { EntityManager } from '@mikro-orm/postgresql';
import Decimal from 'decimal.js';
import type { Config } from '../../config';
import { enqueue } from '../../jobs/queue';
import type { Call } from '../calls/call.entity';
import { ACCOUNT_CALLS_IN_FLIGHT } from '../calls/call.sql';
import { emitEvents } from '../events/event.outbox';
import type { PausedReason } from './campaign.entity';
import { campaignEvents } from './campaign.snapshot';

/**
 * What tells the dialer (dialer.ts) to look at a campaign again, or to stop: it looks only
 * when something may have given it work, in the transaction of that something.
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
