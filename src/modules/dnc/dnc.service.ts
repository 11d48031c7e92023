import type { EntityManager } from '@mikro-orm/postgresql';
import { FieldMessages, Messages, NotFoundError, ValidationError } from '../../errors';
import { toE164 } from '../../lib/phone';
import { specTimestampSql } from '../../lib/time';
import { LEAD_DIALABLE } from '../campaigns/lead.sql';
import { emitEvents } from '../events/event.outbox';
import { leadEvents } from '../leads/lead.snapshot';
import type { Scope } from '../scope';

/** A number on the account's do-not-call list. */
export interface DncNumber {
  phone_number: string;
  /** YYYY-MM-DD HH:MM:SS, UTC. */
  created_at: string;
}

const COLUMNS = `phone_number, ${specTimestampSql('created_at')} as created_at`;

function e164(scope: Scope, phoneNumber: string): string {
  const phone = toE164(phoneNumber, scope.config.defaultPhoneRegion);
  if (!phone) throw new ValidationError({ phone_number: [FieldMessages.phone('phone_number')] }, Messages.invalidPhoneNumber);
  return phone;
}

export function listDnc(scope: Scope): Promise<DncNumber[]> {
  return scope.em.execute(`select ${COLUMNS} from dnc_numbers where account_id = ? order by created_at, phone_number`, [scope.accountId]);
}

/**
 * Adds a number (E.164, or national in DEFAULT_PHONE_REGION); adding it again changes nothing.
 * The account's leads at that number that wait for a call become `blacklisted`.
 */
export async function addDnc(scope: Scope, phoneNumber: string): Promise<DncNumber> {
  const phone = e164(scope, phoneNumber);
  await scope.em.transactional((em) => listNumber(em, scope.accountId, phone, null));
  const [row]: DncNumber[] = await scope.em.execute(`select ${COLUMNS} from dnc_numbers where account_id = ? and phone_number = ?`, [scope.accountId, phone]);
  return row;
}

/**
 * Puts `phone` (E.164) on the account's list, in the caller's transaction, saying why (null:
 * through the API; `sms_stop`: the customer opted out by text); listed already, nothing
 * changes. Answers whether it was added. The account's leads at that number that wait for a
 * call become `blacklisted`.
 */
export async function listNumber(em: EntityManager, accountId: number, phone: string, reason: string | null): Promise<boolean> {
  const added = await em.execute('insert into dnc_numbers (account_id, phone_number, reason) values (?, ?, ?) on conflict do nothing returning 1', [accountId, phone, reason]);
  // The dialer would find them listed anyway; marking them now shows it at once.
  const rows: Record<string, any>[] = await em.execute(
    `update leads l set status = 'blacklisted', next_attempt_at = null, updated_at = now()
     where l.account_id = ? and l.phone_number = ? and ${LEAD_DIALABLE} returning *`,
    [accountId, phone],
  );
  await emitEvents(em, leadEvents(accountId, rows));
  return added.length > 0;
}

export async function removeDnc(scope: Scope, phoneNumber: string): Promise<void> {
  const phone = toE164(phoneNumber, scope.config.defaultPhoneRegion);
  const removed = phone ? await scope.em.execute('delete from dnc_numbers where account_id = ? and phone_number = ? returning 1', [scope.accountId, phone]) : [];
  if (removed.length === 0) throw new NotFoundError(Messages.dncNotFound);
}

/** Refuses a call or an SMS to a number on the account's list (422 on `phone_number`). */
export async function refuseDoNotCall(em: EntityManager, accountId: number, phone: string): Promise<void> {
  if (await onDoNotCall(em, accountId, phone)) throw new ValidationError({ phone_number: [FieldMessages.doNotCall] });
}

/** Whether the account's do-not-call list has the number (E.164). */
export async function onDoNotCall(em: EntityManager, accountId: number, phone: string): Promise<boolean> {
  const [row] = await em.execute('select 1 as listed from dnc_numbers where account_id = ? and phone_number = ?', [accountId, phone]);
  return row !== undefined;
}
