import { Arg, Authorized, Ctx, Field, Float, InputType, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { DomainError, FieldErrorCollector, Messages, NotFoundError } from '../../errors';
import { checkOneOf } from '../../lib/checks';
import { scopeOf, type GraphQLContext } from '../../graphql/context';
import type { Scope } from '../scope';
import type { NumberProvider } from './phone-number.ports';
import { purchaseNumber, releaseNumber, searchNumbers, updateNumber, type AvailableNumberOffer } from './phone-number.service';
import { releaseSipTrunkAccess } from './sip-trunk.service';

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

  @Field(() => String, { nullable: true, description: 'The account’s own name for it.' })
  nickname!: string | null;

  @Field(() => Float, { nullable: true, description: 'What each month costs, charged to the balance; null for a number the operator gave (not bought here).' })
  monthly_price!: number | null;

  @Field(() => Boolean, { description: 'Renewed each month by a charge to the balance (a bought number, until a month the balance did not cover).' })
  renews!: boolean;
}

@ObjectType('PhoneNumberCapabilities', { simpleResolvers: true })
export class PhoneNumberCapabilities {
  @Field(() => Boolean)
  voice!: boolean;

  @Field(() => Boolean)
  sms!: boolean;

  @Field(() => Boolean)
  mms!: boolean;
}

@ObjectType('AvailablePhoneNumber', { simpleResolvers: true, description: 'A number the telephony provider offers to buy (POST /user/phone-numbers/purchase).' })
export class AvailablePhoneNumberRecord implements AvailableNumberOffer {
  @Field(() => String, { description: 'E.164.' })
  phone_number!: string;

  @Field(() => String)
  friendly_name!: string;

  @Field(() => String, { nullable: true })
  locality!: string | null;

  @Field(() => String, { nullable: true })
  region!: string | null;

  @Field(() => String, { description: 'ISO 3166-1 alpha-2.' })
  iso_country!: string;

  @Field(() => PhoneNumberCapabilities)
  capabilities!: PhoneNumberCapabilities;

  @Field(() => Float, { description: 'What a month costs (PHONE_NUMBER_PRICES), charged at purchase and at each renewal.' })
  monthly_price!: number;
}

@InputType('PurchasePhoneNumberInput')
export class PurchasePhoneNumberInput {
  @Field(() => String, { description: 'The number to buy, in international format (one of the search’s).' })
  phone_number!: string;
}

@InputType('UpdatePhoneNumberInput')
export class UpdatePhoneNumberInput {
  @Field(() => String, { nullable: true, description: 'At most 255 characters; null or empty removes it.' })
  nickname?: string | null;
}

const PHONE_NUMBER_COLUMNS = `p.id, p.number as phone_number, p.sms_enabled as sms_capable, p.whatsapp_enabled as whatsapp, to_char(p.subscription_expires_at, 'YYYY-MM-DD') as expires_at,
            (select min(a.id) from assistants a where a.phone_number_id = p.id) as assistant_id, p.nickname, p.monthly_price::float8 as monthly_price, p.renews`;

/** One of the account's numbers, as the list shows it. */
export async function requirePhoneNumber(scope: Scope, id: number): Promise<PhoneNumberRecord> {
  const [row]: PhoneNumberRecord[] = await scope.em.execute(`select ${PHONE_NUMBER_COLUMNS} from phone_numbers p where p.id = ? and p.account_id = ?`, [id, scope.accountId]);
  if (!row) throw new NotFoundError(Messages.phoneNumberNotFound);
  return row;
}

function numbersOf(ctx: GraphQLContext): NumberProvider {
  if (!ctx.numbers) throw new DomainError('UNAVAILABLE', Messages.unavailable);
  return ctx.numbers;
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
    `select ${PHONE_NUMBER_COLUMNS}
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

  @Query(() => [AvailablePhoneNumberRecord], { description: 'Numbers the telephony provider offers in a country, each with its monthly price.' })
  availablePhoneNumbers(
    @Arg('country_code', () => String, { nullable: true, description: 'ISO 3166-1 alpha-2 (BR, US, DE); required.' }) countryCode: string | null,
    @Arg('contains', () => String, { nullable: true, description: '2 to 16 digits the number contains.' }) contains: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<AvailablePhoneNumberRecord[]> {
    return searchNumbers(scopeOf(ctx), numbersOf(ctx), countryCode, contains);
  }

  @Mutation(() => PhoneNumberRecord, { description: 'Buys a number at the telephony provider, its voice and SMS webhooks set to this service; its first month is charged to the balance.' })
  async purchasePhoneNumber(@Arg('input', () => PurchasePhoneNumberInput) input: PurchasePhoneNumberInput, @Ctx() ctx: GraphQLContext): Promise<PhoneNumberRecord> {
    const scope = scopeOf(ctx);
    return requirePhoneNumber(scope, await purchaseNumber(scope, numbersOf(ctx), input.phone_number));
  }

  @Mutation(() => PhoneNumberRecord, { description: 'Names one of the account’s numbers.' })
  async updatePhoneNumber(
    @Arg('id', () => Int) id: number,
    @Arg('input', () => UpdatePhoneNumberInput) input: UpdatePhoneNumberInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<PhoneNumberRecord> {
    const scope = scopeOf(ctx);
    return requirePhoneNumber(scope, await updateNumber(scope, id, input.nickname));
  }

  @Mutation(() => Boolean, {
    description: 'Releases a number at the provider; its assistants lose it, and running campaigns it leaves without a number pause (campaign.status_changed).',
  })
  async releasePhoneNumber(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    const numbers = numbersOf(ctx);
    // A trunk's number: what the provider holds of the trunk goes first (sip-trunk.service.ts).
    await releaseSipTrunkAccess({ ...scopeOf(ctx), secrets: ctx.secrets, sip: ctx.sipAccess }, id);
    await releaseNumber(scopeOf(ctx), numbers, id);
    return true;
  }
}
