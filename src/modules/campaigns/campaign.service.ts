import { findForUpdate } from '../../db/locks';
import { CALL_IN_FLIGHT } from '../calls/call.sql';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, FieldErrorCollector, FieldMessages, Messages, NotFoundError, ValidationError } from '../../errors';
import { checkIntRange, checkLength } from '../../lib/checks';
import { Account } from '../accounts/account.entity';
import { PhoneNumber } from '../accounts/phone-number.entity';
import { Assistant } from '../assistants/assistant.entity';
import { isTimeZone } from '../assistants/assistant.service';
import { LEAD_STATUSES } from '../leads/lead.entity';
import type { Scope } from '../scope';
import { campaignEvents } from './campaign.snapshot';
import { emitEvents } from '../events/event.outbox';
import { wakeDialer } from './dialer.wake';
import { Campaign } from './campaign.entity';
import { CAMPAIGN_RULES, WEEKDAYS, type Weekday } from './campaign.rules';
import type { CreateCampaignInput, UpdateCampaignInput } from './campaign.inputs';

const HH_MM = /^([01]\d|2[0-3]):[0-5]\d$/;
/** Fields a `null` clears; null for any other is refused. */
const NULLABLE = new Set(['assistant_id', 'goal_completion_variable']);

type Changes = Partial<Omit<Campaign, 'id' | 'account' | 'created_at' | 'updated_at' | 'status' | 'paused_reason'>>;

/**
 * Every rule of the campaign contract, for create (`current` undefined) and update; nothing
 * is written until all pass. The assistant and the numbers must be the account's.
 */
