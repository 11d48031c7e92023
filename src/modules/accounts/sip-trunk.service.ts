import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { CountryCode } from 'libphonenumber-js/max';
import { DomainError, FieldErrorCollector, FieldMessages, Messages, NotFoundError } from '../../errors';
import { checkOneOf } from '../../lib/checks';
import { parsePhone } from '../../lib/phone';
import type { SecretBox } from '../../lib/secrets';
import type { Scope } from '../scope';
import { INBOUND_AUTHORIZATION_TYPES, ipRange, SIP_CALLING_FORMATS, SIP_TRUNK_TYPES, type TrunkDialing } from './sip-trunk.dial';

export interface SipTrunkScope extends Scope {
  secrets: SecretBox;
}

/** The original platform's fields (its MCP server's create_sip_trunk and update_sip_trunk). */
export interface SipTrunkValues {
  sip_trunk_type?: string | null;
  phone_number?: string | null;
  sip_username?: string | null;
  sip_password?: string | null;
  sip_address?: string | null;
  sip_calling_format?: string | null;
  inbound_authorization_type?: string | null;
  allowed_inbound_ips?: string[] | null;
  country_code?: string | null;
  outbound_proxy?: boolean | null;
}

/** A trunk's settings as stored, the password still sealed. */
interface TrunkRow {
  sip_trunk_type: string;
  phone_number: string;
  sip_username: string;
  sip_password_sealed: string;
  sip_address: string;
  sip_calling_format: string;
  inbound_authorization_type: string;
  allowed_inbound_ips: string[];
  country_code: string;
  outbound_proxy: boolean;
}

const MAX_ALLOWED_IPS = 50;
/** A host name or an IPv4 address: no scheme, user, port or parameters (the MCP server's "SIP server without port"). */
const HOST = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
/** Visible ASCII without `@` and `:`, which would break the SIP URI's user part. */
const USERNAME = /^[!-9;-?A-~]{3,128}$/;
const PASSWORD = /^[^\x00-\x1f\x7f]{3,128}$/;

const notFound = () => new NotFoundError(Messages.sipTrunkNotFound);
const numberTaken = () => new DomainError('VALIDATION_FAILED', Messages.validationFailed, { phone_number: [FieldMessages.numberTaken] });

/**
 * The trunk's settings after `input` is applied to `current` (none: a create, where the
 * MCP server's required fields are required), or the field errors, all at once. Answers the
 * number the trunk carries: E.164 for a `number` trunk (read in its country_code), the digits
 * for an `extension`.
 */
