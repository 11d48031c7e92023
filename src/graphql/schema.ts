import 'reflect-metadata';
import { lexicographicSortSchema, printSchema, type GraphQLObjectType, type GraphQLSchema } from 'graphql';
import { buildSchema, type AuthChecker, type PubSub } from 'type-graphql';
import { UnauthenticatedError } from '../errors';
import { AnalyticsResolver } from '../modules/analytics/analytics.resolver';
import { ApiTokenResolver } from '../modules/accounts/api-token.resolver';
import { MeResolver } from '../modules/accounts/me.resolver';
import { PhoneNumberResolver } from '../modules/accounts/phone-number.resolver';
import { AssistantTestResolver } from '../modules/assistant-tests/test.resolver';
import { SipTrunkResolver } from '../modules/accounts/sip-trunk.resolver';
import { AssistantResolver } from '../modules/assistants/assistant.resolver';
import { CallResolver } from '../modules/calls/call.resolver';
import { CampaignResolver } from '../modules/campaigns/campaign.resolver';
import { CatalogResolver } from '../modules/catalog/catalog.resolver';
import { DncResolver } from '../modules/dnc/dnc.resolver';
import { EventResolver } from '../modules/events/event.resolver';
import { LeadFieldsResolver, LeadResolver, leadFields } from '../modules/leads/lead.resolver';
import { SmsResolver } from '../modules/sms/sms.resolver';
import { ToolResolver } from '../modules/tools/tool.resolver';
import { KnowledgeResolver } from '../modules/knowledge/knowledge.resolver';
import { ConversationResolver } from '../modules/conversations/conversation.resolver';
import { WebhookEndpointResolver } from '../modules/webhooks/endpoint.resolver';
import { WebhookResolver } from '../modules/webhooks/webhook.resolver';
import { WhatsappResolver } from '../modules/whatsapp/whatsapp.resolver';
import { VendorResolver } from '../modules/vendors/vendor.resolver';
import { FolderResolver, LabelResolver } from '../modules/organize/organize.resolver';
import type { GraphQLContext } from './context';
import { guardArguments } from './input-guard';

export const resolvers = [
  AnalyticsResolver,
  ApiTokenResolver,
  AssistantResolver,
  AssistantTestResolver,
  CallResolver,
  CampaignResolver,
  CatalogResolver,
  DncResolver,
  EventResolver,
  LeadResolver,
  LeadFieldsResolver,
  MeResolver,
  PhoneNumberResolver,
  SipTrunkResolver,
  SmsResolver,
  ToolResolver,
  KnowledgeResolver,
  ConversationResolver,
  WebhookEndpointResolver,
  WebhookResolver,
  WhatsappResolver,
  FolderResolver,
  LabelResolver,
  VendorResolver,
] as const;

/** The one authorization rule so far: `@Authorized()` needs a valid bearer token. */
const authChecker: AuthChecker<GraphQLContext> = ({ context }) => {
  if (context.accountId === null) throw new UnauthenticatedError();
  return true;
};

/**
 * TypeGraphQL wants a PubSub once a schema has subscriptions; ours subscribe to the event
 * bus themselves (`subscribe` in event.resolver.ts), so nothing goes through this one.
 */
const NO_PUBSUB: PubSub = {
  publish: () => {
    throw new Error('events are published through the event outbox (modules/events), not TypeGraphQL');
  },
  subscribe: () => {
    throw new Error('subscriptions read the event bus through their own subscribe function');
  },
};

/**
 * Field resolvers the schema calls directly, without TypeGraphQL's wrapper around each call (its
 * container, parameter list and middleware chain): those of fields read on every row of a list.
 * Their TypeGraphQL resolvers declare the fields and call the same functions.
 */
const DIRECT_RESOLVERS: Record<string, Record<string, (source: any, context: GraphQLContext) => unknown>> = {
  Lead: leadFields,
};

function directResolvers(schema: GraphQLSchema): GraphQLSchema {
  for (const [typeName, resolvers] of Object.entries(DIRECT_RESOLVERS)) {
    const fields = (schema.getType(typeName) as GraphQLObjectType).getFields();
    for (const [name, resolve] of Object.entries(resolvers)) fields[name].resolve = (source, _args, context: GraphQLContext) => resolve(source, context);
  }
  return schema;
}

let cached: Promise<GraphQLSchema> | undefined;

export function getSchema(): Promise<GraphQLSchema> {
  cached ??= buildSchema({ resolvers, authChecker, validate: false, pubSub: NO_PUBSUB }).then(guardArguments).then(directResolvers);
  return cached;
}

/** The SDL checked in as schema.graphql: sorted, so that it changes only when the API does. */
export async function printSortedSchema(): Promise<string> {
  return `${printSchema(lexicographicSortSchema(await getSchema()))}\n`;
}
