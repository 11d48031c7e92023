import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { CountryCode } from 'libphonenumber-js/max';
import { DomainError, FieldErrorCollector, FieldMessages, Messages, NotFoundError } from '../../errors';
import { checkOneOf } from '../../lib/checks';
import { parsePhone } from '../../lib/phone';
import type { SecretBox } from '../../lib/secrets';
import type { Scope } from '../scope';
import { numberWebhooks } from './phone-number.service';
import { dottedIpv4Range, INBOUND_AUTHORIZATION_TYPES, ipRange, SIP_CALLING_FORMATS, SIP_TRUNK_TYPES, type TrunkDialing } from './sip-trunk.dial';
import { SipProvisioningFailure, type SipProvisioner, type TrunkDomain, type TrunkGrant } from './sip-trunk.ports';

export interface SipTrunkScope extends Scope {
  secrets: SecretBox;
  /** Who lets the trunk's calls in at the SIP layer (Twilio); none: nobody is asked (the simulator). */
  sip?: SipProvisioner | null;
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
/** Twilio's rules for a credential it checks at the SIP layer: a username of at most 32, a password of 12 or more with a digit and both cases. */
const PROVISIONED_USERNAME_MAX = 32;
const provisionedPassword = (password: string) => password.length >= 12 && /\d/.test(password) && /\p{Lu}/u.test(password) && /\p{Ll}/u.test(password);

const notFound = () => new NotFoundError(Messages.sipTrunkNotFound);
const numberTaken = () => new DomainError('VALIDATION_FAILED', Messages.validationFailed, { phone_number: [FieldMessages.numberTaken] });

/**
 * The trunk's settings after `input` is applied to `current` (none: a create, where the
 * MCP server's required fields are required), or the field errors, all at once. Answers the
 * number the trunk carries: E.164 for a `number` trunk (read in its country_code), the digits
 * for an `extension`.
 */
function validTrunk(
  input: SipTrunkValues,
  current: (TrunkRow & { password: string }) | null,
  provisioned: boolean,
): { row: Omit<TrunkRow, 'sip_password_sealed'>; password: string | null } {
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
  if (provisioned && authorization === 'auth') {
    // The provider checks this credential itself, with its own rules.
    if (username !== undefined && USERNAME.test(username) && username.length > PROVISIONED_USERNAME_MAX) {
      errors.add('sip_username', FieldMessages.maxLength('sip_username', PROVISIONED_USERNAME_MAX));
    }
    const effective = password ?? current?.password;
    if (effective != null && PASSWORD.test(effective) && !provisionedPassword(effective)) errors.add('sip_password', FieldMessages.sipPasswordRules);
  }
  if (provisioned && authorization === 'ip') {
    ranges.forEach((range, index) => {
      if (range !== '' && !dottedIpv4Range(range)) errors.add(`allowed_inbound_ips.${index}`, FieldMessages.ipv4Only(`allowed_inbound_ips.${index}`));
    });
  }
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

/** What the provider holds of a trunk, as stored (all null: nothing, a trunk made with the simulator). */
interface Provisioned {
  twilio_domain_sid: string | null;
  sip_domain: string | null;
  twilio_credential_list_sid: string | null;
  twilio_ip_acl_sid: string | null;
}

const grantOf = (p: Provisioned): TrunkGrant => ({ credentialListSid: p.twilio_credential_list_sid, ipAclSid: p.twilio_ip_acl_sid });
const hasGrant = (grant: TrunkGrant) => grant.credentialListSid !== null || grant.ipAclSid !== null;
const providerFailure = (message: string, error: unknown) => {
  if (error instanceof SipProvisioningFailure) return new DomainError('PROVIDER_FAILURE', message, undefined, { error: error.detail });
  return error;
};
/** Best effort, for what a failure left at the provider: a list no domain maps lets nobody in. */
const quietly = (step: () => Promise<void>) => step().catch(() => {});

/** The provider's name for a trunk's resources: who it is, never its credential. */
const label = (scope: Scope, id: number) => `vozgate account ${scope.accountId} trunk ${id}`;

/** The list that lets a trunk's calls in, made and mapped to `domain`; throws the 502 when the provider refuses. */
async function grantTrunk(scope: SipTrunkScope, sip: SipProvisioner, domain: TrunkDomain, id: number, row: Omit<TrunkRow, 'sip_password_sealed'>, password: string) {
  try {
    return await sip.grant(
      domain.sid,
      label(scope, id),
      row.inbound_authorization_type === 'auth' ? { kind: 'auth', username: row.sip_username, password } : { kind: 'ip', ranges: row.allowed_inbound_ips },
    );
  } catch (error) {
    throw providerFailure(Messages.sipProvisioningFailed, error);
  }
}

async function openDomain(scope: SipTrunkScope, sip: SipProvisioner, id: number): Promise<TrunkDomain> {
  try {
    return await sip.openDomain(label(scope, id), numberWebhooks(scope.config).voiceUrl);
  } catch (error) {
    throw providerFailure(Messages.sipProvisioningFailed, error);
  }
}

const STORE_PROVISIONED = `update sip_trunks set twilio_domain_sid = ?, sip_domain = ?, twilio_credential_list_sid = ?, twilio_ip_acl_sid = ?, updated_at = now() where phone_number_id = ?`;

/**
 * Creates a trunk: the number (or extension) it carries becomes one of the account's phone
 * numbers, the trunk's settings kept with it under the same id, in one transaction. With a
 * provider (Twilio), the trunk's SIP domain and its list (credential or addresses) are made
 * inside that transaction, after its rows (a number already taken is refused before the
 * provider is asked): a refusal rolls the rows back and removes what was made, and a commit
 * that fails afterwards removes it too, so no trunk is stored without its lists nor lists
 * left without their trunk. Answers the id (the number's, which DELETE
 * /user/phone-numbers/{id} releases).
 */
export async function createSipTrunk(scope: SipTrunkScope, input: SipTrunkValues): Promise<number> {
  const sip = scope.sip ?? null;
  const { row, password } = validTrunk(input, null, sip !== null);
  // What the provider has made so far, for the catch to remove (an object: the callback writes it).
  const progress: { made?: { domain: TrunkDomain; grant: TrunkGrant | null } } = {};
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
      if (sip) {
        const domain = await openDomain(scope, sip, phone.id);
        const made = (progress.made = { domain, grant: null as TrunkGrant | null });
        const grant = (made.grant = await grantTrunk(scope, sip, domain, phone.id, row, password!));
        await tx.execute(STORE_PROVISIONED, [domain.sid, domain.name, grant.credentialListSid, grant.ipAclSid, phone.id]);
      }
      return phone.id;
    });
  } catch (error) {
    const left = progress.made;
    if (sip && left) {
      if (left.grant) await quietly(() => sip.unmap(left.domain.sid, left.grant!)).then(() => quietly(() => sip.drop(left.grant!)));
      await quietly(() => sip.closeDomain(left.domain.sid));
    }
    if (error instanceof UniqueConstraintViolationException) throw numberTaken();
    throw error;
  }
}

