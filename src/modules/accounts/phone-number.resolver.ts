import { Arg, Authorized, Ctx, Field, Int, ObjectType, Query, Resolver } from 'type-graphql';
import { FieldErrorCollector } from '../../errors';
import { checkOneOf } from '../../lib/checks';
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

  @Field(() => Boolean, { description: 'One of the account’s WhatsApp senders (GET /user/whatsapp/senders).' })
  whatsapp!: boolean;

  @Field(() => String, { nullable: true, description: 'The last day of its subscription (YYYY-MM-DD); null when it does not expire.' })
  expires_at!: string | null;

  @Field(() => Int, { nullable: true, description: 'The (first) assistant that uses the number.' })
  assistant_id!: number | null;
}

export const ATTACHABLE_TO = ['inbound', 'outbound'] as const;

/**
 * The account's numbers, oldest first, each with the first assistant that uses it. With
 * `attachableTo`, only those an assistant of that direction can take: a subscription that has
 * not expired, and for inbound, no inbound assistant answering it already (an incoming call
 * goes to one assistant).
 */
export async function listPhoneNumbers(scope: Scope, attachableTo?: string | null): Promise<PhoneNumberRecord[]> {
  const errors = new FieldErrorCollector();
  if (attachableTo != null) checkOneOf(errors, 'type', attachableTo, ATTACHABLE_TO);
  errors.throwIfAny();
  const live = attachableTo != null ? ' and (p.subscription_expires_at is null or p.subscription_expires_at >= current_date)' : '';
  const free = attachableTo === 'inbound' ? ` and not exists (select 1 from assistants a where a.phone_number_id = p.id and a.calls_direction = 'receive')` : '';
  return scope.em.execute(
    `select p.id, p.number as phone_number, p.sms_enabled as sms_capable, p.whatsapp_enabled as whatsapp, to_char(p.subscription_expires_at, 'YYYY-MM-DD') as expires_at,
            (select min(a.id) from assistants a where a.phone_number_id = p.id) as assistant_id
     from phone_numbers p where p.account_id = ?${live}${free} order by p.id`,
    [scope.accountId],
  );
}

@Authorized()
@Resolver(() => PhoneNumberRecord)
export class PhoneNumberResolver {
  @Query(() => [PhoneNumberRecord], { description: "The account's phone numbers, oldest first." })
  phoneNumbers(
    @Arg('type', () => String, {
      nullable: true,
      description: `Only numbers an assistant of this direction can take (${ATTACHABLE_TO.join(' or ')}): unexpired, and for inbound not answered by an inbound assistant already.`,
    })
    type: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<PhoneNumberRecord[]> {
    return listPhoneNumbers(scopeOf(ctx), type);
  }
}
