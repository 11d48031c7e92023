import type { MikroORM } from '@mikro-orm/postgresql';
import { Account } from './modules/accounts/account.entity';
import { addPhoneNumber, createAccount } from './modules/accounts/account.service';
import type { Config } from './config';
import { CreateAssistantInput } from './modules/assistants/assistant.inputs';
import { createAssistant } from './modules/assistants/assistant.service';
import { createCampaign } from './modules/campaigns/campaign.service';
import { seedDemoConversation, seedDemoWhatsapp } from './modules/conversations/conversation.service';
import { listTemplates } from './modules/whatsapp/whatsapp.service';
import { SimulatorSms } from './telephony/sms.providers';

export interface DemoSeed {
  accountId: number;
  token: string;
  campaignId: number;
  phoneNumberId: number;
  assistantId: number;
}

const SEED_LOCK = 7_426_001;
/** The demo account's email: how a later start finds it again. */
const DEMO_EMAIL = 'demo@vozgate.local';

/** The id of the account the demo seed made, if it is still there. */
export async function findDemoAccountId(orm: MikroORM): Promise<number | null> {
  const [row] = await orm.em.fork().execute('select id from accounts where email = ? order by id limit 1', [DEMO_EMAIL]);
  return row ? Number(row.id) : null;
}

/** The demo's outbound assistant, on the given number (the benchmark's dialer uses it too). */
export function demoAssistantInput(phoneNumberId: number): CreateAssistantInput {
  return Object.assign(new CreateAssistantInput(), {
    assistant_name: 'Ana (demo)',
    voice_id: 1,
    language: 'Portuguese',
    llm_model: 'gpt-4o-mini',
    calls_direction: 'make',
    engine_type: 'pipeline',
    timezone: 'America/Sao_Paulo',
    initial_message: 'Olá, aqui é a Ana, da Loja Centro. Tudo bem?',
    system_prompt: 'Você confirma a entrega de pedidos com os clientes da Loja Centro. Seja breve e educada.',
    phone_number_id: phoneNumberId,
  });
}

/**
 * On an empty database, a demo account to try the API with: a balance, an SMS- and
 * WhatsApp-capable phone number, an outbound assistant on it, and a campaign of that assistant (a
 * draft: nothing is dialled until it is started), and a conversation a person has taken over (its
 * messages need no LLM key); for WhatsApp, an inbound assistant on the number, the simulator's
 * templates as the account was shown them, and a customer who wrote at the first start (the
 * free-form window open for a day). Returns null when the database already has accounts.
 */
export async function seedDemo(orm: MikroORM, config: Config): Promise<DemoSeed | null> {
  return orm.em.fork().transactional(async (em) => {
    // Two processes starting on one empty database must not both seed it.
    await em.execute('select pg_advisory_xact_lock(?)', [SEED_LOCK]);
    if ((await em.count(Account)) > 0) return null;
    const { account, token } = await createAccount(em, { name: 'Demo', email: DEMO_EMAIL, balance: '100' });
    const phone = await addPhoneNumber(em, { accountId: account.id, number: '+551140045000', smsEnabled: true, whatsappEnabled: true, expiresAt: null });
    const scope = { em, accountId: account.id, config };
    const assistant = await createAssistant(scope, demoAssistantInput(phone.id));
    const campaign = await createCampaign(scope, { name: 'Campanha demo', assistant_id: assistant.id });
    await seedDemoConversation(em, account.id, assistant.id);
    const whatsapp = await createAssistant(scope, Object.assign(demoAssistantInput(phone.id), { assistant_name: 'Ana (WhatsApp)', calls_direction: 'receive' }));
    await listTemplates(scope, new SimulatorSms(), phone.id);
    await seedDemoWhatsapp(em, account.id, whatsapp.id);
    return { accountId: account.id, token, campaignId: campaign.id, phoneNumberId: phone.id, assistantId: assistant.id };
  });
}
