import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../config';
import type { SecretBox } from '../lib/secrets';
import type { LifecycleDeps } from '../modules/calls/call.lifecycle';
import type { TelephonyProvider } from '../telephony/provider';
import type { SmsProvider } from '../telephony/sms';
import { UnauthenticatedError } from '../errors';
import type { Scope } from '../modules/scope';
import type { EventBus } from '../modules/events/event.bus';
import { createLoaders, type Loaders } from './loaders';

/** One per HTTP request, shared by the GraphQL endpoint and the REST shim. */
export interface GraphQLContext {
  requestId: string;
  /** A fork of the ORM's EntityManager made for this request only. */
  em: EntityManager;
  /** The account of the bearer token; null when the request carries no valid token. */
  accountId: number | null;
  config: Config;
  secrets: SecretBox;
  telephony: TelephonyProvider;
  /** What the call state machine needs (a hangup ends a call through it). */
  lifecycle: LifecycleDeps;
  sms: SmsProvider;
  loaders: Loaders;
  /** The process's event stream (subscriptions only). */
  events?: EventBus;
  /** Gives the context a new EntityManager and loaders (a subscription does, for each event). */
  renew?: () => void;
}

export function createContext(input: Omit<GraphQLContext, 'loaders'>): GraphQLContext {
  const context = { ...input } as GraphQLContext;
  context.loaders = createLoaders(context);
  return context;
}

/** The service scope of an authenticated request. */
export function scopeOf(ctx: GraphQLContext): Scope {
  if (ctx.accountId === null) throw new UnauthenticatedError();
  return { em: ctx.em, accountId: ctx.accountId, config: ctx.config };
}
