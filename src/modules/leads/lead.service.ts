import { findForUpdate } from '../../db/locks';
import type { EntityManager } from '@mikro-orm/postgresql';
import { FieldErrorCollector, FieldMessages, Messages, NotFoundError, ValidationError } from '../../errors';
import { makePage, offsetOf, type Page } from '../../graphql/pagination';
import { checkOneOf, checkPositiveInt } from '../../lib/checks';
import { checkPaging } from '../../lib/listing';
import { phoneProblem, toE164 } from '../../lib/phone';
import { specTimestampSql } from '../../lib/time';
import { selectPrepared } from '../../db/prepared';
import { jsonRowOf, readOnlyMapper } from '../../db/read-only';
import { Campaign } from '../campaigns/campaign.entity';
import { requireCampaign } from '../campaigns/campaign.service';
import { wakeDialer, wakeIfRunning } from '../campaigns/dialer.wake';
import { DIALABLE_STATUSES } from '../campaigns/lead.sql';
import { emitEvents } from '../events/event.outbox';
import { leadEvents } from './lead.snapshot';
import type { Scope } from '../scope';
import { CLIENT_LEAD_STATUSES, LEAD_STATUSES, Lead } from './lead.entity';
import type { CreateLeadInput, LeadListArgs, UpdateLeadInput } from './lead.inputs';
import { SecondaryContact } from './secondary-contact.entity';

/** The most secondary contacts a lead may have. */
export const MAX_SECONDARY_CONTACTS = 20;

/**
 * Secondary contacts already read with their lead (a created lead), so that its
 * `secondary_contacts` resolve without a query or a promise. A listed lead carries its own
 * (`LeadView`): a promise on each lead of a page made graphql-js settle every lead's fields as
 * an object of promises.
 */
const contactsRead = new WeakMap<Lead, SecondaryContact[]>();

export function contactsReadWith(lead: Lead): SecondaryContact[] | undefined {
  return contactsRead.get(lead);
}

/**
 * Creates a lead and its secondary contacts in one transaction. Checks run in the order the
 * spec lists them (shape, phone numbers, campaign, duplicates) and all before any write.
 */
export async function createLead(scope: Scope, input: CreateLeadInput): Promise<Lead> {
  const errors = new FieldErrorCollector();
  checkPositiveInt(errors, 'campaign_id', input.campaign_id);
  if ((input.secondary_contacts?.length ?? 0) > MAX_SECONDARY_CONTACTS) {
    errors.add('secondary_contacts', FieldMessages.maxItems('secondary_contacts', MAX_SECONDARY_CONTACTS));
  }
  errors.throwIfAny();

  const phoneErrors = new FieldErrorCollector();
  const phoneNumber = normalisePhone(scope, phoneErrors, 'phone_number', input.phone_number);
  const contacts = (input.secondary_contacts ?? []).map((contact, index) => ({
    phone_number: normalisePhone(scope, phoneErrors, `secondary_contacts.${index}.phone_number`, contact.phone_number),
    variables: contact.variables ?? {},
  }));
  phoneErrors.throwIfAny(Messages.invalidPhoneNumber);

  return scope.em.transactional(async (em) => {
    // The campaign, share-locked (a dialer run in progress, which could not see this lead,
    // finishes first, and the wake-up below lands after its own), with the duplicate check's
    // lock in the same statement.
    const [row] = await em.execute(
      `select c.*${input.allow_dupplicate ? '' : ', pg_advisory_xact_lock(c.id, hashtext(?)) is not null as locked'}
       from campaigns c where c.id = ? and c.account_id = ? for share of c`,
      input.allow_dupplicate ? [input.campaign_id, scope.accountId] : [phoneNumber, input.campaign_id, scope.accountId],
    );
    if (!row) throw new NotFoundError(Messages.campaignNotFound);
    if (!input.allow_dupplicate) await refuseExisting(em, row.id, phoneNumber!);
    // Written by hand and answered read-only (the answer is all that reads them): the unit
    // of work's change sets were a fifth of a create's time in the process.
    const [leadRow] = await em.execute(
      'insert into leads (account_id, campaign_id, phone_number, variables) values (?, ?, ?, ?::jsonb) returning *',
      [scope.accountId, row.id, phoneNumber, JSON.stringify(input.variables ?? {})],
    );
    const lead = readOnlyMapper(em, Lead)(leadRow);
    lead.campaign = readOnlyMapper(em, Campaign)(row);
    const contactRows: Record<string, unknown>[] = contacts.length
      ? await em.execute(
          `insert into secondary_contacts (lead_id, phone_number, variables) values ${contacts.map(() => '(?, ?, ?::jsonb)').join(', ')} returning *`,
          contacts.flatMap((contact) => [lead.id, contact.phone_number, JSON.stringify(contact.variables)]),
        )
      : [];
    const toContact = readOnlyMapper(em, SecondaryContact);
    contactsRead.set(lead, contactRows.map((contact) => toContact(contact))); // the answer needs no query for them
    if (row.status === 'running') await wakeDialer(em, row.id);
    return lead;
  });
}