function validTrunk(input: SipTrunkValues, current: TrunkRow | null): { row: Omit<TrunkRow, 'sip_password_sealed'>; password: string | null } {
  const errors = new FieldErrorCollector();
  const pick = <K extends keyof SipTrunkValues>(field: K, stored: SipTrunkValues[K] | undefined): SipTrunkValues[K] | undefined => {
    const value = input[field];
    if (value === undefined || value === null) {
      // Missing on a create, or null (these cannot be emptied) on an update.
      if (stored === undefined || value === null) errors.add(field, FieldMessages.required(field));
      return stored;
    }
    return value;
  };
  const type = pick('sip_trunk_type', current?.sip_trunk_type) as string | undefined;
  if (type !== undefined) checkOneOf(errors, 'sip_trunk_type', type, SIP_TRUNK_TYPES);
  const countryText = pick('country_code', current?.country_code) as string | undefined;
  const country = countryText?.trim().toUpperCase();
  if (countryText !== undefined && !/^[A-Z]{2}$/.test(country!)) errors.add('country_code', FieldMessages.countryCode);

  const numberText = input.phone_number ?? (current ? undefined : pick('phone_number', undefined));
  if (input.phone_number === null && current) errors.add('phone_number', FieldMessages.required('phone_number'));
  let number = current?.phone_number;
  if (typeof numberText === 'string') {
    if (type === 'extension') {
      if (/^\d{1,15}$/.test(numberText.trim())) number = numberText.trim();
      else errors.add('phone_number', FieldMessages.sipExtension);
    } else if (type === 'number') {
      const parsed = parsePhone(numberText, /^[A-Z]{2}$/.test(country ?? '') ? (country as CountryCode) : null);
      if (parsed) number = parsed.number;
      else errors.add('phone_number', FieldMessages.phone('phone_number'));
    }
  }

  const username = pick('sip_username', current?.sip_username) as string | undefined;
  if (username !== undefined && !USERNAME.test(username)) errors.add('sip_username', FieldMessages.sipUsername);
  const password = input.sip_password ?? (current ? null : (pick('sip_password', undefined) as string | undefined) ?? null);
  if (input.sip_password === null && current) errors.add('sip_password', FieldMessages.required('sip_password'));
  if (password !== null && !PASSWORD.test(password)) errors.add('sip_password', FieldMessages.lengthBetween('sip_password', 3, 128));
  const addressText = pick('sip_address', current?.sip_address) as string | undefined;
  const address = addressText?.trim().toLowerCase();
  if (addressText !== undefined && !HOST.test(address!)) errors.add('sip_address', FieldMessages.sipAddress);
  const format = pick('sip_calling_format', current?.sip_calling_format) as string | undefined;
  if (format !== undefined) checkOneOf(errors, 'sip_calling_format', format, SIP_CALLING_FORMATS);
  const authorization = pick('inbound_authorization_type', current?.inbound_authorization_type) as string | undefined;
  if (authorization !== undefined) checkOneOf(errors, 'inbound_authorization_type', authorization, INBOUND_AUTHORIZATION_TYPES);

  const ipsInput = input.allowed_inbound_ips;
  const ips: string[] = ipsInput === undefined ? (current?.allowed_inbound_ips ?? []) : (ipsInput ?? []);
  if (ips.length > MAX_ALLOWED_IPS) errors.add('allowed_inbound_ips', FieldMessages.maxItems('allowed_inbound_ips', MAX_ALLOWED_IPS));
  const ranges = ips.slice(0, MAX_ALLOWED_IPS).map((ip, index) => {
    const range = typeof ip === 'string' ? ipRange(ip) : null;
    if (range === null) errors.add(`allowed_inbound_ips.${index}`, FieldMessages.ipRange(`allowed_inbound_ips.${index}`));
    return range ?? '';
  });
  const valid = ranges.filter((range) => range !== '');
  if (new Set(valid).size !== valid.length) errors.add('allowed_inbound_ips', FieldMessages.distinct('allowed_inbound_ips'));
  if (authorization === 'ip' && ips.length === 0) errors.add('allowed_inbound_ips', FieldMessages.ipsRequired);
  const outboundProxy = input.outbound_proxy ?? current?.outbound_proxy ?? false;
  errors.throwIfAny();
  return {
    row: {
      sip_trunk_type: type!,
      phone_number: number!,
      sip_username: username!,
      sip_address: address!,
      sip_calling_format: format!,
      inbound_authorization_type: authorization!,
      allowed_inbound_ips: ranges,
      country_code: country!,
      outbound_proxy: outboundProxy,
    },
    password,
  };
}

/**
 * Creates a trunk: the number (or extension) it carries becomes one of the account's phone
 * numbers, the trunk's settings kept with it under the same id, in one transaction. Answers
 * the id (the number's, which DELETE /user/phone-numbers/{id} releases).
 */
export async function createSipTrunk(scope: SipTrunkScope, input: SipTrunkValues): Promise<number> {
  const { row, password } = validTrunk(input, null);
  try {
    return await scope.em.fork().transactional(async (tx) => {
      const [phone]: { id: number }[] = await tx.execute(`insert into phone_numbers (account_id, number) values (?, ?) returning id`, [scope.accountId, row.phone_number]);
      await tx.execute(
        `insert into sip_trunks (phone_number_id, account_id, sip_trunk_type, sip_username, sip_password_sealed, sip_address, sip_calling_format,
                                 inbound_authorization_type, allowed_inbound_ips, country_code, outbound_proxy)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?)`,
        [phone.id, scope.accountId, row.sip_trunk_type, row.sip_username, scope.secrets.seal(password!), row.sip_address, row.sip_calling_format,
          row.inbound_authorization_type, JSON.stringify(row.allowed_inbound_ips), row.country_code, row.outbound_proxy],
      );
      return phone.id;
    });
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw numberTaken();
    throw error;
  }
}

