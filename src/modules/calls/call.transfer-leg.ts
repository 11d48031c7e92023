import type { EntityManager } from '@mikro-orm/postgresql';
import Decimal from 'decimal.js';
import type { Config } from '../../config';
import { addCostToRollup } from '../analytics/analytics.rollup';
import { applyLedgerChanges, type LedgerChange } from '../accounts/account.service';
import type { Call } from './call.entity';
import { callCost, type CallCost } from './call.pricing';
import { ONCE_A_CALL } from './call.vendor-events';

/**
 * What the transferred leg costs, charged like a call to its number, and its ledger row: once
 * the leg has ended (`transfer_duration`) and the call has (`finished_at`), whichever of the
 * two its provider reported last. Each report locks the call's row and happens once (the state
 * machine finishes a call once; `transferEnded` records a leg once), so the second of them sees
 * the first's and makes the charge: the call's end (`finish`, call.lifecycle.ts) when the leg
 * ended first, `transferEnded` when the call did. Null: nothing to charge (yet).
 */
export function transferLegCharge(
  config: Config,
  call: Pick<Call, 'id' | 'finished_at' | 'transferred_to' | 'transfer_duration'>,
): { cost: CallCost; change: LedgerChange } | null {
  if (!call.finished_at || !call.transferred_to || !call.transfer_duration) return null;
  const cost = callCost(config, call.transferred_to, call.transfer_duration, true);
  if (!new Decimal(cost.total_cost).greaterThan(0)) return null;
  return { cost, change: { amount: new Decimal(cost.total_cost).negated(), kind: 'call', reference: `call:${call.id}:transfer` } };
}

/**
 * The transferred leg ended: how, and for how long. Recorded once (a retried report changes
 * nothing); when the call has already ended, the leg's minutes are charged now, added to the
 * call's costs (`transferLegCharge`), the call's row locked first and the account's last, as
 * a call's end takes them (db/locks.ts).
 */
export async function transferEnded(em: EntityManager, config: Config, callId: number, status: string, durationSeconds: number): Promise<void> {
  const duration = Math.max(0, Math.round(durationSeconds));
  await em.transactional(async (tx) => {
    // One statement: a concurrent report (or the call's end) holding the row is waited for, and
    // the row read again after it.
    const [leg]: Pick<Call, 'id' | 'account_id' | 'finished_at' | 'transferred_to' | 'transfer_duration'>[] = await tx.execute(
      `update calls set transfer_status = ?, transfer_duration = ?, updated_at = now()
       where id = ? and transferred_to is not null and transfer_status is null
       returning id, account_id, finished_at, transferred_to, transfer_duration`,
      [status.slice(0, 16), duration, callId],
    );
    if (!leg) return;
    await tx.execute(`insert into call_events (call_id, status, detail) values (?, 'transfer_ended', ?::jsonb) on conflict ${ONCE_A_CALL} do nothing`, [
      callId,
      JSON.stringify({ status, duration }),
    ]);
    const charge = transferLegCharge(config, leg);
    if (!charge) return;
    await tx.execute('update calls set carrier_cost = carrier_cost + ?::numeric, total_cost = total_cost + ?::numeric, updated_at = now() where id = ?', [
      charge.cost.carrier_cost,
      charge.cost.total_cost,
      callId,
    ]);
    await addCostToRollup(tx, callId, charge.cost.total_cost);
    await applyLedgerChanges(tx, leg.account_id, [charge.change], config.balanceLowThreshold);
  });
}
