import { Args, Authorized, Ctx, Query, Resolver } from 'type-graphql';
import { readScopeOf, type GraphQLContext } from '../../graphql/context';
import { analytics } from './analytics.service';
import { Analytics, AnalyticsArgs } from './analytics.types';

@Authorized()
@Resolver(() => Analytics)
export class AnalyticsResolver {
  @Query(() => Analytics, {
    description: "The account's settled calls over a period (from inclusive, to exclusive, whole hours), by UTC hour or day, with totals, campaign funnels and the pipeline engine's latency per assistant.",
  })
  analytics(@Args(() => AnalyticsArgs) args: AnalyticsArgs, @Ctx() ctx: GraphQLContext): Promise<Analytics> {
    return analytics(readScopeOf(ctx), args);
  }
}
