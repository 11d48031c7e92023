import { IsolationLevel, type EntityManager } from '@mikro-orm/postgresql';
import Decimal from 'decimal.js';
import type { Config } from '../../config';
import { DomainError, FieldErrorCollector, FieldMessages, Messages, NotFoundError, ValidationError } from '../../errors';
import { makePage, offsetOf, type Page } from '../../graphql/pagination';
import { checkOneOf, checkPositiveInt } from '../../lib/checks';
import { checkPaging, type Paging } from '../../lib/listing';
import { toE164 } from '../../lib/phone';
import { readOnlyMapper } from '../../db/read-only';
import { selectPrepared } from '../../db/prepared';
import type { TelephonyProvider } from './call.ports';
import { ACCOUNT_CALLS_IN_FLIGHT } from './call.sql';
import { PhoneNumber } from '../accounts/phone-number.entity';
import { Assistant } from '../assistants/assistant.entity';
import { requireAssistant } from '../assistants/assistant.service';
import { applyLedgerChanges } from '../accounts/account.service';
import { refuseDoNotCall } from '../dnc/dnc.service';
import { callSnapshot } from './call.snapshot';
import { emitEvents } from '../events/event.outbox';
import { idempotent } from '../idempotency/idempotency.service';
import type { Scope } from '../scope';
import { afterCall, firstPage, pageStatement, seek, type CallFilter, type Run, type Statement } from './call.list';
import { CALL_STATUSES, CALL_TYPES, Call, type CallType } from './call.entity';
import type { CallFeedArgs, CallFilterArgs, CallListArgs, CallStarted, MakeCallInput } from './call.inputs';
import type { LifecycleDeps } from './call.ports';
import { callReservation } from './call.pricing';
import { providerOf } from './call.web-provider';

interface CallsScope extends Scope {
  telephony: TelephonyProvider;
}

/**
 * Starts an outbound call. Checks in order: the number, the assistant (the account's,
 * outbound, with a phone number), a positive balance; then creates the call and hands it to
 * the provider in one transaction. With an idempotency key, a replay answers the first
 * response and starts nothing.
 */
export async function makeCall(scope: CallsScope, input: MakeCallInput, idempotencyKey?: string | null): Promise<CallStarted> {
  const errors = new FieldErrorCollector();
  checkPositiveInt(errors, 'assistant_id', input.assistant_id);
  errors.throwIfAny();
  const phone = toE164(input.phone_number, scope.config.defaultPhoneRegion);
  if (!phone) throw new ValidationError({ phone_number: [FieldMessages.phone('phone_number')] }, Messages.invalidPhoneNumber);

  const request = { phone_number: input.phone_number, assistant_id: input.assistant_id, variables: input.variables ?? {} };
  return idempotent(scope.em, scope.accountId, 'make_call', idempotencyKey, request, async (em) => {
    const txScope = { ...scope, em };
    const assistant = await requireAssistant(txScope, input.assistant_id);
    if (assistant.calls_direction !== 'make') throw new ValidationError({ assistant_id: [FieldMessages.assistantNotOutbound] });
    if (!assistant.phone_number) throw new ValidationError({ assistant_id: [FieldMessages.assistantWithoutPhone] });
    await refuseDoNotCall(em, scope.accountId, phone);
    const reservation = await admitCall(em, scope.config, scope.accountId, phone);
    const from = await em.findOneOrFail(PhoneNumber, { id: assistant.phone_number.id });
    const call = await startCall(em, scope.telephony, scope.config, {
      assistant,
      type: 'outbound',
      from: from.number,
      to: phone,
      variables: input.variables ?? {},
      reservation,
    });
    await reserveForCalls(em, scope.config, scope.accountId, [call]);
    return { call_id: call.id, status: call.status };
  });
}

