import type { FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import Decimal from 'decimal.js';
import type { Config } from '../../config';
import { findWithTotal } from '../../db/entity-manager';
import { readOnlyMapper } from '../../db/read-only';
import { addJobSql, jobKey } from '../../jobs/queue';
import { DomainError, FieldErrorCollector, FieldMessages, Messages, NotFoundError, ValidationError } from '../../errors';
import { makePage, offsetOf, type Page } from '../../graphql/pagination';
import { checkOneOf, checkPositiveInt } from '../../lib/checks';
import { checkPaging, type ListArgs } from '../../lib/listing';
import { smsOutcomes } from '../../metrics';
import { parsePhone, toE164 } from '../../lib/phone';
import { SmsOutcomeUnknown, SmsProviderError, type OutgoingSms, type SmsProvider } from './sms.ports';
import { Account } from '../accounts/account.entity';
import { adjustBalance, noteLowBalance } from '../accounts/account.service';
import { emitEvents } from '../events/event.outbox';
import { claimKey, storeResponse, type KeyRef } from '../idempotency/idempotency.service';
import type { Scope } from '../scope';
import { countSegments } from './segments';
import { SMS_STATUSES, Sms, type SmsChannel } from './sms.entity';
import type { SmsRecord } from './sms.record';

export const MAX_SMS_BODY = 300;

export interface SendSmsInput {
  from: number;
  to: string;
  body: string;
}

/**
 * What an idempotency key of send_sms remembers: the message, whose state answers every
 * replay. Keys stored before messages could be settled later hold the answer itself.
 */
type KeyedSms = { sms_id: number } | { ok: true; sms: SmsRecord } | { ok: false; detail: string };

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

/** The price of a segment to a number of `country` (parsePhone's), or the price for the rest. */
export function segmentPrice(config: Config, country: string | undefined): string {
  return (country && config.sms.prices[country]) ?? config.sms.prices['*'];
}

/** The answer a message's state gives: the record (sent, or still `sending`), or the provider's refusal. */
function answer(sms: Sms): SmsRecord {
  if (sms.status === 'failed') throw new DomainError('PROVIDER_FAILURE', Messages.smsFailed, undefined, { error: sms.error ?? '' });
  return toRecord(sms);
}

/**
 * Sends an SMS and charges it, never twice and never below zero. The checks run in the
 * spec's order inside one transaction that also reserves the cost (a conditional UPDATE of
 * the balance, with its ledger row), records the message as `sending` and schedules its
 * reconciliation. The provider is called after that commits; its answer settles the
 * message in a second transaction: `sent` with the provider's id, or `failed` with the
 * charge reversed. When nobody can tell whether the provider took it (a timeout, a 5xx, a
 * cut answer), the client gets the record as `sending` (202 over REST), and the scheduled
 * job asks the provider and settles it the same way. With an idempotency key, every replay
 * answers the message's state at that time and charges nothing more.
 */
export async function sendSms(
  scope: Scope,
  provider: SmsProvider,
  input: SendSmsInput,
  idempotencyKey?: string | null,
): Promise<SmsRecord> {
  const errors = new FieldErrorCollector();
  checkPositiveInt(errors, 'from', input.from);
  const characters = [...input.body].length;
  if (characters === 0) errors.add('body', FieldMessages.required('body'));
  else if (characters > MAX_SMS_BODY) errors.add('body', FieldMessages.maxLength('body', MAX_SMS_BODY));
  if (input.to.trim() === '') errors.add('to', FieldMessages.required('to'));
  errors.throwIfAny();

  const { sms: smsConfig } = scope.config;
  const ref: KeyRef | null = idempotencyKey == null ? null : { accountId: scope.accountId, operation: 'send_sms', key: idempotencyKey };
  const reserved = await scope.em.transactional(async (tx) => {
    if (ref) {
      const claim = await claimKey<KeyedSms>(tx, ref, input);
      if (claim.kind !== 'new') return claim;
    }
    // The sender and whether the recipient is on the do-not-call list, in one statement;
    // the errors in the spec's order.
    const recipient = parsePhone(input.to, scope.config.defaultPhoneRegion);
    const to = recipient?.number;
    const [sender]: { id: number; number: string; sms_enabled: boolean; expires: string | null; listed: boolean }[] = await tx.execute(
      `select p.id, p.number, p.sms_enabled, p.subscription_expires_at::text as expires,
         exists (select 1 from dnc_numbers d where d.account_id = p.account_id and d.phone_number = ?) as listed
       from phone_numbers p where p.id = ? and p.account_id = ?`,
      [to ?? '', input.from, scope.accountId],
    );
    if (!sender) throw new NotFoundError(Messages.senderNotFound);
    if (!sender.sms_enabled) throw new DomainError('FORBIDDEN', Messages.senderWithoutSms);
    const today = new Date().toISOString().slice(0, 10);
    if (sender.expires !== null && sender.expires < today) throw new DomainError('FORBIDDEN', Messages.senderExpired);
    if (!to) throw new ValidationError({ to: [FieldMessages.phone('to')] }, Messages.recipientInvalid);
    if (sender.listed) throw new ValidationError({ phone_number: [FieldMessages.doNotCall] });

    const sms = await reserveSms(tx, scope.config, provider, {
      accountId: scope.accountId,
      sender,
      to,
      country: recipient?.country,
      body: input.body,
    });
    if (ref) await storeResponse(tx, ref, { sms_id: sms.reference } satisfies KeyedSms);
    return { kind: 'reserved' as const, sms };
  });

  if (reserved.kind === 'in-flight') throw new DomainError('CONFLICT', Messages.idempotencyInFlight);
  if (reserved.kind === 'replay') {
    const keyed = reserved.response;
    if ('sms_id' in keyed) return answer(await settledOrTimeout(scope.em, keyed.sms_id, smsConfig.timeoutMs + 1000));
    if (keyed.ok) return keyed.sms;
    throw new DomainError('PROVIDER_FAILURE', Messages.smsFailed, undefined, { error: keyed.detail });
  }

  return answer(await deliverSms(scope.em, provider, reserved.sms));
}

/** A message to reserve: its sender (one of the account's numbers), recipient (E.164) and text. */
export interface SmsToReserve {
  accountId: number;
  sender: { id: number; number: string };
  to: string;
  /** The recipient's region (parsePhone's), for its price. */
  country: string | undefined;
  body: string;
  channel?: SmsChannel;
  /** The conversation the message is a reply of (its cost is counted there). */
  conversationId?: string | null;
}

/**
 * The reservation of an SMS, in the caller's transaction and in one statement: the balance
 * taken if it covers the cost, and only then the message (`sending`), its ledger row and its
 * reconciliation job. Whatever happens to this process after the commit, the message gets
 * settled. INSUFFICIENT_BALANCE when the balance does not cover it (nothing written). The
 * caller has made the spec's checks (sender, recipient, do-not-call list).
 */
export async function reserveSms(tx: EntityManager, config: Config, provider: SmsProvider, message: SmsToReserve): Promise<OutgoingSms> {
  const { encoding, segments } = countSegments(message.body);
  const price = new Decimal(segmentPrice(config, message.country));
  const cost = price.times(segments).toFixed(4);
  const channel = message.channel ?? 'sms';
  const runAt = new Date(Date.now() + config.sms.timeoutMs + config.sms.reconcileAfterMs).toISOString();
  const [reservedRow]: Record<string, unknown>[] = await tx.execute(
    `with debit as (
       update accounts set balance = balance - ?::numeric, updated_at = now() where id = ? and balance - ?::numeric >= 0 returning balance),
     sms as (
       insert into sms_messages (account_id, phone_number_id, "from", "to", body, encoding, segments, segment_price, total_cost, status, provider, channel, conversation_id)
       select ?, ?, ?, ?, ?, ?, ?, ?, ?, 'sending', ?, ?, ?::bigint from debit returning *),
     ledger as (
       insert into ledger_entries (account_id, amount, balance_after, kind, reference)
       select ?, -?::numeric, debit.balance, 'sms', 'sms:' || sms.id from debit, sms),
     job as (
       select ${addJobSql('sms:reconcile', 'sms.id', '?::timestamptz')} from sms)
     select sms.*, debit.balance::text as balance_after from sms, debit, job`,
    [
      cost, message.accountId, cost,
      message.accountId, message.sender.id, message.sender.number, message.to, message.body, encoding, segments, price.toFixed(4), cost, provider.name, channel,
      message.conversationId ?? null,
      message.accountId, cost,
      runAt,
    ],
  );
  if (!reservedRow) throw new DomainError('INSUFFICIENT_BALANCE', Messages.insufficientBalance);
  const after = String(reservedRow.balance_after);
  await noteLowBalance(tx, message.accountId, new Decimal(after).plus(cost), after, config.balanceLowThreshold);
  const outgoing: OutgoingSms = { reference: Number(reservedRow.id), from: message.sender.number, to: message.to, body: message.body };
  if (channel !== 'sms') outgoing.channel = channel;
  return outgoing;
}

/**
 * Sends a reserved message (after the reservation committed) and settles it by the
 * provider's answer: `sent`, or `failed` with the charge given back; when nobody can tell,
 * it stays `sending` for its reconciliation job. Answers the message as it then stands.
 */
export async function deliverSms(em: EntityManager, provider: SmsProvider, sms: OutgoingSms): Promise<Sms> {
  let sid: string;
  try {
    ({ sid } = await provider.send(sms));
  } catch (error) {
    if (error instanceof SmsProviderError) return settleSms(em.fork(), sms.reference, { state: 'refused', detail: error.detail });
    if (error instanceof SmsOutcomeUnknown) {
      smsOutcomes.inc({ outcome: 'pending' });
      return em.fork().findOneOrFail(Sms, { id: sms.reference });
    }
    throw error;
  }
  return settleSms(em.fork(), sms.reference, { state: 'accepted', sid });
}

/**
 * Settles a message that is still `sending`, once: accepted makes it `sent` with the
 * provider's id; refused makes it `failed` and gives the charge back. A message already
 * settled is left as it is. Answers the message as it then stands.
 */
export async function settleSms(
  em: EntityManager,
  smsId: number,
  outcome: { state: 'accepted'; sid: string } | { state: 'refused'; detail: string },
): Promise<Sms> {
  const { sms, settled } = await em.transactional(async (tx) => {
    // Settled once: the update takes only a message still `sending`, and its job goes with it.
    const [row]: Record<string, unknown>[] = await tx.execute(
      `with settled as (
         update sms_messages set status = ?, sms_sid = coalesce(?, sms_sid), error = ?, updated_at = now() where id = ? and status = 'sending' returning *),
       job as (select graphile_worker.remove_job(?) from settled)
       select settled.* from settled left join job on true`,
      outcome.state === 'accepted' ? ['sent', outcome.sid, null, smsId, jobKey('sms:reconcile', smsId)] : ['failed', null, outcome.detail.slice(0, 512), smsId, jobKey('sms:reconcile', smsId)],
    );
    if (!row) return { sms: await tx.findOneOrFail(Sms, { id: smsId }), settled: false };
    // Read-only (nothing flushes it): the answer and the event are all that read it.
    const sms = readOnlyMapper(tx, Sms)(row);
    sms.account = tx.getReference(Account, Number(row.account_id));
    if (sms.status === 'failed') await adjustBalance(tx, sms.account.id, sms.total_cost, 'sms_refund', `sms:${sms.id}`);
    await emitEvents(tx, [{ accountId: sms.account.id, type: sms.status === 'sent' ? 'sms.sent' : 'sms.failed', data: { ...toRecord(sms) } }]);
    return { sms, settled: true };
  });
  if (settled) smsOutcomes.inc({ outcome: sms.status });
  return sms;
}

/**
 * The job of `sms:reconcile`: asks the provider what became of a message still
 * `sending` and settles it. The provider's message with our text, to our number, made since
 * just before ours and not already another message's, is ours; none means the provider never
 * took it, and the charge goes back. A provider that cannot be asked throws, and the job is
 * tried again later.
 */
export async function reconcileSms(em: EntityManager, provider: SmsProvider, smsId: number): Promise<void> {
  const sms = await em.findOne(Sms, { id: smsId });
  if (!sms || sms.status !== 'sending') return;
  const createdAfter = new Date(Date.parse(`${sms.created_at.replace(' ', 'T')}Z`) - 60_000);
  const channel = sms.channel === 'whatsapp' ? { channel: sms.channel } : {};
  const candidates = await provider.find({ reference: sms.id, from: sms.from, to: sms.to, body: sms.body, ...channel, sid: sms.sms_sid, createdAfter });
  const taken = candidates.length
    ? new Set((await em.find(Sms, { sms_sid: { $in: candidates.map((c) => c.sid) }, id: { $ne: sms.id } }, { fields: ['sms_sid'] })).map((m) => m.sms_sid))
    : new Set<string | null>();
  const ours = candidates.find((candidate) => !taken.has(candidate.sid));
  if (!ours) {
    await settleSms(em, sms.id, { state: 'refused', detail: `${provider.name}: the provider has no record of the message` });
  } else if (ours.state === 'accepted') {
    await settleSms(em, sms.id, { state: 'accepted', sid: ours.sid });
  } else {
    await settleSms(em, sms.id, { state: 'refused', detail: ours.detail ?? `${provider.name}: the message was not sent` });
  }
}

/** The message once it is settled, or as it stands after `timeoutMs` (its sender may still be waiting for the provider). */
async function settledOrTimeout(em: EntityManager, smsId: number, timeoutMs: number): Promise<Sms> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const sms = await em.fork().findOneOrFail(Sms, { id: smsId });
    if (sms.status !== 'sending' || Date.now() > deadline) return sms;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
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
  const [rows, total] = await findWithTotal(scope.em, Sms, where, { orderBy: { id: 'desc' }, limit: perPage, offset: offsetOf(page, perPage) });
  return makePage(rows.map(toRecord), total, page, perPage);
}
