import type { FilterQuery } from '@mikro-orm/core';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import Decimal from 'decimal.js';
import type { Config } from '../../config';
import { DomainError, FieldErrorCollector, FieldMessages, Messages, NotFoundError, ValidationError } from '../../errors';
import { makePage, offsetOf, type Page } from '../../graphql/pagination';
import { checkOneOf, checkPositiveInt } from '../../lib/checks';
import { checkPaging, type ListArgs } from '../../lib/listing';
import { toE164 } from '../../lib/phone';
import { SmsProviderError, type SmsProvider } from '../../telephony/sms';
import { Account } from '../accounts/account.entity';
import { adjustBalance } from '../accounts/account.service';
import { PhoneNumber } from '../accounts/phone-number.entity';
import { awaitResponse, claimKey, storeResponse, type KeyRef } from '../idempotency/idempotency.service';
import type { Scope } from '../scope';
import { countSegments } from './segments';
import { SMS_STATUSES, Sms } from './sms.entity';
import type { SmsRecord } from './sms.types';

export const MAX_SMS_BODY = 300;

export interface SendSmsInput {
  from: number;
  to: string;
  body: string;
}

/** What an idempotency key remembers: the record, or the provider failure to answer again. */
type Outcome = { ok: true; sms: SmsRecord } | { ok: false; detail: string };

export function toRecord(sms: Sms): SmsRecord {
  return {
    id: sms.id,
    phone_number_id: sms.phone_number_id,
    from: sms.from,
    to: sms.to,
    body: sms.body,
    user_id: sms.account.id,
    encoding: sms.encoding,
    segments: sms.segments,
    segment_price: Number(sms.segment_price),
    total_cost: Number(sms.total_cost),
    status: sms.status,
    sms_sid: sms.sms_sid,
    error: sms.error,
    created_at: sms.created_at,
    updated_at: sms.updated_at,
  };
}

export function segmentPrice(config: Config, to: string): string {
  const region = parsePhoneNumberFromString(to)?.country;
  return (region && config.sms.prices[region]) ?? config.sms.prices['*'];
}

function outcomeResult(outcome: Outcome): SmsRecord {
  if (outcome.ok) return outcome.sms;
  throw new DomainError('PROVIDER_FAILURE', Messages.smsFailed, undefined, { error: outcome.detail });
}

/**
 * Sends an SMS and charges it, never twice and never below zero. The checks run in the
 * spec's order inside one transaction that also reserves the cost (a conditional UPDATE of
 * the balance, with its ledger row) and records the message as `sending`. The provider is
 * called after that commits; its answer is written in a second transaction: `sent` with the
 * provider's id, or `failed` with the charge reversed by a compensating ledger row. With an
 * idempotency key, a replay answers the first outcome and charges nothing more.
 */