/**
 * Whether the account may start one more call now, in the caller's transaction: the account
 * row is locked first, so concurrent starts (any process) are decided one after the other,
 * each seeing the calls and the balance the ones before it left. Refuses past
 * PLAN_MAX_PARALLEL_CALLS calls in flight, and when the balance does not cover the call's
 * reservation; answers that reservation, which startCall records and reserveForCalls takes.
 * `to` is null for a call with no carrier leg (a web call): its reservation is the fee alone.
 */
export async function admitCall(em: EntityManager, config: Config, accountId: number, to: string | null): Promise<string> {
  const [{ balance }] = await em.execute('select balance from accounts where id = ? for no key update', [accountId]);
  // A statement of its own: its snapshot is taken after the lock, so it sees every call
  // committed by the starts that held the lock before.
  const [{ in_flight }] = await em.execute(`select ${ACCOUNT_CALLS_IN_FLIGHT} as in_flight`, [accountId]);
  if (in_flight >= config.maxParallelCalls) throw new DomainError('PLAN_LIMIT', Messages.parallelCallLimit(config.maxParallelCalls));
  const reservation = callReservation(config, to);
  if (!coversReservation(balance, reservation)) throw new DomainError('INSUFFICIENT_BALANCE', Messages.insufficientBalance);
  return reservation;
}

/** Whether a balance can start a call: above zero and at least what the call reserves. */
export function coversReservation(balance: Decimal.Value, reservation: Decimal.Value): boolean {
  const available = new Decimal(balance);
  return available.greaterThan(0) && available.greaterThanOrEqualTo(reservation);
}

/**
 * Takes what the calls just started reserve (their `reserved_amount`) from the account's
 * balance, in one statement for all of them. The caller decided under the account's row lock
 * that the balance covers it (admitCall, or the dialer's run).
 */
export async function reserveForCalls(em: EntityManager, config: Config, accountId: number, calls: Pick<Call, 'id' | 'reserved_amount'>[]): Promise<void> {
  const changes = calls
    .filter((call) => new Decimal(call.reserved_amount).greaterThan(0))
    .map((call) => ({ amount: new Decimal(call.reserved_amount).negated(), kind: 'call_reservation' as const, reference: `call:${call.id}` }));
  if (changes.length) await applyLedgerChanges(em, accountId, changes, config.balanceLowThreshold);
}

/** The campaign lead a call is made to, and which of its attempts it is (the dialer's calls). */
export interface CallLead {
  id: number;
  campaign_id: number;
  campaign_name: string;
  attempt: number;
}

/**
 * Creates a call in `initiated`, linked to its lead (the dialer's calls), else to the
 * account's most recent lead with the customer's number (and so to its campaign), and hands
 * it to the provider. The caller takes its `reservation` from the balance (reserveForCalls).
 */
export async function startCall(
  em: EntityManager,
  telephony: TelephonyProvider,
  config: Config,
  spec: {
    assistant: Assistant;
    type: CallType;
    from: string;
    to: string;
    variables: Record<string, unknown>;
    reservation?: string;
    lead?: CallLead;
    /** The provider's id of a call it brought (an incoming call): nothing is placed. */
    providerCallId?: string;
  },
): Promise<Call> {
  const accountId = spec.assistant.account.id;
  // A web call has no number to find a lead by.
  const [lead] = spec.lead
    ? [spec.lead]
    : spec.type === 'web'
      ? []
      : await em.execute(
        `select l.id, l.campaign_id, c.name as campaign_name from leads l join campaigns c on c.id = l.campaign_id
         where l.account_id = ? and l.phone_number = ? order by l.id desc limit 1`,
        [accountId, spec.type === 'inbound' ? spec.from : spec.to],
      );
  const lifetime = telephony.longestCallSeconds(spec.assistant) + config.workers.sweeperMarginSeconds;
  const deadline = new Date(Date.now() + lifetime * 1000);
  const call = em.create(Call, {
    account_id: accountId,
    assistant_id: spec.assistant.id,
    assistant_name: spec.assistant.assistant_name,
    lead_id: lead?.id ?? null,
    campaign_id: lead?.campaign_id ?? null,
    campaign_name: lead?.campaign_name ?? null,
    attempt: spec.lead?.attempt ?? null,
    type: spec.type,
    status: 'initiated',
    assistant_phone_number: spec.type === 'inbound' ? spec.to : spec.from,
    client_phone_number: spec.type === 'inbound' ? spec.from : spec.to,
    input_variables: spec.variables,
    provider: telephony.name,
    provider_call_id: spec.providerCallId ?? null,
    deadline_at: deadline.toISOString(),
    reserved_amount: spec.reservation ?? '0',
  });
  await em.flush();
  await em.execute(`insert into call_events (call_id, status) values (?, 'initiated')`, [call.id]);
  await emitEvents(em, [{ accountId, type: 'call.initiated', data: callSnapshot(call) }]);
  await telephony.startCall(em, call, spec.assistant);
  return call;
}

