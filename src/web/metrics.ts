import type { Config } from '../config';
import { Messages } from '../errors';
import { sendError } from '../http';
import { sameSecret } from '../lib/secrets';
import { registry } from '../metrics';
import type { HttpRoute } from './route';

/** GET /metrics: Prometheus exposition; open on a development instance, else METRICS_TOKEN's. */
export function metricsRoute(config: Pick<Config, 'metricsOpen' | 'metricsToken'>): HttpRoute {
  return {
    match: ({ method, path }) => path === '/metrics' && method === 'GET',
    label: '/metrics',
    async handle({ req, res }) {
      if (!config.metricsOpen) {
        const given = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1];
        if (!config.metricsToken || !sameSecret(given, config.metricsToken)) return sendError(res, 'UNAUTHENTICATED', Messages.unauthenticated);
      }
      const text = await registry.metrics();
      res.writeHead(200, { 'content-type': registry.contentType, 'content-length': Buffer.byteLength(text) });
      res.end(text);
    },
  };
}
