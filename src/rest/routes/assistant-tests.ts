import { Messages } from '../../errors';
import { messageAnd, messageOnly } from '../openapi';
import { laravelPage, laravelPageSchema, queryVariables, type Route } from './route';

/** Assistant tests and their runs (design.md, "Assistant tests"). */
const TEST = 'id assistant_id name type config created_at updated_at';
const USAGE = 'usage { llm_input_tokens llm_output_tokens caller_input_tokens caller_output_tokens judge_input_tokens judge_output_tokens }';
const RESULT = `test_id attempt status transcript { role content } criteria { criterion passed reason } tool_calls { name arguments mocked } latency_ms ${USAGE} error`;
const RUN = `id assistant_id status attempts assistant_snapshot_hash started_at finished_at results { ${RESULT} } pass_rate ${USAGE} created_at`;

export const assistantTestRoutes: Route[] = [
  {
    method: 'POST',
    path: '/user/assistants/{id}/tests',
    summary: 'Create a test of the assistant (reply, tool_call or simulation), at most TEST_MAX_PER_ASSISTANT of them',
    status: 201,
    body: 'input',
    rejectUnknownFields: true,
    envelope: messageAnd(),
    document: `mutation CreateAssistantTest($id: Int!, $input: CreateAssistantTestInput!) { createAssistantTest(assistant_id: $id, input: $input) { ${TEST} } }`,
    variables: (req) => ({ id: req.params.id, input: req.body }),
    respond: (data) => ({ status: 201, body: { message: Messages.assistantTestCreated, data: data.createAssistantTest } }),
    notFound: Messages.assistantNotFound,
  },
  {
    method: 'GET',
    path: '/user/assistants/{id}/tests',
    summary: 'List the assistant’s tests, oldest first',
    document: `query AssistantTests($id: Int!) { assistantTests(assistant_id: $id) { ${TEST} } }`,
    variables: (req) => ({ id: req.params.id }),
    respond: (data) => ({ body: data.assistantTests }),
    notFound: Messages.assistantNotFound,
  },
  {
    method: 'GET',
    path: '/user/assistant-tests/{test_id}',
    summary: 'Get an assistant test',
    document: `query AssistantTest($test_id: Int!) { assistantTest(id: $test_id) { ${TEST} } }`,
    variables: (req) => ({ test_id: req.params.test_id }),
    respond: (data) => ({ body: data.assistantTest }),
    notFound: Messages.assistantTestNotFound,
  },
  {
    method: 'PUT',
    path: '/user/assistant-tests/{test_id}',
    summary: 'Update an assistant test: name, type and config (config, when sent, replaces the old one)',
    body: 'input',
    rejectUnknownFields: true,
    envelope: messageAnd(),
    document: `mutation UpdateAssistantTest($test_id: Int!, $input: UpdateAssistantTestInput!) { updateAssistantTest(id: $test_id, input: $input) { ${TEST} } }`,
    variables: (req) => ({ test_id: req.params.test_id, input: req.body }),
    respond: (data) => ({ body: { message: Messages.assistantTestUpdated, data: data.updateAssistantTest } }),
    notFound: Messages.assistantTestNotFound,
  },
  {
    method: 'POST',
    path: '/user/assistants/{id}/test-runs',
    summary: 'Run the assistant’s tests (all, or test_ids), each `attempts` times (1-10), on the job queue; free of the platform fee. Follow it by GET /user/test-runs/{id} or the testRunUpdated subscription',
    status: 202,
    body: 'input',
    rejectUnknownFields: true,
    envelope: messageAnd(),
    document: `mutation StartTestRun($id: Int!, $input: StartTestRunInput) { startTestRun(assistant_id: $id, input: $input) { id status } }`,
    variables: (req) => ({ id: req.params.id, input: req.body ?? {} }),
    respond: (data) => ({ status: 202, body: { message: Messages.testRunQueued, data: data.startTestRun } }),
    notFound: Messages.assistantNotFound,
  },
  {
    method: 'GET',
    path: '/user/test-runs/{id}',
    summary: 'A test run: its status, its finished results (transcript, each criterion’s verdict and reason, tool calls) and, once over, its pass rate',
    document: `query TestRun($id: Int!) { testRun(id: $id) { ${RUN} } }`,
    variables: (req) => ({ id: req.params.id }),
    respond: (data) => ({ body: data.testRun }),
    notFound: Messages.testRunNotFound,
  },
  {
    method: 'GET',
    path: '/user/assistants/{id}/test-runs',
    summary: 'The assistant’s test runs, newest first, as Laravel’s page object',
    query: ['page', 'per_page'],
    envelope: laravelPageSchema,
    document: `query TestRuns($id: Int!, $page: Int, $per_page: Int) {
      testRuns(assistant_id: $id, page: $page, per_page: $per_page) { data { ${RUN} } current_page per_page total last_page from to }
    }`,
    variables: (req) => ({ id: req.params.id, ...queryVariables(req.query, ['page', 'per_page']) }),
    respond: (data, req) => ({ body: laravelPage(data.testRuns, req.url) }),
    notFound: Messages.assistantNotFound,
  },
  // Last: the reference page's examples delete the demo's test after running it.
  {
    method: 'DELETE',
    path: '/user/assistant-tests/{test_id}',
    summary: 'Delete an assistant test; runs that ran it keep their results',
    envelope: messageOnly,
    document: `mutation DeleteAssistantTest($test_id: Int!) { deleteAssistantTest(id: $test_id) }`,
    variables: (req) => ({ test_id: req.params.test_id }),
    respond: () => ({ body: { message: Messages.assistantTestDeleted } }),
    notFound: Messages.assistantTestNotFound,
  },
];