const TRUNK_COLUMNS = `t.sip_trunk_type, p.number as phone_number, t.sip_username, t.sip_password_sealed, t.sip_address, t.sip_calling_format,
  t.inbound_authorization_type, t.allowed_inbound_ips, t.country_code, t.outbound_proxy,
  t.twilio_domain_sid, t.sip_domain, t.twilio_credential_list_sid, t.twilio_ip_acl_sid`;

/** Whether the change touches what the provider checks of a call coming in. */
function accessChanged(before: TrunkRow, after: Omit<TrunkRow, 'sip_password_sealed'>, newPassword: string | null): boolean {
  if (before.inbound_authorization_type !== after.inbound_authorization_type) return true;
  if (after.inbound_authorization_type === 'auth') return before.sip_username !== after.sip_username || newPassword !== null;
  return JSON.stringify(before.allowed_inbound_ips) !== JSON.stringify(after.allowed_inbound_ips);
}

/**
 * Changes the fields given (the type aside: a trunk stays what it was made); the password only
 * when one is sent. With a provider, a change of what it checks (the credential, the addresses,
 * the kind) replaces the trunk's list, make before break, while the trunk's row is locked: the
 * new list is made and mapped, then the old one unmapped, then the row committed, then the old
 * list deleted. A refusal on the way removes the new list and leaves the old one, and the
 * row, as they were.
 */