/**
 * A campaign holds one lead per phone number unless the client allows duplicates. The
 * advisory lock serialises concurrent creates of the same number in the same campaign, so
 * the check and the insert act as one (duplicates stay possible on request, which rules out
 * a unique index).
 */
async function refuseDuplicate(em: EntityManager, campaignId: number, phoneNumber: string, exceptLeadId?: number): Promise<void> {
  await em.execute('select pg_advisory_xact_lock(?, hashtext(?))', [campaignId, phoneNumber]);
  await refuseExisting(em, campaignId, phoneNumber, exceptLeadId);
}

/** The check of refuseDuplicate, for a caller that holds its lock. A statement of its own: its snapshot is taken after the lock. */
async function refuseExisting(em: EntityManager, campaignId: number, phoneNumber: string, exceptLeadId?: number): Promise<void> {
  const except = exceptLeadId === undefined ? '' : ' and id <> ?';
  const [{ taken }] = await em.execute(
    `select exists (select 1 from leads where campaign_id = ? and phone_number = ?${except}) as taken`,
    exceptLeadId === undefined ? [campaignId, phoneNumber] : [campaignId, phoneNumber, exceptLeadId],
  );
  if (taken) throw new ValidationError({ phone_number: [FieldMessages.duplicateLead] });
}

/** Changes only the fields sent; `variables` is merged into the lead's existing variables. */
export async function updateLead(scope: Scope, id: number, input: UpdateLeadInput): Promise<Lead> {
  const errors = new FieldErrorCollector();
  for (const field of ['campaign_id', 'phone_number', 'status', 'variables'] as const) {
    if (input[field] === null) errors.add(field, FieldMessages.required(field));
  }
  if (input.campaign_id != null) checkPositiveInt(errors, 'campaign_id', input.campaign_id);
  if (input.status != null && !(CLIENT_LEAD_STATUSES as readonly string[]).includes(input.status)) {
    errors.add('status', FieldMessages.statusAutomatic);
  }
  errors.throwIfAny();

  let phoneNumber: string | null = null;
  if (input.phone_number != null) {
    const phoneErrors = new FieldErrorCollector();
    phoneNumber = normalisePhone(scope, phoneErrors, 'phone_number', input.phone_number);
    phoneErrors.throwIfAny(Messages.invalidPhoneNumber);
  }

  return scope.em.transactional(async (em) => {
    // The row lock makes concurrent merges of `variables` apply one after the other.
    const lead = await findForUpdate(em, Lead, id, scope.accountId);
    if (!lead) throw new NotFoundError(Messages.leadNotFound);
    const wasCampaign = lead.campaign.id;
    const wasStatus = lead.status;
    if (input.campaign_id != null) lead.campaign = await requireCampaign({ ...scope, em }, input.campaign_id);
    // Moving a lead to a number or a campaign follows the rule of create: one lead per
    // number in a campaign (duplicates made on purpose at create stay as they are).
    const moved = (phoneNumber !== null && phoneNumber !== lead.phone_number) || (input.campaign_id != null && wasCampaign !== lead.campaign.id);
    if (moved) await refuseDuplicate(em, lead.campaign.id, phoneNumber ?? lead.phone_number, lead.id);
    if (phoneNumber !== null) lead.phone_number = phoneNumber;
    if (input.status != null) setStatus(lead, input.status as Lead['status']);
    if (input.variables != null) lead.variables = { ...lead.variables, ...input.variables };
    await em.flush();
    if (lead.status !== wasStatus) await emitEvents(em, leadEvents(scope.accountId, [lead]));
    const dialable = (DIALABLE_STATUSES as readonly string[]).includes(lead.status);
    if (dialable && (input.status != null || lead.campaign.id !== wasCampaign)) await wakeIfRunning(em, lead.campaign.id);
    return lead;
  });
}

