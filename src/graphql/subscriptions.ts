import type http from 'node:http';
import { GraphQLError, Kind, getOperationAST, parse, specifiedRules, validate, type DocumentNode, type GraphQLSchema, type ValidationRule } from 'graphql';
import { CloseCode } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import { Messages } from '../errors';
import { authenticate, liveTokenHashes, tokenHashOf } from '../modules/accounts/account.service';
import { EventBus } from '../modules/events/event.bus';
import type { Runtime } from '../runtime';
import { createContext, type GraphQLContext } from './context';
import { createLoaders } from './loaders';
import { formatError } from './errors';

export interface Subscriptions {
  /** Closes every subscription's socket and stops listening for events. */
  close(): Promise<void>;
  /** Open WebSocket connections (the benchmark reads it). */
  readonly connections: number;
}

interface Connection {
  accountId: number;
  tokenHash: string;
}

/**
 * GraphQL subscriptions over graphql-ws on the WebSocket upgrade of /graphql. The bearer
 * token comes in `connectionParams.Authorization` and is checked when the connection opens
 * (a bad one closes it with 4403) and again with every keep-alive ping (a revoked one closes
 * it with 4403). An operation is parsed with the same token limit and validated with the same
 * depth, cost, alias and directive rules as over HTTP; only subscriptions are served here
 * (queries and mutations go over HTTP, with its rate limit and logs).
 */
export async function serveSubscriptions(
  server: http.Server,
  schema: GraphQLSchema,
  runtime: Runtime,
  rules: ValidationRule[],
): Promise<Subscriptions> {
  const { orm, config, secrets, telephony, sms, logger } = runtime;
  const bus = new EventBus(String(orm.config.get('clientUrl')), logger);
  await bus.start();
  const wss = new WebSocketServer({ server, path: '/graphql' });
  const connections = new Map<WebSocket, Connection>();

  const refused = (message: string, code = 'BAD_REQUEST') => [new GraphQLError(message, { extensions: { code } })];

  const disposable = useServer<Record<string, unknown> | undefined, { connection?: Connection }>(
    {
      schema,
      onConnect: async (ctx) => {
        const params = ctx.connectionParams ?? {};
        const header = params.Authorization ?? params.authorization;
        const authorization = typeof header === 'string' ? header : undefined;
        const auth = await authenticate(orm.em.fork(), authorization, config.rateLimitPerMinute).catch(() => null);
        if (!auth || auth.retryAfterSeconds !== null) return false;
        const connection = { accountId: auth.accountId, tokenHash: tokenHashOf(authorization)! };
        ctx.extra.connection = connection;
        connections.set(ctx.extra.socket, connection);
        return true;
      },
      onSubscribe: (ctx, _id, payload) => {
        const connection = ctx.extra.connection!;
        let document: DocumentNode;
        try {
          document = parse(payload.query, { maxTokens: config.graphql.maxTokens });
        } catch (error) {
          return [error instanceof GraphQLError ? error : new GraphQLError(String(error))];
        }
        const errors = validate(schema, document, [...specifiedRules, ...rules]);
        if (errors.length) return errors;
        const operation = getOperationAST(document, payload.operationName);
        if (!operation) return refused(Messages.badRequest);
        if (operation.operation !== 'subscription' || operation.kind !== Kind.OPERATION_DEFINITION) return refused(Messages.subscriptionsOnly);
        const context: GraphQLContext = createContext({
          requestId: `ws-${connection.accountId}-${_id}`,
          em: orm.em.fork(),
          accountId: connection.accountId,
          config,
          secrets,
          telephony,
          sms,
        });
        context.events = bus;
        context.renew = () => {
          context.em = orm.em.fork();
          context.loaders = createLoaders(context);
        };
        return { schema, document, variableValues: payload.variables ?? undefined, operationName: payload.operationName ?? undefined, contextValue: context };
      },
      // Errors read as over HTTP: the domain's code and message, anything unexpected masked.
      onNext: (_ctx, _id, _payload, _args, result) =>
        result.errors?.length ? { ...result, errors: result.errors.map((error) => formatError(error.toJSON(), error)) } : undefined,
      onError: (_ctx, _id, _payload, errors) => errors.map((error) => formatError(error.toJSON(), error)),
      onClose: (ctx) => {
        connections.delete(ctx.extra.socket);
      },
    },
    wss,
    config.graphql.wsKeepAliveMs,
  );

  // With each keep-alive, the tokens of open connections are looked up again, in one statement.
  const recheck = setInterval(async () => {
    if (!connections.size) return;
    try {
      const live = await liveTokenHashes(orm.em.fork(), [...new Set([...connections.values()].map((c) => c.tokenHash))]);
      for (const [socket, connection] of connections) {
        if (!live.has(connection.tokenHash)) socket.close(CloseCode.Forbidden, 'Forbidden');
      }
    } catch (error) {
      logger.warn('subscriptions: could not check the tokens of open connections', { message: (error as Error).message });
    }
  }, config.graphql.wsKeepAliveMs);
  recheck.unref();

  return {
    get connections() {
      return wss.clients.size;
    },
    async close() {
      clearInterval(recheck);
      await disposable.dispose();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await bus.stop();
    },
  };
}