async function resolve(scope: Scope, input: UpdateCampaignInput, current?: Campaign): Promise<Changes> {
  const errors = new FieldErrorCollector();
  const changes: Changes = {};
  for (const [field, value] of Object.entries(input)) {
    if (value === null && !NULLABLE.has(field)) errors.add(field, FieldMessages.required(field));
  }
  if (input.name != null) {
    const name = checkLength(errors, 'name', input.name, CAMPAIGN_RULES.name.min, CAMPAIGN_RULES.name.max);
    if (name !== null) changes.name = name;
  }
  if (input.timezone != null) {
    if (isTimeZone(input.timezone.trim())) changes.timezone = input.timezone.trim();
    else errors.add('timezone', FieldMessages.timezone('timezone'));
  }
  if (input.max_calls_in_parallel != null && checkIntRange(errors, 'max_calls_in_parallel', input.max_calls_in_parallel, CAMPAIGN_RULES.max_calls_in_parallel.min, scope.config.maxParallelCalls)) {
    changes.max_calls_in_parallel = input.max_calls_in_parallel;
  }
  for (const field of ['allowed_hours_start_time', 'allowed_hours_end_time'] as const) {
    const value = input[field];
    if (value == null) continue;
    if (HH_MM.test(value.trim())) changes[field] = value.trim();
    else errors.add(field, FieldMessages.time(field));
  }
  if (input.allowed_days != null) {
    const days = input.allowed_days.map((day) => day.trim().toLowerCase());
    days.forEach((day, index) => {
      if (!(WEEKDAYS as readonly string[]).includes(day)) errors.add(`allowed_days.${index}`, FieldMessages.oneOf(`allowed_days.${index}`, WEEKDAYS));
    });
    if (days.length === 0) errors.add('allowed_days', FieldMessages.required('allowed_days'));
    changes.allowed_days = WEEKDAYS.filter((day) => days.includes(day)) as Weekday[];
  }
  if (input.max_retries != null && checkIntRange(errors, 'max_retries', input.max_retries, CAMPAIGN_RULES.max_retries.min, CAMPAIGN_RULES.max_retries.max)) changes.max_retries = input.max_retries;
  if (input.retry_interval != null && checkIntRange(errors, 'retry_interval', input.retry_interval, CAMPAIGN_RULES.retry_interval.min, CAMPAIGN_RULES.retry_interval.max)) changes.retry_interval = input.retry_interval;
  for (const field of ['retry_on_voicemail', 'retry_on_goal_incomplete', 'mark_complete_when_no_leads'] as const) {
    if (input[field] != null) changes[field] = input[field]!;
  }

  let assistant: Assistant | null | undefined = undefined;
  if (input.assistant_id === null) {
    changes.assistant_id = null;
    assistant = null;
  } else if (input.assistant_id != null) {
    assistant = input.assistant_id >= 1 ? await scope.em.findOne(Assistant, { id: input.assistant_id, account: scope.accountId }) : null;
    if (!assistant) errors.add('assistant_id', FieldMessages.invalidSelection('assistant_id'));
    else if (assistant.calls_direction !== 'make') errors.add('assistant_id', FieldMessages.assistantNotOutbound);
    else changes.assistant_id = assistant.id;
  } else if (current?.assistant_id) {
    assistant = await scope.em.findOne(Assistant, { id: current.assistant_id });
  }

  if (input.phone_number_ids != null) {
    const ids = [...new Set(input.phone_number_ids)];
    const owned = ids.length
      ? new Set((await scope.em.find(PhoneNumber, { id: { $in: ids }, account: scope.accountId }, { fields: ['id'] })).map((p) => p.id))
      : new Set<number>();
    input.phone_number_ids.forEach((id, index) => {
      if (!owned.has(id)) errors.add(`phone_number_ids.${index}`, FieldMessages.invalidSelection(`phone_number_ids.${index}`));
    });
    changes.phone_number_ids = ids;
  }

  // The goal variable must be one the assistant's post-call extraction fills.
  const goal = input.goal_completion_variable !== undefined ? input.goal_completion_variable : (current?.goal_completion_variable ?? null);
  if (input.goal_completion_variable !== undefined) changes.goal_completion_variable = goal === null ? null : goal.trim();
  const retryOnGoal = changes.retry_on_goal_incomplete ?? current?.retry_on_goal_incomplete ?? false;
  if (goal !== null && assistant && !assistant.post_call_schema.some((item) => item.name === goal.trim())) {
    errors.add('goal_completion_variable', FieldMessages.goalVariable);
  } else if (retryOnGoal && goal === null && !errors.has('goal_completion_variable')) {
    errors.add('goal_completion_variable', FieldMessages.goalVariableRequired);
  }

  errors.throwIfAny();
  // Defaults that follow the assistant: its time zone and its number.
  if (!current && assistant) {
    changes.timezone ??= assistant.timezone;
    if (!changes.phone_number_ids && assistant.phone_number) changes.phone_number_ids = [assistant.phone_number.id];
  }
  return changes;
}

export async function createCampaign(scope: Scope, input: CreateCampaignInput): Promise<Campaign> {
  const changes = await resolve(scope, input);
  const campaign = scope.em.create(Campaign, { ...changes, account: scope.em.getReference(Account, scope.accountId), name: changes.name! });
  await scope.em.persist(campaign).flush();
  return campaign;
}

/** Changes only the fields sent, also while the campaign runs (its next dial decision sees them). */
export async function updateCampaign(scope: Scope, id: number, input: UpdateCampaignInput): Promise<Campaign> {
  const current = await requireCampaign(scope, id);
  const changes = await resolve(scope, input, current);
  return scope.em.transactional(async (em) => {
    const campaign = await findForUpdate(em, Campaign, id, scope.accountId);
    if (!campaign) throw new NotFoundError(Messages.campaignNotFound);
    em.assign(campaign, changes);
    await em.flush();
    if (campaign.status === 'running') await wakeDialer(em, id);
    return campaign;
  });
}

/**
 * start: draft, paused or completed -> running (an outbound assistant with a phone number is
 * needed); stop: running -> paused (`manual`). Under the campaign's row lock.
 */
