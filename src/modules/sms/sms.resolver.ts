import { Arg, Args, ArgsType, Authorized, Ctx, Field, InputType, Int, Mutation, Query, Resolver } from 'type-graphql';
import { scopeOf, type GraphQLContext } from '../../graphql/context';
import { SMS_STATUSES } from './sms.entity';
import { listSms, requireSms, sendSms, MAX_SMS_BODY } from './sms.service';
import { SmsPage, SmsRecord } from './sms.record';

@InputType('SendSmsInput')
export class SendSmsInput {
  @Field(() => Int, { description: 'The id of one of the account’s SMS-capable numbers.' })
  from!: number;

  @Field(() => String, { description: 'The recipient, in international format.' })
  to!: string;

  @Field(() => String, { description: `At most ${MAX_SMS_BODY} characters.` })
  body!: string;
}

@ArgsType()
export class SmsListArgs {
  @Field(() => Int, { nullable: true, description: 'Default 1.' })
  page?: number | null;

  @Field(() => Int, { nullable: true, description: '1 to 100, default 15.' })
  per_page?: number | null;

  @Field(() => String, { nullable: true, description: `One of: ${SMS_STATUSES.join(', ')}.` })
  status?: string | null;

  @Field(() => String, { nullable: true, description: 'The recipient.' })
  to?: string | null;

  @Field(() => Int, { nullable: true, description: 'The sending number.' })
  phone_number_id?: number | null;

  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD (UTC), inclusive.' })
  date_from?: string | null;

  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD (UTC), inclusive.' })
  date_to?: string | null;
}

@Authorized()
@Resolver(() => SmsRecord)
export class SmsResolver {
  @Mutation(() => SmsRecord, { description: 'Sends an SMS and charges its segments to the balance.' })
  sendSms(
    @Arg('input', () => SendSmsInput) input: SendSmsInput,
    @Arg('idempotency_key', () => String, { nullable: true, description: 'A replay with the same key and input charges nothing more.' })
    idempotencyKey: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<SmsRecord> {
    return sendSms(scopeOf(ctx), ctx.sms, input, idempotencyKey);
  }

  @Query(() => SmsPage, { description: "A page of the account's SMS, newest first." })
  smsMessages(@Args(() => SmsListArgs) args: SmsListArgs, @Ctx() ctx: GraphQLContext): Promise<SmsPage> {
    return listSms(scopeOf(ctx), args);
  }

  @Query(() => SmsRecord)
  sms(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<SmsRecord> {
    return requireSms(scopeOf(ctx), id);
  }
}
