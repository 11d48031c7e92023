import { Arg, Authorized, Ctx, Field, Float, FieldResolver, Int, ObjectType, Query, Resolver, Root } from 'type-graphql';
import { scopeOf, type GraphQLContext } from '../../graphql/context';
import { Account } from './account.entity';

@ObjectType('LedgerEntry', { simpleResolvers: true, description: 'One change of the balance; the ledger sums to the balance.' })
export class LedgerEntryView {
  @Field(() => String)
  id!: string;

  @Field(() => Float, { description: 'Positive for credits, negative for debits.' })
  amount!: number;

  @Field(() => Float)
  balance_after!: number;

  @Field(() => String, { description: 'credit, debit, sms, sms_refund, call, call_reservation or call_reservation_release.' })
  kind!: string;

  @Field(() => String, { nullable: true, description: 'What caused it, such as sms:12 or call:7.' })
  reference!: string | null;

  @Field(() => String, { description: 'ISO 8601.' })
  created_at!: string;
}

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
}

@Authorized()
@Resolver(() => Me)
export class MeResolver {
  @Query(() => Me)
  async me(@Ctx() ctx: GraphQLContext): Promise<Me> {
    const account = await ctx.em.findOneOrFail(Account, { id: scopeOf(ctx).accountId });
    return { id: account.id, name: account.name, email: account.email, balance: Number(account.balance) };
  }

  @FieldResolver(() => [LedgerEntryView], { description: 'The most recent balance changes, newest first.' })
  async ledger(
    @Root() me: Me,
    @Arg('limit', () => Int, { defaultValue: 20, description: '1 to 100.' }) limit: number,
    @Ctx() ctx: GraphQLContext,
  ): Promise<LedgerEntryView[]> {
    const rows: any[] = await ctx.em.execute(
      'select id, amount, balance_after, kind, reference, created_at from ledger_entries where account_id = ? order by id desc limit ?',
      [me.id, Math.min(100, Math.max(1, limit))],
    );
    return rows.map((row) => ({
      id: String(row.id),
      amount: Number(row.amount),
      balance_after: Number(row.balance_after),
      kind: row.kind,
      reference: row.reference,
      created_at: new Date(row.created_at).toISOString(),
    }));
  }
}
