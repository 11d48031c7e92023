import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, InputType, Int, ObjectType } from 'type-graphql';

export const LEAD_IMPORT_STATUSES = ['queued', 'running', 'done', 'failed'] as const;
export type LeadImportStatus = (typeof LEAD_IMPORT_STATUSES)[number];

@InputType('ImportLeadsInput')
export class ImportLeadsInput {
  @Field(() => Int)
  campaign_id!: number;

  @Field(() => String, {
    description:
      'The CSV file’s text (UTF-8, RFC 4180, a header row first). Over GraphQL it is bounded by MAX_BODY_BYTES; POST /user/leads/import takes the file as multipart up to MAX_IMPORT_BYTES.',
  })
  csv!: string;

  @Field(() => GraphQLJSONObject, {
    nullable: true,
    description:
      'Column name -> phone_number, variables.<name>, secondary_contacts.<n>.phone_number, secondary_contacts.<n>.variables.<name>, or null (left out). Columns not named follow the default: phone_number or phone -> phone_number, any other -> variables.<column>.',
  })
  mapping?: Record<string, unknown> | null;
}

@ObjectType('LeadImportError', { simpleResolvers: true, description: 'Why a row of the file was not imported.' })
export class LeadImportError {
  @Field(() => Int, { description: 'The row’s line in the file (the header is line 1).' })
  line!: number;

  @Field(() => String)
  message!: string;

  @Field(() => String, { nullable: true, description: 'The field, as POST /user/lead names it (phone_number, secondary_contacts.0.phone_number); null for a malformed row.' })
  field!: string | null;
}

@ObjectType('LeadImport', { simpleResolvers: true, description: 'A CSV import of leads into a campaign, run as a job; rows_read = created + duplicates + invalid.' })
export class LeadImport {
  @Field(() => Int)
  id!: number;

  @Field(() => Int)
  campaign_id!: number;

  @Field(() => String, { description: `One of: ${LEAD_IMPORT_STATUSES.join(', ')}.` })
  status!: LeadImportStatus;

  @Field(() => Int, { description: 'Data rows of the file.' })
  rows_total!: number;

  @Field(() => Int, { description: 'Data rows settled so far (written in committed batches).' })
  rows_read!: number;

  @Field(() => Int, { description: 'Leads created; those whose number is on the do-not-call list are created blacklisted (see blacklisted).' })
  created!: number;

  @Field(() => Int, { description: 'Rows whose number the campaign already had (or an earlier row of the file), as POST /user/lead refuses them.' })
  duplicates!: number;

  @Field(() => Int, { description: 'Rows refused by the rules of POST /user/lead.' })
  invalid!: number;

  @Field(() => Int, { description: 'Of the leads created, those created blacklisted: their number is on the do-not-call list, and they are never dialled.' })
  blacklisted!: number;

  @Field(() => [LeadImportError], { description: 'The invalid rows, with their line and message; the first 1,000 are kept (invalid counts them all).' })
  errors!: LeadImportError[];

  @Field(() => String, { nullable: true, description: 'Why a failed import stopped.' })
  failure!: string | null;

  @Field(() => String, { description: 'YYYY-MM-DD HH:MM:SS, UTC.' })
  created_at!: string;

  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD HH:MM:SS, UTC; null until done or failed.' })
  finished_at!: string | null;
}
