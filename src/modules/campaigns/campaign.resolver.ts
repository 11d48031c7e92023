import { Arg, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { scopeOf, type GraphQLContext } from '../../graphql/context';
import { Campaign } from './campaign.entity';
import { CreateCampaignInput } from './campaign.inputs';
import { createCampaign, listCampaigns } from './campaign.service';

@Authorized()
@Resolver(() => Campaign)
export class CampaignResolver {
  @Query(() => [Campaign], { description: "The account's campaigns, oldest first." })
  campaigns(@Ctx() ctx: GraphQLContext): Promise<Campaign[]> {
    return listCampaigns(scopeOf(ctx));
  }

  @Mutation(() => Campaign)
  createCampaign(@Arg('input', () => CreateCampaignInput) input: CreateCampaignInput, @Ctx() ctx: GraphQLContext): Promise<Campaign> {
    return createCampaign(scopeOf(ctx), input);
  }
}
