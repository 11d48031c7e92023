import { Messages } from '../../errors';
import { messageAnd, messageOnly } from '../openapi';
import { IDEMPOTENCY_HEADER, header, laravelPage, laravelPageSchema, queryVariables, type Route } from './route';

const CALL_FIELDS = `
  fragment CallFields on Call {
    id assistant_name campaign_name type duration assistant_phone_number client_phone_number status
    transcript variables evaluation webhook_response carrier_cost total_cost answered_by recording_url
    lead_id attempt created_at updated_at
  }`;

const CALL_FILTERS = ['page', 'per_page', 'status', 'type', 'phone_number', 'assistant_id', 'campaign_id', 'date_from', 'date_to'] as const;

export const callRoutes: Route[] = [
  {
    method: 'POST',
    path: '/user/make_call',
    summary: 'Start an outbound call',
    body: 'input',
    headers: [IDEMPOTENCY_HEADER],
    errors: ['INSUFFICIENT_BALANCE', 'PLAN_LIMIT', 'CONFLICT'],
    envelope: (started) => ({
      type: 'object',
      properties: { message: { type: 'string' }, data: { type: 'object' }, ...(started.properties as object) },
      required: ['message', 'data', 'call_id', 'status'],
    }),
    document: `mutation MakeCall($input: MakeCallInput!, $idempotency_key: String) {
      makeCall(input: $input, idempotency_key: $idempotency_key) { call_id status }
    }`,
    variables: (req) => ({ input: req.body, idempotency_key: header(req, 'idempotency-key') }),
    respond: (data) => ({ body: { message: Messages.callInitiated, data: {}, ...data.makeCall } }),
  },
  {
    method: 'POST',
    path: '/user/calls/web',
    summary: 'Start a web call: a browser talks to the assistant over the returned WebSocket url, with its single-use token',
    status: 201,
    body: 'input',
    errors: ['INSUFFICIENT_BALANCE', 'PLAN_LIMIT'],
    envelope: messageAnd(),
    document: `mutation StartWebCall($input: WebCallInput!) { startWebCall(input: $input) { call_id url token expires_at unavailable_actions } }`,
    variables: (req) => ({ input: req.body }),
    respond: (data) => ({ body: { message: Messages.webCallStarted, data: data.startWebCall } }),
    notFound: Messages.assistantNotFound,
  },
  {
    method: 'GET',
    path: '/user/calls',
    summary: 'List calls, newest first, as Laravel’s page object',
    query: CALL_FILTERS,
    envelope: laravelPageSchema,
    document: `query Calls($page: Int, $per_page: Int, $status: String, $type: String, $phone_number: String,
        $assistant_id: Int, $campaign_id: Int, $date_from: String, $date_to: String) {
      calls(page: $page, per_page: $per_page, status: $status, type: $type, phone_number: $phone_number,
          assistant_id: $assistant_id, campaign_id: $campaign_id, date_from: $date_from, date_to: $date_to) {
        data { ...CallFields } current_page per_page total last_page from to
      }
    } ${CALL_FIELDS}`,
    variables: (req) => queryVariables(req.query, CALL_FILTERS),
    respond: (data, req) => ({ body: laravelPage(data.calls, req.url) }),
  },
  {
    method: 'GET',
    path: '/user/calls/{id}',
    summary: 'Get a call, with why vozgate ended it, what the pipeline engine’s vendors report it used, and its voice-to-voice latency',
    document: `query Call($id: Int!) {
      call(id: $id) {
        ...CallFields hangup_reason transferred_to transfer_status transfer_duration
        usage { stt_seconds llm_input_tokens llm_output_tokens tts_characters }
        latency { turns p50_ms p95_ms }
      }
    } ${CALL_FIELDS}`,
    variables: (req) => ({ id: req.params.id }),
    respond: (data) => ({ body: data.call }),
    notFound: Messages.callNotFound,
  },
  {
    method: 'POST',
    path: '/user/calls/{id}/hangup',
    summary: 'End a call in flight: answered, it ends as ended; not yet answered, as failed (a finished call is a 409)',
    errors: ['CONFLICT', 'PROVIDER_FAILURE'],
    envelope: messageAnd(),
    document: `mutation HangupCall($id: Int!) { hangupCall(id: $id) { id status } }`,
    variables: (req) => ({ id: req.params.id }),
    respond: (data) => ({ body: { message: Messages.callHungUp, data: data.hangupCall } }),
    notFound: Messages.callNotFound,
  },
  {
    method: 'DELETE',
    path: '/user/calls/{id}',
    summary: 'Delete a finished call (a call in flight is a 409)',
    errors: ['CONFLICT'],
    envelope: messageOnly,
    document: `mutation DeleteCall($id: Int!) { deleteCall(id: $id) }`,
    variables: (req) => ({ id: req.params.id }),
    respond: () => ({ body: { message: Messages.callDeleted } }),
    notFound: Messages.callNotFound,
  },
];
