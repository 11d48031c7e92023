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
import { createTelephony } from '../runtime';
import { loadSecretBox } from '../lib/secrets';
import { rotateWebhookSecret } from '../modules/webhooks/webhook.service';
import { addVoice } from '../modules/catalog/catalog.service';
import { Campaign } from '../modules/campaigns/campaign.entity';
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
 * The operator CLI: `npm run cli -- <command> [--flags]`, JSON on stdout. On the embedded
 * database it reaches the cluster of a running `npm start`, or starts one for itself.
 */
type Flags = Record<string, string | boolean | undefined>;

interface Command {
  usage: string;
  flags: Record<string, { type: 'string' | 'boolean' }>;
  run(em: EntityManager, flags: Flags, config: Config): Promise<unknown>;
}

const commands: Record<string, Command> = {
  'account:create': {
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
    usage: '--account ID',
    flags: { account: { type: 'string' } },
    async run(em, flags) {
      const accountId = id(flags, 'account');
      await requireAccount(em, accountId);
      return { account_id: accountId, token: await createToken(em, accountId) };
    },
  },
  'token:list': {
    usage: '--account ID',
    flags: { account: { type: 'string' } },
    async run(em, flags) {
      const accountId = id(flags, 'account');
      return { account_id: accountId, tokens: await listTokens(em, accountId) };
    },
  },
  'token:revoke': {
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
  'balance:add': {
    usage: '--account ID --amount DECIMAL',
    flags: { account: { type: 'string' }, amount: { type: 'string' } },
    async run(em, flags) {
      const accountId = id(flags, 'account');
      const balance = await addBalance(em, accountId, required(flags, 'amount'));
      return { account_id: accountId, balance: Number(balance) };
    },
  },
  'phone-number:add': {
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
    usage: '--account ID --name NAME',
    flags: { account: { type: 'string' }, name: { type: 'string' } },
    async run(em, flags) {
      const account = await requireAccount(em, id(flags, 'account'));
      const name = required(flags, 'name').trim();
      if (!name || name.length > 255) throw new OperatorError('--name must be 1 to 255 characters');
      const campaign = em.create(Campaign, { account, name });
      await em.persist(campaign).flush();
      return { id: campaign.id, name: campaign.name };
    },
  },
  'call:simulate-inbound': {
    usage: '--to ASSISTANT_NUMBER --from CALLER_NUMBER   (the simulator provider only)',
    flags: { to: { type: 'string' }, from: { type: 'string' } },
    async run(em, flags, config) {
      try {
        const call = await simulateInboundCall(em, createTelephony(config), config, {
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
    usage: '--account ID   (answers the new signing secret)',
    flags: { account: { type: 'string' } },
    async run(em, flags, config) {
      const accountId = id(flags, 'account');
      await requireAccount(em, accountId);
      const secret = await rotateWebhookSecret(em, await loadSecretBox(config), accountId);
      return { account_id: accountId, webhook_secret: secret };
    },
  },
  'voice:add': {
    usage: '--name NAME --mode pipeline|multimodal [--account ID]   (without --account the voice is public)',
    flags: { name: { type: 'string' }, mode: { type: 'string' }, account: { type: 'string' } },
    async run(em, flags) {
      const accountId = optional(flags, 'account') === null ? null : id(flags, 'account');
      if (accountId !== null) await requireAccount(em, accountId);
      try {
        const voice = await addVoice(em, { name: required(flags, 'name'), mode: required(flags, 'mode'), accountId });
        return { id: voice.id, name: voice.name, mode: voice.mode, public: accountId === null };
      } catch (error) {
        if (error instanceof DomainError) throw new OperatorError(Object.values(error.errors ?? {}).flat().join(' '));
        throw error;
      }
    },
  },
};

function required(flags: Flags, name: string): string {
  const value = flags[name];
  if (typeof value !== 'string' || value === '') throw new OperatorError(`--${name} is required`);
  return value;
}

function optional(flags: Flags, name: string): string | null {
  const value = flags[name];
  return typeof value === 'string' && value !== '' ? value : null;
}

function id(flags: Flags, name: string): number {
  const text = required(flags, name);
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < 1) throw new OperatorError(`--${name} must be a positive integer`);
  return value;
}

function usage(): string {
  return ['usage: npm run cli -- <command> [flags]', ...Object.entries(commands).map(([name, c]) => `  ${name} ${c.usage}`)].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const command = name ? commands[name] : undefined;
  if (!command) {
    process.stderr.write(`${name ? `unknown command "${name}"\n` : ''}${usage()}\n`);
    return 2;
  }
  let flags: Flags;
  try {
    flags = parseArgs({ args: rest, options: command.flags, strict: true, allowPositionals: false }).values;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\nusage: npm run cli -- ${name} ${command.usage}\n`);
    return 2;
  }

  const config = loadConfig();
  const database = await openDatabase(config, (line) => process.stderr.write(`${line}\n`));
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
