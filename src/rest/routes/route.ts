import type { IncomingHttpHeaders } from 'node:http';
import type { Config } from '../../config';
import type { ErrorCode, FieldErrorCollector } from '../../errors';
import type { Page } from '../../graphql/pagination';
import { nameOf, named, type JsonSchema } from '../openapi.components';

/**
 * The REST API as data: each route is a GraphQL document, how its variables come from the
 * request, and how the result becomes the documented body. The shim (shim.ts) does the rest.
 */
export interface RouteRequest {
  params: Record<string, string>;
  headers: IncomingHttpHeaders;
  query: URLSearchParams;
  body: unknown;
  /** The request URL, with the host the client used. */
  url: URL;
}

export interface RouteResponse {
  status?: number;
  body: unknown;
  headers?: Record<string, string | number>;
}

export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Below the `/api` base, with `{name}` for path parameters. */
  path: string;
  /** What it does, for the OpenAPI document (required: a route is not served undescribed). */
  summary: string;
  document: string;
  /** The status of a success, when not 200. */
  status?: number;
  /** The query parameters it reads (each a variable of the document). */
  query?: readonly string[];
  /** Where the body goes: the `input` variable whole, or these variables field by field. */
  body?: 'input' | readonly string[];
  /** The domain errors it may answer beyond the common ones (401, 404, 422, 429, 5xx). */
  errors?: ErrorCode[];
  /** The success body's schema around the operation's result (default: the result itself). */
  envelope?: (data: JsonSchema) => JsonSchema;
  /** Other responses to describe (a 202, headers). */
  otherResponses?: (data: JsonSchema) => Record<string, unknown>;
  /** Header parameters it reads. */
  headers?: Record<string, unknown>[];
  /** Headers of its success answer, as OpenAPI header objects by name. */
  responseHeaders?: Record<string, unknown>;
  /**
   * The operation's variables from the request. What is wrong with the request that the input
   * types cannot see goes into `errors`, answered with the type errors.
   */
  variables(req: RouteRequest, errors: FieldErrorCollector): Record<string, unknown>;
  // The data of a GraphQL result is untyped JSON; each route knows its own shape.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  respond(data: any, req: RouteRequest): RouteResponse;
  /** The 404 message when a path parameter cannot be an id. */
  notFound?: string;
  /** Refuse body keys that the input type does not have (`Campos inválidos: ...`). */
  rejectUnknownFields?: boolean;
  /** The message of a 422 for a malformed request, when not `Falha na validação`. */
  validationMessage?: string;
  /** The message of a 500, when not the generic one. */
  failureMessage?: string;
  /**
   * The body may also come as multipart/form-data: its text fields, and the file part `file`
   * as a Buffer, become the body (at most `maxBytes` of the request's config).
   */
  multipart?: { file: string; maxBytes(config: Config): number; fields: Record<string, JsonSchema> };
  /** A CSV download instead of a JSON answer: the document is run again for each slice. */
  csv?: CsvRoute;
}

/** A column of a CSV export: its header and its cell in a row of the answer. */
export interface CsvColumn {
  header: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  cell(row: any): unknown;
}

/**
 * A streamed CSV answer: the route's document gives one slice of rows; the columns come from
 * the first slice's answer; each answer names the variables of the next slice (null after the last).
 */
