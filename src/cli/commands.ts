/**
 * What each operator command is called, says and takes: read by `--help` and checked against
 * the flags given before anything else loads (no configuration, no database, no ORM), so help
 * and a forgotten flag answer at once. What each command does lives in runners.ts.
 */
export interface CommandSpec {
  /** One line: what it does and what it answers. */
  summary: string;
  usage: string;
  flags: Record<string, { type: 'string' | 'boolean' }>;
  /** Flags without which the command cannot run: missing, they are a usage error (exit 2). */
  required: readonly string[];
}

const text = { type: 'string' } as const;
const flag = { type: 'boolean' } as const;

export const COMMANDS = {
  'account:create': {
    summary: 'Creates an account with a first token: {account_id, token}',
    usage: '--name NAME [--email EMAIL] [--balance DECIMAL]',
    flags: { name: text, email: text, balance: text },
    required: ['name'],
  },
  'token:create': {
    summary: 'Issues another token for an account: {account_id, token}',
    usage: '--account ID',
    flags: { account: text },
    required: ['account'],
  },
  'token:list': {
    summary: "Lists an account's tokens (id, prefix, created_at), never the tokens themselves",
    usage: '--account ID',
    flags: { account: text },
    required: ['account'],
  },
  'token:revoke': {
    summary: 'Revokes a token, by its id or by the token itself; it is refused from the next request on',
    usage: '--account ID (--id TOKEN_ID | --token vzg_...)',
    flags: { account: text, id: text, token: text },
    required: ['account'],
  },
  'account:show': {
    summary: 'An account: name, email, balance, and how many tokens, phone numbers and campaigns it has',
    usage: '--account ID',
    flags: { account: text },
    required: ['account'],
  },
  'phone-number:list': {
    summary: "Lists an account's phone numbers",
    usage: '--account ID',
    flags: { account: text },
    required: ['account'],
  },
  'sip-trunk:list': {
    summary: "Lists an account's SIP trunks (their passwords never shown)",
    usage: '--account ID',
    flags: { account: text },
    required: ['account'],
  },
  'campaign:list': {
    summary: "Lists an account's campaigns",
    usage: '--account ID',
    flags: { account: text },
    required: ['account'],
  },
  'balance:add': {
    summary: 'Credits (or, with a negative --amount=-5, debits) an account, with its ledger row',
    usage: '--account ID --amount DECIMAL',
    flags: { account: text, amount: text },
    required: ['account', 'amount'],
  },
  'phone-number:add': {
    summary: 'Gives an account a phone number, SMS-capable with --sms, a WhatsApp sender with --whatsapp: {id, number}',
    usage: '--account ID --number E164 [--sms] [--whatsapp] [--expires-at YYYY-MM-DD]',
    flags: { account: text, number: text, sms: flag, whatsapp: flag, 'expires-at': text },
    required: ['account', 'number'],
  },
  'campaign:create': {
    summary: 'Creates a campaign for an account, with its outbound assistant if given: {id, name}',
    usage: '--account ID --name NAME [--assistant ID]',
    flags: { account: text, name: text, assistant: text },
    required: ['account', 'name'],
  },
  'call:simulate-inbound': {
    summary: 'Rings the inbound assistant that has the number (a server on the simulator provider only)',
    usage: '--to ASSISTANT_NUMBER --from CALLER_NUMBER   (the server on this database must run TELEPHONY_PROVIDER=simulator)',
    flags: { to: text, from: text },
    required: ['to', 'from'],
  },
  'webhook-secret:rotate': {
    summary: 'Makes a new webhook signing secret for an account and answers it',
    usage: '--account ID   (answers the new signing secret)',
    flags: { account: text },
    required: ['account'],
  },
  'voice:add': {
    summary: 'Adds a voice to the catalogue: public, or private to --account; spoken by a vendor’s voice when given',
    usage:
      '--name NAME --mode pipeline|multimodal [--account ID] [--provider elevenlabs|cartesia|openai|<a TTS_PROVIDERS name> --provider-voice-id ID]   ' +
      '(without --account the voice is public; without --provider the first configured vendor’s default voice speaks it)',
    flags: { name: text, mode: text, account: text, provider: text, 'provider-voice-id': text },
    required: ['name', 'mode'],
  },
  'assistant:test': {
    summary: 'Runs every test of an assistant on the job queue, a line per attempt as it lands; exit 0 only when every attempt passed: {run_id, status, pass_rate}',
    usage: '--assistant ID [--attempts N] [--junit FILE] [--timeout SECONDS]   (the server or `npm run worker` runs it; --timeout default 600)',
    flags: { assistant: text, attempts: text, junit: text, timeout: text },
    required: ['assistant'],
  },
  'model:add': {
    summary: 'Adds a language model to the catalogue (GET /api/user/assistants/models)',
    usage: '--name NAME --provider PROVIDER --type llm|multimodal   (the name the provider’s API takes)',
    flags: { name: text, provider: text, type: text },
    required: ['name', 'provider', 'type'],
  },
} satisfies Record<string, CommandSpec>;

export type CommandName = keyof typeof COMMANDS;

export function isCommand(name: string): name is CommandName {
  return Object.prototype.hasOwnProperty.call(COMMANDS, name);
}
