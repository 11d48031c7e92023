import { Arg, Authorized, Ctx, Int, Resolver, Root, Subscription } from 'type-graphql';
import { UnauthenticatedError } from '../../errors';
import type { GraphQLContext } from '../../graphql/context';
import { Call } from '../calls/call.entity';
import { Campaign } from '../campaigns/campaign.entity';
import { requireCampaign } from '../campaigns/campaign.service';
import { Lead } from '../leads/lead.entity';
import type { BusEvent } from './event.bus';

/**
 * GraphQL subscriptions (graphql-ws on the WebSocket upgrade of /graphql): each is a filter
 * over the account's event stream, and each event resolves from the state it carries, not
 * from a read of the database (a campaign's stats excepted, read when selected).
 */

type Filters = Record<string, number | null | undefined>;

/** The connection's event stream, for an authenticated subscription. */
function streamOf(ctx: GraphQLContext, accept: (event: BusEvent) => boolean): AsyncIterable<BusEvent> {
  if (ctx.accountId === null || !ctx.events) throw new UnauthenticatedError();
  return ctx.events.iterate(ctx.accountId, accept);
}

/** Whether the event's resource has every value the filters ask for. */
function matches(data: Record<string, unknown>, filters: Filters): boolean {
  return Object.entries(filters).every(([field, wanted]) => wanted === null || wanted === undefined || data[field] === wanted);
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
    description: 'Every status change of the account’s calls (initiated, ringing, in-progress, and the final one), optionally of one call, campaign or assistant.',
    subscribe: ({ args, context }) => streamOf(context, (event) => event.type.startsWith('call.') && matches(event.data, args as Filters)),
  })
  callUpdated(
    @Root() event: BusEvent,
    @Arg('id', () => Int, { nullable: true }) _id?: number,
    @Arg('campaign_id', () => Int, { nullable: true }) _campaignId?: number,
    @Arg('assistant_id', () => Int, { nullable: true }) _assistantId?: number,
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
    description: 'A campaign’s status changes, and its stats changes (a lead or a call of the campaign changed).',
    subscribe: ({ args, context }) =>
      streamOf(context, (event) =>
        event.type.startsWith('campaign.') ? event.data.id === args.id && event.type === 'campaign.status_changed' : event.data.campaign_id === args.id,
      ),
  })
  async campaignUpdated(@Root() event: BusEvent, @Ctx() ctx: GraphQLContext, @Arg('id', () => Int) id: number): Promise<Campaign> {
    const { em, accountId, config } = renewed(ctx);
    if (event.type === 'campaign.status_changed') return Object.assign(new Campaign(), event.data);
    return requireCampaign({ em, accountId: accountId!, config }, id);
  }
}
