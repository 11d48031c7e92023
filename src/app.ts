import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled } from '@apollo/server/plugin/disabled';
import cors from 'cors';
import { GraphQLError } from 'graphql';
import { isDatabaseUnavailable } from './db/availability';
import { Messages, type ErrorCode } from './errors';
import { armor } from './graphql/limits';
import { OperationRunner, compiledGateway } from './graphql/compiled';
import { createContext, type GraphQLContext } from './graphql/context';
import { DirectPath } from './graphql/apollo-bypass';
import { unwrapResolverError } from '@apollo/server/errors';
import { formatError, isUnexpected } from './graphql/errors';
import { getSchema } from './graphql/schema';
import { serveSubscriptions, type Subscriptions } from './graphql/subscriptions';
import { within } from './lib/bounded';
import { BodyTooLargeError, drainUnread, sendError, sendGraphQLError, sendJson } from './http';
import { authenticate } from './modules/accounts/account.service';
import { routes } from './rest/routes';
import { RestShim, type Session } from './rest/shim';
import type { Config } from './config';
import { buildOpenApi } from './rest/openapi';
import { graphqlOperations, httpDuration, httpRequests, watchDatabase } from './metrics';
import type { Runtime } from './runtime';
import { TWILIO_WEBHOOK_PATHS, twilioWebhook } from './telephony/twilio.callbacks';
import { engineApi } from './voice/engine.api';
import { MEDIA_PATH } from './telephony/twilio.wire';
import { serveMedia } from './voice/transports/twilio-media';
import { serveWebCalls } from './voice/transports/browser';
import { talkRoute } from './web/talk';
import { consoleRoute } from './web/console';
import { docsRoutes } from './web/docs';
import { graphqlRoute } from './web/graphql';
import { metricsRoute } from './web/metrics';
import { recordingRoute } from './web/recording';
import type { Exchange, HttpRoute, Requested, Seen } from './web/route';

export interface App {
  server: http.Server;
  apollo: ApolloServer<GraphQLContext>;
  subscriptions: Subscriptions;
  /** Listens and answers the base URL (`http://host:port`). */
  listen(port: number, host?: string): Promise<string>;
  /**
   * Stops accepting (and /readyz answers 503 from the first moment), lets in-flight requests
   * and WebSockets finish for up to `drainMs`, then drops whatever is left and stops Apollo:
   * it resolves within about `drainMs` plus a second, whatever the sockets do.
   */
  close(drainMs?: number): Promise<void>;
}

const REST_BASE = '/api';

const REQUEST_ID = /^[\w.:@-]{1,128}$/;
const TRACEPARENT = /^[\da-f]{2}-([\da-f]{32})-[\da-f]{16}-[\da-f]{2}$/;

/** The caller's request id (X-Request-Id, else the trace id of a W3C traceparent), when well-formed. */
function incomingRequestId(req: IncomingMessage): string | null {
  const given = req.headers['x-request-id'];
  if (typeof given === 'string' && REQUEST_ID.test(given)) return given;
  const trace = TRACEPARENT.exec(String(req.headers.traceparent ?? ''));
  return trace ? trace[1] : null;
}

/**
 * The path and query of a request in origin form (`/path?query`), read without the Host
 * header; null for anything else (`*`, absolute form, a target the URL parser refuses).
 */
function requestTarget(raw: string | undefined): URL | null {
  if (!raw?.startsWith('/')) return null;
  try {
    return new URL(`http://localhost${raw}`);
  } catch {
    return null;
  }
}

/** RFC 9112: a Host that is not `host[:port]` gets a 400 (HTTP/1.0 may leave it out). */
function isValidHost(host: string | undefined): boolean {
  if (host === undefined) return true;
  try {
    const url = new URL(`http://${host}`);
    return url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password && !host.includes('#');
  } catch {
    return false;
  }
}

const LOCALHOST_ORIGIN = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/;

/**
 * CORS for browsers on other origins (the `cors` package): allowed origins get the headers
 * and 204 preflights that allow the bearer header, JSON bodies and Idempotency-Key, and see
 * the paging, Link, Retry-After and request-id headers; other origins get no CORS headers.
 */