export async function setCampaignStatus(scope: Scope, id: number, action: string): Promise<Campaign> {
  if (action !== 'start' && action !== 'stop') throw new ValidationError({ action: [FieldMessages.action] });
  return scope.em.transactional(async (em) => {
    const campaign = await findForUpdate(em, Campaign, id, scope.accountId);
    if (!campaign) throw new NotFoundError(Messages.campaignNotFound);
    const was = campaign.status;
    if (action === 'start' && campaign.status !== 'running') {
      const assistant = campaign.assistant_id ? await em.findOne(Assistant, { id: campaign.assistant_id }) : null;
      if (!assistant || assistant.calls_direction !== 'make' || !assistant.phone_number) {
        throw new ValidationError({ assistant_id: [FieldMessages.campaignNeedsAssistant] });
      }
      campaign.status = 'running';
      campaign.paused_reason = null;
      await wakeDialer(em, id);
    } else if (action === 'stop' && campaign.status === 'running') {
      campaign.status = 'paused';
      campaign.paused_reason = 'manual';
    }
    await em.flush();
    if (campaign.status !== was) await emitEvents(em, campaignEvents([campaign]));
    return campaign;
  });
}

/** Deletes a campaign that is not running and has no call in flight; its leads go with it (the foreign key cascades). */
export async function deleteCampaign(scope: Scope, id: number): Promise<void> {
  await scope.em.transactional(async (em) => {
    const [row] = await em.execute('select status from campaigns where id = ? and account_id = ? for update', [id, scope.accountId]);
    if (!row) throw new NotFoundError(Messages.campaignNotFound);
    if (row.status === 'running') throw new DomainError('VALIDATION_FAILED', Messages.campaignRunning);
    // A call in flight still has to settle its lead; a stopped campaign's calls end by themselves.
    const [flight] = await em.execute(`select exists (select 1 from calls c where c.campaign_id = ? and ${CALL_IN_FLIGHT}) as busy`, [id]);
    if (flight.busy) throw new DomainError('VALIDATION_FAILED', Messages.campaignCallsInFlight);
    await em.execute('delete from campaigns where id = ?', [id]);
  });
}

export function listCampaigns(scope: Scope): Promise<Campaign[]> {
  return scope.em.find(Campaign, { account: scope.accountId }, { orderBy: { id: 'asc' } });
}

/** The account's campaign, or the documented 404 for a missing or foreign one. */
export async function requireCampaign(scope: Scope, id: number): Promise<Campaign> {
  const campaign = await scope.em.findOne(Campaign, { id, account: scope.accountId });
  if (!campaign) throw new NotFoundError(Messages.campaignNotFound);
  return campaign;
}

export interface CampaignStats {
  leads: Record<(typeof LEAD_STATUSES)[number], number>;
  calls_in_progress: number;
  attempts: number;
  total_cost: number;
}

/**
 * The stats of several campaigns at once (a page of campaigns costs two statements, not two
 * per campaign): leads by status (all seven), calls in flight, calls made, what they cost.
 */
export async function campaignStats(em: EntityManager, ids: readonly number[]): Promise<CampaignStats[]> {
  const list = `{${ids.join(',')}}`;
  const leads: { campaign_id: number; status: string; n: number }[] = await em.execute(
    'select campaign_id, status, count(*)::int as n from leads where campaign_id = any(?::int[]) group by campaign_id, status',
    [list],
  );
  const calls: { campaign_id: number; in_progress: number; attempts: number; total_cost: string }[] = await em.execute(
    `select c.campaign_id, count(*) filter (where ${CALL_IN_FLIGHT})::int as in_progress, count(*)::int as attempts, coalesce(sum(c.total_cost), 0)::text as total_cost
     from calls c where c.campaign_id = any(?::int[]) group by c.campaign_id`,
    [list],
  );
  return ids.map((id) => {
    const counts = Object.fromEntries(
      LEAD_STATUSES.map((status) => [status, leads.find((l) => l.campaign_id === id && l.status === status)?.n ?? 0]),
    ) as CampaignStats['leads'];
    const row = calls.find((c) => c.campaign_id === id);
    return { leads: counts, calls_in_progress: row?.in_progress ?? 0, attempts: row?.attempts ?? 0, total_cost: Number(row?.total_cost ?? 0) };
  });
}
