import { Messages } from '../errors';
import type { Page } from '../graphql/pagination';

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
}

const LEAD_FIELDS = `
  fragment LeadFields on Lead {
    id campaign_id phone_number variables status created_at updated_at
    campaign { id name }
    secondary_contacts { id phone_number variables status created_at updated_at }
  }`;

/** The query parameters of a request as variables, leaving out empty ones. */
function queryVariables(query: URLSearchParams, names: readonly string[]): Record<string, unknown> {
  const variables: Record<string, unknown> = {};
  for (const name of names) {
    const value = query.get(name);
    if (value !== null && value !== '') variables[name] = value;
  }
  return variables;
}

/** `X-Total-Count` and friends, and an RFC 8288 `Link` header whose URLs keep the other parameters. */
function paginationHeaders(page: Page<unknown>, url: URL): Record<string, string | number> {
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

const LEAD_LIST_FILTERS = ['page', 'per_page', 'status', 'campaign_id', 'phone_number', 'date_from', 'date_to'] as const;

const updateLead: Omit<Route, 'path'> = {
  method: 'PUT',
  document: `mutation UpdateLead($id: Int!, $input: UpdateLeadInput!) { updateLead(id: $id, input: $input) { id } }`,
  variables: (req) => ({ id: req.params.id, input: req.body }),
  respond: () => ({ body: { message: Messages.leadUpdated } }),
  notFound: Messages.leadNotFound,
  rejectUnknownFields: true,
};

export const routes: Route[] = [
  {
    method: 'POST',
    path: '/user/lead',
    document: `mutation CreateLead($input: CreateLeadInput!) { createLead(input: $input) { ...LeadFields } } ${LEAD_FIELDS}`,
    variables: (req) => ({ input: req.body }),
    respond: (data) => ({ body: { message: Messages.leadCreated, data: data.createLead } }),
  },
  {
    method: 'GET',
    path: '/user/leads',
    document: `query Leads($page: Int, $per_page: Int, $status: String, $campaign_id: Int, $phone_number: String, $date_from: String, $date_to: String) {
      leads(page: $page, per_page: $per_page, status: $status, campaign_id: $campaign_id, phone_number: $phone_number, date_from: $date_from, date_to: $date_to) {
        data { ...LeadFields } current_page per_page total last_page from to
      }
    } ${LEAD_FIELDS}`,
    variables: (req) => queryVariables(req.query, LEAD_LIST_FILTERS),
    respond: (data, req) => ({ body: data.leads.data, headers: paginationHeaders(data.leads, req.url) }),
  },
  {
    method: 'GET',
    path: '/user/leads/{id}',
    document: `query Lead($id: Int!) { lead(id: $id) { ...LeadFields } } ${LEAD_FIELDS}`,
    variables: (req) => ({ id: req.params.id }),
    respond: (data) => ({ body: data.lead }),
    notFound: Messages.leadNotFound,
  },
  { ...updateLead, path: '/user/leads/{id}' },
  // Some clients of the original platform update leads on this path.
  { ...updateLead, path: '/leads/{id}' },
  {
    method: 'DELETE',
    path: '/user/leads/{id}',
    document: `mutation DeleteLead($id: Int!) { deleteLead(id: $id) }`,
    variables: (req) => ({ id: req.params.id }),
    respond: () => ({ body: { message: Messages.leadDeleted } }),
    notFound: Messages.leadNotFound,
  },
  {
    method: 'GET',
    path: '/user/campaigns',
    document: `query Campaigns { campaigns { id name } }`,
    variables: () => ({}),
    respond: (data) => ({ body: data.campaigns }),
  },
  {
    method: 'POST',
    path: '/user/campaigns',
    document: `mutation CreateCampaign($input: CreateCampaignInput!) { createCampaign(input: $input) { id name } }`,
    variables: (req) => ({ input: req.body }),
    respond: (data) => ({ status: 201, body: { message: Messages.campaignCreated, data: data.createCampaign } }),
  },
];
