import { Arg, Authorized, Ctx, Field, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { scopeOf, type GraphQLContext } from '../../graphql/context';
import { addDnc, listDnc, removeDnc } from './dnc.service';

@ObjectType('DncNumber', { simpleResolvers: true, description: 'A number on the account’s do-not-call list: no call and no SMS reach it.' })
export class DncNumberRecord {
  @Field(() => String, { description: 'E.164.' })
  phone_number!: string;

  @Field(() => String, { description: 'YYYY-MM-DD HH:MM:SS, UTC.' })
  created_at!: string;
}

@Authorized()
@Resolver(() => DncNumberRecord)
export class DncResolver {
  @Query(() => [DncNumberRecord], { description: 'The account’s do-not-call list, oldest first.' })
  dncNumbers(@Ctx() ctx: GraphQLContext): Promise<DncNumberRecord[]> {
    return listDnc(scopeOf(ctx));
  }

  @Mutation(() => DncNumberRecord, { description: 'Adds a number to the do-not-call list (again: no change).' })
  addDncNumber(@Arg('phone_number', () => String) phoneNumber: string, @Ctx() ctx: GraphQLContext): Promise<DncNumberRecord> {
    return addDnc(scopeOf(ctx), phoneNumber);
  }

  @Mutation(() => Boolean, { description: 'Takes a number off the do-not-call list.' })
  async removeDncNumber(@Arg('phone_number', () => String) phoneNumber: string, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    await removeDnc(scopeOf(ctx), phoneNumber);
    return true;
  }
}
