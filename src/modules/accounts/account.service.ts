import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import Decimal from 'decimal.js';
import { selectPrepared } from '../../db/prepared';
import { Account } from './account.entity';
import { ApiToken } from './api-token.entity';
import { emitEvents } from '../events/event.outbox';
import type { LedgerKind } from './ledger-entry.entity';
import { PhoneNumber } from './phone-number.entity';

/** Operator-side account management (the CLI and the demo seed) and the token check of every request. */

const TOKEN_PREFIX = 'vzg_';
const TOKEN_PATTERN = /^vzg_[A-Za-z0-9_-]{43}$/;
const BEARER_PATTERN = /^Bearer[ \t]+(\S+)[ \t]*$/i;

export class OperatorError extends Error {}

function hashToken(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

/** Issues a new token for the account; the plain token exists only in the return value. */
export async function createToken(em: EntityManager, accountId: number, name: string | null = null): Promise<string> {
  return (await issueToken(em, accountId, name)).token;
}

/** A new token and its row (the console shows the row's id, prefix and name with the token, once). */
export async function issueToken(em: EntityManager, accountId: number, name: string | null): Promise<{ token: string; row: ApiToken }> {
  const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
  const row = em.create(ApiToken, {
    account: em.getReference(Account, accountId),
    token_hash: hashToken(token).toString('hex'),
    prefix: token.slice(0, 12),
    name,
  });
  await em.persist(row).flush();
  return { token, row };
}

/** A token as its account may see it: never the token, nor its hash. */
export interface TokenView {
  id: number;
  prefix: string;
  name: string | null;
  created_at: string;
  last_used_at: string | null;
}

export const tokenView = (token: ApiToken): TokenView => ({
  id: token.id,
  prefix: token.prefix,
  name: token.name,
  created_at: token.created_at,
  last_used_at: token.last_used_at,
});

/** The account's tokens as an operator may see them: id, prefix, name, age and last use, never the token. */
export async function listTokens(em: EntityManager, accountId: number): Promise<TokenView[]> {
  await requireAccount(em, accountId);
  const tokens = await em.find(ApiToken, { account: accountId }, { orderBy: { id: 'asc' } });
  return tokens.map(tokenView);
}

/**
 * Revokes one of the account's tokens, named by its id or by the token itself; the next
 * request that carries it is refused (every request looks its token up).
 */
export async function revokeToken(em: EntityManager, accountId: number, which: { id?: number; token?: string }): Promise<number> {
  await requireAccount(em, accountId);
  const [column, value] = which.token !== undefined ? ['token_hash', hashToken(which.token).toString('hex')] : ['id', which.id];
  const rows: { id: number }[] = await em.execute(`delete from api_tokens where account_id = ? and ${column} = ? returning id`, [accountId, value]);
  if (rows.length === 0) throw new OperatorError(`account ${accountId} has no such token`);
  return rows[0].id;
}

/** The hash of the token in an `Authorization` header value, or null when it holds none. */
export function tokenHashOf(authorization: string | undefined): string | null {
  const token = authorization ? BEARER_PATTERN.exec(authorization)?.[1] : undefined;
  return token && TOKEN_PATTERN.test(token) ? hashToken(token).toString('hex') : null;
}

/** Which of these token hashes still name a token (the others were revoked): one statement. */
export async function liveTokenHashes(em: EntityManager, hashes: string[]): Promise<Set<string>> {
  if (!hashes.length) return new Set();
  const rows: { token_hash: string }[] = await em.execute('select token_hash from api_tokens where token_hash = any(?::text[])', [`{${hashes.join(',')}}`]);
  return new Set(rows.map((row) => row.token_hash));
}

export interface Authentication {
  accountId: number;
  /** Seconds until the token may be used again, when it is over its rate limit. */
  retryAfterSeconds: number | null;
}

/**
 * The account behind an `Authorization` header value (null when it names no valid token),
 * and whether the token is over `perMinute` requests this minute (0: no limit). The lookup,
 * the count and, once a minute, the token's last use are one statement; the count lives in the
 * database, so it holds across processes.
 */
export async function authenticate(em: EntityManager, authorization: string | undefined, perMinute = 0): Promise<Authentication | null> {
  const token = authorization ? BEARER_PATTERN.exec(authorization)?.[1] : undefined;
  if (!token || !TOKEN_PATTERN.test(token)) return null;
  const digest = hashToken(token);
  const hash = digest.toString('hex');
  const used = useDue(hash);
  const rows: { account_id: number; token_hash: string; requests: number | null; window_end: string | null }[] =
    perMinute > 0
      ? await em.execute(
          `with ${used ? `${USED}, ` : ''}token as (select account_id, token_hash from api_tokens where token_hash = ?),
           hit as (
             insert into rate_limit_windows (token_hash, window_start, requests)
             select token_hash, date_trunc('minute', now()), 1 from token
             on conflict (token_hash, window_start) do update set requests = rate_limit_windows.requests + 1
             returning requests, window_start + interval '1 minute' as window_end
           )
           select token.account_id, token.token_hash, hit.requests, hit.window_end from token left join hit on true`,
          used ? [hash, hash] : [hash],
        )
      : // Every request runs it: prepared, it is planned once on each connection.
        await selectPrepared(em, `${used ? `with ${USED} ` : ''}select account_id, token_hash from api_tokens where token_hash = ?`, used ? [hash, hash] : [hash]);
  const row = rows[0];
  // The index lookup already matched; the constant-time comparison keeps the check itself free of timing.
  if (!row || !timingSafeEqual(Buffer.from(row.token_hash, 'hex'), digest)) return null;
  const limited = perMinute > 0 && row.requests !== null && row.requests > perMinute;
  const retryAfterSeconds = limited ? Math.max(1, Math.ceil((new Date(row.window_end!).getTime() - Date.now()) / 1000)) : null;
  return { accountId: row.account_id, retryAfterSeconds };
}

/**
 * A token's last use, as a part of the lookup's statement (a CTE, `used`, run whatever the
 * rest reads): written at most once a minute per token and process (useDue), and its own
 * condition keeps several processes at about one write a minute too. A token that names no
 * row writes nothing.
 */
const USED = `used as (update api_tokens set last_used_at = now() where token_hash = ? and (last_used_at is null or last_used_at < now() - interval '1 minute'))`;

/** When this process last wrote each token's last use (ms); cleared when it grows past the cap. */
const lastUseWritten = new Map<string, number>();
const USE_PRECISION_MS = 60_000;
const USE_MEMORY_CAP = 10_000;

/** Whether this request writes the token's last use (and this process then waits a minute before the next). */
function useDue(hash: string): boolean {
  const now = Date.now();
  if (now - (lastUseWritten.get(hash) ?? 0) < USE_PRECISION_MS) return false;
  if (lastUseWritten.size >= USE_MEMORY_CAP) lastUseWritten.clear();
  lastUseWritten.set(hash, now);
  return true;
}

/** Forgets rate-limit windows that have ended (the sweeper calls it). */
export async function forgetOldRateLimitWindows(em: EntityManager): Promise<void> {
  await em.execute(`delete from rate_limit_windows where window_start < now() - interval '2 minutes'`);
}

/**
 * Moves an account's balance by `amount` (signed) and writes the ledger row, in the caller's
 * transaction. Unless `allowNegative`, a change that would take the balance below zero is not
 * made and null is returned. The UPDATE is one conditional statement, so concurrent changes
 * serialise on the row and can never overdraw it.
 */
export async function adjustBalance(
  em: EntityManager,
  accountId: number,
  amount: Decimal.Value,
  kind: LedgerKind,
  reference: string | null,
  options: { allowNegative?: boolean; lowThreshold?: string } = {},
): Promise<string | null> {
  const delta = new Decimal(amount).toFixed();
  const guard = options.allowNegative ? '' : ' and balance + ?::numeric >= 0';
  const params = options.allowNegative ? [delta, accountId] : [delta, accountId, delta];
  const rows: { balance: string }[] = await em.execute(
    `update accounts set balance = balance + ?::numeric, updated_at = now() where id = ?${guard} returning balance`,
    params,
  );
  if (rows.length === 0) return null;
  const balance = String(rows[0].balance);
  await em.execute(
    'insert into ledger_entries (account_id, amount, balance_after, kind, reference) values (?, ?, ?, ?, ?)',
    [accountId, delta, balance, kind, reference],
  );
  await noteLowBalance(em, accountId, new Decimal(balance).minus(delta), balance, options.lowThreshold);
  return balance;
}

/** `balance.low` when a change took the balance from at least the threshold to below it. */
export async function noteLowBalance(em: EntityManager, accountId: number, before: Decimal, after: Decimal.Value, threshold: string | undefined): Promise<void> {
  if (threshold === undefined || before.lessThan(threshold) || !new Decimal(after).lessThan(threshold)) return;
  await emitEvents(em, [{ accountId, type: 'balance.low', data: { balance: Number(after), threshold: Number(threshold) } }]);
}

export interface LedgerChange {
  /** Signed. */
  amount: Decimal.Value;
  kind: LedgerKind;
  reference: string | null;
}

/**
 * Several changes to an account's balance in one UPDATE and one INSERT of their ledger rows
 * (each with the balance after it), in the caller's transaction; they may take the balance
 * below zero (what has happened is owed). Answers the balance after the last.
 */
export async function applyLedgerChanges(em: EntityManager, accountId: number, changes: LedgerChange[], lowThreshold?: string): Promise<string> {
  const total = changes.reduce((sum, change) => sum.plus(change.amount), new Decimal(0));
  const [{ balance }]: { balance: string }[] = await em.execute(
    'update accounts set balance = balance + ?::numeric, updated_at = now() where id = ? returning balance',
    [total.toFixed(), accountId],
  );
  let after = new Decimal(balance).minus(total);
  const rows = changes.map((change) => {
    after = after.plus(change.amount);
    return [accountId, new Decimal(change.amount).toFixed(), after.toFixed(), change.kind, change.reference];
  });
  await em.execute(
    `insert into ledger_entries (account_id, amount, balance_after, kind, reference) values ${rows.map(() => '(?, ?, ?, ?, ?)').join(', ')}`,
    rows.flat(),
  );
  await noteLowBalance(em, accountId, new Decimal(balance).minus(total), balance, lowThreshold);
  return String(balance);
}

export async function createAccount(
  em: EntityManager,
  input: { name: string; email?: string | null; balance?: string },
): Promise<{ account: Account; token: string }> {
  const name = input.name.trim();
  if (!name || name.length > 255) throw new OperatorError('name must be 1 to 255 characters');
  const balance = parseAmount(input.balance ?? '0', { allowZero: true });
  if (balance.isNegative()) throw new OperatorError('the initial balance cannot be negative');
  return em.transactional(async (tx) => {
    const account = tx.create(Account, { name, email: input.email ?? null });
    await tx.persist(account).flush();
    if (!balance.isZero()) await adjustBalance(tx, account.id, balance, 'credit', 'initial balance');
    const token = await createToken(tx, account.id);
    return { account, token };
  });
}

export async function addBalance(em: EntityManager, accountId: number, amount: string): Promise<string> {
  const value = parseAmount(amount, { allowZero: false });
  return em.transactional(async (tx) => {
    await requireAccount(tx, accountId);
    const balance = await adjustBalance(tx, accountId, value, value.isNegative() ? 'debit' : 'credit', 'operator', {
      allowNegative: false,
    });
    if (balance === null) throw new OperatorError('the balance cannot go below zero');
    return balance;
  });
}

export async function addPhoneNumber(
  em: EntityManager,
  input: { accountId: number; number: string; smsEnabled: boolean; whatsappEnabled?: boolean; expiresAt: string | null },
): Promise<PhoneNumber> {
  await requireAccount(em, input.accountId);
  if (await em.count(PhoneNumber, { number: input.number })) {
    throw new OperatorError(`${input.number} is already registered`);
  }
  const phone = em.create(PhoneNumber, {
    account: em.getReference(Account, input.accountId),
    number: input.number,
    sms_enabled: input.smsEnabled,
    whatsapp_enabled: input.whatsappEnabled ?? false,
    subscription_expires_at: input.expiresAt,
  });
  await em.persist(phone).flush();
  return phone;
}

export async function requireAccount(em: EntityManager, accountId: number): Promise<Account> {
  const account = await em.findOne(Account, { id: accountId });
  if (!account) throw new OperatorError(`account ${accountId} does not exist`);
  return account;
}

function parseAmount(text: string, options: { allowZero: boolean }): Decimal {
  let value: Decimal;
  try {
    value = new Decimal(text.trim());
  } catch {
    throw new OperatorError(`"${text}" is not a decimal amount`);
  }
  if (!value.isFinite() || value.decimalPlaces() > 4 || value.abs().greaterThanOrEqualTo('1e14')) {
    throw new OperatorError(`"${text}" is not an amount with at most 4 decimal places`);
  }
  if (!options.allowZero && value.isZero()) throw new OperatorError('the amount must not be zero');
  return value;
}
