import type { EntityManager } from '@mikro-orm/postgresql';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import Decimal from 'decimal.js';
import type { Config } from '../../config';
import { DomainError, FieldErrorCollector, FieldMessages, Messages, NotFoundError } from '../../errors';
import { parsePhone, phoneProblem } from '../../lib/phone';
import { campaignEvents } from '../campaigns/campaign.snapshot';
import { emitEvents } from '../events/event.outbox';
import type { Scope } from '../scope';
import { adjustBalance } from './account.service';
import { NumberRefused, type AvailableNumber, type NumberProvider } from './phone-number.ports';

/** The webhooks a bought number is pointed at: this service's voice and messaging URLs. */
export function numberWebhooks(config: Config): { voiceUrl: string; smsUrl: string } {
  const base = config.publicUrl.replace(/\/+$/, '');
  return { voiceUrl: `${base}/telephony/twilio/voice`, smsUrl: `${base}/telephony/twilio/messaging` };
}

/** A number's monthly price by its country (PHONE_NUMBER_PRICES), an exact decimal. */
export function monthlyPrice(config: Config, country: string | undefined): string {
  return (country && config.phoneNumberPrices[country]) ?? config.phoneNumberPrices['*'];
}

export interface AvailableNumberOffer extends AvailableNumber {
  /** What a month of it costs, charged at purchase and at each renewal. */
  monthly_price: number;
}

/** The numbers the provider offers in a country, each with its monthly price; numbers already an account's left out. */
export async function searchNumbers(scope: Scope, provider: NumberProvider, countryCode: string | null | undefined, contains: string | null | undefined): Promise<AvailableNumberOffer[]> {
  const errors = new FieldErrorCollector();
  const country = (countryCode ?? '').trim().toUpperCase();
  if (!country) errors.add('country_code', FieldMessages.required('country_code'));
  else if (!/^[A-Z]{2}$/.test(country)) errors.add('country_code', FieldMessages.countryCode);
  const digits = contains == null || contains.trim() === '' ? null : contains.trim();
  if (digits !== null && !/^\d{2,16}$/.test(digits)) errors.add('contains', FieldMessages.numberPattern);
  errors.throwIfAny();
  let offered: AvailableNumber[];
  try {
    offered = await provider.search(country, digits);
  } catch (error) {
    if (error instanceof NumberRefused) throw new DomainError('VALIDATION_FAILED', Messages.validationFailed, { country_code: [FieldMessages.numberSearchRefused(error.detail)] });
    throw new DomainError('PROVIDER_FAILURE', Messages.numberSearchFailed, undefined, { error: (error as Error).message });
  }
  if (!offered.length) return [];
  // As JSON: the query builder would spread a JS array into a list of parameters.
  const taken: { number: string }[] = await scope.em.execute(`select number from phone_numbers where number in (select jsonb_array_elements_text(?::jsonb))`, [
    JSON.stringify(offered.map((n) => n.phone_number)),
  ]);
  const owned = new Set(taken.map((row) => row.number));
  return offered
    .filter((n) => !owned.has(n.phone_number))
    .map((n) => ({ ...n, monthly_price: Number(monthlyPrice(scope.config, parsePhone(n.phone_number, null)?.country ?? n.iso_country)) }));
}

/** The number's parse, or the field error that says what is wrong with it. */
function numberToBuy(config: Config, input: string | null | undefined): { number: string; country: string | undefined } {
  const errors = new FieldErrorCollector();
  const parsed = typeof input === 'string' ? parsePhone(input, config.defaultPhoneRegion) : null;
  if (input == null || input === '') errors.add('phone_number', FieldMessages.required('phone_number'));
  else if (!parsed) {
    errors.add('phone_number', phoneProblem(input, config.defaultPhoneRegion) === 'no-region' ? FieldMessages.phoneWithoutRegion('phone_number') : FieldMessages.phone('phone_number'));
  }
  errors.throwIfAny();
  return parsed!;
}

const numberTaken = () => new DomainError('VALIDATION_FAILED', Messages.validationFailed, { phone_number: [FieldMessages.numberTaken] });

