import { Messages } from '../../errors';
import { messageAnd, messageOnly } from '../openapi';
import type { Route } from './route';

const TOOL_FIELDS = `
  fragment ToolFields on Tool {
    id name description endpoint method timeout
    headers { name value }
    schema { name type description }
    speak_during created_at updated_at
  }`;

/** A tool as the spec shows it, with `warning` only when there is one (an endpoint on a private address, in development). */
function warned({ warning, ...tool }: Record<string, unknown>): Record<string, unknown> {
  return warning ? { ...tool, warning } : tool;
}

export const toolRoutes: Route[] = [
  {
    method: 'POST',
    path: '/user/tools',
    summary: 'Create a mid-call tool, within the plan’s limit',
    status: 201,
    body: 'input',
    errors: ['PLAN_LIMIT'],
    envelope: messageAnd(),
    document: `mutation CreateTool($input: CreateToolInput!) { createTool(input: $input) { ...ToolFields warning } } ${TOOL_FIELDS}`,
    variables: (req) => ({ input: req.body }),
    respond: (data) => ({ body: { message: Messages.toolCreated, data: warned(data.createTool) } }),
  },
  {
    method: 'GET',
    path: '/user/tools',
    summary: 'List mid-call tools',
    document: `query Tools { tools { ...ToolFields } } ${TOOL_FIELDS}`,
    variables: () => ({}),
    respond: (data) => ({ body: data.tools }),
  },
  {
    method: 'GET',
    path: '/user/tools/{id}',
    summary: 'Get a mid-call tool',
    document: `query Tool($id: Int!) { tool(id: $id) { ...ToolFields } } ${TOOL_FIELDS}`,
    variables: (req) => ({ id: req.params.id }),
    respond: (data) => ({ body: data.tool }),
    notFound: Messages.toolNotFound,
  },
  {
    method: 'PUT',
    path: '/user/tools/{id}',
    summary: 'Update a mid-call tool; headers and schema, when sent, replace the old ones',
    body: 'input',
    envelope: messageAnd(),
    document: `mutation UpdateTool($id: Int!, $input: UpdateToolInput!) { updateTool(id: $id, input: $input) { ...ToolFields warning } } ${TOOL_FIELDS}`,
    variables: (req) => ({ id: req.params.id, input: req.body }),
    respond: (data) => ({ body: { message: Messages.toolUpdated, data: warned(data.updateTool) } }),
    notFound: Messages.toolNotFound,
  },
  {
    method: 'DELETE',
    path: '/user/tools/{id}',
    summary: 'Delete a mid-call tool',
    envelope: messageOnly,
    document: `mutation DeleteTool($id: Int!) { deleteTool(id: $id) }`,
    variables: (req) => ({ id: req.params.id }),
    respond: () => ({ body: { message: Messages.toolDeleted } }),
    notFound: Messages.toolNotFound,
  },
];
