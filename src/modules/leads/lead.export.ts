import { GraphQLJSONObject } from 'graphql-scalars';
import { ArgsType, Field, Float, Int, ObjectType } from 'type-graphql';
import { FieldErrorCollector, FieldMessages, Messages, NotFoundError } from '../../errors';
import { checkPositiveInt } from '../../lib/checks';
import { specTimestampSql } from '../../lib/time';
import type { Scope } from '../scope';

/**
 * A campaign's results, lead by lead, for exports (GET /user/campaigns/{id}/leads.csv): each
 * lead with its attempts, its calls' count and cost, and its last call. Read in id order with a
 * cursor, so that an export of any size reads the same small slices.
 */

export const EXPORT_PAGE_DEFAULT = 500;
export const EXPORT_PAGE_MAX = 1000;

@ArgsType()
export class LeadExportArgs {
  @Field(() => Int)
  campaign_id!: number;

  @Field(() => Int, { nullable: true, description: 'The `next_after` of the slice before; none for the first.' })
  after?: number | null;

  @Field(() => Int, { nullable: true, description: `1 to ${EXPORT_PAGE_MAX}, default ${EXPORT_PAGE_DEFAULT}.` })
  per_page?: number | null;
}

@ObjectType('LeadExportCall', { simpleResolvers: true, description: 'A lead’s last call, as its export shows it.' })
export class LeadExportCall {
  @Field(() => Int)
  id!: number;

  @Field(() => String, { description: 'The call’s final status (its outcome) or where it stands.' })
  status!: string;

  @Field(() => String, { nullable: true })
  answered_by!: string | null;

  @Field(() => Int, { description: 'Seconds.' })
  duration!: number;

  @Field(() => Float)
  total_cost!: number;

  @Field(() => GraphQLJSONObject, { description: 'What the post-call extraction found.' })
  variables!: Record<string, unknown>;

  @Field(() => String, { description: 'YYYY-MM-DD HH:MM:SS, UTC.' })
  created_at!: string;
}

@ObjectType('LeadExportRow', { simpleResolvers: true, description: 'A lead with its results.' })
export class LeadExportRow {
  @Field(() => Int)
  id!: number;

  @Field(() => String)
  phone_number!: string;

  @Field(() => String)
  status!: string;

  @Field(() => Int)
  attempts!: number;

  @Field(() => GraphQLJSONObject)
  variables!: Record<string, unknown>;

  @Field(() => Int, { description: 'Its calls, every contact included.' })
  calls!: number;

  @Field(() => Float, { description: 'What its calls cost together.' })
  total_cost!: number;

  @Field(() => LeadExportCall, { nullable: true })
  last_call!: LeadExportCall | null;

  @Field(() => String)
  created_at!: string;

  @Field(() => String)
  updated_at!: string;
}

@ObjectType('LeadExportPage', { simpleResolvers: true, description: 'A slice of a campaign’s leads in id order, and where the next one starts.' })
export class LeadExportPage {
  @Field(() => [LeadExportRow])
  data!: LeadExportRow[];

  @Field(() => Int, { nullable: true, description: 'Pass it as `after` for the next slice; null after the last.' })
  next_after!: number | null;
}

@ObjectType('LeadExportColumns', { simpleResolvers: true, description: 'The variable names a campaign’s export has columns for.' })
export class LeadExportColumns {
  @Field(() => [String], { description: 'The leads’ own variables, sorted.' })
  variables!: string[];

  @Field(() => [String], { description: 'What the post-call extraction found on the campaign’s calls, sorted.' })
  extracted!: string[];
}

async function requireOwnCampaign(scope: Scope, campaignId: number): Promise<void> {
  const errors = new FieldErrorCollector();
  checkPositiveInt(errors, 'campaign_id', campaignId);
  errors.throwIfAny();
  const [found] = await scope.em.execute('select 1 as found from campaigns where id = ? and account_id = ?', [campaignId, scope.accountId]);
  if (!found) throw new NotFoundError(Messages.campaignNotFound);
}

export async function leadExportColumns(scope: Scope, campaignId: number): Promise<LeadExportColumns> {
  await requireOwnCampaign(scope, campaignId);
  const [row] = await scope.em.execute(
    `select array(select distinct k from leads l, jsonb_object_keys(l.variables) k where l.campaign_id = ? and jsonb_typeof(l.variables) = 'object' order by 1) as variables,
       array(select distinct k from calls c, jsonb_object_keys(c.variables) k where c.campaign_id = ? and jsonb_typeof(c.variables) = 'object' order by 1) as extracted`,
    [campaignId, campaignId],
  );
  return row as LeadExportColumns;
}

export async function leadExportPage(scope: Scope, args: LeadExportArgs): Promise<LeadExportPage> {
  const errors = new FieldErrorCollector();
  const perPage = args.per_page ?? EXPORT_PAGE_DEFAULT;
  if (!Number.isInteger(perPage) || perPage < 1 || perPage > EXPORT_PAGE_MAX) errors.add('per_page', FieldMessages.between('per_page', 1, EXPORT_PAGE_MAX));
  if (args.after != null) checkPositiveInt(errors, 'after', args.after);
  errors.throwIfAny();
  await requireOwnCampaign(scope, args.campaign_id);
  const rows: (Omit<LeadExportRow, 'last_call' | 'total_cost'> & { total_cost: string; last_call: (LeadExportCall & { total_cost: string }) | null })[] =
    await scope.em.execute(
      `select l.id, l.phone_number, l.status, l.attempts, l.variables, ${specTimestampSql('l.created_at')} as created_at, ${specTimestampSql('l.updated_at')} as updated_at,
         s.calls, s.total_cost,
         case when last.id is null then null else json_build_object('id', last.id, 'status', last.status, 'answered_by', last.answered_by,
           'duration', last.duration, 'total_cost', last.total_cost::text, 'variables', coalesce(last.variables, '{}'::jsonb),
           'created_at', ${specTimestampSql('last.created_at')}) end as last_call
       from leads l
       cross join lateral (select count(*)::int as calls, coalesce(sum(c.total_cost), 0)::text as total_cost from calls c where c.lead_id = l.id) s
       left join lateral (select * from calls c where c.lead_id = l.id order by c.id desc limit 1) last on true
       where l.campaign_id = ? and l.account_id = ? and l.id > ? order by l.id limit ?`,
      [args.campaign_id, scope.accountId, args.after ?? 0, perPage + 1],
    );
  const data = rows.slice(0, perPage).map((row) => ({
    ...row,
    total_cost: Number(row.total_cost),
    last_call: row.last_call ? { ...row.last_call, total_cost: Number(row.last_call.total_cost) } : null,
  }));
  return { data, next_after: rows.length > perPage ? data[data.length - 1].id : null };
}