/**
 * Buys a number for the account: its first month charged to the balance. The balance is
 * checked before the provider is asked (nothing is bought for an account that cannot pay); the
 * charge and the number's row are written together after the provider bought it, in one
 * transaction whose debit holds only while the balance covers it, so concurrent purchases
 * never overdraw. When that transaction fails (the balance went to another purchase, the
 * number to another account), the number is released at the provider: nothing bought,
 * nothing charged. Answers the new number's id.
 */
export async function purchaseNumber(scope: Scope, provider: NumberProvider, input: string | null | undefined): Promise<number> {
  const { em, accountId, config } = scope;
  const { number, country } = numberToBuy(config, input);
  const price = monthlyPrice(config, country);
  const [state]: { taken: boolean; covered: boolean }[] = await em.execute(
    `select exists (select 1 from phone_numbers where number = ?) as taken,
            (select balance >= ?::numeric from accounts where id = ?) as covered`,
    [number, price, accountId],
  );
  if (state.taken) throw numberTaken();
  if (!state.covered) throw new DomainError('INSUFFICIENT_BALANCE', Messages.insufficientBalance);

  let sid: string;
  try {
    ({ sid } = await provider.buy(number, numberWebhooks(config)));
  } catch (error) {
    if (error instanceof NumberRefused) throw new DomainError('VALIDATION_FAILED', Messages.validationFailed, { phone_number: [FieldMessages.numberUnavailable(error.detail)] });
    throw new DomainError('PROVIDER_FAILURE', Messages.numberPurchaseFailed, undefined, { error: (error as Error).message });
  }

  try {
    return await em.fork().transactional(async (tx) => {
      const [row]: { id: number }[] = await tx.execute(
        `insert into phone_numbers (account_id, number, sms_enabled, subscription_expires_at, provider, provider_sid, monthly_price, renews)
         values (?, ?, true, (current_date + interval '1 month')::date, ?, ?, ?, true) returning id`,
        [accountId, number, provider.name, sid, price],
      );
      const after = await adjustBalance(tx, accountId, new Decimal(price).negated(), 'phone_number', `phone_number:${row.id}`, { lowThreshold: config.balanceLowThreshold });
      if (after === null) throw new DomainError('INSUFFICIENT_BALANCE', Messages.insufficientBalance);
      return row.id;
    });
  } catch (error) {
    // Bought at the provider but not here: given back, so that nobody pays for it.
    await provider.release(sid).catch(() => {});
    if (error instanceof UniqueConstraintViolationException) throw numberTaken();
    throw error;
  }
}

const NICKNAME_MAX = 50;

/** Names one of the account's numbers (null: no name). */
export async function updateNumber(scope: Scope, id: number, nickname: string | null | undefined): Promise<number> {
  const errors = new FieldErrorCollector();
  const name = nickname == null ? null : nickname.trim() || null;
  // The original platform's bound (its MCP server's update_phone_number: "max 50 chars").
  if (name !== null && name.length > NICKNAME_MAX) errors.add('nickname', FieldMessages.maxLength('nickname', NICKNAME_MAX));
  errors.throwIfAny();
  const rows: { id: number }[] = await scope.em.execute(
    `update phone_numbers set nickname = ?, updated_at = now() where id = ? and account_id = ? returning id`,
    [name, id, scope.accountId],
  );
  if (!rows.length) throw new NotFoundError(Messages.phoneNumberNotFound);
  return id;
}

/**
 * Releases one of the account's numbers: first at the provider that sold it (a failure there
 * changes nothing here), then, in one transaction, its assistants lose it, the campaigns that
 * named it as a caller id stop naming it, the running ones it leaves without any number pause
 * (`no_phone_number`, with `campaign.status_changed`), and the number goes.
 */
