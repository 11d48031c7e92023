import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ApolloServer } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import { DirectPath } from './graphql/apollo-bypass';
import { OperationRunner } from './graphql/compiled';
import type { GraphQLContext } from './graphql/context';
import { formatError, isUnexpected } from './graphql/errors';
import { armor } from './graphql/limits';
import { getSchema } from './graphql/schema';
import type { Subscriptions } from './graphql/subscriptions';
import { within } from './lib/bounded';
import { watchDatabase } from './metrics';
import { buildOpenApi } from './rest/openapi';
import { routes } from './rest/routes';
import { RestShim } from './rest/shim';
import type { Runtime } from './runtime';
import { startAdmission } from './voice/admission';
import { startApollo } from './web/apollo';
import { callRoutes } from './web/calls';
import { consoleRoute } from './web/console';
import { dispatcher } from './web/dispatch';
import { docsRoutes } from './web/docs';
import { graphqlRoute } from './web/graphql';
import { healthRoutes } from './web/health';
import { metricsRoute } from './web/metrics';
import { recordingRoute } from './web/recording';
import { restRoute } from './web/rest';
import type { HttpRoute } from './web/route';
import { sessions } from './web/session';
import { serveSockets } from './web/sockets';
import { talkRoute } from './web/talk';

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

/** The HTTP server: the parts built once, the route table over them, the WebSockets, and the stop. */
export async function createApp(runtime: Runtime): Promise<App> {
  const { orm, config, secrets, logger } = runtime;
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
  const apollo = await startApollo({ config, schema, protections, operations, direct, logUnexpected });
  // The REST API's description, made once from the route table and the schema; its server
  // URL is relative to where it is served.
  const openApi = JSON.stringify(buildOpenApi(schema, routes, REST_BASE));
  const shim = new RestShim(schema, routes, config.maxBodyBytes, operations, (error, requestId) => {
    logUnexpected([error], requestId);
    return formatError(error.toJSON(), error);
  });
  // A process that serves HTTP takes the calls' media: it measures its load and turns new calls away past the bound.
  const admission = startAdmission(config, { em: () => orm.em.fork(), logger });
  const session = sessions(runtime, admission);
  watchDatabase(orm);
  /** Set when close() starts. */
  let stopping = false;

  /** The HTTP routes, in the order they are tried (web/route.ts): the first that matches answers. */
  const table: HttpRoute[] = [
    ...healthRoutes(orm, () => stopping),
    ...docsRoutes(config, `${REST_BASE}/openapi.json`, openApi),
    graphqlRoute({ config, apollo, direct, session }),
    restRoute(shim, REST_BASE, session),
    talkRoute(config),
    consoleRoute(config),
    metricsRoute(config),
    recordingRoute(orm, secrets),
    ...callRoutes({ ...runtime, admission }),
  ];
  const server = http.createServer(dispatcher(table, config, logger));
  server.keepAliveTimeout = 5_000;
  const sockets = await serveSockets(schema, runtime, protections.validationRules);
  server.on('upgrade', sockets.upgrade);

  return {
    server,
    apollo,
    subscriptions: sockets.subscriptions,
    listen: (port, host = '0.0.0.0') =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          const address = server.address() as AddressInfo;
          const shown = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
          resolve(`http://${shown}:${address.port}`);
        });
      }),
    close: async (drainMs = 10_000) => {
      const started = Date.now();
      stopping = true;
      // Stops listening at once; resolves when every connection, upgraded ones included, is gone.
      const drained = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // WebSockets are told to go in the meantime: their sockets would otherwise keep the server open.
      await sockets.close(drainMs);
      if (!(await within(drained, Math.max(0, drainMs - (Date.now() - started))))) {
        server.closeAllConnections();
        // A socket the closing WebSockets did not release must not hold the stop.
        await within(drained, 1000);
      }
      await apollo.stop();
      await admission.stop();
    },
  };
}
