import { wrap } from '@mikro-orm/core';
import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Args, Authorized, Ctx, FieldResolver, Info, Int, Mutation, ObjectType, Query, Resolver, Root, Subscription } from 'type-graphql';
import { readScopeOf, scopeOf, type GraphQLContext } from '../../graphql/context';
import type { BusEvent } from '../events/event.bus';
import { PageType, type Page } from '../../graphql/pagination';
import { selects } from '../../graphql/selection';
import { Campaign } from '../campaigns/campaign.entity';
import { Lead } from './lead.entity';
import { CreateLeadInput, LeadListArgs, UpdateLeadInput } from './lead.inputs';
import { contactsReadWith, createLead, deleteLead, getLead, listLeads, updateLead, type ContactView, type LeadView } from './lead.service';
import { SecondaryContact } from './secondary-contact.entity';
import { LeadExportArgs, LeadExportColumns, LeadExportPage, leadExportColumns, leadExportPage } from './lead.export';
import { getImport, startImport } from './lead.import';
import { importEvents } from './lead.import.stream';
import { ImportLeadsInput, LeadImport } from './lead.import.types';

@ObjectType('LeadPage', { simpleResolvers: true })
export class LeadPage extends PageType(Lead) {}

@Authorized()
@Resolver(() => Lead)
export class LeadResolver {
  @Query(() => LeadPage, { description: "A page of the account's leads, newest first." })
  leads(@Args(() => LeadListArgs) args: LeadListArgs, @Ctx() ctx: GraphQLContext, @Info() info: GraphQLResolveInfo): Promise<Page<LeadView>> {
    return listLeads(readScopeOf(ctx), args, selects(info, 'data', 'secondary_contacts'));
  }

  @Query(() => Lead)
  lead(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<Lead> {
    return getLead(scopeOf(ctx), id);
  }

  @Mutation(() => Lead)
  createLead(@Arg('input', () => CreateLeadInput) input: CreateLeadInput, @Ctx() ctx: GraphQLContext): Promise<Lead> {
    return createLead(scopeOf(ctx), input);
  }

  @Mutation(() => Lead)
  updateLead(
    @Arg('id', () => Int) id: number,
    @Arg('input', () => UpdateLeadInput) input: UpdateLeadInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<Lead> {
    return updateLead(scopeOf(ctx), id, input);
  }

  @Mutation(() => LeadImport, {
    description:
      'Imports a CSV file of leads into a campaign, as a job: each row is checked with the rules of createLead (one lead per number in the campaign, the do-not-call list applied); follow it with leadImport or leadImportUpdated.',
  })
  importLeads(@Arg('input', () => ImportLeadsInput) input: ImportLeadsInput, @Ctx() ctx: GraphQLContext): Promise<LeadImport> {
    return startImport(scopeOf(ctx), input, ctx.upload);
  }

  @Query(() => LeadExportPage, { description: 'A campaign’s leads with their results (attempts, calls, cost, last call), in id order, a slice at a time: what its CSV export holds.' })
  campaignLeadsExport(@Args(() => LeadExportArgs) args: LeadExportArgs, @Ctx() ctx: GraphQLContext): Promise<LeadExportPage> {
    return leadExportPage(readScopeOf(ctx), args);
  }

  @Query(() => LeadExportColumns, { description: 'The variable names a campaign’s CSV export has columns for.' })
  campaignLeadsExportColumns(@Arg('campaign_id', () => Int) campaignId: number, @Ctx() ctx: GraphQLContext): Promise<LeadExportColumns> {
    return leadExportColumns(readScopeOf(ctx), campaignId);
  }

  @Query(() => LeadImport, { description: 'A lead import of the account, with its progress.' })
  leadImport(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<LeadImport> {
    return getImport(scopeOf(ctx), id);
  }

  @Subscription(() => LeadImport, {
    description: 'A lead import as it stands, then after each batch it commits, until its final state (done or failed), after which the stream ends.',
    subscribe: ({ args, context }) => importEvents(context, args.id as number),
  })
  leadImportUpdated(@Root() _event: BusEvent, @Ctx() ctx: GraphQLContext, @Arg('id', () => Int) id: number): Promise<LeadImport> {
    ctx.renew();
    return getImport({ em: ctx.em, accountId: ctx.accountId! }, id);
  }

  @Mutation(() => Boolean, { description: 'Deletes the lead and its secondary contacts.' })
  async deleteLead(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    await deleteLead(scopeOf(ctx), id);
    return true;
  }
}

/**
 * The lead's fields that are not columns, read on every lead of a list. The schema calls these
 * directly (`directResolvers` in graphql/schema.ts), without TypeGraphQL's wrapper: on a page of
 * 100 leads that wrapper ran 300 times a request. The resolver below declares the fields.
 */
export const leadFields = {
  campaign_id: (lead: Lead | LeadView): number => lead.campaign.id,
  // Lists read the campaigns (and the contacts, when asked) with the page: those resolve at
  // once, without a promise; otherwise one batched query for all the leads of the answer.
  // A lead's campaign always belongs to the lead's account, so the loader always finds it.
  campaign: (lead: Lead | LeadView, ctx: GraphQLContext): Campaign | Promise<Campaign> =>
    wrap(lead.campaign).isInitialized() ? lead.campaign : (ctx.loaders.campaign.load(lead.campaign.id) as Promise<Campaign>),
  // A listed lead carries its contacts as a list (a Lead's own property is a Collection).
  secondary_contacts: (lead: Lead | LeadView, ctx: GraphQLContext): ContactView[] | Promise<ContactView[]> =>
    (Array.isArray(lead.secondary_contacts) ? lead.secondary_contacts : contactsReadWith(lead as Lead)) ?? ctx.loaders.secondaryContactsByLead.load(lead.id),
};

/**
 * A lead's fields, apart from the operations: reached only through the authorized ones
 * above, so they run without the auth middleware (on every lead of a page, it cost a
 * promise and a check per field).
 */
@Resolver(() => Lead)
export class LeadFieldsResolver {
  @FieldResolver(() => Int)
  campaign_id(@Root() lead: Lead): number {
    return leadFields.campaign_id(lead);
  }

  @FieldResolver(() => Campaign)
  campaign(@Root() lead: Lead, @Ctx() ctx: GraphQLContext): Campaign | Promise<Campaign> {
    return leadFields.campaign(lead, ctx);
  }

  @FieldResolver(() => [SecondaryContact])
  secondary_contacts(@Root() lead: Lead, @Ctx() ctx: GraphQLContext): ContactView[] | Promise<ContactView[]> {
    return leadFields.secondary_contacts(lead, ctx);
  }
}
