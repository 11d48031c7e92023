import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  Kind,
  parse,
  validate,
  type DocumentNode,
  type GraphQLError,
  type GraphQLFormattedError,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { FieldErrorCollector, FieldMessages, HttpStatusByCode, Messages, type ErrorCode, type FieldErrors } from '../errors';
import { REQUEST_ERROR_CODES } from '../graphql/errors';
import type { OperationRunner } from '../graphql/compiled';
import type { GraphQLContext } from '../graphql/context';
import { BodyTooLargeError, readBody, sendError, sendJson } from '../http';
import { coerceVariables, variablesOf, type RouteVariable } from './coerce';
import { csvRecords } from './csv';
import { closestRoute, type RouteTemplate } from './route.suggest';
import { MalformedMultipartError, isMultipart, readMultipart } from './multipart';
import type { CsvColumn, CsvRoute, Route, RouteRequest } from './routes/route';

interface CompiledRoute {
  route: Route;
  pattern: RegExp;
  paramNames: string[];
  document: DocumentNode;
  /** The operation's variables and their types, for the request's JSON to be coerced to. */
  variables: RouteVariable[];
}

const isErrorCode = (code: string): code is ErrorCode => code in HttpStatusByCode;

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
  private readonly templates: RouteTemplate[];

  constructor(
    schema: GraphQLSchema,
    routes: Route[],
    private readonly maxBodyBytes: number,
    /** Runs the routes' documents, as it runs the GraphQL endpoint's. */
    private readonly operations: OperationRunner,
    /** The GraphQL endpoint's error formatting (and logging), so both APIs treat errors alike. */
    private readonly formatError: (error: GraphQLError, requestId: string) => GraphQLFormattedError,
  ) {
    this.compiled = routes.map((route) => compile(schema, route));
    this.templates = routes.map(({ method, path }) => ({ method, path }));
  }

  /**
   * Handles a request whose path is below the REST base; `path` is relative to that base.
   * `matched` learns the route pattern it matched (`/user/leads/{id}`), for metrics and logs.
   */
  async handle(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    path: string,
    openSession: () => Promise<Session>,
    matched?: (pattern: string | null) => void,
  ): Promise<void> {
    const found = this.match(req.method ?? 'GET', path);
    matched?.(patternOf(found));
    if (found === 'no-route') {
      const meant = closestRoute(req.method ?? 'GET', path, this.templates);
      return sendError(res, 'NOT_FOUND', Messages.routeNotFound, meant ? { hint: Messages.routeMeant(meant) } : {});
    }
    if (Array.isArray(found)) return sendError(res, 'METHOD_NOT_ALLOWED', Messages.methodNotAllowed, {}, { allow: found.join(', ') });
    const { compiled, params } = found;
    const { route } = compiled;

    const { context, retryAfterSeconds } = await openSession();
    if (context.accountId === null) return sendError(res, 'UNAUTHENTICATED', Messages.unauthenticated, unauthenticatedHint(req, context.config.development));
    if (retryAfterSeconds !== null) {
      return sendError(res, 'RATE_LIMITED', Messages.rateLimited(retryAfterSeconds), {}, { 'retry-after': retryAfterSeconds });
    }
    if (params === null) return sendError(res, 'NOT_FOUND', route.notFound ?? Messages.routeNotFound);

    let body: unknown = {};
    if (route.multipart && isMultipart(req.headers['content-type'])) {
      const read = await this.readForm(req, res, route, context);
      if (read === null) return;
      body = read;
    } else if (route.method === 'POST' || route.method === 'PUT') {
      let raw: Buffer;
      try {
        raw = await readBody(req, this.maxBodyBytes);
      } catch (error) {
        if (error instanceof BodyTooLargeError) return sendError(res, 'PAYLOAD_TOO_LARGE', Messages.bodyTooLarge);
        throw error;
      }
      if (raw.length > 0) {
        if (!isJsonMediaType(req.headers['content-type'])) return sendError(res, 'UNSUPPORTED_MEDIA_TYPE', Messages.unsupportedMediaType);
        try {
          body = JSON.parse(raw.toString('utf8'));
        } catch {
          return validationFailed(res, { body: [Messages.invalidJson] }, route.validationMessage);
        }
      }
    }

    const request: RouteRequest = { params, headers: req.headers, query: url.searchParams, body, url };
    const bodyErrors = new FieldErrorCollector();
    const coerced = coerceVariables(compiled.variables, route.variables(request, bodyErrors));
    if (compiled.paramNames.some((name) => coerced.errors.has(name))) {
      return sendError(res, 'NOT_FOUND', route.notFound ?? Messages.routeNotFound);
    }
    for (const [field, messages] of Object.entries(bodyErrors.errors)) for (const message of messages) coerced.errors.add(field, message);
    // Keys the input does not have are refused on the routes that say so; elsewhere they are
    // ignored, as the original platform did, but named whenever the request is refused anyway:
    // `phoneNumber` sent for `phone_number` is the error to show, not "phone_number é obrigatório".
    const { unknownFields } = coerced;
    if (unknownFields.length > 0 && (route.rejectUnknownFields || !coerced.errors.empty)) {
      const errors: FieldErrors = {};
      for (const field of unknownFields) errors[field] = [FieldMessages.notAllowed(field, suggestedField(field, coerced.knownFields))];
      if (!route.rejectUnknownFields) Object.assign(errors, coerced.errors.errors);
      return sendError(res, 'VALIDATION_FAILED', Messages.invalidFields(unknownFields), { errors });
    }
    if (!coerced.errors.empty) return validationFailed(res, coerced.errors.errors, route.validationMessage);

    if (route.csv) return this.streamCsv(res, compiled, route.csv, coerced.variables, context, request);
    // The route's document was parsed and validated against the schema once, at start-up, so
    // it runs straight away: same schema, same resolvers, same context as GraphQL.
    const { data, errors } = await this.operations.run(compiled.document, null, coerced.variables, context);
    if (errors?.length) return sendGraphQLError(res, this.formatError(errors[0], context.requestId), route);
    const shaped = route.respond(data, request);
    sendJson(res, shaped.status ?? route.status ?? 200, shaped.body, shaped.headers);
  }

  /**
   * A multipart body as the route's body: its text fields, and its file part under the file
   * field's name. The file is staged on disk and reaches the resolver as the context's
   * `upload`; it is removed when the answer is over. Null when it was answered here (too large,
   * malformed).
   */
  private async readForm(req: IncomingMessage, res: ServerResponse, route: Route, context: GraphQLContext): Promise<Record<string, unknown> | null> {
    const { file: field, maxBytes } = route.multipart!;
    const limit = maxBytes(context.config);
    try {
      const { fields, file } = await readMultipart(req, field, limit);
      if (file === 'too-large') {
        validationFailed(res, { [field]: [FieldMessages.fileTooLarge(field, limit)] }, route.validationMessage);
        return null;
      }
      if (file === null) return fields;
      res.once('close', () => void file.dispose());
      context.upload = file;
      return { ...fields, [field]: file };
    } catch (error) {
      if (!(error instanceof MalformedMultipartError)) throw error;
      sendError(res, 'BAD_REQUEST', Messages.badRequest);
      return null;
    }
  }

  /**
   * A CSV route's answer, streamed: the document runs for each slice, the first slice's errors
   * are the usual JSON error, and the rows are written as they come, at the pace the client
   * reads them. A failure after the first slice can only cut the answer short (its status is
   * gone): the connection is closed without the final chunk, so no client takes it for whole.
   */
  private async streamCsv(
    res: ServerResponse,
    compiled: CompiledRoute,
    csv: CsvRoute,
    variables: Record<string, unknown>,
    context: GraphQLContext,
    request: RouteRequest,
  ): Promise<void> {
    let columns: CsvColumn[] | null = null;
    let page: Record<string, unknown> = variables;
    const closed = new Promise<void>((resolve) => res.once('close', resolve));
    for (;;) {
      const { data, errors } = await this.operations.run(compiled.document, null, page, context);
      if (errors?.length) {
        const formatted = this.formatError(errors[0], context.requestId);
        if (!columns) return sendGraphQLError(res, formatted, compiled.route);
        return void res.destroy();
      }
      let text = '';
      if (!columns) {
        columns = csv.columns(data);
        res.writeHead(200, {
          'content-type': 'text/csv; charset=utf-8; header=present',
          'content-disposition': `attachment; filename="${csv.filename(request)}"`,
          'cache-control': 'no-store',
        });
        text = csvRecords([columns.map((column) => column.header)]);
      }
      const rows = csv.rows(data);
      if (rows.length) text += csvRecords(rows.map((row) => columns!.map((column) => column.cell(row))));
      if (res.destroyed) return;
      if (text && !res.write(text)) await Promise.race([once(res, 'drain'), closed]);
      if (res.destroyed) return;
      const next = csv.next(data);
      if (!next) break;
      page = { ...variables, ...next };
      // Each slice on a fresh context: a long export keeps nothing of the slices before.
      context.renew();
    }
    res.end();
  }

  /** The route pattern a request matches (`/user/leads/{id}`), for metrics; null when none does. */
  patternOf(method: string, path: string): string | null {
    return patternOf(this.match(method, path));
  }

  private match(method: string, path: string): Match {
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

/** A request's route and its path's parameters (null when one cannot be decoded), the methods its path has, or none. */
type Match = { compiled: CompiledRoute; params: Record<string, string> | null } | string[] | 'no-route';

function patternOf(found: Match): string | null {
  return found === 'no-route' || Array.isArray(found) ? null : found.compiled.route.path;
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
  return { route, pattern: new RegExp(`^${source}/?$`), paramNames, document, variables: variablesOf(schema, operation) };
}

/**
 * On a development instance, a 401 whose Authorization header holds a bare token (`vzg_...`,
 * the word `Bearer` left out, the newcomer's usual slip) says so. Elsewhere the 401 stays bare.
 */
function unauthenticatedHint(req: IncomingMessage, development: boolean): Record<string, unknown> {
  const header = req.headers.authorization?.trim();
  // Only what looks like one of our tokens: an empty `Bearer ` or another scheme is not this slip.
  if (!development || !header || !/^vzg_\S+$/.test(header)) return {};
  return { hint: Messages.bearerMissing };
}

/** The known key an unknown one was probably meant as: `phoneNumber` or `PHONE_NUMBER` for `phone_number`. */
function suggestedField(field: string, known: readonly string[]): string | null {
  const snake = field.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/[-\s]+/g, '_').toLowerCase();
  return known.find((name) => name === snake || name.toLowerCase() === field.toLowerCase()) ?? null;
}

