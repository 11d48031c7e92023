import { Messages } from '../../errors';
import { queryVariables, type CsvColumn, type Route } from './route';

/**
 * CSV exports: a campaign's leads with their results, and the call list with its filters.
 * Each is the GraphQL cursor query of its rows, run slice after slice and written as CSV as
 * it comes (the shim's `csv` routes); the variables' columns come with the first slice.
 */

const field = (header: string, read: (row: any) => unknown = (row) => row[header]): CsvColumn => ({ header, cell: read });

const LEAD_COLUMNS: CsvColumn[] = [
  field('id'),
  field('phone_number'),
  field('status'),
  field('attempts'),
  field('calls'),
  field('total_cost'),
  field('created_at'),
  field('updated_at'),
  field('last_call_id', (row) => row.last_call?.id),
  field('last_call_at', (row) => row.last_call?.created_at),
  field('last_call_status', (row) => row.last_call?.status),
  field('last_call_answered_by', (row) => row.last_call?.answered_by),
  field('last_call_duration', (row) => row.last_call?.duration),
  field('last_call_cost', (row) => row.last_call?.total_cost),
];

const CALL_COLUMNS: CsvColumn[] = [
  ...[
    'id', 'created_at', 'updated_at', 'type', 'status', 'answered_by', 'duration', 'assistant_name', 'campaign_name', 'lead_id', 'attempt',
    'assistant_phone_number', 'client_phone_number', 'carrier_cost', 'total_cost', 'recording_url', 'evaluation',
  ].map((name) => field(name)),
];

/** The call list's filters, as GET /user/calls takes them (its pages aside: an export has them all). */
const CALL_FILTERS = ['status', 'type', 'phone_number', 'assistant_id', 'campaign_id', 'date_from', 'date_to'] as const;

/** The keys of a call's variables that no assistant's post_call_schema names, as one JSON cell. */
function otherVariables(variables: Record<string, unknown> | null, named: Set<string>): Record<string, unknown> | null {
  const other = Object.entries(variables ?? {}).filter(([key]) => !named.has(key));
  return other.length ? Object.fromEntries(other) : null;
}

export const exportRoutes: Route[] = [
  {
    method: 'GET',
    path: '/user/campaigns/{id}/leads.csv',
    summary:
      'A campaign’s leads with their results, as CSV (UTF-8, RFC 4180, a header row), in id order: status, attempts, calls and their cost, the last call’s outcome, duration and cost, then one column per lead variable (variables.<name>) and per extracted variable of the last call (extracted.<name>)',
    document: `query CampaignLeadsCsv($id: Int!, $after: Int, $first: Boolean!) {
      campaignLeadsExport(campaign_id: $id, after: $after, per_page: 500) {
        data { id phone_number status attempts variables calls total_cost created_at updated_at
          last_call { id status answered_by duration total_cost variables created_at } }
        next_after
      }
      campaignLeadsExportColumns(campaign_id: $id) @include(if: $first) { variables extracted }
    }`,
    variables: (req) => ({ id: req.params.id, first: true }),
    respond: () => ({ body: null }),
    csv: {
      filename: (req) => `campaign-${Number(req.params.id)}-leads.csv`,
      columns: (data) => [
        ...LEAD_COLUMNS,
        ...(data.campaignLeadsExportColumns.variables as string[]).map((name) => field(`variables.${name}`, (row) => row.variables?.[name])),
        ...(data.campaignLeadsExportColumns.extracted as string[]).map((name) => field(`extracted.${name}`, (row) => row.last_call?.variables?.[name])),
      ],
      rows: (data) => data.campaignLeadsExport.data,
      next: (data) => (data.campaignLeadsExport.next_after === null ? null : { after: data.campaignLeadsExport.next_after, first: false }),
    },
    notFound: Messages.campaignNotFound,
  },
  {
    method: 'GET',
    path: '/user/calls.csv',
    summary:
      'The calls GET /user/calls lists (the same filters, every page), newest first, as CSV (UTF-8, RFC 4180, a header row): one column per name of the account’s assistants’ post_call_schema (variables.<name>), other extracted keys as JSON in other_variables, and the transcript last',
    query: CALL_FILTERS,
    document: `query CallsCsv($after: Int, $first: Boolean!, $status: String, $type: String, $phone_number: String,
        $assistant_id: Int, $campaign_id: Int, $date_from: String, $date_to: String) {
      callFeed(per_page: 100, after: $after, status: $status, type: $type, phone_number: $phone_number,
          assistant_id: $assistant_id, campaign_id: $campaign_id, date_from: $date_from, date_to: $date_to) {
        data {
          id created_at updated_at type status answered_by duration assistant_name campaign_name lead_id attempt
          assistant_phone_number client_phone_number carrier_cost total_cost recording_url evaluation variables transcript
        }
        next_after
      }
      assistants @include(if: $first) { post_call_schema { name } }
    }`,
    variables: (req) => ({ ...queryVariables(req.query, CALL_FILTERS), first: true }),
    respond: () => ({ body: null }),
    csv: {
      filename: () => 'calls.csv',
      columns: (data) => {
        const names = [...new Set((data.assistants as { post_call_schema: { name: string }[] }[]).flatMap((assistant) => assistant.post_call_schema.map((item) => item.name)))];
        const named = new Set(names);
        return [
          ...CALL_COLUMNS,
          ...names.map((name) => field(`variables.${name}`, (row) => row.variables?.[name])),
          field('other_variables', (row) => otherVariables(row.variables, named)),
          field('transcript'),
        ];
      },
      rows: (data) => data.callFeed.data,
      next: (data) => (data.callFeed.next_after === null ? null : { after: data.callFeed.next_after, first: false }),
    },
  },
];
