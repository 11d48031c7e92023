import DataLoader from 'dataloader';
import { PhoneNumber } from '../modules/accounts/phone-number.entity';
import { Model } from '../modules/catalog/model.entity';
import { Voice } from '../modules/catalog/voice.entity';
import { Campaign } from '../modules/campaigns/campaign.entity';
import type { Turn } from '../modules/calls/call.conversation';
import { eventsOfCalls, type CallStatusEvent } from '../modules/calls/call.history';
import { turnsOfCalls } from '../modules/calls/call.turns';
import { campaignStats, type CampaignStats } from '../modules/campaigns/campaign.service';
import { contactsOfLeads, type ContactView } from '../modules/leads/lead.service';
import { Folder } from '../modules/organize/folder.entity';
import { Label } from '../modules/organize/label.entity';
import { Tool } from '../modules/tools/tool.entity';
import type { GraphQLContext } from './context';

/** Batch loaders for nested fields, so that a page of N items costs one query per relation, not N. */
export interface Loaders {
  campaign: DataLoader<number, Campaign | undefined>;
  secondaryContactsByLead: DataLoader<number, ContactView[]>;
  voice: DataLoader<number, Voice | undefined>;
  phoneNumber: DataLoader<number, PhoneNumber | undefined>;
  toolsByAssistant: DataLoader<number, Tool[]>;
  folder: DataLoader<number, Folder | undefined>;
  labelsByAssistant: DataLoader<number, Label[]>;
  campaignStats: DataLoader<number, CampaignStats>;
  eventsByCall: DataLoader<number, CallStatusEvent[]>;
  turnsByCall: DataLoader<number, Turn[]>;
  /** The catalogue's provider of a model, by the model's name (null: not listed). */
  modelProvider: DataLoader<string, string | null>;
}

function byId<T extends { id: number }>(ids: readonly number[], rows: T[]): (T | undefined)[] {
  const map = new Map(rows.map((row) => [row.id, row]));
  return ids.map((id) => map.get(id));
}

export function createLoaders(ctx: GraphQLContext): Loaders {
  const { em } = ctx;
  return {
    campaign: new DataLoader(async (ids) => byId(ids, await em.find(Campaign, { id: { $in: [...ids] }, account: ctx.accountId }))),
    secondaryContactsByLead: new DataLoader(async (leadIds) => {
      const byLead = await contactsOfLeads(em, leadIds);
      return leadIds.map((id) => byLead.get(id)!);
    }),
    voice: new DataLoader(async (ids) => byId(ids, await em.find(Voice, { id: { $in: [...ids] } }))),
    phoneNumber: new DataLoader(async (ids) =>
      byId(ids, await em.find(PhoneNumber, { id: { $in: [...ids] }, account: ctx.accountId })),
    ),
    campaignStats: new DataLoader((campaignIds) => campaignStats(em, campaignIds)),
    eventsByCall: new DataLoader(async (callIds) => {
      const byCall = await eventsOfCalls(em, ctx.accountId!, callIds);
      return callIds.map((id) => byCall.get(id)!);
    }),
    turnsByCall: new DataLoader(async (callIds) => {
      const byCall = await turnsOfCalls(em, ctx.accountId!, callIds);
      return callIds.map((id) => byCall.get(id)!);
    }),
    folder: new DataLoader(async (ids) => byId(ids, await em.find(Folder, { id: { $in: [...ids] }, account: ctx.accountId }))),
    labelsByAssistant: new DataLoader(async (assistantIds) => {
      const labels: (Label & { assistant_id: number })[] = await em.execute(
        `select l.*, al.assistant_id from assistant_labels al join labels l on l.id = al.label_id
          where al.assistant_id = any(?::int[]) and l.account_id = ? order by l.id`,
        [`{${assistantIds.join(',')}}`, ctx.accountId],
      );
      const byAssistant = new Map<number, Label[]>(assistantIds.map((id) => [id, []]));
      for (const { assistant_id: assistantId, ...row } of labels) byAssistant.get(assistantId)?.push(em.map(Label, row));
      return assistantIds.map((id) => byAssistant.get(id)!);
    }),
    modelProvider: new DataLoader(async (names) => {
      const models = await em.find(Model, { name: { $in: [...names] } });
      return names.map((name) => models.find((model) => model.name === name)?.provider ?? null);
    }),
    toolsByAssistant: new DataLoader(async (assistantIds) => {
      const links: { assistant_id: number; tool_id: number }[] = await em.execute(
        'select assistant_id, tool_id from assistant_tools where assistant_id = any(?::int[]) order by tool_id',
        [`{${assistantIds.join(',')}}`],
      );
      const tools = links.length ? await em.find(Tool, { id: { $in: [...new Set(links.map((l) => l.tool_id))] } }) : [];
      const toolById = new Map(tools.map((tool) => [tool.id, tool]));
      const byAssistant = new Map<number, Tool[]>(assistantIds.map((id) => [id, []]));
      for (const link of links) byAssistant.get(link.assistant_id)?.push(toolById.get(link.tool_id)!);
      return assistantIds.map((id) => byAssistant.get(id)!);
    }),
  };
}
