import { Messages } from '../../errors';
import { messageAnd, messageOnly } from '../openapi';
import { PAGINATION_HEADERS, paginationHeaders, queryVariables, type Route } from './route';

const LEAD_FIELDS = `
  fragment LeadFields on Lead {
    id campaign_id phone_number variables status attempts next_attempt_at created_at updated_at
    campaign { id name }
    secondary_contacts { id phone_number variables status created_at updated_at }
  }`;

const LEAD_LIST_FILTERS = ['page', 'per_page', 'status', 'campaign_id', 'phone_number', 'date_from', 'date_to'] as const;

const updateLead: Omit<Route, 'path'> = {
  method: 'PUT',
  summary: 'Update a lead: only the fields sent change; variables are merged',
  body: 'input',
  envelope: messageOnly,
  document: `mutation UpdateLead($id: Int!, $input: UpdateLeadInput!) { updateLead(id: $id, input: $input) { id } }`,
  variables: (req) => ({ id: req.params.id, input: req.body }),
  respond: () => ({ body: { message: Messages.leadUpdated } }),
  notFound: Messages.leadNotFound,
  rejectUnknownFields: true,
};

export const leadRoutes: Route[] = [
  {
    method: 'POST',
    path: '/user/lead',
    summary: 'Create a lead, with its secondary contacts',
    body: 'input',
    envelope: messageAnd(),
    document: `mutation CreateLead($input: CreateLeadInput!) { createLead(input: $input) { ...LeadFields } } ${LEAD_FIELDS}`,
    variables: (req) => ({ input: req.body }),
    respond: (data) => ({ body: { message: Messages.leadCreated, data: data.createLead } }),
  },
  {
    method: 'GET',
    path: '/user/leads',
    summary: 'List leads, newest first; the page is in X-Total-Count, X-Per-Page, X-Current-Page, X-Last-Page and Link',
    query: LEAD_LIST_FILTERS,
    responseHeaders: PAGINATION_HEADERS,
    envelope: (page) => (page.properties as Record<string, Record<string, unknown>>).data,
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
    summary: 'Get a lead',
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
    summary: 'Delete a lead and its secondary contacts',
    envelope: messageOnly,
    document: `mutation DeleteLead($id: Int!) { deleteLead(id: $id) }`,
    variables: (req) => ({ id: req.params.id }),
    respond: () => ({ body: { message: Messages.leadDeleted } }),
    notFound: Messages.leadNotFound,
  },
];
