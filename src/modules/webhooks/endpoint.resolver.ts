import { Arg, Authorized, Ctx, Field, FieldResolver, Int, Mutation, ObjectType, Query, Resolver, Root } from 'type-graphql';
import { scopeOf, type GraphQLContext } from '../../graphql/context';
import { EVENT_TYPES } from '../events/event.outbox';
import { createEndpoint, deleteEndpoint, listEndpoints, requireEndpoint, type WebhookEndpoint } from './endpoint.service';
import { WebhookDelivery, withAttempts } from './webhook.resolver';

@ObjectType('WebhookEndpoint', { simpleResolvers: true, description: 'A URL the account’s events are POSTed to, signed with its own secret.' })
export class WebhookEndpointView implements WebhookEndpoint {
  @Field(() => Int)
  id!: number;

  @Field(() => String)
  url!: string;

  @Field(() => [String], { description: `Any of: ${EVENT_TYPES.join(', ')}.` })
  events!: WebhookEndpoint['events'];

  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD HH:MM:SS, UTC: when a receiver answered 410 and the endpoint was turned off.' })
  disabled_at!: string | null;

  @Field(() => String, { description: 'YYYY-MM-DD HH:MM:SS, UTC.' })
  created_at!: string;
}

@ObjectType('CreatedWebhookEndpoint', { simpleResolvers: true, description: 'A new endpoint, with its signing secret (shown this once).' })
export class CreatedWebhookEndpoint extends WebhookEndpointView {
  @Field(() => String, { description: 'whsec_...: Standard Webhooks signing, and the key of x-famulor-signature.' })
  secret!: string;

  @Field(() => String, {
    nullable: true,
    description: 'Set when deliveries to this URL will fail as things stand (it points inside the network, and the server does not allow that).',
  })
  warning!: string | null;
}

@Authorized()
@Resolver(() => WebhookEndpointView)
export class WebhookEndpointResolver {
  @Query(() => [WebhookEndpointView], { description: 'The account’s webhook endpoints, oldest first.' })
  webhookEndpoints(@Ctx() ctx: GraphQLContext): Promise<WebhookEndpoint[]> {
    return listEndpoints(scopeOf(ctx));
  }

  @Query(() => WebhookEndpointView)
  webhookEndpoint(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<WebhookEndpoint> {
    return requireEndpoint(scopeOf(ctx), id);
  }

  @Mutation(() => CreatedWebhookEndpoint)
  createWebhookEndpoint(
    @Arg('url', () => String) url: string,
    @Arg('events', () => [String]) events: string[],
    @Ctx() ctx: GraphQLContext,
  ): Promise<CreatedWebhookEndpoint> {
    return createEndpoint(scopeOf(ctx), ctx.secrets, { url, events });
  }

  @Mutation(() => Boolean, { description: 'Removes the endpoint; its pending deliveries are not sent.' })
  async deleteWebhookEndpoint(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    await deleteEndpoint(scopeOf(ctx), id);
    return true;
  }

  @FieldResolver(() => [WebhookDelivery], { description: 'The latest deliveries to this endpoint, newest first, with their attempts.' })
  async deliveries(
    @Root() endpoint: WebhookEndpoint,
    @Ctx() ctx: GraphQLContext,
    @Arg('last', () => Int, { nullable: true, description: '1 to 100, default 20.' }) last?: number | null,
  ): Promise<WebhookDelivery[]> {
    const limit = Math.min(100, Math.max(1, last ?? 20));
    const rows = await ctx.em.execute('select * from webhook_deliveries where endpoint_id = ? order by created_at desc, id desc limit ?', [endpoint.id, limit]);
    return withAttempts(ctx.em, rows);
  }
}
