import { Messages } from '../../errors';
import { isPlainObject } from '../coerce';
import { messageAnd, messageOnly } from '../openapi';
import type { Route } from './route';

const ENDPOINT_FIELDS = 'id url events disabled_at created_at';

/** The account's webhook endpoints (design.md, "Events: subscriptions and webhook endpoints"). */
export const webhookEndpointRoutes: Route[] = [
  {
    method: 'POST',
    path: '/user/webhooks',
    summary: 'Create a webhook endpoint: its URL and the event types it wants; answers its signing secret, this once',
    status: 201,
    body: ['url', 'events'],
    errors: ['PLAN_LIMIT'],
    envelope: messageAnd(),
    document: `mutation CreateWebhookEndpoint($url: String!, $events: [String!]!) {
      createWebhookEndpoint(url: $url, events: $events) { ${ENDPOINT_FIELDS} secret warning }
    }`,
    variables: (req) => (isPlainObject(req.body) ? { url: req.body.url, events: req.body.events } : {}),
    respond: (data) => ({ body: { message: Messages.webhookEndpointCreated, data: data.createWebhookEndpoint } }),
  },
  {
    method: 'GET',
    path: '/user/webhooks',
    summary: 'The account’s webhook endpoints (without their secrets)',
    document: `query WebhookEndpoints { webhookEndpoints { ${ENDPOINT_FIELDS} } }`,
    variables: () => ({}),
    respond: (data) => ({ body: data.webhookEndpoints }),
  },
  {
    method: 'DELETE',
    path: '/user/webhooks/{id}',
    summary: 'Remove a webhook endpoint; its pending deliveries are not sent',
    envelope: messageOnly,
    document: `mutation DeleteWebhookEndpoint($id: Int!) { deleteWebhookEndpoint(id: $id) }`,
    variables: (req) => ({ id: req.params.id }),
    respond: () => ({ body: { message: Messages.webhookEndpointDeleted } }),
    notFound: Messages.webhookEndpointNotFound,
  },
];