export async function sendSms(scope: Scope, provider: SmsProvider, input: SendSmsInput, idempotencyKey?: string | null): Promise<SmsRecord> {
  const errors = new FieldErrorCollector();
  checkPositiveInt(errors, 'from', input.from);
  const characters = [...input.body].length;
  if (characters === 0) errors.add('body', FieldMessages.required('body'));
  else if (characters > MAX_SMS_BODY) errors.add('body', FieldMessages.maxLength('body', MAX_SMS_BODY));
  if (input.to.trim() === '') errors.add('to', FieldMessages.required('to'));
  errors.throwIfAny();

  const ref: KeyRef | null = idempotencyKey == null ? null : { accountId: scope.accountId, operation: 'send_sms', key: idempotencyKey };
  const reserved = await scope.em.transactional(async (tx) => {
    if (ref) {
      const claim = await claimKey<Outcome>(tx, ref, input);
      if (claim.kind !== 'new') return claim;
    }
    const sender = await tx.findOne(PhoneNumber, { id: input.from, account: scope.accountId });
    if (!sender) throw new NotFoundError(Messages.senderNotFound);
    if (!sender.sms_enabled) throw new DomainError('FORBIDDEN', Messages.senderWithoutSms);
    const today = new Date().toISOString().slice(0, 10);
    if (sender.subscription_expires_at !== null && sender.subscription_expires_at < today) {
      throw new DomainError('FORBIDDEN', Messages.senderExpired);
    }
    const to = toE164(input.to, scope.config.defaultPhoneRegion);
    if (!to) throw new ValidationError({ to: [FieldMessages.phone('to')] }, Messages.recipientInvalid);

    const { encoding, segments } = countSegments(input.body);
    const price = new Decimal(segmentPrice(scope.config, to));
    const cost = price.times(segments);
    const sms = tx.create(Sms, {
      account: tx.getReference(Account, scope.accountId),
      phone_number_id: sender.id,
      from: sender.number,
      to,
      body: input.body,
      encoding,
      segments,
      segment_price: price.toFixed(4),
      total_cost: cost.toFixed(4),
      status: 'sending',
      provider: provider.name,
    });
    await tx.flush();
    const balance = await adjustBalance(tx, scope.accountId, cost.negated(), 'sms', `sms:${sms.id}`);
    if (balance === null) throw new DomainError('INSUFFICIENT_BALANCE', Messages.insufficientBalance);
    return { kind: 'reserved' as const, sms: { id: sms.id, from: sms.from, to: sms.to, body: sms.body } };
  });

  if (reserved.kind === 'replay') return outcomeResult(reserved.response);
  if (reserved.kind === 'in-flight') return outcomeResult(await awaitResponse<Outcome>(scope.em, ref!));

  const { sms } = reserved;
  let outcome: Outcome;
  try {
    const { sid } = await provider.send({ from: sms.from, to: sms.to, body: sms.body });
    outcome = await scope.em.fork().transactional(async (tx) => {
      const sent = await tx.findOneOrFail(Sms, { id: sms.id });
      sent.status = 'sent';
      sent.sms_sid = sid;
      await tx.flush();
      const result: Outcome = { ok: true, sms: toRecord(sent) };
      if (ref) await storeResponse(tx, ref, result);
      return result;
    });
  } catch (error) {
    if (!(error instanceof SmsProviderError)) throw error;
    outcome = await scope.em.fork().transactional(async (tx) => {
      const failed = await tx.findOneOrFail(Sms, { id: sms.id });
      failed.status = 'failed';
      failed.error = error.detail.slice(0, 512);
      await tx.flush();
      await adjustBalance(tx, scope.accountId, failed.total_cost, 'sms_refund', `sms:${failed.id}`);
      const result: Outcome = { ok: false, detail: error.detail };
      if (ref) await storeResponse(tx, ref, result);
      return result;
    });
  }
  return outcomeResult(outcome);
}

export async function requireSms(scope: Scope, id: number): Promise<SmsRecord> {
  const sms = await scope.em.findOne(Sms, { id, account: scope.accountId });
  if (!sms) throw new NotFoundError(Messages.smsNotFound);
  return toRecord(sms);
}

export interface SmsListArgs extends ListArgs {
  status?: string | null;
  to?: string | null;
  phone_number_id?: number | null;
}

/** A page of the account's SMS, newest first. */
export async function listSms(scope: Scope, args: SmsListArgs): Promise<Page<SmsRecord>> {
  const errors = new FieldErrorCollector();
  const { page, perPage, createdAt } = checkPaging(errors, args);
  const where: FilterQuery<Sms> = { account: scope.accountId };
  if (args.status != null && checkOneOf(errors, 'status', args.status, SMS_STATUSES)) where.status = args.status;
  if (args.phone_number_id != null && checkPositiveInt(errors, 'phone_number_id', args.phone_number_id)) where.phone_number_id = args.phone_number_id;
  if (args.to != null) {
    const to = toE164(args.to, scope.config.defaultPhoneRegion);
    if (to) where.to = to;
    else errors.add('to', FieldMessages.phone('to'));
  }
  errors.throwIfAny();
  if (createdAt) where.created_at = createdAt;
  const [rows, total] = await scope.em.findAndCount(Sms, where, { orderBy: { id: 'desc' }, limit: perPage, offset: offsetOf(page, perPage) });
  return makePage(rows.map(toRecord), total, page, perPage);
}
