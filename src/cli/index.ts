#!/usr/bin/env node
import 'reflect-metadata';
import { parseArgs } from 'node:util';
import type { EntityManager } from '@mikro-orm/postgresql';
import { loadConfig, type Config } from '../config';
import { openDatabase } from '../db/database';
import { initOrm } from '../db/orm';
import { toE164 } from '../lib/phone';
import { parseDateOnly } from '../lib/time';
import { DomainError } from '../errors';
import { simulateInboundCall } from '../modules/calls/call.service';
import { createTelephony } from '../boot';
import { loadSecretBox } from '../lib/secrets';
import { rotateWebhookSecret } from '../modules/webhooks/webhook.service';
import { addModel, addVoice } from '../modules/catalog/catalog.service';
import { Campaign } from '../modules/campaigns/campaign.entity';
import { createCampaign } from '../modules/campaigns/campaign.service';
import { listPhoneNumbers } from '../modules/accounts/phone-number.resolver';
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

/**
 * The operator CLI: `npm run -s cli -- <command> [--flags]`, JSON on stdout. On the embedded
 * database it reaches the cluster of a running `npm start` on the same DATA_DIR, or starts
 * one for itself; it says on stderr which database it uses. Flags are read by Node's own
 * `util.parseArgs`: unknown or malformed ones are named in the error.
 */
type Flags = Record<string, string | boolean | undefined>;

interface Command {
  /** One line: what it does and what it answers. */
  summary: string;
  usage: string;
  flags: Record<string, { type: 'string' | 'boolean' }>;
  run(em: EntityManager, flags: Flags, config: Config): Promise<unknown>;
}