/** A simulated call to an inbound assistant's number (the simulator provider only). */
export async function simulateInboundCall(
  em: EntityManager,
  telephony: TelephonyProvider,
  config: Config,
  input: { to: string; from: string; accountId: number | null },
): Promise<Call> {
  const region = config.defaultPhoneRegion;
  if (telephony.name !== 'simulator') throw new DomainError('FORBIDDEN', Messages.simulatorOnly);
  const errors = new FieldErrorCollector();
  const to = toE164(input.to, region);
  const from = toE164(input.from, region);
  if (!to) errors.add('to', FieldMessages.phone('to'));
  if (!from) errors.add('from', FieldMessages.phone('from'));
  errors.throwIfAny(Messages.invalidPhoneNumber);
  return em.transactional(async (tx) => {
    const assistant = await tx.findOne(
      Assistant,
      { calls_direction: 'receive', phone_number: { number: to! }, ...(input.accountId !== null ? { account: input.accountId } : {}) },
      { orderBy: { id: 'asc' } },
    );
    if (!assistant) throw new ValidationError({ to: [FieldMessages.noInboundAssistant] });
    return startCall(tx, telephony, config, { assistant, type: 'inbound', from: from!, to: to!, variables: {} });
  });
}

/**
 * The hottest read of the API: one prepared statement, read-only (`findOne` spends most of
 * this request building the same SQL from metadata, `em.map` registering what is only read).
 */
export async function readCall(scope: Scope, id: number): Promise<Call> {
  const [row] = await selectPrepared<Record<string, unknown>>(scope.em, 'select * from calls where id = ? and account_id = ?', [id, scope.accountId]);
  if (!row) throw new NotFoundError(Messages.callNotFound);
  return readOnlyMapper(scope.em, Call)(row);
}


/**
 * Ends a call in flight through its provider (409 once it has ended): an answered call ends
 * as `ended`, one not yet answered as `failed`, now or when the provider confirms it.
 * Answers the call as it then stands.
 */
export async function hangupCall(scope: CallsScope & { lifecycle: LifecycleDeps }, id: number): Promise<Call> {
  const call = await readCall(scope, id);
  if (call.finished_at) throw new DomainError('CONFLICT', Messages.callAlreadyEnded);
  await providerOf(call, scope.telephony, scope.config).hangup(scope.em, scope.lifecycle, call, 'api');
  return readCall(scope, id);
}

/**
 * Deletes a finished call. A call in flight is refused: its lifecycle still has to end it,
 * debit its cost and release its reservation.
 */
export async function deleteCall(scope: Scope, id: number): Promise<void> {
  const [row] = await scope.em.execute(
    `with target as (select id, status from calls where id = ? and account_id = ?),
     deleted as (delete from calls where id in (select id from target where status not in ('initiated', 'ringing', 'in-progress')) returning id)
     select (select count(*)::int from target) as found, (select count(*)::int from deleted) as deleted`,
    [id, scope.accountId],
  );
  if (row.found === 0) throw new NotFoundError(Messages.callNotFound);
  if (row.deleted === 0) throw new DomainError('CONFLICT', Messages.callNotFinished);
}

