import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../config';
import type { SecretBox } from '../lib/secrets';
import type { CallAdmission, LifecycleDeps } from '../modules/calls/call.ports';
import type { TelephonyProvider } from '../modules/calls/call.ports';
import type { SmsProvider } from '../modules/sms/sms.ports';
import type { NumberProvider } from '../modules/accounts/phone-number.ports';
import type { SipProvisioner } from '../modules/accounts/sip-trunk.ports';
import { UnauthenticatedError } from '../errors';
import type { Scope } from '../modules/scope';
import type { EventBus } from '../modules/events/event.bus';
import type { CsvSource } from '../modules/leads/lead.import.source';
import type { UploadedFile } from '../modules/knowledge/knowledge.service';
import type { Embedder } from '../modules/knowledge/knowledge.ports';
import type { ConversationReplier } from '../modules/conversations/conversation.ports';
import { createLoaders, type Loaders } from './loaders';

/** One per HTTP request (or subscription), shared by the GraphQL endpoint and the REST shim. */
export interface GraphQLContext {
  requestId: string;
  /**
   * A fork of the ORM's EntityManager for this request only, made the first time something
   * asks for it: making one costs the process about as much as a simple read, and a read that
   * maps its rows read-only (readScopeOf) needs none.
   */
  readonly em: EntityManager;
  /** The ORM's own EntityManager, which nothing is kept in (readScopeOf). */
  root: EntityManager;
  /** The account of the bearer token; null when the request carries no valid token. */
  accountId: number | null;
  config: Config;
  secrets: SecretBox;
  telephony: TelephonyProvider;
  /** What the call state machine needs (a hangup ends a call through it). */
  lifecycle: LifecycleDeps;
  sms: SmsProvider;
  /** Numbers searched, bought and released; none: those operations answer 503. */
  numbers?: NumberProvider;
  /** Who lets SIP trunks' calls in at the SIP layer (Twilio); none: trunks are only stored. */
  sipAccess?: SipProvisioner | null;
  /** Knowledge-base embeddings (EMBEDDINGS_MODEL); none: search is full text only. */
  embedder?: Embedder | null;
  /** The assistants' replies over text (src/chat/); none: conversations are stored, never answered (503). */
  replier?: ConversationReplier | null;
  /** Admission control of this process (new web calls); none: every call is admitted. */
  admission?: CallAdmission;
  readonly loaders: Loaders;
  /** The process's event stream (subscriptions only). */
  events?: EventBus;
  /** A REST request's uploaded file, staged on disk by the shim (POST /user/leads/import's and a knowledge document's `file`). */
  upload?: CsvSource & UploadedFile;
  /**
   * Drops the context's EntityManager and loaders, so that the next use makes new ones (a
   * subscription does, for each event).
   */
  renew: () => void;
}

/** What a context makes when first asked for it; its copies share it (Apollo copies a context for each operation). */
interface Made {
  em?: EntityManager;
  loaders?: Loaders;
}

type ContextInput = Omit<GraphQLContext, 'em' | 'loaders' | 'renew'>;

// The class's instances carry the input's fields (Object.assign in the constructor).
interface RequestContext extends ContextInput {}

/**
 * A context whose EntityManager and loaders are made when first used. They are read through
 * the prototype, from what the copies share, so that a copy (Object.assign onto the same
 * prototype, as Apollo makes) neither makes them nor makes them twice.
 */
class RequestContext implements GraphQLContext {
  constructor(
    input: ContextInput,
    private readonly made: Made = {},
  ) {
    Object.assign(this, input);
  }

  get em(): EntityManager {
    return (this.made.em ??= this.root.fork());
  }

  get loaders(): Loaders {
    return (this.made.loaders ??= createLoaders(this));
  }

  renew(): void {
    this.made.em = undefined;
    this.made.loaders = undefined;
  }
}

export function createContext(input: ContextInput): GraphQLContext {
  return new RequestContext(input);
}

/** The service scope of an authenticated request. */
export function scopeOf(ctx: GraphQLContext): Scope {
  if (ctx.accountId === null) throw new UnauthenticatedError();
  return { em: ctx.em, accountId: ctx.accountId, config: ctx.config };
}

/**
 * The scope of a read that runs prepared statements and maps their rows read-only, keeping
 * nothing in an EntityManager: the ORM's own serves it, so that no fork is made. An operation's
 * own resolvers run in no transaction, so the ORM's connections are the ones it would use.
 * An operation that writes through statements alone (a conversation's message) may use it too:
 * what of it needs entities forks the ORM itself.
 */
export function readScopeOf(ctx: GraphQLContext): Scope {
  if (ctx.accountId === null) throw new UnauthenticatedError();
  return { em: ctx.root, accountId: ctx.accountId, config: ctx.config };
}