/**
 * A client's status: `created` makes the lead dialable again from its first number, with its
 * attempts reset; `completed` and `reached-max-retries` take it out of the dialer (a call in
 * flight then ends without changing it).
 */
function setStatus(lead: Lead, status: Lead['status']): void {
  lead.status = status;
  lead.next_attempt_at = null;
  if (status === 'created') {
    lead.attempts = 0;
    lead.contact_index = 0;
    lead.contact_attempts = 0;
  }
}

export async function getLead(scope: Scope, id: number): Promise<Lead> {
  const lead = await scope.em.findOne(Lead, { id, account: scope.accountId });
  if (!lead) throw new NotFoundError(Messages.leadNotFound);
  return lead;
}

/** Deletes a lead; its secondary contacts go with it (the foreign key cascades). */
export async function deleteLead(scope: Scope, id: number): Promise<void> {
  const deleted = await scope.em.nativeDelete(Lead, { id, account: scope.accountId });
  if (deleted === 0) throw new NotFoundError(Messages.leadNotFound);
}

/** A secondary contact as a list shows it: its fields as plain data, read-only. */
export type ContactView = Pick<SecondaryContact, 'id' | 'phone_number' | 'variables' | 'status' | 'created_at' | 'updated_at'>;

const CONTACTS_OF_LEADS = `select s.id, s.lead_id, s.phone_number, s.variables, s.status, ${specTimestampSql('s.created_at')} as created_at,
  ${specTimestampSql('s.updated_at')} as updated_at from secondary_contacts s where s.lead_id = any(?::int[]) order by s.id`;

/**
 * The secondary contacts of each lead, in id order, as plain data (they are only shown), in
 * one read for all the leads (a prepared statement), timestamps as the spec writes them.
 */
export async function contactsOfLeads(em: EntityManager, leadIds: readonly number[]): Promise<Map<number, ContactView[]>> {
  const byLead = new Map<number, ContactView[]>(leadIds.map((id) => [id, []]));
  if (leadIds.length === 0) return byLead;
  // The ids as PostgreSQL's array literal: the driver builds one from an array character by character.
  const rows = await selectPrepared<ContactView & { lead_id: number }>(em, CONTACTS_OF_LEADS, [`{${leadIds.join(',')}}`]);
  for (const row of rows) byLead.get(row.lead_id)!.push(row);
  return byLead;
}

/**
 * A lead as a list shows it: its fields as plain data, read-only, with its campaign and, when
 * the list read them, its secondary contacts. The schema's Lead resolves from it as from a Lead.
 */
export interface LeadView extends Pick<Lead, 'id' | 'phone_number' | 'variables' | 'status' | 'attempts' | 'next_attempt_at' | 'created_at' | 'updated_at'> {
  campaign_id: number;
  campaign: Campaign;
  secondary_contacts?: ContactView[];
}

