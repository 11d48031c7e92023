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
 * Ends a web call still in flight, in one transaction: its `hangup_reason` (unless it has one),
 * then the event `eventFor` makes of whether it was answered and how long ago.
 */
export async function endWebCall(
  em: EntityManager,
  deps: LifecycleDeps,
  callId: number,
  reason: HangupReason,
  eventFor: (answered: boolean, seconds: number) => CallEvent,
): Promise<void> {
  await em.fork().transactional(async (tx) => {
    const [row] = await tx.execute<{ status: string; seconds: number | null }[]>(
      `update calls set hangup_reason = coalesce(hangup_reason, ?) where id = ? and finished_at is null
       returning status, extract(epoch from now() - answered_at)::float8 as seconds`,
      [reason, callId],
    );
    if (row) await applyCallEvent(tx, deps, callId, eventFor(row.status === 'in-progress', row.seconds ?? 0));
  });
}

/** The provider that ends a call: web calls are the web provider's, the rest the process's phone provider's (simulator or Twilio). */
export function providerOf(call: Pick<Call, 'provider'>, phone: TelephonyProvider, config: Pick<Config, 'webCallTokenTtlSeconds'>): TelephonyProvider {
  return call.provider === WEB_PROVIDER ? webCallProvider(config) : phone;
}
