import { FieldMessages, Messages } from '../../errors';
import { isPlainObject } from '../coerce';
import { messageAnd, messageOnly } from '../openapi';
import { PAGINATION_HEADERS, paginationHeaders, queryVariables, type Route, type RouteRequest } from './route';
import type { FieldErrorCollector } from '../../errors';

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

const LEAD_IMPORT_FIELDS = `
  fragment LeadImportFields on LeadImport {
    id campaign_id status rows_total rows_read created duplicates invalid blacklisted errors { line message field } failure created_at finished_at
  }`;

/**
 * The import's input from a multipart form (`file`, `campaign_id`, `mapping` as a JSON
 * string) or from a JSON body shaped as ImportLeadsInput. A form's file is not in the
 * variables: the shim staged it on disk and hands it to the resolver (the context's `upload`),
 * which reads it instead of `csv` (left empty here), a piece at a time.
 */
function importInput(req: RouteRequest, errors: FieldErrorCollector): Record<string, unknown> {
  if (!isPlainObject(req.body)) return { input: req.body };
  const { file, mapping, ...rest } = req.body;
  const input: Record<string, unknown> = { ...rest };
  if (typeof (file as { text?: unknown } | undefined)?.text === 'function') input.csv = '';
  else if (!('csv' in rest)) errors.add('file', FieldMessages.required('file'));
  if (typeof mapping === 'string' && mapping.trim() !== '') {
    try {
      input.mapping = JSON.parse(mapping);
    } catch {
      errors.add('mapping', FieldMessages.object('mapping'));
    }
  } else if (mapping !== undefined && typeof mapping !== 'string') input.mapping = mapping;
  return { input };
}

export const leadRoutes: Route[] = [
  {
    method: 'POST',
    path: '/user/leads/import',
    summary:
      'Import a CSV file of leads into a campaign, as a job (202): each row is checked as POST /user/lead checks it; follow it with GET /user/leads/import/{id}',
    status: 202,
    body: 'input',
    multipart: {
      file: 'file',
      maxBytes: (config) => config.leadImport.maxBytes,
      fields: {
        file: { type: 'string', format: 'binary', description: 'The CSV file: UTF-8, RFC 4180, a header row first; at most MAX_IMPORT_BYTES and LEAD_IMPORT_MAX_ROWS data rows.' },
        campaign_id: { type: 'integer' },
        mapping: {
          type: 'string',
          description:
            'Optional JSON object: column -> phone_number, variables.<name>, secondary_contacts.<n>.phone_number, secondary_contacts.<n>.variables.<name>, or null. Default: phone_number or phone is the number, every other column variables.<column>.',
          example: '{"Telefone": "phone_number", "Nome": "variables.customer_name"}',
        },
      },
    },
    envelope: messageAnd(),
    document: `mutation ImportLeads($input: ImportLeadsInput!) { importLeads(input: $input) { ...LeadImportFields } } ${LEAD_IMPORT_FIELDS}`,
    variables: importInput,
    respond: (data) => ({ status: 202, body: { message: Messages.leadImportStarted, data: data.importLeads } }),
    notFound: Messages.campaignNotFound,
  },
  {
    method: 'GET',
    path: '/user/leads/import/{id}',
    summary: 'A lead import’s progress: rows read, leads created, duplicates, invalid rows with their line and message',
    document: `query LeadImport($id: Int!) { leadImport(id: $id) { ...LeadImportFields } } ${LEAD_IMPORT_FIELDS}`,
    variables: (req) => ({ id: req.params.id }),
    respond: (data) => ({ body: data.leadImport }),
    notFound: Messages.leadImportNotFound,
  },
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
