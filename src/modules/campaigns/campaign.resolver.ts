import { Arg, Authorized, Ctx, Field, Float, FieldResolver, Int, Mutation, ObjectType, Query, Resolver, Root } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { scopeOf, type GraphQLContext } from '../../graphql/context';
import { formatSpecTimestamp } from '../../lib/time';
import { Campaign } from './campaign.entity';
import { CreateCampaignInput, UpdateCampaignInput } from './campaign.inputs';
import {
  createCampaign,
  deleteCampaign,
  listCampaigns,
  requireCampaign,
  setCampaignStatus,
  updateCampaign,
  type CampaignStats,
} from './campaign.service';
import { windowAt } from './campaign.window';

@ObjectType('CampaignStats', { simpleResolvers: true })
export class CampaignStatsView implements CampaignStats {
  @Field(() => GraphQLJSONObject, { description: 'Leads by status: each of the seven lead statuses, with its count.' })
  leads!: CampaignStats['leads'];

  @Field(() => Int)
  calls_in_progress!: number;

  @Field(() => Int, { description: 'Calls made for the campaign’s leads.' })
  attempts!: number;

  @Field(() => Float)
  total_cost!: number;
}

@Authorized()
@Resolver(() => Campaign)
export class CampaignResolver {
  @Query(() => [Campaign], { description: "The account's campaigns, oldest first." })
  campaigns(@Ctx() ctx: GraphQLContext): Promise<Campaign[]> {
    return listCampaigns(scopeOf(ctx));
  }

  @Query(() => Campaign)
  campaign(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<Campaign> {
    return requireCampaign(scopeOf(ctx), id);
  }

  @FieldResolver(() => CampaignStatsView)
  stats(@Root() campaign: Campaign, @Ctx() ctx: GraphQLContext): Promise<CampaignStats> {
    return ctx.loaders.campaignStats.load(campaign.id);
  }

  @FieldResolver(() => Boolean, { description: 'Whether the campaign may dial now: an allowed day, within its allowed hours, in its timezone (running or not).' })
  window_open(@Root() campaign: Campaign): boolean {
    return windowAt(campaign, new Date()).open;
  }

  @FieldResolver(() => String, {
    nullable: true,
    description: 'When the calling window next opens, as YYYY-MM-DD HH:MM:SS in UTC like created_at; null while it is open now, or when no day is allowed.',
  })
  next_window_at(@Root() campaign: Campaign): string | null {
    const window = windowAt(campaign, new Date());
    return !window.open && window.opensAt ? formatSpecTimestamp(window.opensAt) : null;
  }

  @Mutation(() => Campaign)
  createCampaign(@Arg('input', () => CreateCampaignInput) input: CreateCampaignInput, @Ctx() ctx: GraphQLContext): Promise<Campaign> {
    return createCampaign(scopeOf(ctx), input);
  }

  @Mutation(() => Campaign, { description: 'Only the fields sent change; also while it runs.' })
  updateCampaign(
    @Arg('id', () => Int) id: number,
    @Arg('input', () => UpdateCampaignInput) input: UpdateCampaignInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<Campaign> {
    return updateCampaign(scopeOf(ctx), id, input);
  }

  @Mutation(() => Campaign, { description: 'draft, paused or completed -> running; needs an outbound assistant with a phone number.' })
  startCampaign(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<Campaign> {
    return setCampaignStatus(scopeOf(ctx), id, 'start');
  }

  @Mutation(() => Campaign, { description: 'running -> paused (manual).' })
  stopCampaign(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<Campaign> {
    return setCampaignStatus(scopeOf(ctx), id, 'stop');
  }

  @Mutation(() => Campaign, { description: 'start or stop, as the REST route update-status takes it.' })
  updateCampaignStatus(
    @Arg('campaign_id', () => Int) campaignId: number,
    @Arg('action', () => String, { description: 'start or stop.' }) action: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<Campaign> {
    return setCampaignStatus(scopeOf(ctx), campaignId, action);
  }

  @Mutation(() => Boolean, { description: 'Refused while it runs; its leads go with it.' })
  async deleteCampaign(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    await deleteCampaign(scopeOf(ctx), id);
    return true;
  }
}
