import type { Config } from '../../config';
import type { Call } from './call.entity';
import { hangupEvent } from './call.events';
import { applyCallEvent } from './call.lifecycle';
import type { TelephonyProvider } from './call.ports';

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
    async hangup(em, deps, call, reason) {
      await em.fork().transactional(async (tx) => {
        const [row] = await tx.execute<{ status: string; seconds: number | null }[]>(
          `update calls set hangup_reason = coalesce(hangup_reason, ?) where id = ? and finished_at is null
           returning status, extract(epoch from now() - answered_at)::float8 as seconds`,
          [reason, call.id],
        );
        if (!row) return;
        const answered = row.status === 'in-progress';
        await applyCallEvent(tx, deps, call.id, hangupEvent(reason, answered, answered ? (row.seconds ?? 0) : 0));
      });
    },
  };
}

/** The provider that ends a call: web calls are the web provider's, the rest the process's phone provider's (simulator or Twilio). */
export function providerOf(call: Pick<Call, 'provider'>, phone: TelephonyProvider, config: Pick<Config, 'webCallTokenTtlSeconds'>): TelephonyProvider {
  return call.provider === WEB_PROVIDER ? webCallProvider(config) : phone;
}
