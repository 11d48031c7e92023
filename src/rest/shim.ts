import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  Kind,
  execute,
  parse,
  validate,
  type DocumentNode,
  type GraphQLError,
  type GraphQLFormattedError,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { HttpStatusByCode, Messages, type FieldErrors } from '../errors';
import type { GraphQLContext } from '../graphql/context';
import { BodyTooLargeError, readBody, sendJson } from '../http';
import { coerceVariables } from './coerce';
import type { Route, RouteRequest } from './routes/route';

interface CompiledRoute {
  route: Route;
  pattern: RegExp;
  paramNames: string[];
  document: DocumentNode;
  operation: OperationDefinitionNode;
}

const DOMAIN_CODES = new Set(Object.keys(HttpStatusByCode));

/** A request's context, and how long its token must wait when it is over its rate limit. */
export interface Session {
  context: GraphQLContext;
  retryAfterSeconds: number | null;
}

/**
 * Serves the REST API by running each route's GraphQL document against the same schema,
 * with the same per-request context, then shaping the documented envelope and status.
 */
export class RestShim {
  private readonly compiled: CompiledRoute[];

  constructor(
    private readonly schema: GraphQLSchema,
    routes: Route[],
    private readonly maxBodyBytes: number,
    /** The GraphQL endpoint's error formatting (and logging), so both APIs treat errors alike. */
    private readonly formatError: (error: GraphQLError, requestId: string) => GraphQLFormattedError,
  ) {
    this.compiled = routes.map((route) => compile(schema, route));
  }

  /** Handles a request whose path is below the REST base; `path` is relative to that base. */
  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    path: string,
    openSession: () => Promise<Session>,
  ): Promise<void> {
    const found = this.match(req.method ?? 'GET', path);
    if (found === 'no-route') return sendJson(res, 404, { message: Messages.routeNotFound });
    if (Array.isArray(found)) return sendJson(res, 405, { message: Messages.methodNotAllowed }, { allow: found.join(', ') });
    const { compiled, params } = found;
    const { route } = compiled;

    const { context, retryAfterSeconds } = await openSession();
    if (context.accountId === null) return sendJson(res, 401, { message: Messages.unauthenticated });
    if (retryAfterSeconds !== null) {
      return sendJson(res, 429, { message: Messages.rateLimited(retryAfterSeconds) }, { 'retry-after': retryAfterSeconds });
    }
    if (params === null) return sendJson(res, 404, { message: route.notFound ?? Messages.routeNotFound });

    let body: unknown = {};
    if (route.method === 'POST' || route.method === 'PUT') {
      let raw: Buffer;
      try {
        raw = await readBody(req, this.maxBodyBytes);
      } catch (error) {
        if (error instanceof BodyTooLargeError) return sendJson(res, 413, { message: Messages.bodyTooLarge });
        throw error;
      }
      if (raw.length > 0) {
        try {
          body = JSON.parse(raw.toString('utf8'));
        } catch {
          return validationFailed(res, { body: [Messages.invalidJson] }, route.validationMessage);
        }
      }
    }

    const request: RouteRequest = { params, headers: req.headers, query: url.searchParams, body, url };
    const coerced = coerceVariables(this.schema, compiled.operation, route.variables(request));
    if (compiled.paramNames.some((name) => coerced.errors.has(name))) {
      return sendJson(res, 404, { message: route.notFound ?? Messages.routeNotFound });
    }
    if (route.rejectUnknownFields && coerced.unknownFields.length > 0) {
      const errors: FieldErrors = {};
      for (const field of coerced.unknownFields) errors[field] = [`O campo ${field} não é permitido.`];
      return sendJson(res, 422, { message: Messages.invalidFields(coerced.unknownFields), errors });
    }
    if (!coerced.errors.empty) return validationFailed(res, coerced.errors.errors, route.validationMessage);

    // The route's document was parsed and validated against the schema once, at start-up, so
    // it runs straight on graphql-js: same schema, same resolvers, same context.
    const { data, errors } = await execute({
      schema: this.schema,
      document: compiled.document,
      variableValues: coerced.variables,
      contextValue: context,
    });
    if (errors?.length) return sendError(res, this.formatError(errors[0], context.requestId), route);
    const shaped = route.respond(data, request);
    sendJson(res, shaped.status ?? 200, shaped.body, shaped.headers);
  }

  private match(method: string, path: string): { compiled: CompiledRoute; params: Record<string, string> | null } | string[] | 'no-route' {
    const allowed: string[] = [];
    for (const compiled of this.compiled) {
      const match = compiled.pattern.exec(path);
      if (!match) continue;
      if (compiled.route.method !== method) {
        allowed.push(compiled.route.method);
        continue;
      }
      const params: Record<string, string> = {};
      try {
        compiled.paramNames.forEach((name, index) => (params[name] = decodeURIComponent(match[index + 1])));
      } catch {
        // Malformed percent-encoding (`%zz`): no resource can have that id.
        return { compiled, params: null };
      }
      return { compiled, params };
    }
    return allowed.length ? allowed : 'no-route';
  }
}

function compile(schema: GraphQLSchema, route: Route): CompiledRoute {
  const document = parse(route.document);
  const problems = validate(schema, document);
  if (problems.length) throw new Error(`REST route ${route.method} ${route.path}: ${problems.map((p) => p.message).join('; ')}`);
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (!operation) throw new Error(`REST route ${route.method} ${route.path} has no operation`);
  const paramNames: string[] = [];
  const source = route.path
    .split('/')
    .map((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment);
      if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      paramNames.push(param[1]);
      return '([^/]+)';
    })
    .join('/');
  return { route, pattern: new RegExp(`^${source}/?$`), paramNames, document, operation };
}

function validationFailed(res: ServerResponse, errors: FieldErrors, message: string = Messages.validationFailed): void {
  sendJson(res, 422, { message, errors });
}

/** The documented REST body of a GraphQL error: its Portuguese message, field errors and details. */
function sendError(res: ServerResponse, error: GraphQLFormattedError, route: Route): void {
  const extensions = error.extensions ?? {};
  const code = String(extensions.code ?? 'INTERNAL');
  const status = typeof extensions.status === 'number' ? extensions.status : 500;
  if (code === 'UNAVAILABLE') return sendJson(res, 503, { message: Messages.unavailable }, { 'retry-after': 5 });
  if (status >= 500 && code !== 'PROVIDER_FAILURE') {
    return sendJson(res, 500, { message: route.failureMessage ?? Messages.internal });
  }
  if (!DOMAIN_CODES.has(code)) {
    // A request the schema refused: the shim's coercion should have caught it first.
    return sendJson(res, 422, { message: route.validationMessage ?? Messages.validationFailed });
  }
  const body: Record<string, unknown> = { message: error.message };
  if (extensions.errors) body.errors = extensions.errors;
  if (extensions.details) Object.assign(body, extensions.details);
  sendJson(res, status, body);
}