export async function releaseNumber(scope: Scope, provider: NumberProvider, id: number): Promise<void> {
  const { em, accountId } = scope;
  const [phone]: { provider: string | null; provider_sid: string | null }[] = await em.execute(
    'select provider, provider_sid from phone_numbers where id = ? and account_id = ?',
    [id, accountId],
  );
  if (!phone) throw new NotFoundError(Messages.phoneNumberNotFound);
  // A number the operator gave (no provider), or one another provider sold, is not this provider's to release.
  if (phone.provider_sid && phone.provider === provider.name) {
    try {
      await provider.release(phone.provider_sid);
    } catch (error) {
      throw new DomainError('PROVIDER_FAILURE', Messages.numberReleaseFailed, undefined, { error: (error as Error).message });
    }
  }
  await em.fork().transactional(async (tx) => {
    // FOR UPDATE: the row is deleted below.
    const locked = await tx.execute('select id from phone_numbers where id = ? and account_id = ? for update', [id, accountId]);
    if (!locked.length) throw new NotFoundError(Messages.phoneNumberNotFound);
    await tx.execute('update assistants set phone_number_id = null, updated_at = now() where phone_number_id = ?', [id]);
    await tx.execute(
      `update campaigns set phone_number_ids = (select coalesce(jsonb_agg(e), '[]'::jsonb) from jsonb_array_elements(phone_number_ids) e where e <> to_jsonb(?::int)),
              updated_at = now()
       where account_id = ? and phone_number_ids @> jsonb_build_array(?::int)`,
      [id, accountId, id],
    );
    const paused: Record<string, unknown>[] = await tx.execute(
      `update campaigns c set status = 'paused', paused_reason = 'no_phone_number', updated_at = now()
       where c.account_id = ? and c.status = 'running' and jsonb_array_length(c.phone_number_ids) = 0
         and not exists (select 1 from assistants a where a.id = c.assistant_id and a.phone_number_id is not null)
       returning *`,
      [accountId],
    );
    await emitEvents(tx, campaignEvents(paused));
    await tx.execute('delete from phone_numbers where id = ?', [id]);
  });
}

/** How many due numbers one renewal transaction claims. */
const RENEWAL_BATCH = 100;

/**
 * Renews the numbers whose month ends today or before: each charged its monthly price and
 * given another month, or, when the balance does not cover it, left to expire (no longer
 * renewed) with `phone_number.expired`. A number is claimed with its row lock (SKIP LOCKED)
 * and charged in the same transaction that moves its end, so two workers never charge one
 * month twice. Answers how many were renewed and how many expired.
 */
export async function renewDueNumbers(em: EntityManager, config: Config): Promise<{ renewed: number; expired: number }> {
  const done = { renewed: 0, expired: 0 };
  for (;;) {
    const claimed = await em.fork().transactional(async (tx) => {
      const due: { id: number; account_id: number; number: string; monthly_price: string; expires_at: string }[] = await tx.execute(
        `select id, account_id, number, monthly_price::text as monthly_price, to_char(subscription_expires_at, 'YYYY-MM-DD') as expires_at
         from phone_numbers where renews and subscription_expires_at <= current_date
         order by subscription_expires_at, id limit ? for no key update skip locked`,
        [RENEWAL_BATCH],
      );
      for (const phone of due) {
        const after = await adjustBalance(tx, phone.account_id, new Decimal(phone.monthly_price).negated(), 'phone_number', `phone_number:${phone.id}`, {
          lowThreshold: config.balanceLowThreshold,
        });
        if (after !== null) {
          await tx.execute(`update phone_numbers set subscription_expires_at = (subscription_expires_at + interval '1 month')::date, updated_at = now() where id = ?`, [phone.id]);
          done.renewed += 1;
          continue;
        }
        await tx.execute('update phone_numbers set renews = false, updated_at = now() where id = ?', [phone.id]);
        await emitEvents(tx, [
          {
            accountId: phone.account_id,
            type: 'phone_number.expired',
            data: { id: phone.id, phone_number: phone.number, expires_at: phone.expires_at, monthly_price: Number(phone.monthly_price), reason: 'insufficient_balance' },
          },
        ]);
        done.expired += 1;
      }
      return due.length;
    });
    if (claimed < RENEWAL_BATCH) return done;
  }
}