function corsHandler(config: Config['cors']) {
  return cors({
    origin: (origin, allow) =>
      allow(null, config.anyOrigin || (origin !== undefined && (config.origins.includes(origin) || (config.localhost && LOCALHOST_ORIGIN.test(origin))))),
    methods: ['GET', 'POST', 'PUT', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key'],
    exposedHeaders: ['X-Total-Count', 'X-Per-Page', 'X-Current-Page', 'X-Last-Page', 'Link', 'Retry-After', 'X-Request-Id'],
    maxAge: 600,
    optionsSuccessStatus: 204,
  });
}

export async function createApp(runtime: Runtime): Promise<App> {
  const { orm, config, secrets, telephony, sms, logger } = runtime;
  const schema = await getSchema();
  /** Unexpected errors are logged once, with the request's id; clients see them masked. */
  const logUnexpected = (errors: readonly unknown[], requestId: string | undefined) => {
    for (const error of errors) {
      if (isUnexpected(error)) logger.error('unexpected error in a GraphQL operation', unwrapResolverError(error), { request_id: requestId });
    }
  };
  const protections = armor(config);
  // One runner for both APIs: GraphQL's documents and the REST routes' run the same way.
  const operations = new OperationRunner(schema, config.graphql.compile);
  const direct = new DirectPath(operations);
  const apollo = new ApolloServer<GraphQLContext>({
    gateway: compiledGateway(schema, operations, (...accepted) => direct.accept(...accepted)),
    ...protections,
    plugins: [
      ...protections.plugins,
      // The schema sets no cache hints, so the cache-control plugin would only wrap every
      // field's resolver to compute "no-store" (set below, for every answer).
      ApolloServerPluginCacheControlDisabled(),
      {
        async requestDidStart() {
          return {
            // Subscriptions are served over WebSocket (graphql-ws), not over HTTP.
            async didResolveOperation({ operation }) {
              if (operation?.operation === 'subscription') {
                throw new GraphQLError(Messages.subscriptionsOverWebSocket, { extensions: { code: 'BAD_REQUEST', http: { status: 400 } } });
              }
            },
            async didEncounterErrors({ errors, contextValue }) {
              logUnexpected(errors, contextValue?.requestId);
            },
            async willSendResponse({ operation, response }) {
              const failed = response.body.kind === 'single' && (response.body.singleResult.errors?.length ?? 0) > 0;
              graphqlOperations.inc({ type: operation?.operation ?? 'unknown', outcome: failed ? 'error' : 'ok' });
            },
          };
        },
      },
    ],
    introspection: config.graphql.introspection,
    // Apollo's CSRF check lets a request through when it carries a header no browser sends
    // cross-site without a preflight. Every operation here needs the Authorization header
    // (requests without a valid token are answered before Apollo sees them), which is such
    // a header: so GET /graphql with only Authorization works, and CSRF stays impossible.
    csrfPrevention: { requestHeaders: ['authorization', 'x-apollo-operation-name', 'apollo-require-preflight'] },
    parseOptions: { maxTokens: config.graphql.maxTokens },
    includeStacktraceInErrorResponses: false,
    // main.ts and worker.ts stop everything in order on SIGINT/SIGTERM; Apollo must not race them.
    stopOnTerminationSignals: false,
    formatError,
  });
  await apollo.start();
  // The REST API's description, made once from the route table and the schema; its server
  // URL is relative to where it is served.
  const openApi = JSON.stringify(buildOpenApi(schema, routes, REST_BASE));
  const shim = new RestShim(schema, routes, config.maxBodyBytes, operations, (error, requestId) => {
    logUnexpected([error], requestId);
    return formatError(error.toJSON(), error);
  });

  /** The request's context, and how long its token must wait when it is over its rate limit. */
  const sessionFor = ({ req, requestId, seen }: Exchange) => async (): Promise<Session> => {
    // The token check keeps nothing in an EntityManager: the ORM's own runs it.
    const auth = await authenticate(orm.em, req.headers.authorization, config.rateLimitPerMinute);
    seen.accountId = auth?.accountId ?? null;
    return {
      context: createContext({ requestId, root: orm.em, accountId: auth?.accountId ?? null, config, secrets, telephony, lifecycle: runtime.lifecycle, sms }),
      retryAfterSeconds: auth?.retryAfterSeconds ?? null,
    };
  };

  watchDatabase(orm);
  /** Set when close() starts. */
  let stopping = false;
  const allowCors = corsHandler(config.cors);
  /** Adds the CORS headers; false when the handler answered the request itself (a preflight). */
  const applyCors = (req: IncomingMessage, res: ServerResponse): boolean => {
    let proceed = false;
    // The origin check is synchronous, so the handler has decided when this call returns.
    allowCors(req, res, () => (proceed = true));
    return proceed;
  };

  /**
   * The HTTP routes, in the order they are tried: each says which requests it takes, their
   * label in metrics and logs, and what answers them.
   */
  const table: HttpRoute[] = [
    { match: ({ path }) => path === '/healthz', label: '/healthz', handle: ({ res }) => sendJson(res, 200, { status: 'ok' }) },
    {
      match: ({ path }) => path === '/readyz',
      label: '/readyz',
      async handle({ res }) {
        // A process that stops takes no more traffic, though its database answers.
        const ready = !stopping && (await orm.isConnected().catch(() => false));
        sendJson(res, ready ? 200 : 503, { status: ready ? 'ok' : 'unavailable' });
      },
    },
    ...docsRoutes(config, `${REST_BASE}/openapi.json`, openApi),
    graphqlRoute({ config, apollo, direct, session: sessionFor }),
    {
      match: ({ path }) => path === REST_BASE || path.startsWith(`${REST_BASE}/`),
      label: ({ method, path }, seen) => {
        const pattern = seen.restRoute !== undefined ? seen.restRoute : shim.patternOf(method, path.slice(REST_BASE.length));
        return pattern ? `${REST_BASE}${pattern}` : 'unmatched';
      },
      handle: (exchange) => {
        const matched = (pattern: string | null) => (exchange.seen.restRoute = pattern);
        return shim.handle(exchange.req, exchange.res, exchange.url, exchange.path.slice(REST_BASE.length), sessionFor(exchange), matched);
      },
    },
    talkRoute(config),
    consoleRoute(config),
    metricsRoute(config),
    recordingRoute(orm, secrets),
    {
      match: ({ path }) => path.startsWith('/telephony/twilio/'),
      label: ({ path }) => (TWILIO_WEBHOOK_PATHS.includes(path) ? path : 'unmatched'),
      handle: ({ req, res, url }) => twilioWebhook(runtime, req, res, url),
    },
    {
      match: ({ path }) => path.startsWith('/engine/'),
      label: ({ path }) => (path.startsWith('/engine/calls/') ? '/engine/calls/*' : 'unmatched'),
      handle: ({ req, res, path }) => engineApi(runtime, req, res, path),
    },
  ];
  const routeOf = (requested: Requested) => table.find((route) => route.match(requested));

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = incomingRequestId(req) ?? randomUUID();
    const started = process.hrtime.bigint();
    res.setHeader('x-request-id', requestId);
    const target = requestTarget(req.url);
    const requested: Requested = { method: req.method ?? 'GET', path: target?.pathname ?? '', search: target?.search ?? '', req };
    const route = routeOf(requested);
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

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error) => {
      // handle() answers its own failures; this is the last line for a failure in that answer.
      logger.error('request handler failed', error);
      res.destroy();
    });
  });
  server.keepAliveTimeout = 5_000;
  const subscriptions = await serveSubscriptions(schema, runtime, protections.validationRules);
  const media = serveMedia(runtime);
  const webCalls = serveWebCalls(runtime);
  // WebSockets: GraphQL subscriptions, the media streams of calls (Twilio, provider twilio only), and web calls.
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = requestTarget(req.url)?.pathname ?? '';
    if (path === '/graphql') return subscriptions.upgrade(req, socket, head);
    if (path === MEDIA_PATH && runtime.telephony.name === 'twilio') return media.upgrade(req, socket, head);
    if (webCalls.handles(path)) return webCalls.upgrade(req, socket, head);
    socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  });

  return {
    server,
    apollo,
    listen: (port, host = '0.0.0.0') =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          const address = server.address() as AddressInfo;
          const shown = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
          resolve(`http://${shown}:${address.port}`);
        });
      }),
    subscriptions,
    close: async (drainMs = 10_000) => {
      const started = Date.now();
      stopping = true;
      // Stops listening at once; resolves when every connection, upgraded ones included, is gone.
      const drained = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // WebSockets are told to go in the meantime: their sockets would otherwise keep the server open.
      await Promise.all([subscriptions.close(drainMs), media.close(drainMs), webCalls.close(drainMs)]);
      if (!(await within(drained, Math.max(0, drainMs - (Date.now() - started))))) {
        server.closeAllConnections();
        // A socket the closing WebSockets did not release must not hold the stop.
        await within(drained, 1000);
      }
      await apollo.stop();
    },
  };
}
