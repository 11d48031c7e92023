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
import { CloseCode, type SubscribePayload } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import { DomainError, Messages, UnauthenticatedError } from '../errors';
import { closeWebSockets, within } from '../lib/bounded';
import { authenticate, liveTokenHashes, tokenHashOf } from '../modules/accounts/account.service';
import { EventBus } from '../modules/events/event.bus';
import type { Runtime } from '../runtime';
import { createContext, type GraphQLContext } from './context';
import { formatError } from './errors';
import { operationResolutionErrors } from './operation-resolution';

/**
 * The largest WebSocket message taken (ws refuses a bigger frame from its header, before
 * buffering it, and closes with 1009). A subscribe message is a document of at most
 * GRAPHQL_MAX_TOKENS tokens (2,000 by default) and a few ids as variables: at 64 bytes a
 * token, long names and indentation included, that is 128 KiB. ws's default, 100 MiB, let four
 * unauthenticated frames take a gigabyte.
 */
export const MAX_PAYLOAD_BYTES = 128 * 1024;
/**
 * Sockets of the process not yet past connection_init (no account known yet). Each may hold
 * a frame of MAX_PAYLOAD_BYTES until graphql-ws's 3 s wait for connection_init ends: 32 MiB of
 * frames at most. A real client is past it in one round trip and one token lookup.
 */
export const MAX_PENDING_CONNECTIONS = 256;
// An account's connections and subscriptions, and a connection's subscriptions, are bounded by
// GRAPHQL_WS_MAX_ACCOUNT_CONNECTIONS (2,000: twice the thousand dashboards of one account that
// the benchmark follows, at about 42 KB each), GRAPHQL_WS_MAX_SUBSCRIPTIONS (100: a dashboard
// needs a few) and GRAPHQL_WS_MAX_ACCOUNT_SUBSCRIPTIONS (5,000: those dashboards following
// calls, campaigns and leads, with room to spare).

/**
 * How a socket is refused before it serves anything. graphql-ws's client gives up at once on
 * 4401 (the same token will not do better) and on 1008 (retrying does not help while the
 * account's other connections stay open); it retries 1013 (try again later) with backoff, and
 * 4403, which is kept for a token revoked while its connection was open (the retry then meets
 * 4401). 1009 (message too big) is ws's own.
 */
export const Refusals = {
  badToken: { code: CloseCode.Unauthorized, reason: 'Unauthorized: connectionParams.Authorization must be "Bearer <token>" with a valid token' },
  revoked: { code: CloseCode.Forbidden, reason: 'Forbidden: the token was revoked' },
  rateLimited: (seconds: number) => ({ code: 1013, reason: `Rate limited; try again in ${seconds} s` }),
  unavailable: { code: 1013, reason: 'The token could not be checked; try again later' },
  tooManyPending: { code: 1013, reason: 'Too many connections awaiting connection_init; try again later' },
  tooManyForAccount: { code: 1008, reason: 'Too many open connections for this account' },
} as const;

export interface Subscriptions {
  /** Takes the WebSocket upgrade of a request to /graphql. */
  upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Closes every subscription's socket and stops listening for events, within about `graceMs`. */
  close(graceMs?: number): Promise<void>;
  /** Open WebSocket connections (the benchmark reads it). */
  readonly connections: number;
}

interface Connection {
  accountId: number;
  /** The connection's Authorization value, checked again with each subscribe message. */
  authorization: string;
  tokenHash: string;
  /** Ids of its subscriptions that run or are being admitted. */
  subscriptions: Set<string>;
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
    if (!live.has(connection.tokenHash)) socket.close(Refusals.revoked.code, Refusals.revoked.reason);
  }
}

/** Each event's results, by subscription (account, document and variables), while the event is alive. */
const resultsByEvent = new WeakMap<object, Map<string, Promise<ExecutionResult>>>();
const documentKeys = new WeakMap<DocumentNode, string>();

/** A graphql-js error (its message and where it points) with the code formatError answers it by. */
const withCode = (error: GraphQLError, code: string, message = error.message) =>
  new GraphQLError(message, { nodes: error.nodes, source: error.source, positions: error.positions, extensions: { code } });