/** A page of the account's leads, newest first; with `withContacts`, their secondary contacts read too. */
export async function listLeads(scope: Scope, args: LeadListArgs, withContacts = false): Promise<Page<LeadView>> {
  const errors = new FieldErrorCollector();
  const { page, perPage, createdAt } = checkPaging(errors, args);
  const where = ['l.account_id = ?'];
  const params: unknown[] = [scope.accountId];
  const condition = (sql: string, value: unknown) => {
    where.push(sql);
    params.push(value);
  };
  if (args.status != null && checkOneOf(errors, 'status', args.status, LEAD_STATUSES)) condition('l.status = ?', args.status);
  if (args.campaign_id != null && checkPositiveInt(errors, 'campaign_id', args.campaign_id)) condition('l.campaign_id = ?', args.campaign_id);
  if (args.phone_number != null) {
    const phone = normalisePhone(scope, errors, 'phone_number', args.phone_number);
    if (phone) condition('l.phone_number = ?', phone);
  }
  errors.throwIfAny();
  if (createdAt?.$gte) condition('l.created_at >= ?', createdAt.$gte);
  if (createdAt?.$lt) condition('l.created_at < ?', createdAt.$lt);
  const count = `select count(*) from leads l where ${where.join(' and ')}`;
  const offset = offsetOf(page, perPage);

  // The page's leads with their total and their campaigns, then, when asked, their secondary
  // contacts: a page costs the same statements at any size, and the database the least work
  // (a subquery for each lead's contacts cost it three times one read of them all). The rows
  // come in the answer's shape, timestamps as the spec writes them, and are answered as they
  // are: no instance is built for them. The total is a subquery run once, from the index (a
  // window count would carry every matching lead through the sort). The campaigns, a few for
  // a page, come once, as one JSON list on the first row, and become read-only instances:
  // other fields of the schema hang off them. Written by hand: building these with the query
  // builder took more than reading their rows. Both statements are prepared: planning the
  // page cost PostgreSQL more than running it. The page size is in the text (1 to 100), so
  // that a first page's plan is the same for every account and PostgreSQL keeps one plan for
  // it; a later page's offset is a value, and its plan is made for that offset each time.
  const rows = await selectPrepared<LeadView & { page_total: string; campaigns: Record<string, unknown>[] | null }>(
    scope.em,
    `with page as materialized (
       select l.id, l.campaign_id, l.phone_number, l.variables, l.status, l.attempts, ${specTimestampSql('l.next_attempt_at')} as next_attempt_at,
         ${specTimestampSql('l.created_at')} as created_at, ${specTimestampSql('l.updated_at')} as updated_at
       from leads l where ${where.join(' and ')} order by l.id desc limit ${perPage}${offset ? ' offset ?' : ''})
     select l.*, (${count}) as page_total,
       case when l.id = (select max(id) from page) then (select json_agg(${jsonRowOf(scope.em, Campaign, 'c')}) from campaigns c where c.id in (select campaign_id from page)) end as campaigns
     from page l order by l.id desc`,
    [...params, ...(offset ? [offset] : []), ...params],
  );
  // Without a row there is none to carry the total: on page 1 no lead matches; past the last page, count them.
  if (rows.length === 0) return makePage([], offset === 0 ? 0 : Number((await scope.em.execute(count, params))[0].count), page, perPage);
  const toCampaign = readOnlyMapper(scope.em, Campaign);
  const campaigns = new Map<number, Campaign>();
  for (const campaign of rows[0].campaigns!) campaigns.set(campaign.id as number, toCampaign(campaign));
  const contacts = withContacts ? await contactsOfLeads(scope.em, rows.map((row) => row.id)) : null;
  // Each row is the lead as answered (its page_total and campaigns columns are not fields of the schema).
  for (const lead of rows) {
    lead.campaign = campaigns.get(lead.campaign_id)!;
    if (contacts) lead.secondary_contacts = contacts.get(lead.id);
  }
  return makePage(rows, Number(rows[0].page_total), page, perPage);
}

function normalisePhone(scope: Scope, errors: FieldErrorCollector, field: string, input: string): string | null {
  const e164 = toE164(input, scope.config.defaultPhoneRegion);
  if (e164 === null) {
    const problem = phoneProblem(input, scope.config.defaultPhoneRegion);
    errors.add(field, problem === 'no-region' ? FieldMessages.phoneWithoutRegion(field) : FieldMessages.phone(field));
  }
  return e164;
}
