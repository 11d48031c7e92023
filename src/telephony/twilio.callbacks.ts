import type { EntityManager } from '@mikro-orm/postgresql';
import { Call } from '../modules/calls/call.entity';
import { applyCallEvent, type CallEvent, type LifecycleDeps } from '../modules/calls/call.lifecycle';
import { answeredByOf } from './twilio';

export type TwilioCallbackKind = 'status' | 'amd' | 'recording';

/**
 * A verified Twilio callback for our call `callId` (the `call` parameter of the callback URL
 * we gave Twilio): links Twilio's CallSid to the call, and drives the state machine. Each
 * step runs in its own transaction through `applyCallEvent`, which ignores what is stale, so
 * a repeated or late callback changes nothing twice. A `completed` that arrives before the
 * answer it implies applies that answer first.
 */
export async function handleTwilioCallback(em: EntityManager, deps: LifecycleDeps, kind: TwilioCallbackKind, callId: number, params: Record<string, string>): Promise<void> {
  const call = await em.findOne(Call, { id: callId, provider: 'twilio' });
  if (!call) return;
  const sid = params.CallSid;
  if (sid) {
    if (call.provider_call_id && call.provider_call_id !== sid) return; // another call's callback
    if (!call.provider_call_id) await em.execute('update calls set provider_call_id = ? where id = ? and provider_call_id is null', [sid, callId]);
  }
  const apply = (event: CallEvent) => em.fork().transactional((tx) => applyCallEvent(tx, deps, callId, event));

  if (kind === 'amd') {
    const answeredBy = answeredByOf(params.AnsweredBy);
    if (answeredBy) await em.execute('update calls set answered_by = ?, updated_at = now() where id = ? and answered_at is not null', [answeredBy, callId]);
    return;
  }
  if (kind === 'recording') {
    if (params.RecordingUrl && (params.RecordingStatus ?? 'completed') === 'completed') {
      await em.execute('update calls set recording_url = ?, updated_at = now() where id = ?', [params.RecordingUrl, callId]);
    }
    return;
  }

  const answeredBy = answeredByOf(params.AnsweredBy) ?? 'unknown';
  switch (params.CallStatus) {
    case 'ringing':
      await apply({ type: 'ringing' });
      break;
    case 'in-progress':
      await apply({ type: 'answered', answeredBy });
      break;
    case 'completed':
      await apply({ type: 'answered', answeredBy });
      await apply({ type: 'ended', status: 'completed', duration: Number(params.CallDuration ?? 0) || 0, turns: [] });
      break;
    case 'busy':
    case 'no-answer':
    case 'failed':
      await apply({ type: 'not-answered', status: params.CallStatus, reason: params.ErrorCode ? `twilio ${params.ErrorCode}` : undefined });
      break;
    case 'canceled':
      await apply({ type: 'not-answered', status: 'failed', reason: 'canceled' });
      break;
    // queued, initiated: the call is initiated already.
  }
}
