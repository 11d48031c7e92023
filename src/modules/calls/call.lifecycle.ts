import { createHmac } from 'node:crypto';
import { findForUpdate } from '../../db/locks';
import type { EntityManager } from '@mikro-orm/postgresql';
import Decimal from 'decimal.js';
import type { SecretBox } from '../../lib/secrets';
import type { LifecycleDeps, TelephonyProvider } from './call.ports';
import { nowSpecTimestamp } from '../../lib/time';
import { applyLedgerChanges, type LedgerChange } from '../accounts/account.service';
import { Assistant } from '../assistants/assistant.entity';
import { slotFreed } from '../campaigns/dialer.wake';
import { attemptProgressed, settleAttempt } from '../campaigns/lead.attempts';
import { Call, FINAL_CALL_STATUSES, type CallStatus } from './call.entity';
import { evaluate, extractVariables, transcriptText, type Turn } from './call.conversation';
import { HANGUPS, type CallEvent } from './call.events';
import { endTurns } from './call.turns';
import { callCost } from './call.pricing';
import { transferLegCharge } from './call.transfer-leg';
import { callSnapshot } from './call.snapshot';
import { CALL_IN_FLIGHT } from './call.sql';
import { emitEvents } from '../events/event.outbox';
import { rollUpAfterCommit } from '../analytics/analytics.rollup';
import { needsPostCall, schedulePostCall } from './call.post-call';

const FROM: Record<CallEvent['type'], readonly CallStatus[]> = {
  ringing: ['initiated'],
  answered: ['initiated', 'ringing'],
  'not-answered': ['initiated', 'ringing'],
  ended: ['in-progress'],
  expired: ['initiated', 'ringing', 'in-progress'],
};

export function isFinal(status: CallStatus): boolean {
  return FINAL_CALL_STATUSES.includes(status);
}

/**
 * The call state machine. Locks the call, applies the event when the call is in a state the
 * event applies to, and records the change in call_events (unique per call and status, so
 * no change can happen twice). Returns the updated call, or null when the event is stale:
 * already applied, out of order, or the call is gone. Runs in the caller's transaction.
 */
export async function applyCallEvent(em: EntityManager, deps: LifecycleDeps, callId: number, event: CallEvent): Promise<Call | null> {
  const call = await findForUpdate(em, Call, callId);
  if (!call || !FROM[event.type].includes(call.status)) return null;
  /** For a campaign lead's attempt: whether the dialer will not call the lead again. */
  let lastAttempt: boolean | null = null;

  switch (event.type) {
    case 'ringing':
      call.status = 'ringing';
      await attemptProgressed(em, call);
      break;
    case 'answered':
      call.status = 'in-progress';
      call.answered_by = event.answeredBy;
      call.answered_at = new Date().toISOString();
      await attemptProgressed(em, call);
      break;
    case 'not-answered':
      lastAttempt = await finish(em, deps, call, event.status, 0, []);
      break;
    case 'ended':
      lastAttempt = await finish(em, deps, call, event.status, event.duration, event.turns);
      break;
    case 'expired': {
      const answered = call.status === 'in-progress';
      const assistant = call.assistant_id ? await em.findOne(Assistant, { id: call.assistant_id }) : null;
      const turns: Turn[] = [{ speaker: 'system', text: HANGUPS['time-limit'].note }];
      lastAttempt = await finish(em, deps, call, answered ? 'ended' : 'failed', answered ? (assistant?.max_call_duration ?? 0) : 0, turns);
      break;
    }
  }
  await em.flush();
  await em.execute('insert into call_events (call_id, status, detail) values (?, ?, ?::jsonb)', [
    call.id,
    call.status,
    JSON.stringify({ event: event.type, ...(event.type === 'not-answered' && event.reason ? { reason: event.reason } : {}) }),
  ]);
  const type = call.finished_at ? 'call.finished' : call.status === 'ringing' ? 'call.ringing' : 'call.answered';
  const data = callSnapshot(call);
  if (type === 'call.finished' && call.attempt !== null) data.is_last_attempt = lastAttempt;
  await emitEvents(em, [{ accountId: call.account_id, type, data }]);
  deps.logger?.info('call status', {
    call_id: call.id,
    account_id: call.account_id,
    status: call.status,
    event: event.type,
    ...(call.finished_at ? { duration: call.duration, total_cost: Number(call.total_cost) } : {}),
  });
  return call;
}

/**
 * A call's final state: transcript, post-call extraction and evaluation, recording, costs,
 * and the balance debited with its ledger row, all in the transaction of the last event.
 * Answers, for a campaign lead's attempt, whether it was the lead's last (null otherwise).
 */