function callFilter(scope: Scope, args: CallFilterArgs, errors: FieldErrorCollector, createdAt: Paging['createdAt']): CallFilter {
  const calls = ['account_id = ?'];
  const counts = ['account_id = ?'];
  const params: unknown[] = [scope.accountId];
  const countParams: unknown[] = [scope.accountId];
  const both = (column: string, value: unknown) => {
    calls.push(`${column} = ?`);
    counts.push(`${column} = ?`);
    params.push(value);
    countParams.push(value);
  };
  if (args.status != null && checkOneOf(errors, 'status', args.status, CALL_STATUSES)) both('status', args.status);
  if (args.type != null && checkOneOf(errors, 'type', args.type, CALL_TYPES)) both('type', args.type);
  if (args.assistant_id != null && checkPositiveInt(errors, 'assistant_id', args.assistant_id)) both('assistant_id', args.assistant_id);
  if (args.campaign_id != null && checkPositiveInt(errors, 'campaign_id', args.campaign_id)) both('campaign_id', args.campaign_id);
  let byPhone = false;
  if (args.phone_number != null) {
    const phone = toE164(args.phone_number, scope.config.defaultPhoneRegion);
    if (phone) {
      calls.push('client_phone_number = ?');
      params.push(phone);
      byPhone = true;
    } else {
      errors.add('phone_number', FieldMessages.phone('phone_number'));
    }
  }
  if (createdAt?.$gte) {
    calls.push('created_at >= ?');
    params.push(createdAt.$gte);
  }
  if (createdAt?.$lt) {
    calls.push('created_at < ?');
    params.push(createdAt.$lt);
  }
  // The range is whole UTC days (midnight to midnight): the counters' days answer it exactly.
  const day = (timestamp: string | undefined) => (timestamp ? timestamp.slice(0, 10) : null);
  const counters = { where: counts.join(' and '), params: countParams, from: day(createdAt?.$gte), to: day(createdAt?.$lt), grouped: counts.length > 1 };
  return { where: calls.join(' and '), params, counters: byPhone ? null : counters };
}

/**
 * Folds the changes the calls' trigger recorded into the counters, per day, month and
 * all-time, by group and by account (the sweeper, every minute): the changes it takes are
 * deleted in the same statement, so two processes folding at once never count one twice.
 * Answers how many changes it folded.
 */
export async function foldCallCounts(em: EntityManager): Promise<number> {
  const [{ folded }] = await em.execute(
    `with moved as (delete from call_count_deltas returning *),
     summed as (
       select account_id, day, status, type, assistant_id, campaign_id, sum(n) as n, count(*) as rows
       from moved group by 1, 2, 3, 4, 5, 6),
     by_day as (
       insert into call_counts (account_id, day, status, type, assistant_id, campaign_id, n)
       select account_id, day, status, type, assistant_id, campaign_id, n from summed order by 1, 2, 3, 4, 5, 6
       on conflict (account_id, day, status, type, assistant_id, campaign_id) do update set n = call_counts.n + excluded.n),
     by_month as (
       insert into call_counts_monthly (account_id, month, status, type, assistant_id, campaign_id, n)
       select account_id, date_trunc('month', day)::date, status, type, assistant_id, campaign_id, sum(n) from summed
       group by 1, 2, 3, 4, 5, 6 order by 1, 2, 3, 4, 5, 6
       on conflict (account_id, month, status, type, assistant_id, campaign_id) do update set n = call_counts_monthly.n + excluded.n),
     all_time as (
       insert into call_totals (account_id, status, type, assistant_id, campaign_id, n)
       select account_id, status, type, assistant_id, campaign_id, sum(n) from summed group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5
       on conflict (account_id, status, type, assistant_id, campaign_id) do update set n = call_totals.n + excluded.n),
     account_by_day as (
       insert into account_call_counts (account_id, day, n)
       select account_id, day, sum(n) from summed group by 1, 2 order by 1, 2
       on conflict (account_id, day) do update set n = account_call_counts.n + excluded.n),
     account_by_month as (
       insert into account_call_counts_monthly (account_id, month, n)
       select account_id, date_trunc('month', day)::date, sum(n) from summed group by 1, 2 order by 1, 2
       on conflict (account_id, month) do update set n = account_call_counts_monthly.n + excluded.n),
     account_all_time as (
       insert into account_call_totals (account_id, n)
       select account_id, sum(n) from summed group by 1 order by 1
       on conflict (account_id) do update set n = account_call_totals.n + excluded.n)
     select coalesce(sum(rows), 0)::int as folded from summed`,
  );
  return folded;
}

