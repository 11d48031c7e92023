import type { Page } from '../../graphql/pagination';

/**
 * The REST API as data: each route is a GraphQL document, how its variables come from the
 * request, and how the result becomes the documented body. The shim (shim.ts) does the rest.
 */
export interface RouteRequest {
  params: Record<string, string>;
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
  document: string;
  variables(req: RouteRequest): Record<string, unknown>;
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

/** `X-Total-Count` and friends, and an RFC 8288 `Link` header whose URLs keep the other parameters. */
export function paginationHeaders(page: Page<unknown>, url: URL): Record<string, string | number> {
  const link = (target: number, rel: string) => {
    const next = new URL(url);
    next.searchParams.set('page', String(target));
    return `<${next.toString()}>; rel="${rel}"`;
  };
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
