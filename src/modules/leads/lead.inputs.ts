import { GraphQLJSONObject } from 'graphql-scalars';
import { ArgsType, Field, InputType, Int } from 'type-graphql';
import { CLIENT_LEAD_STATUSES, LEAD_STATUSES } from './lead.entity';

@InputType('SecondaryContactInput')
export class SecondaryContactInput {
  @Field(() => String, { description: 'E.164, or national in DEFAULT_PHONE_REGION.' })
  phone_number!: string;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'customer_name, email, or anything else.' })
  variables?: Record<string, unknown> | null;
}

@InputType('CreateLeadInput')
export class CreateLeadInput {
  @Field(() => String, { description: 'E.164, or national in DEFAULT_PHONE_REGION.' })
  phone_number!: string;

  @Field(() => Int)
  campaign_id!: number;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'customer_name, email, or anything else.' })
  variables?: Record<string, unknown> | null;

  @Field(() => Boolean, {
    nullable: true,
    description: 'Allow a lead whose phone number the campaign already has. Default false. (Spelled as the spec spells it.)',
  })
  allow_dupplicate?: boolean | null;

  @Field(() => [SecondaryContactInput], { nullable: true })
  secondary_contacts?: SecondaryContactInput[] | null;
}

@InputType('UpdateLeadInput', { description: 'Only the fields sent change.' })
export class UpdateLeadInput {
  @Field(() => Int, { nullable: true, description: 'A campaign of the account.' })
  campaign_id?: number | null;

  @Field(() => String, { nullable: true })
  phone_number?: string | null;

  @Field(() => String, {
    nullable: true,
    description: `One of: ${CLIENT_LEAD_STATUSES.join(', ')}. created makes the lead dialable again (attempts reset); the others take it out of the dialer.`,
  })
  status?: string | null;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Merged into the existing variables.' })
  variables?: Record<string, unknown> | null;
}

@ArgsType()
export class LeadListArgs {
  @Field(() => Int, { nullable: true, description: 'Default 1.' })
  page?: number | null;

  @Field(() => Int, { nullable: true, description: '1 to 100, default 15.' })
  per_page?: number | null;

  @Field(() => String, { nullable: true, description: `One of: ${LEAD_STATUSES.join(', ')}.` })
  status?: string | null;

  @Field(() => Int, { nullable: true })
  campaign_id?: number | null;

  @Field(() => String, { nullable: true })
  phone_number?: string | null;

  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD: leads created on or after this day (UTC).' })
  date_from?: string | null;

  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD: leads created on or before this day (UTC).' })
  date_to?: string | null;
}