export interface CsvRoute {
  filename(req: RouteRequest): string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  columns(data: any): CsvColumn[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  rows(data: any): unknown[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  next(data: any): Record<string, unknown> | null;
}

/** The query parameters of a request as variables, leaving out empty ones. */
export function queryVariables(query: URLSearchParams, names: readonly string[]): Record<string, unknown> {
  const variables: Record<string, unknown> = {};
  for (const name of names) {
    const value = query.get(name);
    if (value !== null && value !== '') variables[name] = value;
  }
  return variables;
}

/**
 * The URL of page n of the request's list: its path, `query` (its other parameters, written
 * once for all the links) and `page` last. Not a URL object a link: parsing and serialising
 * one for every link cost more than the rest of a page's headers.
 */
function pageUrlOf(url: URL, query: string): (n: number) => string {
  const base = `${url.origin}${url.pathname}?${query ? `${query}&` : ''}page=`;
  return (n) => `${base}${n}`;
}

const pageNumber = (description: string, minimum = 1) => ({ required: true, description, schema: { type: 'integer', minimum } });

/** The headers `paginationHeaders` writes, as the OpenAPI document describes them. */
export const PAGINATION_HEADERS = {
  'X-Total-Count': pageNumber('How many items all the pages hold.', 0),
  'X-Per-Page': pageNumber('Items on a page.'),
  'X-Current-Page': pageNumber('This page’s number, from 1.'),
  'X-Last-Page': pageNumber('The last page’s number (1 when there are no items).'),
  Link: {
    required: true,
    description: 'RFC 8288: the `first`, `prev`, `next` and `last` pages, with the request’s other query parameters.',
    schema: { type: 'string' },
    example: '<http://localhost:4000/api/user/leads?per_page=15&page=2>; rel="next"',
  },
};

/** `X-Total-Count` and friends, and an RFC 8288 `Link` header whose URLs keep the other parameters. */
export function paginationHeaders(page: Page<unknown>, url: URL): Record<string, string | number> {
  const others = new URLSearchParams(url.searchParams);
  others.delete('page');
  const pageUrl = pageUrlOf(url, others.toString());
  const link = (target: number, rel: string) => `<${pageUrl(target)}>; rel="${rel}"`;
  const links = [link(1, 'first')];
  if (page.current_page > 1) links.push(link(Math.min(page.current_page - 1, page.last_page), 'prev'));
  if (page.current_page < page.last_page) links.push(link(page.current_page + 1, 'next'));
  links.push(link(page.last_page, 'last'));
  return {
    'x-total-count': page.total,
    'x-per-page': page.per_page,
    'x-current-page': page.current_page,
    'x-last-page': page.last_page,
    link: links.join(', '),
  };
}

/** A header's value, or undefined when absent or empty. */
export function header(req: RouteRequest, name: string): string | undefined {
  const value = req.headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  return text ? text : undefined;
}

interface PageLink {
  url: string | null;
  label: string;
  active: boolean;
}

/** PHP's http_build_query: `+` for spaces, RFC 1738. */
function phpQuery(params: [string, string][]): string {
  return params.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v).replace(/%20/g, '+')}`).join('&');
}

/**
 * The page object of Laravel's length-aware paginator, as the original platform answers
 * lists: URLs keep the request's other query parameters (page last), and `links` holds
 * previous, the numbered pages (with "..." gaps past 13 pages, three on each side of the
 * current one) and next.
 */
export function laravelPage<T>(page: Page<T>, url: URL) {
  const path = `${url.origin}${url.pathname}`;
  const pageUrl = pageUrlOf(url, phpQuery([...url.searchParams.entries()].filter(([name]) => name !== 'page')));
  const { current_page: current, last_page: last } = page;
  const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);

  const onEachSide = 3;
  const window = onEachSide + 4;
  let blocks: (number[] | '...')[];
  if (last < onEachSide * 2 + 8) blocks = [range(1, last)];
  else if (current <= window) blocks = [range(1, window + onEachSide), '...', range(last - 1, last)];
  else if (current > last - window) blocks = [range(1, 2), '...', range(last - (window + onEachSide - 1), last)];
  else blocks = [range(1, 2), '...', range(current - onEachSide, current + onEachSide), '...', range(last - 1, last)];

  const links: PageLink[] = [{ url: current > 1 ? pageUrl(current - 1) : null, label: '&laquo; Previous', active: false }];
  for (const block of blocks) {
    if (block === '...') links.push({ url: null, label: '...', active: false });
    else for (const n of block) links.push({ url: pageUrl(n), label: String(n), active: n === current });
  }
  links.push({ url: current < last ? pageUrl(current + 1) : null, label: 'Next &raquo;', active: false });

  return {
    current_page: current,
    data: page.data,
    first_page_url: pageUrl(1),
    from: page.from,
    last_page: last,
    last_page_url: pageUrl(last),
    links,
    next_page_url: current < last ? pageUrl(current + 1) : null,
    path,
    per_page: page.per_page,
    prev_page_url: current > 1 ? pageUrl(current - 1) : null,
    to: page.to,
    total: page.total,
  };
}

/** The Idempotency-Key header, as the routes that take one describe it. */
export const IDEMPOTENCY_HEADER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  schema: { type: 'string', minLength: 1, maxLength: 255 },
  description: 'A replay with the same key and body answers the first response and does nothing more.',
};

/** The schema of a Laravel length-aware page of `item`: `CallPage` when the items are `Call`s. */
export function laravelPageSchema(page: JsonSchema): JsonSchema {
  const data = (page.properties as Record<string, JsonSchema>).data;
  const url = { type: ['string', 'null'] };
  const item = nameOf(data.items as JsonSchema);
  const schema: JsonSchema = {
    type: 'object',
    properties: {
      current_page: { type: 'integer' }, data, first_page_url: { type: 'string' }, from: { type: ['integer', 'null'] },
      last_page: { type: 'integer' }, last_page_url: { type: 'string' },
      links: { type: 'array', items: { type: 'object', properties: { url, label: { type: 'string' }, active: { type: 'boolean' } } } },
      next_page_url: url, path: { type: 'string' }, per_page: { type: 'integer' }, prev_page_url: url, to: { type: ['integer', 'null'] }, total: { type: 'integer' },
    },
    required: ['current_page', 'data', 'last_page', 'per_page', 'total'],
  };
  return item ? named(`${item}Page`, schema) : schema;
}