export async function updateSipTrunk(scope: SipTrunkScope, id: number, input: SipTrunkValues): Promise<number> {
  if (input.sip_trunk_type != null) {
    throw new DomainError('VALIDATION_FAILED', Messages.validationFailed, { sip_trunk_type: [FieldMessages.notAllowed('sip_trunk_type')] });
  }
  const sip = scope.sip ?? null;
  // What the provider has been asked so far, for the catch to undo (an object: the callback writes it).
  const progress: { swap?: { domain: TrunkDomain; opened: boolean; fresh: TrunkGrant | null; old: TrunkGrant; oldUnmapped: boolean } } = {};
  try {
    await scope.em.fork().transactional(async (tx) => {
      const [current]: (TrunkRow & Provisioned)[] = await tx.execute(
        `select ${TRUNK_COLUMNS} from sip_trunks t join phone_numbers p on p.id = t.phone_number_id where t.phone_number_id = ? and t.account_id = ? for update of t, p`,
        [id, scope.accountId],
      );
      if (!current) throw notFound();
      const stored = scope.secrets.open(current.sip_password_sealed);
      const { row, password } = validTrunk(input, { ...current, password: stored }, sip !== null);
      if (row.phone_number !== current.phone_number) await tx.execute('update phone_numbers set number = ?, updated_at = now() where id = ?', [row.phone_number, id]);
      await tx.execute(
        `update sip_trunks set sip_username = ?, sip_password_sealed = coalesce(?, sip_password_sealed), sip_address = ?, sip_calling_format = ?,
                inbound_authorization_type = ?, allowed_inbound_ips = ?::jsonb, country_code = ?, outbound_proxy = ?, updated_at = now()
         where phone_number_id = ?`,
        [row.sip_username, password === null ? null : scope.secrets.seal(password), row.sip_address, row.sip_calling_format, row.inbound_authorization_type,
          JSON.stringify(row.allowed_inbound_ips), row.country_code, row.outbound_proxy, id],
      );
      // A trunk made with the simulator has nothing at the provider yet: it gets its domain now.
      if (!sip || (current.twilio_domain_sid !== null && !accessChanged(current, row, password))) return;
      const opened = current.twilio_domain_sid === null;
      const domain = opened ? await openDomain(scope, sip, id) : { sid: current.twilio_domain_sid!, name: current.sip_domain ?? '' };
      const swap = (progress.swap = { domain, opened, fresh: null as TrunkGrant | null, old: grantOf(current), oldUnmapped: false as boolean });
      swap.fresh = await grantTrunk(scope, sip, domain, id, row, password ?? stored);
      if (hasGrant(swap.old)) {
        try {
          await sip.unmap(domain.sid, swap.old);
        } catch (error) {
          throw providerFailure(Messages.sipProvisioningFailed, error);
        }
        swap.oldUnmapped = true;
      }
      await tx.execute(STORE_PROVISIONED, [domain.sid, domain.name, swap.fresh.credentialListSid, swap.fresh.ipAclSid, id]);
    });
  } catch (error) {
    const left = progress.swap;
    if (sip && left) {
      if (left.fresh) await quietly(() => sip.unmap(left.domain.sid, left.fresh!)).then(() => quietly(() => sip.drop(left.fresh!)));
      // The old list goes back on the domain: the trunk lets in what its row still says.
      if (left.oldUnmapped) await quietly(() => sip.map(left.domain.sid, left.old));
      if (left.opened) await quietly(() => sip.closeDomain(left.domain.sid));
    }
    if (error instanceof UniqueConstraintViolationException) throw numberTaken();
    throw error;
  }
  const done = progress.swap;
  if (sip && done && hasGrant(done.old)) await quietly(() => sip.drop(done.old));
  return id;
}

/**
 * Removes what the provider holds of a trunk (its domain's mapping, its list, its domain)
 * before the trunk's number is released: a refusal is a 502 and leaves the trunk as it was,
 * and what is removed is forgotten at once, so that the DELETE can be repeated. Nothing for a
 * number that is not a trunk's, or a trunk made with the simulator.
 */
export async function releaseSipTrunkAccess(scope: SipTrunkScope, id: number): Promise<void> {
  const sip = scope.sip ?? null;
  if (!sip) return;
  const [trunk]: Provisioned[] = await scope.em.execute(
    'select twilio_domain_sid, sip_domain, twilio_credential_list_sid, twilio_ip_acl_sid from sip_trunks where phone_number_id = ? and account_id = ?',
    [id, scope.accountId],
  );
  if (!trunk?.twilio_domain_sid) return;
  const grant = grantOf(trunk);
  try {
    await sip.unmap(trunk.twilio_domain_sid, grant);
    await sip.drop(grant);
    await sip.closeDomain(trunk.twilio_domain_sid);
  } catch (error) {
    throw providerFailure(Messages.sipReleaseFailed, error);
  }
  await scope.em.execute(
    'update sip_trunks set twilio_domain_sid = null, sip_domain = null, twilio_credential_list_sid = null, twilio_ip_acl_sid = null where phone_number_id = ?',
    [id],
  );
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
  /** The SIP domain the carrier sends the trunk's calls to (its Twilio domain); null without a provider. */
  sip_domain: string | null;
  nickname: string | null;
  assistant_id: number | null;
}

const VIEW_COLUMNS = `p.id, t.sip_trunk_type, p.number as phone_number, t.sip_username, true as has_password, t.sip_address, t.sip_calling_format,
  t.inbound_authorization_type, t.allowed_inbound_ips, t.country_code, t.outbound_proxy, t.sip_domain, p.nickname,
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
