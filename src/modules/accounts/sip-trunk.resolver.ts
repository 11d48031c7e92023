import { Arg, Authorized, Ctx, Field, InputType, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { scopeOf, type GraphQLContext } from '../../graphql/context';
import { createSipTrunk, listSipTrunks, requireSipTrunk, updateSipTrunk, type SipTrunkValues, type SipTrunkView } from './sip-trunk.service';

@ObjectType('SipTrunk', {
  simpleResolvers: true,
  description: 'A SIP trunk: one of the account’s phone numbers (same id) whose calls go through the account’s own carrier. Released (deleted) with releasePhoneNumber.',
})
export class SipTrunkRecord implements SipTrunkView {
  @Field(() => Int, { description: 'The id of its phone number.' })
  id!: number;

  @Field(() => String, { description: 'extension or number.' })
  sip_trunk_type!: string;

  @Field(() => String, { description: 'E.164 for a number trunk, the digits of an extension.' })
  phone_number!: string;

  @Field(() => String)
  sip_username!: string;

  @Field(() => Boolean, { description: 'The password is kept sealed and never shown.' })
  has_password!: boolean;

  @Field(() => String, { description: 'The carrier’s SIP server, without port.' })
  sip_address!: string;

  @Field(() => String, { description: 'How called numbers are written to the carrier: +e164, e164 or national.' })
  sip_calling_format!: string;

  @Field(() => String, { description: 'How calls from the carrier are accepted: auth (its credentials) or ip (allowed_inbound_ips).' })
  inbound_authorization_type!: string;

  @Field(() => [String])
  allowed_inbound_ips!: string[];

  @Field(() => String, { description: 'ISO 3166-1 alpha-2.' })
  country_code!: string;

  @Field(() => Boolean)
  outbound_proxy!: boolean;

  @Field(() => String, { nullable: true, description: 'The SIP domain its carrier sends calls to, sip:{number}@{sip_domain} (its own Twilio SIP domain, which checks the trunk’s credential or addresses); null without Twilio.' })
  sip_domain!: string | null;

  @Field(() => String, { nullable: true })
  nickname!: string | null;

  @Field(() => Int, { nullable: true, description: 'The (first) assistant that uses its number.' })
  assistant_id!: number | null;
}

@InputType('CreateSipTrunkInput')
export class CreateSipTrunkInput implements SipTrunkValues {
  @Field(() => String, { nullable: true, description: 'extension or number; required.' })
  sip_trunk_type?: string | null;

  @Field(() => String, { nullable: true, description: 'An extension (1 to 15 digits) or a number (international, or national in country_code); required.' })
  phone_number?: string | null;

  @Field(() => String, { nullable: true, description: '3 to 128 characters, no spaces, @ or colon; required.' })
  sip_username?: string | null;

  @Field(() => String, { nullable: true, description: '3 to 128 characters; required. Sealed at rest, never shown.' })
  sip_password?: string | null;

  @Field(() => String, { nullable: true, description: 'The SIP server, without port (sip.carrier.example); required.' })
  sip_address?: string | null;

  @Field(() => String, { nullable: true, description: '+e164, e164 or national; required.' })
  sip_calling_format?: string | null;

  @Field(() => String, { nullable: true, description: 'auth or ip; required.' })
  inbound_authorization_type?: string | null;

  @Field(() => [String], { nullable: true, description: 'IP addresses or CIDR ranges (at most 50); at least one with inbound_authorization_type ip.' })
  allowed_inbound_ips?: string[] | null;

  @Field(() => String, { nullable: true, description: 'ISO 3166-1 alpha-2 (DE, US, BR); required.' })
  country_code?: string | null;

  @Field(() => Boolean, { nullable: true })
  outbound_proxy?: boolean | null;
}

@InputType('UpdateSipTrunkInput')
export class UpdateSipTrunkInput implements SipTrunkValues {
  @Field(() => String, { nullable: true })
  phone_number?: string | null;

  @Field(() => String, { nullable: true })
  sip_username?: string | null;

  @Field(() => String, { nullable: true, description: 'A new password; the stored one stays when it is not sent.' })
  sip_password?: string | null;

  @Field(() => String, { nullable: true })
  sip_address?: string | null;

  @Field(() => String, { nullable: true })
  sip_calling_format?: string | null;

  @Field(() => String, { nullable: true })
  inbound_authorization_type?: string | null;

  @Field(() => [String], { nullable: true })
  allowed_inbound_ips?: string[] | null;

  @Field(() => String, { nullable: true })
  country_code?: string | null;

  @Field(() => Boolean, { nullable: true })
  outbound_proxy?: boolean | null;
}

@Authorized()
@Resolver(() => SipTrunkRecord)
export class SipTrunkResolver {
  @Query(() => [SipTrunkRecord], { description: "The account's SIP trunks, oldest first." })
  sipTrunks(@Ctx() ctx: GraphQLContext): Promise<SipTrunkRecord[]> {
    return listSipTrunks(scopeOf(ctx));
  }

  @Query(() => SipTrunkRecord)
  sipTrunk(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<SipTrunkRecord> {
    return requireSipTrunk(scopeOf(ctx), id);
  }

  @Mutation(() => SipTrunkRecord, { description: 'Creates a SIP trunk; its number becomes one of the account’s phone numbers.' })
  async createSipTrunk(@Arg('input', () => CreateSipTrunkInput) input: CreateSipTrunkInput, @Ctx() ctx: GraphQLContext): Promise<SipTrunkRecord> {
    const scope = { ...scopeOf(ctx), secrets: ctx.secrets, sip: ctx.sipAccess };
    return requireSipTrunk(scope, await createSipTrunk(scope, input));
  }

  @Mutation(() => SipTrunkRecord, { description: 'Changes the fields given; the password only when one is sent.' })
  async updateSipTrunk(
    @Arg('id', () => Int) id: number,
    @Arg('input', () => UpdateSipTrunkInput) input: UpdateSipTrunkInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<SipTrunkRecord> {
    const scope = { ...scopeOf(ctx), secrets: ctx.secrets, sip: ctx.sipAccess };
    return requireSipTrunk(scope, await updateSipTrunk(scope, id, input));
  }
}
