import type { IncomingMessage, ServerResponse } from 'node:http';
import cors from 'cors';
import type { Config } from '../config';

const LOCALHOST_ORIGIN = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/;

/**
 * CORS for browsers on other origins (the `cors` package): allowed origins get the headers
 * and 204 preflights that allow the bearer header, JSON bodies and Idempotency-Key, and see
 * the paging, Link, Retry-After and request-id headers; other origins get no CORS headers.
 * The answer adds the headers, and is false when it answered the request itself (a preflight).
 */
export function corsFor(config: Config['cors']): (req: IncomingMessage, res: ServerResponse) => boolean {
  const allowCors = cors({
    origin: (origin, allow) =>
      allow(null, config.anyOrigin || (origin !== undefined && (config.origins.includes(origin) || (config.localhost && LOCALHOST_ORIGIN.test(origin))))),
    methods: ['GET', 'POST', 'PUT', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key'],
    exposedHeaders: ['X-Total-Count', 'X-Per-Page', 'X-Current-Page', 'X-Last-Page', 'Link', 'Retry-After', 'X-Request-Id'],
    maxAge: 600,
    optionsSuccessStatus: 204,
  });
  return (req, res) => {
    let proceed = false;
    // The origin check is synchronous, so the handler has decided when this call returns.
    allowCors(req, res, () => (proceed = true));
    return proceed;
  };
}
