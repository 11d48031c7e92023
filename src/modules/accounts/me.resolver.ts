import { Arg, Authorized, Ctx, Field, Float, FieldResolver, Int, ObjectType, Query, Resolver, Root } from 'type-graphql';
import { scopeOf, type GraphQLContext } from '../../graphql/context';
import { DEFAULT_PER_PAGE, MAX_PER_PAGE } from '../../graphql/pagination';
import { Account } from './account.entity';
import { LedgerEntryView, LedgerFeed, latestLedger, ledgerFeed } from './ledger.feed';

@ObjectType('Me', { simpleResolvers: true, description: 'The authenticated account.' })
export class Me {
  @Field(() => Int)
  id!: number;

  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true })
  email!: string | null;

  @Field(() => Float)
  balance!: number;

  @Field(() => String, { description: 'ISO 4217 code of the balance, prices and costs (the server’s CURRENCY).' })
  currency!: string;
}

@Authorized()
@Resolver(() => Me)
export class MeResolver {
  @Query(() => Me)
  async me(@Ctx() ctx: GraphQLContext): Promise<Me> {
    const account = await ctx.em.findOneOrFail(Account, { id: scopeOf(ctx).accountId });
    return { id: account.id, name: account.name, email: account.email, balance: Number(account.balance), currency: ctx.config.currency };
  }

  @FieldResolver(() => [LedgerEntryView], { description: 'The most recent balance changes, newest first (ledgerFeed pages through them all).' })
  ledger(
    @Root() me: Me,
    @Arg('limit', () => Int, { defaultValue: 20, description: '1 to 100.' }) limit: number,
    @Ctx() ctx: GraphQLContext,
  ): Promise<LedgerEntryView[]> {
    return latestLedger(ctx.em, me.id, limit);
  }

  @FieldResolver(() => LedgerFeed, {
    description: 'The balance changes newest first, a slice at a time: pass `next_after` back as `after`. Every slice costs the same however deep.',
  })
  ledgerFeed(
    @Root() me: Me,
    @Arg('after', () => String, { nullable: true, description: 'The `next_after` of the slice before (an entry id); none for the newest.' }) after: string | null,
    @Arg('per_page', () => Int, { nullable: true, description: `1 to ${MAX_PER_PAGE} (${DEFAULT_PER_PAGE}).` }) perPage: number | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<LedgerFeed> {
    return ledgerFeed(ctx.em, me.id, { after, per_page: perPage });
  }
}
