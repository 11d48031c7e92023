import { Arg, Authorized, Ctx, Field, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { FieldErrorCollector, Messages, NotFoundError } from '../../errors';
import { checkLength } from '../../lib/checks';
import { scopeOf, type GraphQLContext } from '../../graphql/context';
import { issueToken, listTokens, revokeToken, OperatorError, tokenView } from './account.service';

@ObjectType('ApiToken', { simpleResolvers: true, description: 'One of the account’s API tokens, as it may be seen after its creation: never the token itself.' })
export class ApiTokenView {
  @Field(() => Int)
  id!: number;

  @Field(() => String, { description: 'The token’s first characters, to tell tokens apart.' })
  prefix!: string;

  @Field(() => String, { nullable: true, description: 'The account’s name for it; null for tokens made by the CLI.' })
  name!: string | null;

  @Field(() => String, { description: 'ISO 8601, UTC.' })
  created_at!: string;

  @Field(() => String, { nullable: true, description: 'When a request last carried it (ISO 8601, UTC, to the minute); null when never.' })
  last_used_at!: string | null;
}

@ObjectType('ApiTokenCreated', { simpleResolvers: true })
export class ApiTokenCreated {
  @Field(() => String, { description: 'The token: shown this once, only its digest is kept.' })
  token!: string;

  @Field(() => ApiTokenView)
  api_token!: ApiTokenView;
}

const NAME_MAX = 100;

/** The CLI's `token:*` for the account itself: the console's tokens page. */
@Authorized()
@Resolver()
export class ApiTokenResolver {
  @Query(() => [ApiTokenView], { description: 'The account’s API tokens, oldest first.' })
  apiTokens(@Ctx() ctx: GraphQLContext): Promise<ApiTokenView[]> {
    return listTokens(ctx.em, scopeOf(ctx).accountId);
  }

  @Mutation(() => ApiTokenCreated, { description: 'A new API token for the account; the answer is the only time the token is shown.' })
  async createApiToken(
    @Arg('name', () => String, { nullable: true, description: `Up to ${NAME_MAX} characters.` }) name: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<ApiTokenCreated> {
    const errors = new FieldErrorCollector();
    // A blank name is no name, as the console's empty field sends it.
    const trimmed = name?.trim() ? checkLength(errors, 'name', name, 1, NAME_MAX) : null;
    errors.throwIfAny();
    const { token, row } = await issueToken(ctx.em, scopeOf(ctx).accountId, trimmed);
    return { token, api_token: tokenView(row) };
  }

  @Mutation(() => Int, { description: 'Revokes one of the account’s tokens (it may be the one asking): the next request that carries it is refused. Answers its id.' })
  async revokeApiToken(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<number> {
    try {
      return await revokeToken(ctx.em, scopeOf(ctx).accountId, { id });
    } catch (error) {
      if (error instanceof OperatorError) throw new NotFoundError(Messages.tokenNotFound);
      throw error;
    }
  }
}
