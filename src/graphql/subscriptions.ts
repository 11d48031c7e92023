import type http from 'node:http';
import type { Duplex } from 'node:stream';
import {
  GraphQLError,
  Kind,
  createSourceEventStream,
  execute,
  getOperationAST,
  parse,
  print,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLSchema,
  type ValidationRule,
} from 'graphql';
import { CloseCode } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import { Messages } from '../errors';
import { authenticate, liveTokenHashes, tokenHashOf } from '../modules/accounts/account.service';
import { EventBus } from '../modules/events/event.bus';
import type { Runtime } from '../runtime';
import { createContext, type GraphQLContext } from './context';
import { formatError } from './errors';

export interface Subscriptions {
  /** Takes the WebSocket upgrade of a request to /graphql. */
  upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void;
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
 * Closes (4403) the open connections whose tokens `lookup` no longer finds. Only the
 * connections whose tokens were looked up are judged: one that opens while the lookup runs was
 * checked as it opened, and its token is not in the answer.
 */
export async function closeRevoked(
  connections: ReadonlyMap<Pick<WebSocket, 'close'>, Pick<Connection, 'tokenHash'>>,
  lookup: (hashes: string[]) => Promise<Set<string>>,
): Promise<void> {
  const checked = [...connections];
  const live = await lookup([...new Set(checked.map(([, connection]) => connection.tokenHash))]);
  for (const [socket, connection] of checked) {
    if (!live.has(connection.tokenHash)) socket.close(CloseCode.Forbidden, 'Forbidden');
  }
}

/** Each event's results, by subscription (account, document and variables), while the event is alive. */
const resultsByEvent = new WeakMap<object, Map<string, Promise<ExecutionResult>>>();
const documentKeys = new WeakMap<DocumentNode, string>();

/**
 * graphql-js's subscribe, except that the subscriptions of one account with the same
 * document and variables execute each event once and share the result: a thousand
 * dashboards following the same calls cost one execution per event, not a thousand. (Events
 * are the account's, so the subscriptions that share a result see the same data.)
 */
async function sharedSubscribe(args: ExecutionArgs) {
  const stream = await createSourceEventStream(args);
  if (!(Symbol.asyncIterator in stream)) return stream;
  let text = documentKeys.get(args.document);
  if (text === undefined) documentKeys.set(args.document, (text = print(args.document)));
  const key = `${(args.contextValue as GraphQLContext).accountId}\n${args.operationName ?? ''}\n${JSON.stringify(args.variableValues ?? {})}\n${text}`;
  const source = stream[Symbol.asyncIterator]();
  const results: AsyncIterableIterator<ExecutionResult> = {
    async next() {
      const next = await source.next();
      if (next.done) return { value: undefined, done: true };
      const event = next.value as object;
      let shared = resultsByEvent.get(event);
      if (!shared) resultsByEvent.set(event, (shared = new Map()));
      let result = shared.get(key);
      if (!result) shared.set(key, (result = Promise.resolve(execute({ ...args, rootValue: event }))));
      return { value: await result, done: false };
    },
    async return() {
      await source.return?.();
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
  return results;
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
  schema: GraphQLSchema,
  runtime: Runtime,
  rules: ValidationRule[],
): Promise<Subscriptions> {
  const { orm, config, secrets, telephony, sms, logger } = runtime;
  const bus = new EventBus(String(orm.config.get('clientUrl')), logger);
  await bus.start();
  const wss = new WebSocketServer({ noServer: true });
  const connections = new Map<WebSocket, Connection>();

  const refused = (message: string, code = 'BAD_REQUEST') => [new GraphQLError(message, { extensions: { code } })];

  /**
   * A subscription's context. It lives as long as the subscription, so its EntityManager and
   * loaders are made only when an event's resolvers need them (most events resolve from the
   * state they carry) and dropped for the next event (`renew`): a long subscription keeps no
   * entities, a thousand idle ones cost little.
   */
  const subscriptionContext = (accountId: number, requestId: string): GraphQLContext =>
    createContext({ requestId, root: orm.em, accountId, config, secrets, telephony, lifecycle: runtime.lifecycle, sms, events: bus });

  const disposable = useServer<Record<string, unknown> | undefined, { connection?: Connection }>(
    {
      schema,
      subscribe: sharedSubscribe,
      onConnect: async (ctx) => {
        const params = ctx.connectionParams ?? {};
        const header = params.Authorization ?? params.authorization;
        const authorization = typeof header === 'string' ? header : undefined;
        // The token check keeps nothing in an EntityManager: the ORM's own runs it, as for HTTP.
        const auth = await authenticate(orm.em, authorization, config.rateLimitPerMinute).catch(() => null);
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
        return { schema, document, variableValues: payload.variables ?? undefined, operationName: payload.operationName ?? undefined, contextValue: subscriptionContext(connection.accountId, `ws-${connection.accountId}-${_id}`) };
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
      await closeRevoked(connections, (hashes) => liveTokenHashes(orm.em, hashes));
    } catch (error) {
      logger.warn('subscriptions: could not check the tokens of open connections', { message: (error as Error).message });
    }
  }, config.graphql.wsKeepAliveMs);
  recheck.unref();

  return {
    upgrade(req, socket, head) {
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
    },
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
