import { FieldErrorCollector, Messages, NotFoundError } from '../../errors';
import { checkLength } from '../../lib/checks';
import { Account } from '../accounts/account.entity';
import type { Scope } from '../scope';
import { Campaign } from './campaign.entity';

export async function createCampaign(scope: Scope, input: { name: string }): Promise<Campaign> {
  const errors = new FieldErrorCollector();
  const name = checkLength(errors, 'name', input.name, 1, 255);
  errors.throwIfAny();
  const campaign = scope.em.create(Campaign, { account: scope.em.getReference(Account, scope.accountId), name: name! });
  await scope.em.persist(campaign).flush();
  return campaign;
}

export function listCampaigns(scope: Scope): Promise<Campaign[]> {
  return scope.em.find(Campaign, { account: scope.accountId }, { orderBy: { id: 'asc' } });
}

/** The account's campaign, or the documented 404 for a missing or foreign one. */
export async function requireCampaign(scope: Scope, id: number): Promise<Campaign> {
  const campaign = await scope.em.findOne(Campaign, { id, account: scope.accountId });
  if (!campaign) throw new NotFoundError(Messages.campaignNotFound);
  return campaign;
}