const commands: Record<string, Command> = {
  'account:create': {
    summary: 'Creates an account with a first token: {account_id, token}',
    usage: '--name NAME [--email EMAIL] [--balance DECIMAL]',
    flags: { name: { type: 'string' }, email: { type: 'string' }, balance: { type: 'string' } },
    async run(em, flags) {
      const { account, token } = await createAccount(em, {
        name: required(flags, 'name'),
        email: optional(flags, 'email'),
        balance: optional(flags, 'balance') ?? '0',
      });
      return { account_id: account.id, token };
    },
  },
  'token:create': {
    summary: 'Issues another token for an account: {account_id, token}',
    usage: '--account ID',
    flags: { account: { type: 'string' } },
    async run(em, flags) {
      const accountId = await existingAccount(em, flags);
      return { account_id: accountId, token: await createToken(em, accountId) };
    },
  },
  'token:list': {
    summary: "Lists an account's tokens (id, prefix, created_at), never the tokens themselves",
    usage: '--account ID',
    flags: { account: { type: 'string' } },
    async run(em, flags) {
      const accountId = id(flags, 'account');
      return { account_id: accountId, tokens: await listTokens(em, accountId) };
    },
  },
  'token:revoke': {
    summary: 'Revokes a token, by its id or by the token itself; it is refused from the next request on',
    usage: '--account ID (--id TOKEN_ID | --token vzg_...)',
    flags: { account: { type: 'string' }, id: { type: 'string' }, token: { type: 'string' } },
    async run(em, flags) {
      const accountId = id(flags, 'account');
      const token = optional(flags, 'token');
      if ((token === null) === (optional(flags, 'id') === null)) throw new OperatorError('give either --id or --token');
      const revoked = await revokeToken(em, accountId, token !== null ? { token } : { id: id(flags, 'id') });
      return { account_id: accountId, revoked };
    },
  },
  'account:show': {
    summary: 'An account: name, email, balance, and how many tokens, phone numbers and campaigns it has',
    usage: '--account ID',
    flags: { account: { type: 'string' } },
    async run(em, flags) {
      const account = await requireAccount(em, id(flags, 'account'));
      const [counts] = await em.execute(
        `select (select count(*)::int from api_tokens where account_id = ?) as tokens,
                (select count(*)::int from phone_numbers where account_id = ?) as phone_numbers,
                (select count(*)::int from campaigns where account_id = ?) as campaigns`,
        [account.id, account.id, account.id],
      );
      return { id: account.id, name: account.name, email: account.email, balance: Number(account.balance), created_at: account.created_at, ...counts };
    },
  },
  'phone-number:list': {
    summary: "Lists an account's phone numbers",
    usage: '--account ID',
    flags: { account: { type: 'string' } },
    async run(em, flags, config) {
      const accountId = await existingAccount(em, flags);
      return { account_id: accountId, phone_numbers: await listPhoneNumbers({ em, accountId, config }) };
    },
  },
  'campaign:list': {
    summary: "Lists an account's campaigns",
    usage: '--account ID',
    flags: { account: { type: 'string' } },
    async run(em, flags) {
      const accountId = await existingAccount(em, flags);
      const campaigns = await em.find(Campaign, { account: accountId }, { orderBy: { id: 'asc' } });
      return { account_id: accountId, campaigns: campaigns.map((c) => ({ id: c.id, name: c.name, created_at: c.created_at })) };
    },
  },
  'balance:add': {
    summary: 'Credits (or, with a negative --amount=-5, debits) an account, with its ledger row',
    usage: '--account ID --amount DECIMAL',
    flags: { account: { type: 'string' }, amount: { type: 'string' } },
    async run(em, flags) {
      const accountId = id(flags, 'account');
      const balance = await addBalance(em, accountId, required(flags, 'amount'));
      return { account_id: accountId, balance: Number(balance) };
    },
  },
  'phone-number:add': {
    summary: 'Gives an account a phone number, SMS-capable with --sms: {id, number}',
    usage: '--account ID --number E164 [--sms] [--expires-at YYYY-MM-DD]',
    flags: { account: { type: 'string' }, number: { type: 'string' }, sms: { type: 'boolean' }, 'expires-at': { type: 'string' } },
    async run(em, flags, config) {
      const number = toE164(required(flags, 'number'), config.defaultPhoneRegion);
      if (!number) throw new OperatorError(`"${flags.number}" is not a valid phone number`);
      const expiresAt = optional(flags, 'expires-at');
      if (expiresAt !== null && !parseDateOnly(expiresAt)) throw new OperatorError('--expires-at must be a date as YYYY-MM-DD');
      const phone = await addPhoneNumber(em, { accountId: id(flags, 'account'), number, smsEnabled: flags.sms === true, expiresAt });
      return { id: phone.id, number: phone.number };
    },
  },
  'campaign:create': {
    summary: 'Creates a campaign for an account, with its outbound assistant if given: {id, name}',
    usage: '--account ID --name NAME [--assistant ID]',
    flags: { account: { type: 'string' }, name: { type: 'string' }, assistant: { type: 'string' } },
    async run(em, flags, config) {
      const accountId = await existingAccount(em, flags);
      const assistantId = optional(flags, 'assistant') === null ? undefined : id(flags, 'assistant');
      try {
        const campaign = await createCampaign({ em, accountId, config }, { name: required(flags, 'name'), assistant_id: assistantId });
        return { id: campaign.id, name: campaign.name, ...(assistantId ? { assistant_id: campaign.assistant_id } : {}) };
      } catch (error) {
        if (error instanceof DomainError) throw new OperatorError(Object.entries(error.errors ?? {}).map(([field, messages]) => `--${field.replace('assistant_id', 'assistant')}: ${messages.join(' ')}`).join('; ') || error.message);
        throw error;
      }
    },
  },
  'call:simulate-inbound': {
    summary: 'Rings the inbound assistant that has the number (the simulator provider only)',
    usage: '--to ASSISTANT_NUMBER --from CALLER_NUMBER   (the simulator provider only)',
    flags: { to: { type: 'string' }, from: { type: 'string' } },
    async run(em, flags, config) {
      try {
        const call = await simulateInboundCall(em, createTelephony(config, await loadSecretBox(config)), config, {
          to: required(flags, 'to'),
          from: required(flags, 'from'),
          accountId: null,
        });
        return { call_id: call.id, status: call.status, assistant_id: call.assistant_id };
      } catch (error) {
        if (error instanceof DomainError) throw new OperatorError([error.message, ...Object.values(error.errors ?? {}).flat()].join(' '));
        throw error;
      }
    },
  },
  'webhook-secret:rotate': {
    summary: 'Makes a new webhook signing secret for an account and answers it',
    usage: '--account ID   (answers the new signing secret)',
    flags: { account: { type: 'string' } },
    async run(em, flags, config) {
      const accountId = await existingAccount(em, flags);
      const secret = await rotateWebhookSecret(em, await loadSecretBox(config), accountId);
      return { account_id: accountId, webhook_secret: secret };
    },
  },
  'voice:add': {
    summary: 'Adds a voice to the catalogue: public, or private to --account; spoken by a vendor’s voice when given',
    usage:
      '--name NAME --mode pipeline|multimodal [--account ID] [--provider elevenlabs|cartesia|openai --provider-voice-id ID]   ' +
      '(without --account the voice is public; without --provider the first configured vendor’s default voice speaks it)',
    flags: { name: { type: 'string' }, mode: { type: 'string' }, account: { type: 'string' }, provider: { type: 'string' }, 'provider-voice-id': { type: 'string' } },
    async run(em, flags) {
      const provider = optional(flags, 'provider');
      const voiceId = optional(flags, 'provider-voice-id');
      if ((provider === null) !== (voiceId === null)) throw new OperatorError('give --provider and --provider-voice-id together, or neither');
      const accountId = optional(flags, 'account') === null ? null : id(flags, 'account');
      if (accountId !== null) await requireAccount(em, accountId);
      try {
        const voice = await addVoice(em, {
          name: required(flags, 'name'),
          mode: required(flags, 'mode'),
          accountId,
          provider: provider === null ? null : { name: provider, voiceId: voiceId! },
        });
        return {
          id: voice.id,
          name: voice.name,
          mode: voice.mode,
          ...(voice.provider ? { provider: voice.provider, provider_voice_id: voice.provider_voice_id } : {}),
          public: accountId === null,
        };
      } catch (error) {
        throw fieldMessagesOf(error);
      }
    },
  },
  'model:add': {
    summary: 'Adds a language model to the catalogue (GET /api/user/assistants/models)',
    usage: '--name NAME --provider PROVIDER --type llm|multimodal   (the name the provider’s API takes)',
    flags: { name: { type: 'string' }, provider: { type: 'string' }, type: { type: 'string' } },
    async run(em, flags) {
      try {
        const model = await addModel(em, { name: required(flags, 'name'), provider: required(flags, 'provider'), type: required(flags, 'type') });
        return { id: model.id, name: model.name, provider: model.provider, type: model.type };
      } catch (error) {
        throw fieldMessagesOf(error);
      }
    },
  },
};

