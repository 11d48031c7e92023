import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../config';
import type { Call } from './call.entity';
import { hangupEvent, type CallEvent, type HangupReason } from './call.events';
import { applyCallEvent } from './call.lifecycle';
import type { LifecycleDeps, TelephonyProvider } from './call.ports';

/** The `provider` of web calls. */
export const WEB_PROVIDER = 'web';

/**
 * The provider of web calls: nothing to place (the browser's connection answers the call);
 * a hangup settles the call here and now, and the transport that holds its socket ends it when
 * the call's `call.finished` event reaches its process.
 */
export function webCallProvider(config: Pick<Config, 'webCallTokenTtlSeconds'>): TelephonyProvider {
  return {
    name: WEB_PROVIDER,
    async startCall() {},
    // Until the token is spent; the connection that spends it moves the deadline to max_call_duration.
    longestCallSeconds: () => config.webCallTokenTtlSeconds,
    hangup: (em, deps, call, reason) =>
      endWebCall(em, deps, call.id, reason, (answered, seconds) => hangupEvent(reason, answered, answered ? seconds : 0)),
  };
}

/**
 * The seconds a web call is charged for. One whose engine spoke is charged at least a second,
 * hence its first started minute, however soon it ended: its vendors (the greeting's speech
 * first) were paid, and an answered phone call is charged its first minute too. Without this a
 * call hung up within half a second rounded to 0 s and cost nothing.
 */
export function webCallSeconds(seconds: number, engineSpoke: boolean): number {
  return engineSpoke ? Math.max(1, seconds) : seconds;
}

/**
 * Ends a web call still in flight, in one transaction: its `hangup_reason` (unless it has one),
 * then the event `eventFor` makes of whether it was answered and the seconds it is charged for
 * (webCallSeconds). Its engine spoke when the transport saw its audio (`engineSpoke`) or the
 * call's record shows speech: an assistant turn, or characters sent to the TTS.
 */
export async function endWebCall(
  em: EntityManager,
  deps: LifecycleDeps,
  callId: number,
  reason: HangupReason,
  eventFor: (answered: boolean, seconds: number) => CallEvent,
  engineSpoke = false,
): Promise<void> {
  await em.fork().transactional(async (tx) => {
    const [row] = await tx.execute<{ status: string; seconds: number | null; spoke: boolean }[]>(
      `update calls set hangup_reason = coalesce(hangup_reason, ?) where id = ? and finished_at is null
       returning status, extract(epoch from now() - answered_at)::float8 as seconds,
         (exists (select 1 from call_turns t where t.call_id = calls.id and t.speaker = 'assistant') or coalesce(usage ->> 'tts_characters', '0')::numeric > 0) as spoke`,
      [reason, callId],
    );
    if (row) await applyCallEvent(tx, deps, callId, eventFor(row.status === 'in-progress', webCallSeconds(row.seconds ?? 0, engineSpoke || row.spoke)));
  });
}

/** The provider that ends a call: web calls are the web provider's, the rest the process's phone provider's (simulator or Twilio). */
export function providerOf(call: Pick<Call, 'provider'>, phone: TelephonyProvider, config: Pick<Config, 'webCallTokenTtlSeconds'>): TelephonyProvider {
  return call.provider === WEB_PROVIDER ? webCallProvider(config) : phone;
}
