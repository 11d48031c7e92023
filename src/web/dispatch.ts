import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config';
import { isDatabaseUnavailable } from '../db/availability';
import { Messages, type ErrorCode } from '../errors';
import { BodyTooLargeError, drainUnread, sendError, sendGraphQLError } from '../http';
import type { Logger } from '../log';
import { httpDuration, httpRequests } from '../metrics';
import { corsFor } from './cors';
import { incomingRequestId, isValidHost, requestTarget } from './request';
import type { HttpRoute, Requested, Seen } from './route';

/**
 * The server's request listener over the route table: the first route that matches answers,
 * under its label in metrics and the access log (one line a request, with its id and account).
 * What a route throws is answered here, in its API's error shape.
 */
export function dispatcher(table: HttpRoute[], config: Pick<Config, 'cors' | 'publicUrl'>, logger: Logger): (req: IncomingMessage, res: ServerResponse) => void {
  const applyCors = corsFor(config.cors);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = incomingRequestId(req) ?? randomUUID();
    const started = process.hrtime.bigint();
    res.setHeader('x-request-id', requestId);
    const target = requestTarget(req.url);
    const requested: Requested = { method: req.method ?? 'GET', path: target?.pathname ?? '', search: target?.search ?? '', req };
    const route = table.find((candidate) => candidate.match(requested));
    const seen: Seen = { accountId: null };
    res.once('prefinish', () => drainUnread(req));
    res.once('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const label = !route ? 'unmatched' : typeof route.label === 'string' ? route.label : route.label(requested, seen);
      const labels = { method: req.method ?? '', route: label, status: String(res.statusCode) };
      httpRequests.inc(labels);
      httpDuration.observe(labels, seconds);
      logger.access({
        request_id: requestId,
        method: req.method,
        route: labels.route,
        status: res.statusCode,
        ms: Math.round(seconds * 1e5) / 100,
        account_id: seen.accountId,
      });
    });
    const { path } = requested;
    try {
      if (!target || !isValidHost(req.headers.host)) return sendError(res, 'BAD_REQUEST', Messages.badRequest);
      if (!applyCors(req, res)) return; // a preflight, answered
      if (!route) return sendError(res, 'NOT_FOUND', Messages.routeNotFound);
      // Links and page URLs are built on PUBLIC_URL, never on the client's Host header.
      const url = new URL(`${config.publicUrl}${target.pathname}${target.search}`);
      await route.handle({ req, res, url, path, requestId, seen });
    } catch (error) {
      // GraphQL's clients read its errors in GraphQL's shape, REST's in the spec's.
      const fail = (code: ErrorCode, message: string, headers: Record<string, string | number> = {}) =>
        path === '/graphql' ? sendGraphQLError(res, code, message, headers) : sendError(res, code, message, {}, headers);
      if (error instanceof BodyTooLargeError) return fail('PAYLOAD_TOO_LARGE', Messages.bodyTooLarge);
      if (isDatabaseUnavailable(error) && !res.headersSent) {
        logger.error('database unavailable', error, { request_id: requestId, method: req.method, path });
        return fail('UNAVAILABLE', Messages.unavailable, { 'retry-after': 5 });
      }
      logger.error('request failed', error, { request_id: requestId, method: req.method, path });
      if (!res.headersSent) fail('INTERNAL', Messages.internal);
      else res.destroy();
    }
  }

  return (req, res) => {
    handle(req, res).catch((error) => {
      // handle() answers its own failures; this is the last line for a failure in that answer.
      logger.error('request handler failed', error);
      res.destroy();
    });
  };
}
