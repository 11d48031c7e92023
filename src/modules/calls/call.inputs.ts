import { GraphQLJSONObject } from 'graphql-scalars';
import { ArgsType, Field, InputType, Int, ObjectType } from 'type-graphql';
import { CALL_STATUSES, CALL_TYPES, Call } from './call.entity';

@InputType('MakeCallInput')
export class MakeCallInput {
  @Field(() => String, { description: 'The customer’s number, E.164.' })
  phone_number!: string;

  @Field(() => Int, { description: 'An outbound assistant of the account with a phone number.' })
  assistant_id!: number;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'customer_name, email, or anything the assistant should know.' })
  variables?: Record<string, unknown> | null;
}

@ObjectType('CallStarted', { simpleResolvers: true })
export class CallStarted {
  @Field(() => Int)
  call_id!: number;

  @Field(() => String)
  status!: string;
}

@InputType('WebCallInput')
export class WebCallInput {
  @Field(() => Int, { description: 'One of the account’s assistants, inbound or outbound.' })
  assistant_id!: number;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'customer_name, email, or anything the assistant should know ({{variables}} of its prompt).' })
  variables?: Record<string, unknown> | null;
}

@ObjectType('WebCallStarted', { simpleResolvers: true })
export class WebCallStarted {
  @Field(() => Int)
  call_id!: number;

  @Field(() => String, { description: 'The WebSocket the browser connects to, the token included (design.md, "Web calls").' })
  url!: string;

  @Field(() => String, { description: 'Single-use: spent by the first connection.' })
  token!: string;

  @Field(() => String, { description: 'Until when the token may be used (a connection after it is refused and the call fails, free of charge).' })
  expires_at!: string;

  @Field(() => [String], {
    description:
      'What the assistant does on phone calls that a web call cannot: transfer_call (its transfer_numbers: a browser has no line to hand over), press_digits (no phone menu to navigate) and voicemail (no mailbox answers a browser). Empty: none.',
  })
  unavailable_actions!: string[];
}

/** The call list's filters, shared by its page-numbered and cursor forms. */
@ArgsType()
export class CallFilterArgs {
  @Field(() => Int, { nullable: true, description: '1 to 100, default 15.' })
  per_page?: number | null;

  @Field(() => String, { nullable: true, description: `One of: ${CALL_STATUSES.join(', ')}.` })
  status?: string | null;

  @Field(() => String, { nullable: true, description: `One of: ${CALL_TYPES.join(', ')}.` })
  type?: string | null;

  @Field(() => String, { nullable: true, description: 'The customer’s number.' })
  phone_number?: string | null;

  @Field(() => Int, { nullable: true })
  assistant_id?: number | null;

  @Field(() => Int, { nullable: true })
  campaign_id?: number | null;

  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD: calls from this day on (UTC).' })
  date_from?: string | null;

  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD: calls up to this day (UTC), inclusive.' })
  date_to?: string | null;
}

@ArgsType()
export class CallListArgs extends CallFilterArgs {
  @Field(() => Int, { nullable: true, description: 'Default 1.' })
  page?: number | null;
}

@ArgsType()
export class CallFeedArgs extends CallFilterArgs {
  @Field(() => Int, { nullable: true, description: 'The `next_after` of the slice before; none for the newest calls.' })
  after?: number | null;
}

@ObjectType('CallFeed', { simpleResolvers: true, description: 'A slice of the call list, newest first, and where the next one starts.' })
export class CallFeed {
  @Field(() => [Call])
  data!: Call[];

  @Field(() => Int, { nullable: true, description: 'Pass it as `after` for the next slice; null after the last.' })
  next_after!: number | null;
}