function validationFailed(res: ServerResponse, errors: FieldErrors, message: string = Messages.validationFailed): void {
  sendError(res, 'VALIDATION_FAILED', message, { errors });
}

/** The documented REST body of a GraphQL error: its Portuguese message, code, field errors and details. */
function sendGraphQLError(res: ServerResponse, error: GraphQLFormattedError, route: Route): void {
  const extensions = error.extensions ?? {};
  const code = String(extensions.code ?? 'INTERNAL');
  if (code === 'UNAVAILABLE') {
    // A service that says when to come back (an overloaded process) is answered so; the database's outage in 5 s.
    const retryAfter = (extensions.details as { retry_after?: unknown } | undefined)?.retry_after;
    return typeof retryAfter === 'number'
      ? sendError(res, 'UNAVAILABLE', error.message, {}, { 'retry-after': retryAfter })
      : sendError(res, 'UNAVAILABLE', Messages.unavailable, {}, { 'retry-after': 5 });
  }
  if (code === 'INTERNAL' || !(isErrorCode(code) || REQUEST_ERROR_CODES.has(code))) {
    return sendError(res, 'INTERNAL', route.failureMessage ?? Messages.internal);
  }
  // A request the schema refused: the shim's coercion should have caught it first.
  if (!isErrorCode(code)) return sendError(res, 'VALIDATION_FAILED', route.validationMessage ?? Messages.validationFailed);
  const extra: Record<string, unknown> = {};
  if (extensions.errors) extra.errors = extensions.errors;
  if (extensions.details) Object.assign(extra, extensions.details);
  // A service's 429 says when to come back in its details; REST says it in Retry-After too.
  const retryAfter = code === 'RATE_LIMITED' ? (extensions.details as { retry_after?: unknown } | undefined)?.retry_after : undefined;
  sendError(res, code, error.message, extra, typeof retryAfter === 'number' ? { 'retry-after': retryAfter } : {});
}

/** `application/json`, or a `+json` type, with any parameters. */
function isJsonMediaType(contentType: string | undefined): boolean {
  const type = contentType?.split(';')[0].trim().toLowerCase() ?? '';
  return type === 'application/json' || /^application\/[\w.+-]+\+json$/.test(type);
}
