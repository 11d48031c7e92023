import type { EntityManager } from '@mikro-orm/postgresql';
import Decimal from 'decimal.js';
import type { Config } from '../../config';
import { findForUpdate } from '../../db/locks';
import { applyLedgerChanges } from '../accounts/account.service';
import { onDoNotCall } from '../dnc/dnc.service';
import { emitEvents } from '../events/event.outbox';
import { Call } from './call.entity';
import { callReservation } from './call.pricing';
import { coversReservation } from './call.service';
import { callSnapshot } from './call.snapshot';
import { ONCE_A_CALL } from './call.vendor-events';

/**
 * A call handed to a person (design.md, "Calls that act"): the dialled leg is a call of the
 * account's like any other, so the do-not-call list and the balance apply to it, and its
 * minutes are charged like a call's. Three steps, each in its own transaction: the model asks
 * (`reserveTransfer`: refused, or the leg's first minute reserved), the provider makes it
 * (`transferMade`: `call.transferred`), the provider says how the leg ended (`transferEnded`,
 * call.transfer-leg.ts, which charges its minutes); the call ends as `transferred`.
 */

/** Why a transfer was refused, as the model is told (it tells the caller). */
export type TransferRefusal = 'not-in-progress' | 'already-transferred' | 'already-tried' | 'do-not-call' | 'insufficient-balance';

/**
 * Locks the call and its account, checks the number against the do-not-call list and the
 * balance against the leg's first minute, and reserves that minute with the call's own
 * reservation (released when the call ends). Answers the refusal, or null.
 *
 * A call is transferred at most once: a leg that ended (`transfer_status`) without taking the
 * call, a warm transfer nobody answered, gave the caller back to the assistant, and no second
 * leg is dialled. The call's columns, its once-a-call events and its one resumed stream hold
 * one leg: a second would be neither recorded nor charged, and a second unanswered one would
 * leave the caller on hold.
 */
export async function reserveTransfer(em: EntityManager, config: Config, callId: number, to: string): Promise<TransferRefusal | null> {
  return em.transactional(async (tx) => {
    const call = await findForUpdate(tx, Call, callId);
    if (!call || call.status !== 'in-progress' || call.finished_at) return 'not-in-progress';
    if (call.transferred_to) return 'already-transferred';
    if (call.transfer_status !== null) return 'already-tried';
    if (await onDoNotCall(tx, call.account_id, to)) return 'do-not-call';
    const [{ balance }] = await tx.execute('select balance from accounts where id = ? for no key update', [call.account_id]);
    const reservation = callReservation(config, to);
    if (!coversReservation(balance, reservation)) return 'insufficient-balance';
    await tx.execute('update calls set transferred_to = ?, reserved_amount = reserved_amount + ?::numeric, updated_at = now() where id = ?', [to, reservation, callId]);
    if (new Decimal(reservation).greaterThan(0)) {
      await applyLedgerChanges(tx, call.account_id, [{ amount: new Decimal(reservation).negated(), kind: 'call_reservation', reference: `call:${callId}:transfer` }], config.balanceLowThreshold);
    }
    return null;
  });
}

/** The provider took the transfer: it is an event of the call, and `call.transferred` for its subscribers. */
export async function transferMade(em: EntityManager, callId: number, mode: string): Promise<void> {
  await em.transactional(async (tx) => {
    const call = await tx.findOne(Call, { id: callId });
    if (!call?.transferred_to) return;
    const [inserted] = await tx.execute(
      `insert into call_events (call_id, status, detail) values (?, 'transferred', ?::jsonb) on conflict ${ONCE_A_CALL} do nothing returning id`,
      [callId, JSON.stringify({ to: call.transferred_to, mode })],
    );
    if (inserted) await emitEvents(tx, [{ accountId: call.account_id, type: 'call.transferred', data: { ...callSnapshot(call), transfer_mode: mode } }]);
  });
}