/** A catalogue check's refusal as the operator's error: its field messages, in one line. */
function fieldMessagesOf(error: unknown): unknown {
  return error instanceof DomainError ? new OperatorError(Object.values(error.errors ?? {}).flat().join(' ')) : error;
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

function usage(): string {
  const width = Math.max(...Object.keys(commands).map((name) => name.length));
  return [
    'usage: npm run -s cli -- <command> [flags]     (or `vozgate <command>` after `npm link`)',
    '',
    ...Object.entries(commands).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
    '',
    '`npm run -s cli -- <command> --help` tells a command\'s flags. Output is JSON on stdout.',
    'The database: DATABASE_URL when set, else the embedded one in DATA_DIR (default ./.data).',
  ].join('\n');
}

function commandHelp(name: string, command: Command): string {
  return `${command.summary}\n\nusage: npm run -s cli -- ${name} ${command.usage}\n`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${usage()}\n`);
    return name === undefined ? 2 : 0;
  }
  const command = commands[name];
  if (!command) {
    process.stderr.write(`unknown command "${name}"\n\n${usage()}\n`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(commandHelp(name, command));
    return 0;
  }
  let flags: Flags;
  try {
    flags = parseArgs({ args: rest, options: command.flags, strict: true, allowPositionals: false }).values;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${commandHelp(name, command)}`);
    return 2;
  }

  const config = loadConfig();
  const database = await openDatabase(config, (line) => process.stderr.write(`${line}\n`));
  process.stderr.write(
    database.embedded
      ? `vozgate cli: the embedded database in ${config.dataDir} (set DATA_DIR to the server's, or DATABASE_URL, to use another)\n`
      : 'vozgate cli: the database of DATABASE_URL\n',
  );
  try {
    const orm = await initOrm({ databaseUrl: database.url, poolMax: 2 });
    try {
      const result = await command.run(orm.em.fork(), flags, config);
      process.stdout.write(`${JSON.stringify(result)}\n`);
      return 0;
    } finally {
      await orm.close();
    }
  } catch (error) {
    if (!(error instanceof OperatorError)) throw error;
    process.stderr.write(`${JSON.stringify({ error: error.message })}\n`);
    return 1;
  } finally {
    await database.stop();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`${JSON.stringify({ error: error instanceof Error ? error.message : String(error) })}\n`);
    process.exit(1);
  },
);
