import { Arg, Authorized, Ctx, Int, Resolver, Root, Subscription } from 'type-graphql';
import { FieldMessages, Messages, NotFoundError, UnauthenticatedError, ValidationError } from '../../errors';
import type { GraphQLContext } from '../../graphql/context';
import { Call } from '../calls/call.entity';
import { callSnapshot } from '../calls/call.snapshot';
import { Campaign } from '../campaigns/campaign.entity';
import { requireCampaign } from '../campaigns/campaign.service';
import { campaignSnapshot } from '../campaigns/campaign.snapshot';
import { Lead } from '../leads/lead.entity';
import type { BusEvent } from './event.bus';
import { readInSnapshot, startingWith } from './event.initial';

/**
 * GraphQL subscriptions (graphql-ws on the WebSocket upgrade of /graphql): each is a filter
 * over the account's event stream, and each event resolves from the state it carries, not
 * from a read of the database (a campaign's stats excepted, read when selected).
 */

type Filters = Record<string, number | null | undefined>;

/** The connection's event stream, for an authenticated subscription. */
function streamOf(ctx: GraphQLContext, accept: (event: BusEvent) => boolean): AsyncIterableIterator<BusEvent> {
  if (ctx.accountId === null || !ctx.events) throw new UnauthenticatedError();
  return ctx.events.iterate(ctx.accountId, accept);
}

/** Whether the event's resource has every value the filters ask for. */
function matches(data: Record<string, unknown>, filters: Filters): boolean {
  return Object.entries(filters).every(([field, wanted]) => wanted === null || wanted === undefined || data[field] === wanted);
}

const INITIAL = {
  defaultValue: false,
  description: 'First yield the current state (before any change), then the changes: no change is missed or repeated in between.',
};

/**
 * The resource's current state as the first event of a stream: an event of `type`, whose
 * `data` is the resource as its events carry it. The stream passes it through `accept` like
 * any event (a call outside the filters is not yielded).
 */
function withCurrent(
  ctx: GraphQLContext,
  stream: AsyncIterableIterator<BusEvent>,
  accept: (event: BusEvent) => boolean,
  type: BusEvent['type'],
  read: (scope: { em: GraphQLContext['em']; accountId: number }) => Promise<Record<string, unknown>>,
): Promise<AsyncIterableIterator<BusEvent>> {
  return startingWith(stream, async () => {
    const { state, snapshot } = await readInSnapshot(ctx.root, (em) => read({ em, accountId: ctx.accountId! }));
    const event: BusEvent = { id: 'current', account_id: ctx.accountId!, type, data: state, xid: '' };
    return { state: accept(event) ? event : null, snapshot };
  });
}

/** A fresh ORM context and loaders for each event, so that a long subscription keeps nothing. */
function renewed(ctx: GraphQLContext): GraphQLContext {
  ctx.renew();
  return ctx;
}

@Authorized()
@Resolver()
export class EventResolver {
  @Subscription(() => Call, {
    description:
      'Every status change of the account’s calls (initiated, ringing, in-progress, and the final one), optionally of one call, campaign or assistant; with `initial` (and `id`), the call as it stands first.',
    subscribe: ({ args, context }) => {
      const { initial, ...filters } = args as Filters & { initial: boolean };
      if (initial && (filters.id === null || filters.id === undefined)) throw new ValidationError({ id: [FieldMessages.required('id')] });
      const accept = (event: BusEvent) => event.type.startsWith('call.') && matches(event.data, filters);
      const stream = streamOf(context, accept);
      if (!initial) return stream;
      return withCurrent(context, stream, accept, 'call.initiated', async ({ em, accountId }) => {
        const call = await em.findOne(Call, { id: filters.id!, account_id: accountId });
        if (!call) throw new NotFoundError(Messages.callNotFound);
        return callSnapshot(call);
      });
    },
  })
  callUpdated(
    @Root() event: BusEvent,
    @Arg('id', () => Int, { nullable: true }) _id?: number,
    @Arg('campaign_id', () => Int, { nullable: true }) _campaignId?: number,
    @Arg('assistant_id', () => Int, { nullable: true }) _assistantId?: number,
    @Arg('initial', () => Boolean, INITIAL) _initial?: boolean,
  ): Call {
    // Every field of a call resolves from the event: no database, no context to renew.
    return Object.assign(new Call(), event.data);
  }

  @Subscription(() => Lead, {
    description: 'Every status change of the account’s leads, optionally of one campaign.',
    subscribe: ({ args, context }) => streamOf(context, (event) => event.type === 'lead.status_changed' && matches(event.data, args as Filters)),
  })
  leadUpdated(@Root() event: BusEvent, @Ctx() ctx: GraphQLContext, @Arg('campaign_id', () => Int, { nullable: true }) _campaignId?: number): Lead {
    const { em } = renewed(ctx);
    return Object.assign(new Lead(), event.data, { campaign: em.getReference(Campaign, event.data.campaign_id) });
  }

  @Subscription(() => Campaign, {
    description: 'A campaign’s status changes, and its stats changes (a lead or a call of the campaign changed); with `initial`, the campaign as it stands first.',
    subscribe: ({ args, context }) => {
      const accept = (event: BusEvent) =>
        event.type.startsWith('campaign.') ? event.data.id === args.id && event.type === 'campaign.status_changed' : event.data.campaign_id === args.id;
      const stream = streamOf(context, accept);
      if (!args.initial) return stream;
      return withCurrent(context, stream, accept, 'campaign.status_changed', async ({ em, accountId }) =>
        campaignSnapshot(await requireCampaign({ em, accountId, config: context.config }, args.id)),
      );
    },
  })
  async campaignUpdated(
    @Root() event: BusEvent,
    @Ctx() ctx: GraphQLContext,
    @Arg('id', () => Int) id: number,
    @Arg('initial', () => Boolean, INITIAL) _initial?: boolean,
  ): Promise<Campaign> {
    const { em, accountId, config } = renewed(ctx);
    if (event.type === 'campaign.status_changed') return Object.assign(new Campaign(), event.data);
    return requireCampaign({ em, accountId: accountId!, config }, id);
  }
}