const TRUNK_COLUMNS = `t.sip_trunk_type, p.number as phone_number, t.sip_username, t.sip_password_sealed, t.sip_address, t.sip_calling_format,
  t.inbound_authorization_type, t.allowed_inbound_ips, t.country_code, t.outbound_proxy`;

/** Changes the fields given (the type aside: a trunk stays what it was made); the password only when one is sent. */
export async function updateSipTrunk(scope: SipTrunkScope, id: number, input: SipTrunkValues): Promise<number> {
  if (input.sip_trunk_type != null) {
    throw new DomainError('VALIDATION_FAILED', Messages.validationFailed, { sip_trunk_type: [FieldMessages.notAllowed('sip_trunk_type')] });
  }
  try {
    return await scope.em.fork().transactional(async (tx) => {
      const [current]: TrunkRow[] = await tx.execute(
        `select ${TRUNK_COLUMNS} from sip_trunks t join phone_numbers p on p.id = t.phone_number_id where t.phone_number_id = ? and t.account_id = ? for update of t, p`,
        [id, scope.accountId],
      );
      if (!current) throw notFound();
      const { row, password } = validTrunk(input, current);
      if (row.phone_number !== current.phone_number) await tx.execute('update phone_numbers set number = ?, updated_at = now() where id = ?', [row.phone_number, id]);
      await tx.execute(
        `update sip_trunks set sip_username = ?, sip_password_sealed = coalesce(?, sip_password_sealed), sip_address = ?, sip_calling_format = ?,
                inbound_authorization_type = ?, allowed_inbound_ips = ?::jsonb, country_code = ?, outbound_proxy = ?, updated_at = now()
         where phone_number_id = ?`,
        [row.sip_username, password === null ? null : scope.secrets.seal(password), row.sip_address, row.sip_calling_format, row.inbound_authorization_type,
          JSON.stringify(row.allowed_inbound_ips), row.country_code, row.outbound_proxy, id],
      );
      return id;
    });
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw numberTaken();
    throw error;
  }
}

/** A trunk as every answer shows it: never the password, only that there is one. */
export interface SipTrunkView {
  id: number;
  sip_trunk_type: string;
  phone_number: string;
  sip_username: string;
  has_password: boolean;
  sip_address: string;
  sip_calling_format: string;
  inbound_authorization_type: string;
  allowed_inbound_ips: string[];
  country_code: string;
  outbound_proxy: boolean;
  nickname: string | null;
  assistant_id: number | null;
}

const VIEW_COLUMNS = `p.id, t.sip_trunk_type, p.number as phone_number, t.sip_username, true as has_password, t.sip_address, t.sip_calling_format,
  t.inbound_authorization_type, t.allowed_inbound_ips, t.country_code, t.outbound_proxy, p.nickname,
  (select min(a.id) from assistants a where a.phone_number_id = p.id) as assistant_id`;

export function listSipTrunks(scope: Scope): Promise<SipTrunkView[]> {
  return scope.em.execute(`select ${VIEW_COLUMNS} from sip_trunks t join phone_numbers p on p.id = t.phone_number_id where t.account_id = ? order by p.id`, [scope.accountId]);
}

export async function requireSipTrunk(scope: Scope, id: number): Promise<SipTrunkView> {
  const [row]: SipTrunkView[] = await scope.em.execute(
    `select ${VIEW_COLUMNS} from sip_trunks t join phone_numbers p on p.id = t.phone_number_id where t.phone_number_id = ? and t.account_id = ?`,
    [id, scope.accountId],
  );
  if (!row) throw notFound();
  return row;
}

/** The trunk a call from `number` goes through, its password opened; null when the number is not a trunk's. */
export async function trunkOfNumber(scope: Pick<SipTrunkScope, 'em' | 'secrets'>, number: string): Promise<TrunkDialing | null> {
  const [row]: { sip_address: string; sip_calling_format: string; sip_username: string; sip_password_sealed: string }[] = await scope.em.execute(
    `select t.sip_address, t.sip_calling_format, t.sip_username, t.sip_password_sealed from sip_trunks t join phone_numbers p on p.id = t.phone_number_id where p.number = ?`,
    [number],
  );
  if (!row) return null;
  return { sip_address: row.sip_address, sip_calling_format: row.sip_calling_format, sip_username: row.sip_username, sip_password: scope.secrets.open(row.sip_password_sealed) };
}