/**
 * An error of the subscribe step without a path came before any resolver ran: the operation
 * was resolved and validated before, so it is about the variables' values, which Apollo
 * answers over HTTP as BAD_USER_INPUT (400). An error with a path is a resolver's, read as such.
 */
const asUserInput = (error: GraphQLError) => (error.path ? error : withCode(error, 'BAD_USER_INPUT'));

/**
 * graphql-js's subscribe, except that the subscriptions of one account with the same
 * document and variables execute each event once and share the result: a thousand
 * dashboards following the same calls cost one execution per event, not a thousand. (Events
 * are the account's, so the subscriptions that share a result see the same data.)
 */
async function sharedSubscribe(args: ExecutionArgs) {
  const stream = await createSourceEventStream(args);
  if (!(Symbol.asyncIterator in stream)) return { errors: stream.errors?.map(asUserInput) };
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

/** The Authorization value in a connection's `connection_init` payload. */
function authorizationOf(params: Record<string, unknown> | undefined): string | undefined {
  const header = params?.Authorization ?? params?.authorization;
  return typeof header === 'string' ? header : undefined;
}

/** A refusal of a subscribe message: formatError reads its code, status and message from `cause`. */
const refusal = (cause: Error) => new GraphQLError(cause.message, { originalError: cause });

/**
 * A parse or validation error as Apollo answers it over HTTP: graphql-js's message, with its
 * field suggestions masked as graphql-armor masks them there (they would describe the schema),
 * and the code that formatError passes with status 400.
 */
const requestError = (error: GraphQLError, code: 'GRAPHQL_PARSE_FAILED' | 'GRAPHQL_VALIDATION_FAILED' | 'OPERATION_RESOLUTION_FAILURE') =>
  withCode(error, code, error.message.replace(/Did you mean ".+"/g, '[Suggestion hidden]'));

/** What a client sees of an error: read as over HTTP, with a refusal's or a stream's cause. */
const present = (error: GraphQLError) => formatError(error.toJSON(), error.originalError ?? error);

/** Adds `delta` to a count, forgetting it at zero. */
function count(counts: Map<number, number>, key: number, delta: number): void {
  const next = (counts.get(key) ?? 0) + delta;
  if (next > 0) counts.set(key, next);
  else counts.delete(key);
}

/**
 * GraphQL subscriptions over graphql-ws on the WebSocket upgrade of /graphql. The bearer
 * token comes in `connectionParams.Authorization` and is checked when the connection opens
 * (a missing, malformed or unknown one closes it with 4401, which clients do not retry) and
 * again with every keep-alive ping (a revoked one closes it with 4403). An operation is parsed
 * with the same token limit and validated with the same depth, cost, alias and directive rules
 * as over HTTP; only subscriptions are served here
 * (queries and mutations go over HTTP, with its logs). Each subscribe message counts against
 * the token's rate limit as an HTTP request does. Frames, sockets and subscriptions are
 * bounded by the constants above.
 */
export async function serveSubscriptions(
  schema: GraphQLSchema,
  runtime: Runtime,
  rules: ValidationRule[],
): Promise<Subscriptions> {
  const { orm, config, secrets, telephony, sms, logger } = runtime;
  const bus = new EventBus(String(orm.config.get('clientUrl')), logger);
  await bus.start();
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_PAYLOAD_BYTES });
  const connections = new Map<WebSocket, Connection>();
  /** Sockets not yet past connection_init. */
  const pending = new Set<WebSocket>();
  const connectionsByAccount = new Map<number, number>();
  const subscriptionsByAccount = new Map<number, number>();

  const refused = (message: string, code = 'BAD_REQUEST') => [new GraphQLError(message, { extensions: { code } })];

  const hold = (connection: Connection, id: string) => {
    connection.subscriptions.add(id);
    count(subscriptionsByAccount, connection.accountId, 1);
  };
  const release = (connection: Connection, id: string) => {
    if (connection.subscriptions.delete(id)) count(subscriptionsByAccount, connection.accountId, -1);
  };

  /**
   * A subscription's context. It lives as long as the subscription, so its EntityManager and
   * loaders are made only when an event's resolvers need them (most events resolve from the
   * state they carry) and dropped for the next event (`renew`): a long subscription keeps no
   * entities, a thousand idle ones cost little.
   */
  const subscriptionContext = (accountId: number, requestId: string): GraphQLContext =>
    createContext({ requestId, root: orm.em, accountId, config, secrets, telephony, lifecycle: runtime.lifecycle, sms, events: bus });

  /** A subscribe message's execution, or why it is refused; its slot is already held. */
  async function admit(socket: WebSocket, connection: Connection, id: string, payload: SubscribePayload): Promise<ExecutionArgs | GraphQLError[]> {
    // Counted as an HTTP request is; the token is looked up again on the way.
    const auth = await authenticate(orm.em, connection.authorization, config.rateLimitPerMinute);
    if (!auth) {
      socket.close(Refusals.revoked.code, Refusals.revoked.reason); // revoked since the connection opened
      return [refusal(new UnauthenticatedError())];
    }
    if (auth.retryAfterSeconds !== null) return [refusal(new DomainError('RATE_LIMITED', Messages.rateLimited(auth.retryAfterSeconds)))];
    let document: DocumentNode;
    try {
      document = parse(payload.query, { maxTokens: config.graphql.maxTokens });
    } catch (error) {
      return [error instanceof GraphQLError ? requestError(error, 'GRAPHQL_PARSE_FAILED') : refusal(error as Error)];
    }
    const errors = validate(schema, document, [...specifiedRules, ...rules]);
    if (errors.length) return errors.map((error) => requestError(error, 'GRAPHQL_VALIDATION_FAILED'));
    const operation = getOperationAST(document, payload.operationName);
    // Several operations and no name, or a name not in the document: said as over HTTP.
    if (!operation) return operationResolutionErrors(schema, document, payload.operationName).map((error) => requestError(error, 'OPERATION_RESOLUTION_FAILURE'));
    if (operation.operation !== 'subscription' || operation.kind !== Kind.OPERATION_DEFINITION) return refused(Messages.subscriptionsOnly);
    return { schema, document, variableValues: payload.variables ?? undefined, operationName: payload.operationName ?? undefined, contextValue: subscriptionContext(connection.accountId, `ws-${connection.accountId}-${id}`) };
  }

  const disposable = useServer<Record<string, unknown> | undefined, { connection?: Connection }>(
    {
      // Whatever NODE_ENV says: an internal error's message never goes to a client as a close reason.
      isProd: true,
      schema,
      subscribe: sharedSubscribe,
      onConnect: async (ctx) => {
        const socket = ctx.extra.socket;
        const authorization = authorizationOf(ctx.connectionParams);
        // The token check keeps nothing in an EntityManager: the ORM's own runs it, as for HTTP.
        const auth = await authenticate(orm.em, authorization, config.rateLimitPerMinute).catch((error: unknown) => {
          logger.error('subscriptions: could not check a connection’s token', error);
          return undefined;
        });
        // A socket that closed during the lookup has nothing left to count.
        if (socket.readyState !== socket.OPEN) return false;
        // Closed here to say why; graphql-ws's own close (4403) then finds it closing and sends nothing.
        const refuse = (refusal: { code: number; reason: string }) => {
          socket.close(refusal.code, refusal.reason);
          return false;
        };
        if (auth === undefined) return refuse(Refusals.unavailable);
        if (auth === null) return refuse(Refusals.badToken);
        if (auth.retryAfterSeconds !== null) return refuse(Refusals.rateLimited(auth.retryAfterSeconds));
        if ((connectionsByAccount.get(auth.accountId) ?? 0) >= config.graphql.wsMaxAccountConnections) return refuse(Refusals.tooManyForAccount);
        const connection = { accountId: auth.accountId, authorization: authorization!, tokenHash: tokenHashOf(authorization)!, subscriptions: new Set<string>() };
        ctx.extra.connection = connection;
        // graphql-ws would keep connection_init's whole payload (up to MAX_PAYLOAD_BYTES) as long
        // as the connection: only the token is needed, and the connection keeps it.
        Object.assign(ctx, { connectionParams: undefined });
        connections.set(socket, connection);
        count(connectionsByAccount, auth.accountId, 1);
        pending.delete(socket);
        return true;
      },
      onSubscribe: async (ctx, id, payload) => {
        const connection = ctx.extra.connection!;
        // Checked and held before anything is awaited, so that a burst of subscribe messages
        // cannot all pass the check together, and one over a cap costs no database statement.
        if (connection.subscriptions.has(id)) return refused(Messages.badRequest); // an id still in use
        const { wsMaxSubscriptions, wsMaxAccountSubscriptions } = config.graphql;
        if (connection.subscriptions.size >= wsMaxSubscriptions) {
          return [refusal(new DomainError('PLAN_LIMIT', Messages.subscriptionsPerConnection(wsMaxSubscriptions)))];
        }
        if ((subscriptionsByAccount.get(connection.accountId) ?? 0) >= wsMaxAccountSubscriptions) {
          return [refusal(new DomainError('PLAN_LIMIT', Messages.subscriptionsPerAccount(wsMaxAccountSubscriptions)))];
        }
        hold(connection, id);
        const admitted = await admit(ctx.extra.socket, connection, id, payload).catch((error: Error) => {
          // The client sees it masked, as over HTTP; the log keeps it.
          if (!(error instanceof DomainError)) logger.error('subscriptions: a subscribe failed', error, { request_id: `ws-${connection.accountId}-${id}` });
          return [refusal(error)];
        });
        if (Array.isArray(admitted)) release(connection, id);
        return admitted;
      },
      // Errors read as over HTTP: the domain's code and message, anything unexpected masked.
      onNext: (_ctx, _id, _payload, _args, result) => (result.errors?.length ? { ...result, errors: result.errors.map(present) } : undefined),
      onError: (_ctx, _id, _payload, errors) => errors.map(present),
      onComplete: (ctx, id) => {
        if (ctx.extra.connection) release(ctx.extra.connection, id);
      },
      onClose: (ctx) => {
        connections.delete(ctx.extra.socket);
        const connection = ctx.extra.connection;
        if (!connection) return;
        // Its subscriptions end with it; one that completes later finds nothing to release.
        count(subscriptionsByAccount, connection.accountId, -connection.subscriptions.size);
        connection.subscriptions.clear();
        count(connectionsByAccount, connection.accountId, -1);
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

  /**
   * ws has already closed the socket with the right code when it emits a frame's error (one
   * over maxPayload: 1009; a malformed one: 1002 or 1007): the client's fault, worth a debug
   * line without a stack. graphql-ws's own listener would print it, stack and all, to the console.
   */
  const quiet = (ws: WebSocket) => {
    ws.removeAllListeners('error');
    ws.on('error', (error) => logger.debug('subscriptions: refused a client frame', { message: error.message }));
  };

  return {
    upgrade(req, socket, head) {
      wss.handleUpgrade(req, socket, head, (ws) => {
        if (pending.size >= MAX_PENDING_CONNECTIONS) {
          quiet(ws);
          return ws.close(Refusals.tooManyPending.code, Refusals.tooManyPending.reason);
        }
        pending.add(ws);
        ws.once('close', () => pending.delete(ws));
        wss.emit('connection', ws, req);
        quiet(ws); // after graphql-ws added its listener, in the line above
      });
    },
    get connections() {
      return wss.clients.size;
    },
    async close(graceMs = 10_000) {
      clearInterval(recheck);
      // graphql-ws's dispose asks each client to go (1001) and waits for every one of them, which
      // one that never answers makes forever: the wait is bounded here.
      void Promise.resolve(disposable.dispose()).catch(() => {});
      await closeWebSockets(wss, graceMs);
      await within(bus.stop(), 1000);
    },
  };
}
