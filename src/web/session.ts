import { createContext } from '../graphql/context';
import { authenticate } from '../modules/accounts/account.service';
import type { CallAdmission } from '../modules/calls/call.ports';
import type { Session } from '../rest/shim';
import type { Runtime } from '../runtime';
import type { Exchange } from './route';

/**
 * A request's GraphQL context (its account, from the bearer token), and how long the token must
 * wait when it is over its rate limit; the account goes into the request's log line.
 */
export function sessions(runtime: Pick<Runtime, 'orm' | 'config' | 'secrets' | 'telephony' | 'lifecycle' | 'sms' | 'numbers' | 'sipAccess' | 'embedder' | 'replier'>, admission?: CallAdmission) {
  const { orm, config, secrets, telephony, lifecycle, sms, numbers, sipAccess, embedder, replier } = runtime;
  return ({ req, requestId, seen }: Exchange) => async (): Promise<Session> => {
    // The token check keeps nothing in an EntityManager: the ORM's own runs it.
    const auth = await authenticate(orm.em, req.headers.authorization, config.rateLimitPerMinute);
    seen.accountId = auth?.accountId ?? null;
    return {
      context: createContext({ requestId, root: orm.em, accountId: auth?.accountId ?? null, config, secrets, telephony, lifecycle, sms, numbers, sipAccess, admission, embedder, replier }),
      retryAfterSeconds: auth?.retryAfterSeconds ?? null,
    };
  };
}
