import { Authorized, Ctx, Field, Int, ObjectType, Query, Resolver } from 'type-graphql';
import { scopeOf, type GraphQLContext } from '../../graphql/context';
import type { Scope } from '../scope';

@ObjectType('PhoneNumber', { simpleResolvers: true, description: "One of the account's numbers: the `from` of SMS, an assistant's `phone_number_id`." })
export class PhoneNumberRecord {
  @Field(() => Int)
  id!: number;

  @Field(() => String, { description: 'E.164.' })
  phone_number!: string;

  @Field(() => Boolean)
  sms_capable!: boolean;

  @Field(() => String, { nullable: true, description: 'The last day of its subscription (YYYY-MM-DD); null when it does not expire.' })
  expires_at!: string | null;

  @Field(() => Int, { nullable: true, description: 'The (first) assistant that uses the number.' })
  assistant_id!: number | null;
}

/** The account's numbers, oldest first, each with the first assistant that uses it. */
export async function listPhoneNumbers(scope: Scope): Promise<PhoneNumberRecord[]> {
  return scope.em.execute(
    `select p.id, p.number as phone_number, p.sms_enabled as sms_capable, to_char(p.subscription_expires_at, 'YYYY-MM-DD') as expires_at,
            (select min(a.id) from assistants a where a.phone_number_id = p.id) as assistant_id
     from phone_numbers p where p.account_id = ? order by p.id`,
    [scope.accountId],
  );
}

@Authorized()
@Resolver(() => PhoneNumberRecord)
export class PhoneNumberResolver {
  @Query(() => [PhoneNumberRecord], { description: "The account's phone numbers, oldest first." })
  phoneNumbers(@Ctx() ctx: GraphQLContext): Promise<PhoneNumberRecord[]> {
    return listPhoneNumbers(scopeOf(ctx));
  }
}
