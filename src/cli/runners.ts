import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../config';
import { createTelephony } from '../boot';
import { toE164 } from '../lib/phone';
import { loadSecretBox } from '../lib/secrets';
import { parseDateOnly } from '../lib/time';
import { listPhoneNumbers } from '../modules/accounts/phone-number.resolver';
import { listSipTrunks } from '../modules/accounts/sip-trunk.service';
import {
  OperatorError,
  addBalance,
  addPhoneNumber,
  createAccount,
  createToken,
  listTokens,
  requireAccount,
  revokeToken,
} from '../modules/accounts/account.service';
import { simulateInboundCall } from '../modules/calls/call.service';
import { Campaign } from '../modules/campaigns/campaign.entity';
import { createCampaign } from '../modules/campaigns/campaign.service';
import { addModel, addVoice } from '../modules/catalog/catalog.service';
import { rotateWebhookSecret } from '../modules/webhooks/webhook.service';
import { serverTelephonyProvider } from '../telephony/provider.record';
import { assistantTest } from './assistant-test';
import type { CommandName } from './commands';

export type Flags = Record<string, string | boolean | undefined>;
type Runner = (em: EntityManager, flags: Flags, config: Config) => Promise<unknown>;

/**
 * What each command of commands.ts does, once its flags have been checked. Domain refusals
 * (DomainError) are put in English by the caller (english.ts); OperatorError is English already.
 */
export const RUNNERS: Record<CommandName, Runner> = {
  'assistant:test'(em, flags, config) {
    const count = (name: string, max: number, byDefault: number | null) => {
      if (optional(flags, name) === null) return byDefault;
      const value = id(flags, name);
      if (value > max) throw new OperatorError(`--${name} must be at most ${max}`);
      return value;
    };
    return assistantTest(
      em,
      { assistantId: id(flags, 'assistant'), attempts: count('attempts', 10, null), junit: optional(flags, 'junit'), timeoutSeconds: count('timeout', 86_400, 600)! },
      config,
    );
  },
  async 'account:create'(em, flags) {
    const { account, token } = await createAccount(em, {
      name: required(flags, 'name'),
      email: optional(flags, 'email'),
      balance: optional(flags, 'balance') ?? '0',
    });
    return { account_id: account.id, token };
  },
  async 'token:create'(em, flags) {
    const accountId = await existingAccount(em, flags);
    return { account_id: accountId, token: await createToken(em, accountId) };
  },
  async 'token:list'(em, flags) {
    const accountId = id(flags, 'account');
    return { account_id: accountId, tokens: await listTokens(em, accountId) };
  },
  async 'token:revoke'(em, flags) {
    const accountId = id(flags, 'account');
    const token = optional(flags, 'token');
    if ((token === null) === (optional(flags, 'id') === null)) throw new OperatorError('give either --id or --token');
    const revoked = await revokeToken(em, accountId, token !== null ? { token } : { id: id(flags, 'id') });
    return { account_id: accountId, revoked };
  },
  async 'account:show'(em, flags) {
    const account = await requireAccount(em, id(flags, 'account'));
    const [counts] = await em.execute(
      `select (select count(*)::int from api_tokens where account_id = ?) as tokens,
              (select count(*)::int from phone_numbers where account_id = ?) as phone_numbers,
              (select count(*)::int from campaigns where account_id = ?) as campaigns`,
      [account.id, account.id, account.id],
    );
    return { id: account.id, name: account.name, email: account.email, balance: Number(account.balance), created_at: account.created_at, ...counts };
  },
  async 'phone-number:list'(em, flags, config) {
    const accountId = await existingAccount(em, flags);
    return { account_id: accountId, phone_numbers: await listPhoneNumbers({ em, accountId, config }) };
  },
  async 'sip-trunk:list'(em, flags, config) {
    const accountId = await existingAccount(em, flags);
    return { account_id: accountId, sip_trunks: await listSipTrunks({ em, accountId, config }) };
  },
  async 'campaign:list'(em, flags) {
    const accountId = await existingAccount(em, flags);
    const campaigns = await em.find(Campaign, { account: accountId }, { orderBy: { id: 'asc' } });
    return { account_id: accountId, campaigns: campaigns.map((c) => ({ id: c.id, name: c.name, created_at: c.created_at })) };
  },
  async 'balance:add'(em, flags) {
    const accountId = id(flags, 'account');
    const balance = await addBalance(em, accountId, required(flags, 'amount'));
    return { account_id: accountId, balance: Number(balance) };
  },
  async 'phone-number:add'(em, flags, config) {
    const number = toE164(required(flags, 'number'), config.defaultPhoneRegion);
    if (!number) throw new OperatorError(`"${flags.number}" is not a valid phone number (write it as +5511987654321, or set DEFAULT_PHONE_REGION for national numbers)`);
    const expiresAt = optional(flags, 'expires-at');
    if (expiresAt !== null && !parseDateOnly(expiresAt)) throw new OperatorError('--expires-at must be a date as YYYY-MM-DD');
    const phone = await addPhoneNumber(em, { accountId: id(flags, 'account'), number, smsEnabled: flags.sms === true, whatsappEnabled: flags.whatsapp === true, expiresAt });
    return { id: phone.id, number: phone.number };
  },
  async 'campaign:create'(em, flags, config) {
    const accountId = await existingAccount(em, flags);
    const assistantId = optional(flags, 'assistant') === null ? undefined : id(flags, 'assistant');
    const campaign = await createCampaign({ em, accountId, config }, { name: required(flags, 'name'), assistant_id: assistantId });
    return { id: campaign.id, name: campaign.name, ...(assistantId ? { assistant_id: campaign.assistant_id } : {}) };
  },
  async 'call:simulate-inbound'(em, flags, config) {
    await requireSimulatorServer(em, config);
    const call = await simulateInboundCall(em, createTelephony(config, await loadSecretBox(config)), config, {
      to: required(flags, 'to'),
      from: required(flags, 'from'),
      accountId: null,
    });
    return { call_id: call.id, status: call.status, assistant_id: call.assistant_id };
  },
  async 'webhook-secret:rotate'(em, flags, config) {
    const accountId = await existingAccount(em, flags);
    const secret = await rotateWebhookSecret(em, await loadSecretBox(config), accountId);
    return { account_id: accountId, webhook_secret: secret };
  },
  async 'voice:add'(em, flags, config) {
    const provider = optional(flags, 'provider');
    const voiceId = optional(flags, 'provider-voice-id');
    if ((provider === null) !== (voiceId === null)) throw new OperatorError('give --provider and --provider-voice-id together, or neither');
    const accountId = optional(flags, 'account') === null ? null : id(flags, 'account');
    if (accountId !== null) await requireAccount(em, accountId);
    const voice = await addVoice(em, {
      name: required(flags, 'name'),
      mode: required(flags, 'mode'),
      accountId,
      provider: provider === null ? null : { name: provider, voiceId: voiceId! },
      hostedProviders: Object.keys(config.voice.pipeline.ttsProviders),
    });
    return {
      id: voice.id,
      name: voice.name,
      mode: voice.mode,
      ...(voice.provider ? { provider: voice.provider, provider_voice_id: voice.provider_voice_id } : {}),
      public: accountId === null,
    };
  },
  async 'model:add'(em, flags) {
    const model = await addModel(em, { name: required(flags, 'name'), provider: required(flags, 'provider'), type: required(flags, 'type') });
    return { id: model.id, name: model.name, provider: model.provider, type: model.type };
  },
};

