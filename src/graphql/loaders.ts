import DataLoader from 'dataloader';
import { Campaign } from '../modules/campaigns/campaign.entity';
import { SecondaryContact } from '../modules/leads/secondary-contact.entity';
import type { GraphQLContext } from './context';

/** Batch loaders for nested fields, so that a page of N items costs one query per relation, not N. */
export interface Loaders {
  campaign: DataLoader<number, Campaign | undefined>;
  secondaryContactsByLead: DataLoader<number, SecondaryContact[]>;
}

export function createLoaders(ctx: GraphQLContext): Loaders {
  return {
    campaign: new DataLoader(async (ids) => {
      const rows = await ctx.em.find(Campaign, { id: { $in: [...ids] }, account: ctx.accountId });
      const byId = new Map(rows.map((row) => [row.id, row]));
      return ids.map((id) => byId.get(id));
    }),
    secondaryContactsByLead: new DataLoader(async (leadIds) => {
      const rows = await ctx.em.find(SecondaryContact, { lead: { $in: [...leadIds] } }, { orderBy: { id: 'asc' } });
      const byLead = new Map<number, SecondaryContact[]>(leadIds.map((id) => [id, []]));
      for (const row of rows) byLead.get(row.lead.id)?.push(row);
      return leadIds.map((id) => byLead.get(id)!);
    }),
  };
}
