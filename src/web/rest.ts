import type { RestShim, Session } from '../rest/shim';
import type { Exchange, HttpRoute } from './route';

/**
 * The REST API under `base` (the spec's `{base_url}`), run by the shim as GraphQL. Its label is
 * the route's pattern (`/api/leads/{id}`), which the shim reports once it has matched.
 */
export function restRoute(shim: RestShim, base: string, session: (exchange: Exchange) => () => Promise<Session>): HttpRoute {
  return {
    match: ({ path }) => path === base || path.startsWith(`${base}/`),
    label: ({ method, path }, seen) => {
      const pattern = seen.restRoute !== undefined ? seen.restRoute : shim.patternOf(method, path.slice(base.length));
      return pattern ? `${base}${pattern}` : 'unmatched';
    },
    handle: (exchange) => {
      const matched = (pattern: string | null) => (exchange.seen.restRoute = pattern);
      return shim.handle(exchange.req, exchange.res, exchange.url, exchange.path.slice(base.length), session(exchange), matched);
    },
  };
}