/**
 * A simulated inbound call is answered by the workers of the server on this database, so both
 * must run the simulator: the CLI's own configuration, and the provider the server recorded at
 * its start. Otherwise the call would sit in `initiated` until the sweeper ends it.
 */
async function requireSimulatorServer(em: EntityManager, config: Config): Promise<void> {
  if (config.telephony.provider !== 'simulator') {
    throw new OperatorError(`this CLI runs with TELEPHONY_PROVIDER=${config.telephony.provider}: simulated inbound calls exist only with the simulator`);
  }
  const server = await serverTelephonyProvider(em);
  if (server === null) {
    throw new OperatorError('no vozgate server has started on this database yet: start it (npm start) first, since its workers answer the simulated call');
  }
  if (server.provider !== 'simulator') {
    throw new OperatorError(
      `the server on this database runs the ${server.provider} telephony provider (recorded at its start, ${server.recorded_at}): ` +
        'it would never answer a simulated call. Call the number for real, or restart the server with TELEPHONY_PROVIDER=simulator',
    );
  }
}

function required(flags: Flags, name: string): string {
  const value = flags[name];
  if (typeof value !== 'string' || value === '') throw new OperatorError(`--${name} is required`);
  return value;
}

function optional(flags: Flags, name: string): string | null {
  const value = flags[name];
  return typeof value === 'string' && value !== '' ? value : null;
}

/** The id of `--account`, once the account is known to exist. */
async function existingAccount(em: EntityManager, flags: Flags): Promise<number> {
  const accountId = id(flags, 'account');
  await requireAccount(em, accountId);
  return accountId;
}

function id(flags: Flags, name: string): number {
  const text = required(flags, name);
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < 1) throw new OperatorError(`--${name} must be a positive integer`);
  return value;
}