/**
 * Runs a statement of the list on `em`'s connection, prepared: planning a date range's page
 * with its counters cost PostgreSQL more than running it.
 */
const runOn = (em: EntityManager): Run => (statement) => selectPrepared(em, statement.sql, statement.params);

/** The calls a page statement of the list reads, mapped read-only. */
async function readPage(em: EntityManager, statement: Statement): Promise<Call[]> {
  return (await runOn(em)<Record<string, unknown>>(statement)).map(readOnlyMapper(em, Call));
}

/**
 * A page of the account's calls, newest first (`created_at desc, id desc`), with the spec's
 * filters and its exact total.
 *
 * Page 1 reads its calls with the total, in one statement. A later page first finds the day
 * it starts on from the counters, then skips only that day's newer calls. The counters and
 * the page are read in one snapshot, so that the page is exactly the one its number names
 * even while calls are added.
 */
export async function listCalls(scope: Scope, args: CallListArgs): Promise<Page<Call>> {
  const errors = new FieldErrorCollector();
  const { page, perPage, createdAt } = checkPaging(errors, args);
  const filter = callFilter(scope, args, errors, createdAt);
  errors.throwIfAny();
  const offset = offsetOf(page, perPage);
  if (offset === 0) {
    const { rows, total } = await firstPage<Record<string, unknown>>(runOn(scope.em), filter, perPage);
    return makePage(rows.map(readOnlyMapper(scope.em, Call)), total, page, perPage);
  }
  return scope.em.transactional(
    async (tx) => {
      const { total, skip, through } = await seek(runOn(tx), filter, offset);
      const rows = offset >= total ? [] : await readPage(tx, pageStatement(filter, perPage, skip, through));
      return makePage(rows, total, page, perPage);
    },
    { isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true },
  );
}

/**
 * The cursor form of the list: the calls after the call `after` in the list's order, newest
 * first, with no total and no page numbers, so a slice costs the same however deep it is.
 */
export async function callFeed(scope: Scope, args: CallFeedArgs): Promise<{ data: Call[]; next_after: number | null }> {
  const errors = new FieldErrorCollector();
  const { perPage, createdAt } = checkPaging(errors, { per_page: args.per_page, date_from: args.date_from, date_to: args.date_to });
  if (args.after != null) checkPositiveInt(errors, 'after', args.after);
  const filter = callFilter(scope, args, errors, createdAt);
  errors.throwIfAny();
  const after = args.after ?? null;
  const rows = await readPage(scope.em, pageStatement(filter, perPage + 1, 0, after === null ? undefined : afterCall(scope.accountId, after)));
  if (rows.length === 0 && after !== null) {
    // The cursor's call is gone (deleted, or never the account's): where it stood is unknown.
    const [found] = await scope.em.execute('select 1 from calls where id = ? and account_id = ?', [after, scope.accountId]);
    if (!found) throw new ValidationError({ after: [FieldMessages.invalidSelection('after')] });
  }
  const data = rows.slice(0, perPage);
  return { data, next_after: rows.length > perPage ? data[data.length - 1].id : null };
}
