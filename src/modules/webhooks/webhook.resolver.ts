import type { EntityManager } from '@mikro-orm/postgresql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Authorized, Ctx, Field, FieldResolver, Int, Mutation, ObjectType, Query, Resolver, Root } from 'type-graphql';
import { scopeOf, type GraphQLContext } from '../../graphql/context';
import { Call } from '../calls/call.entity';
import { redeliver, rotateWebhookSecret, webhookSecret } from './webhook.service';

@ObjectType('WebhookAttempt', { simpleResolvers: true, description: 'One POST of a delivery to the webhook URL.' })
export class WebhookAttempt {
  @Field(() => Int)
  attempt!: number;

  @Field(() => String)
  url!: string;

  @Field(() => Int, { nullable: true, description: 'The HTTP status; null when there was no answer.' })
  status_code!: number | null;

  @Field(() => String, { nullable: true, description: 'Why there was no answer (timeout, connection, blocked address...).' })
  error!: string | null;

  @Field(() => Int)
  latency_ms!: number;

  @Field(() => GraphQLJSONObject, { nullable: true })
  response_headers!: Record<string, unknown> | null;

  @Field(() => String, { nullable: true, description: 'The start of the response body.' })
  response_body!: string | null;

  @Field(() => String, { description: 'ISO 8601.' })
  created_at!: string;
}

@ObjectType('WebhookDelivery', { simpleResolvers: true, description: "A call's result sent to its assistant's webhook, or an event sent to a webhook endpoint, with its attempts." })
export class WebhookDelivery {
  @Field(() => String, { description: 'The webhook-id header, the same on every attempt.' })
  id!: string;

  @Field(() => String, { nullable: true, description: 'The event type (a webhook endpoint’s delivery); null for a post-call webhook.' })
  event_type!: string | null;

  @Field(() => String, { description: 'pending, delivered, failed or cancelled (the webhook was turned off).' })
  status!: string;

  @Field(() => String, { nullable: true, description: 'ISO 8601; when a retry is due.' })
  next_attempt_at!: string | null;

  @Field(() => GraphQLJSONObject, { description: 'The body that is POSTed.' })
  payload!: Record<string, unknown>;

  @Field(() => [WebhookAttempt])
  attempts!: WebhookAttempt[];

  @Field(() => String, { description: 'ISO 8601.' })
  created_at!: string;
}

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

@Authorized()
@Resolver(() => Call)
export class WebhookResolver {
  @Query(() => String, { description: 'The secret that signs your webhooks (Standard Webhooks, whsec_...).' })
  webhookSecret(@Ctx() ctx: GraphQLContext): Promise<string> {
    return webhookSecret(ctx.em, ctx.secrets, scopeOf(ctx).accountId);
  }

  @Mutation(() => String, { description: 'Replaces the signing secret; answers the new one.' })
  rotateWebhookSecret(@Ctx() ctx: GraphQLContext): Promise<string> {
    return rotateWebhookSecret(ctx.em, ctx.secrets, scopeOf(ctx).accountId);
  }

  @Mutation(() => Boolean, { description: 'Sends a delivery again now, with the same webhook-id.' })
  async redeliverWebhook(@Arg('delivery_id', () => String) deliveryId: string, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    await redeliver(scopeOf(ctx), deliveryId);
    return true;
  }

  @FieldResolver(() => [WebhookDelivery], { description: 'The deliveries of this call’s result to the webhook, oldest first.' })
  async webhook_deliveries(@Root() call: Call, @Ctx() ctx: GraphQLContext): Promise<WebhookDelivery[]> {
    const deliveries = await ctx.em.execute('select * from webhook_deliveries where call_id = ? and endpoint_id is null order by created_at', [call.id]);
    return withAttempts(ctx.em, deliveries);
  }
}

/** Deliveries with their attempts: one more statement for all of them. */
export async function withAttempts(em: EntityManager, deliveries: any[]): Promise<WebhookDelivery[]> {
  if (deliveries.length === 0) return [];
  const attempts: any[] = await em.execute('select * from webhook_attempts where delivery_id = any(?::text[]) order by attempt', [
    `{${deliveries.map((d) => d.id).join(',')}}`,
  ]);
  return deliveries.map((d) => ({
    id: d.id,
    event_type: d.event_type ?? null,
    status: d.status,
    next_attempt_at: iso(d.next_attempt_at),
    payload: d.payload,
    created_at: iso(d.created_at)!,
    attempts: attempts.filter((a) => a.delivery_id === d.id).map((a) => ({ ...a, created_at: iso(a.created_at)! })),
  }));
}
