import type { MikroORM } from '@mikro-orm/postgresql';
import { Account } from './modules/accounts/account.entity';
import { addPhoneNumber, createAccount } from './modules/accounts/account.service';
import { Campaign } from './modules/campaigns/campaign.entity';

export interface DemoSeed {
  accountId: number;
  token: string;
  campaignId: number;
  phoneNumberId: number;
}

const SEED_LOCK = 7_426_001;

/**
 * On an empty database, a demo account to try the API with: a balance, a campaign and an
 * SMS-capable phone number. Returns null when the database already has accounts.
 */
export async function seedDemo(orm: MikroORM): Promise<DemoSeed | null> {
  return orm.em.fork().transactional(async (em) => {
    // Two processes starting on one empty database must not both seed it.
    await em.execute('select pg_advisory_xact_lock(?)', [SEED_LOCK]);
    if ((await em.count(Account)) > 0) return null;
    const { account, token } = await createAccount(em, { name: 'Demo', email: 'demo@vozgate.local', balance: '100' });
    const campaign = em.create(Campaign, { account, name: 'Campanha demo' });
    await em.persist(campaign).flush();
    const phone = await addPhoneNumber(em, { accountId: account.id, number: '+551140045000', smsEnabled: true, expiresAt: null });
    return { accountId: account.id, token, campaignId: campaign.id, phoneNumberId: phone.id };
  });
}