async function finish(em: EntityManager, deps: LifecycleDeps, call: Call, status: CallStatus, duration: number, turns: Turn[]): Promise<boolean | null> {
  const assistant = call.assistant_id ? await em.findOne(Assistant, { id: call.assistant_id }) : null;
  const answered = call.answered_at !== null;
  call.status = status;
  call.duration = answered ? Math.max(0, Math.round(duration)) : 0;
  // The turns the end brings (a closing note; the simulator's conversation) join the call's
  // own; a note with no time of its own was said as the call ended.
  const ending = turns.map((turn) => (turn.at_ms === undefined && answered ? { ...turn, at_ms: call.duration * 1000 } : turn));
  call.transcript = transcriptText(await endTurns(em, call, ending));
  call.finished_at = nowSpecTimestamp();

  // The simulator's conversation has its post-call results and recording here; a real
  // provider's recording comes from its own callback.
  if (call.provider === 'simulator') {
    if (assistant && answered && call.answered_by === 'human') {
      call.variables = extractVariables(call.id, assistant.post_call_schema, call.input_variables);
      if (assistant.post_call_evaluation) call.evaluation = evaluate(call.id, status, call.duration);
    }
    if (assistant?.record_call && answered && call.duration > 0) call.recording_url = recordingUrl(deps, call.id);
  }

  const cost = callCost(deps.config, call.type === 'web' ? null : call.client_phone_number, call.duration, answered);
  // A transferred leg that ended before the call is charged with it; one that ends later, when it does.
  const leg = transferLegCharge(deps.config, call);
  call.carrier_cost = leg ? new Decimal(cost.carrier_cost).plus(leg.cost.carrier_cost).toFixed(4) : cost.carrier_cost;
  call.total_cost = leg ? new Decimal(cost.total_cost).plus(leg.cost.total_cost).toFixed(4) : cost.total_cost;
  // A call a voice engine ran waits for its post-call work (the model's extraction) before
  // its lead's attempt is settled on the goal variable and its webhook is sent.
  const postCall = needsPostCall(deps, call, assistant);
  if (postCall) await schedulePostCall(em, call);
  await em.flush();
  const lastAttempt = postCall ? null : await settleCall(em, deps, call, assistant);

  // The account's row last: every start and every end of the account's calls locks it, so
  // this transaction holds it for as few statements as it can. The state machine finishes a
  // call once, so its reservation is released once; the call has happened, so its cost is
  // owed even when it takes the balance below zero.
  const charges: LedgerChange[] = [];
  if (new Decimal(call.reserved_amount).greaterThan(0)) charges.push({ amount: call.reserved_amount, kind: 'call_reservation_release', reference: `call:${call.id}` });
  if (new Decimal(cost.total_cost).greaterThan(0)) charges.push({ amount: new Decimal(cost.total_cost).negated(), kind: 'call', reference: `call:${call.id}` });
  if (leg) charges.push(leg.change);
  const balance = charges.length ? await applyLedgerChanges(em, call.account_id, charges, deps.config.balanceLowThreshold) : null;
  await slotFreed(em, deps.config, call, balance);
  return lastAttempt;
}

/**
 * What follows a call's final state, once its results are in (at its end, or after its
 * post-call work): its lead's attempt settled, then `onFinished` (the post-call webhook); the
 * analytics roll-up follows this transaction's commit, off it (analytics.rollup.ts). Answers,
 * for a campaign lead's attempt, whether it was the lead's last.
 */
export async function settleCall(em: EntityManager, deps: LifecycleDeps, call: Call, assistant: Assistant | null): Promise<boolean | null> {
  const lastAttempt = await settleAttempt(em, deps.config, call);
  rollUpAfterCommit(em, call.id, (error) => deps.logger?.warn('analytics: a settled call waits for the periodic roll-up', { call_id: call.id, message: String(error) }));
  await deps.onFinished?.(em, call, assistant);
  return lastAttempt;
}

/** The signature that lets a recording URL be fetched without a token (webhook receivers do). */
export function recordingSignature(secrets: SecretBox, callId: number): string {
  return createHmac('sha256', secrets.derivedKey('recordings')).update(String(callId)).digest('base64url').slice(0, 32);
}

function recordingUrl(deps: LifecycleDeps, callId: number): string {
  return `${deps.config.publicUrl}/recordings/${callId}.wav?sig=${recordingSignature(deps.secrets, callId)}`;
}

/** Past its deadline by this much, a call is ended even when its provider cannot be asked about it. */
const RECONCILE_FOR_MS = 60 * 60_000;

/**
 * Ends every call that has outlived its longest possible life (a worker died mid-call, a
 * provider's callbacks never came). A provider that can be asked (`reconcile`) settles its
 * calls from what it knows first. Each call in its own transactions; returns how many ended.
 */
export async function sweepStuckCalls(em: EntityManager, deps: LifecycleDeps, telephony: TelephonyProvider | null, now = new Date()): Promise<number> {
  const rows: { id: number; provider: string; deadline_at: Date }[] = await em.execute(
    `select c.id, c.provider, c.deadline_at from calls c where ${CALL_IN_FLIGHT} and c.deadline_at < ? order by c.deadline_at limit 500`,
    [now.toISOString()],
  );
  let ended = 0;
  for (const row of rows) {
    let reconciled = false;
    if (telephony?.reconcile && row.provider === telephony.name && now.getTime() - new Date(row.deadline_at).getTime() < RECONCILE_FOR_MS) {
      const call = await em.fork().findOne(Call, { id: row.id });
      if (!call || call.finished_at) continue;
      const asked = await telephony.reconcile(em.fork(), deps, call).catch((error: unknown) => {
        deps.logger?.warn('sweeper: could not ask the provider about a call', { call_id: row.id, message: error instanceof Error ? error.message : String(error) });
        return false;
      });
      if (!asked) continue;
      reconciled = true;
    }
    // Stale (null) when the provider's answer ended it already.
    const expired = await em.fork().transactional((tx) => applyCallEvent(tx, deps, row.id, { type: 'expired' }));
    if (expired || reconciled) ended++;
  }
  return ended;
}
