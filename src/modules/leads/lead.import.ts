import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../config';
import { DomainError, FieldErrorCollector, FieldMessages, Messages, NotFoundError } from '../../errors';
import { selectPrepared } from '../../db/prepared';
import { enqueue } from '../../jobs/queue';
import { checkPositiveInt } from '../../lib/checks';
import { specTimestampSql } from '../../lib/time';
import { wakeDialer } from '../campaigns/dialer.wake';
import { EVENTS_CHANNEL } from '../events/event.outbox';
import type { Scope } from '../scope';
import { csvItems, type CsvItem } from './lead.import.csv';
import { CsvNotUtf8Error, SOURCE_PIECE_CHARS, textSource, type CsvSource } from './lead.import.source';
import { isProblem, planImport, readRow, type ImportPlan, type LeadRow, type RowProblem } from './lead.import.rows';
import type { ImportLeadsInput, LeadImport, LeadImportError } from './lead.import.types';

/**
 * Lead imports: a CSV file checked when it is sent (size, header, mapping, row count), then
 * imported by a job (jobs/tasks/import-leads.ts) in batches. Each batch is one transaction:
 * its leads, its secondary contacts, the import's counts and its progress event commit
 * together or not at all, so a job that dies leaves whole batches, and the next run resumes
 * after the last one committed (`rows_done`).
 */

/** Invalid rows kept with their line and message; `invalid` counts them all. */
export const KEPT_ERRORS = 1000;
/** How long a finished import's record (counts and errors; the file's pieces are dropped at the end) is kept. */
export const IMPORT_RETENTION_DAYS = 30;
/** The outbox event of an import's progress: for its subscription only (no webhook endpoint takes it). */
export const LEAD_IMPORT_EVENT = 'lead_import.updated';

const COLUMNS = `id, campaign_id, status, rows_total, rows_done as rows_read, created, duplicates, invalid, blacklisted, errors, failure,
  ${specTimestampSql('created_at')} as created_at, ${specTimestampSql('finished_at')} as finished_at`;

/** How long a client refused by the cap on imports in flight is told to wait (Retry-After). */
export const IMPORTS_IN_FLIGHT_RETRY_S = 10;
/** The advisory lock (one per account, a 64-bit key) under which an import is counted and created. */
const IMPORTS_LOCK_SPACE = 7_426_002;

/**
 * A file's header and how many data rows it has (counted up to one past `maxRows`), read a
 * piece at a time; 'not-utf8' when its bytes are not UTF-8.
 */
async function surveyCsv(source: CsvSource, maxRows: number): Promise<{ header: string[] | null; rows: number } | 'not-utf8'> {
  let header: string[] | null = null;
  let rows = 0;
  try {
    for await (const item of csvItems(source.text())) {
      if (header === null) header = 'cells' in item ? item.cells : [];
      else if (++rows > maxRows) break;
    }
  } catch (error) {
    if (error instanceof CsvNotUtf8Error) return 'not-utf8';
    throw error;
  }
  return { header, rows };
}

/** Stores a file's text in pieces of about SOURCE_PIECE_CHARS, one statement each. */
async function storeFile(em: EntityManager, id: number, source: CsvSource): Promise<void> {
  let seq = 0;
  let pending = '';
  const flush = async () => {
    await selectPrepared(em, 'insert into lead_import_chunks (import_id, seq, data) values (?, ?, ?)', [id, seq++, pending]);
    pending = '';
  };
  for await (const piece of source.text()) {
    pending += piece;
    if (pending.length >= SOURCE_PIECE_CHARS) await flush();
  }
  if (pending || seq === 0) await flush();
}

/** A stored file's text, a piece at a time. */
async function* storedFile(em: EntityManager, id: number): AsyncGenerator<string> {
  for (let seq = 0; ; seq++) {
    const [piece] = await selectPrepared<{ data: string }>(em, 'select data from lead_import_chunks where import_id = ? and seq = ?', [id, seq]);
    if (!piece) return;
    yield piece.data;
  }
}

/**
 * Checks a file and starts its import; every check runs before anything is written. The file
 * comes as `input.csv`'s text unless an adapter staged it (`source`, a REST upload). An account
 * has at most LEAD_IMPORT_MAX_CONCURRENT imports queued or running: the next one is refused
 * (RATE_LIMITED), counted under a lock of the account that every process takes, so that the cap
 * holds for requests at once on any number of API processes.
 */
export async function startImport(scope: Scope, input: ImportLeadsInput, source: CsvSource = textSource('csv', input.csv)): Promise<LeadImport> {
  const { maxBytes, maxRows, maxConcurrent } = scope.config.leadImport;
  const errors = new FieldErrorCollector();
  checkPositiveInt(errors, 'campaign_id', input.campaign_id);
  if (source.bytes > maxBytes) errors.add(source.field, FieldMessages.fileTooLarge(source.field, maxBytes));
  errors.throwIfAny();

  const survey = await surveyCsv(source, maxRows);
  if (survey === 'not-utf8') errors.add(source.field, FieldMessages.fileNotUtf8(source.field));
  else if (survey.header === null || survey.rows === 0) errors.add('csv', FieldMessages.csvEmpty('csv'));
  else if (survey.rows > maxRows) errors.add('csv', FieldMessages.csvTooManyRows('csv', maxRows));
  if (survey !== 'not-utf8' && survey.header !== null) planImport(survey.header, input.mapping, errors);
  errors.throwIfAny();
  const { rows } = survey as { rows: number };

  return scope.em.transactional(async (em) => {
    const [campaign] = await em.execute('select id from campaigns where id = ? and account_id = ?', [input.campaign_id, scope.accountId]);
    if (!campaign) throw new NotFoundError(Messages.campaignNotFound);
    await em.execute('select pg_advisory_xact_lock((?::bigint << 32) | ?)', [IMPORTS_LOCK_SPACE, scope.accountId]);
    const [{ n }] = await em.execute(`select count(*)::int as n from lead_imports where account_id = ? and status in ('queued', 'running')`, [scope.accountId]);
    if (n >= maxConcurrent) {
      throw new DomainError('RATE_LIMITED', Messages.leadImportsInFlight(maxConcurrent, IMPORTS_IN_FLIGHT_RETRY_S), undefined, { retry_after: IMPORTS_IN_FLIGHT_RETRY_S });
    }
    const [created] = await em.execute(
      `insert into lead_imports (account_id, campaign_id, mapping, rows_total) values (?, ?, ?::jsonb, ?) returning ${COLUMNS}`,
      [scope.accountId, campaign.id, input.mapping ? JSON.stringify(input.mapping) : null, rows],
    );
    await storeFile(em, created.id, source);
    await enqueue(em, 'leads:import', { import_id: created.id });
    return created as LeadImport;
  });
}

export async function getImport(scope: Pick<Scope, 'em' | 'accountId'>, id: number): Promise<LeadImport> {
  const [row] = await scope.em.execute(`select ${COLUMNS} from lead_imports where id = ? and account_id = ?`, [id, scope.accountId]);
  if (!row) throw new NotFoundError(Messages.leadImportNotFound);
  return row as LeadImport;
}

/**
 * Writes the import's progress event, in the caller's transaction (the outbox: it exists exactly
 * when its change does). It names the campaign, so that `campaignUpdated` follows an import batch
 * by batch, as it follows a lead's change.
 */
async function emitProgress(em: EntityManager, accountId: number, id: number, campaignId: number, status: string): Promise<void> {
  await em.execute(
    `with ev as (insert into events (account_id, type, data) values (?, ?, ?::jsonb) returning id)
     select pg_notify(?, (select id::text from ev))`,
    [accountId, LEAD_IMPORT_EVENT, JSON.stringify({ id, campaign_id: campaignId, status }), EVENTS_CHANNEL],
  );
}

interface Running {
  id: number;
  account_id: number;
  campaign_id: number;
  mapping: Record<string, unknown> | null;
  rows_done: number;
}

/** Another run of the same import got further, or the import went with its campaign: this run stops. */
class Superseded extends Error {}

/**
 * The job: imports what is left of the file, batch after batch, then marks the import done and
 * drops the file. Safe to run again at any point (a killed worker's job runs again): a batch
 * starts only where the committed ones ended.
 */
export async function runImport(em: EntityManager, config: Config, id: number): Promise<void> {
  const running = await em.transactional(async (tx) => {
    const [row] = await tx.execute(
      `update lead_imports set status = 'running', updated_at = now() where id = ? and status in ('queued', 'running')
       returning id, account_id, campaign_id, mapping, rows_done, (select status from lead_imports where id = ?) as was`,
      [id, id],
    );
    if (row && row.was === 'queued') await emitProgress(tx, row.account_id, id, row.campaign_id, 'running');
    return row as (Running & { was: string }) | undefined;
  });
  if (!running) return;
  const { batchRows } = config.leadImport;
  // The file is read again from its start (the same text gives the same rows), a piece at a
  // time; the rows that committed batches settled are passed over.
  let plan: ImportPlan | null = null;
  let row = 0;
  let batch: CsvItem[] = [];
  try {
    for await (const item of csvItems(storedFile(em, id))) {
      if (plan === null) {
        plan = planImport('cells' in item ? item.cells : [], running.mapping, new FieldErrorCollector());
        continue;
      }
      if (row++ < running.rows_done) continue;
      batch.push(item);
      if (batch.length === batchRows) {
        await writeBatch(em, config, running, plan, row - batch.length, batch);
        batch = [];
      }
    }
    if (plan !== null && batch.length) await writeBatch(em, config, running, plan, row - batch.length, batch);
  } catch (error) {
    if (error instanceof Superseded) return;
    throw error;
  }
  await em.transactional(async (tx) => {
    const [done] = await tx.execute(
      `update lead_imports set status = 'done', finished_at = now(), updated_at = now() where id = ? and status = 'running' returning id`,
      [id],
    );
    if (!done) return;
    await tx.execute('delete from lead_import_chunks where import_id = ?', [id]);
    await emitProgress(tx, running.account_id, id, running.campaign_id, 'done');
    await enqueue(tx, 'leads:import-forget', { import_id: id }, new Date(Date.now() + IMPORT_RETENTION_DAYS * 86_400_000));
  });
}

/** Ends an import whose job gave up (its last attempt failed): the batches written stay. */
export async function failImport(em: EntityManager, id: number): Promise<void> {
  await em.transactional(async (tx) => {
    const [row] = await tx.execute(
      `update lead_imports set status = 'failed', failure = ?, finished_at = now(), updated_at = now()
       where id = ? and status in ('queued', 'running') returning account_id, campaign_id`,
      [Messages.leadImportFailed, id],
    );
    if (!row) return;
    await tx.execute('delete from lead_import_chunks where import_id = ?', [id]);
    await emitProgress(tx, row.account_id, id, row.campaign_id, 'failed');
    await enqueue(tx, 'leads:import-forget', { import_id: id }, new Date(Date.now() + IMPORT_RETENTION_DAYS * 86_400_000));
  });
}

/** Forgets a finished import's record, IMPORT_RETENTION_DAYS after it ended. */
export async function forgetImport(em: EntityManager, id: number): Promise<void> {
  await em.execute('delete from lead_imports where id = ? and finished_at is not null', [id]);
}

/**
 * One batch, in one transaction. The duplicate rule holds as in POST /user/lead: the campaign
 * is share-locked first, then each number's advisory lock (the one createLead takes), in one
 * order for every batch, so that concurrent imports and creates into the campaign neither
 * duplicate a number nor deadlock; then the numbers the campaign has are read, after the locks.
 */
async function writeBatch(em: EntityManager, config: Config, imp: Running, plan: ImportPlan, start: number, items: CsvItem[]): Promise<void> {
  const rows: LeadRow[] = [];
  const problems: RowProblem[] = [];
  for (const item of items) {
    const read: LeadRow | RowProblem =
      'cells' in item ? readRow(plan, item.cells, item.line, config.defaultPhoneRegion) : { line: item.line, problems: [{ field: null, message: FieldMessages.csvRecord }] };
    if (isProblem(read)) problems.push(read);
    else rows.push(read);
  }
  await em.transactional(async (tx) => {
    const [progress] = await tx.execute('select rows_done, jsonb_array_length(errors) as kept from lead_imports where id = ? for update', [imp.id]);
    if (!progress || progress.rows_done !== start) throw new Superseded();
    const [campaign] = await tx.execute('select id, status from campaigns where id = ? and account_id = ? for share', [imp.campaign_id, imp.account_id]);
    if (!campaign) throw new Superseded();
    const phones = JSON.stringify([...new Set(rows.map((row) => row.phone_number))]);
    let taken = new Set<string>();
    let listed = new Set<string>();
    if (rows.length) {
      await selectPrepared(
        tx,
        `select count(pg_advisory_xact_lock(?, h)) from (select distinct hashtext(p) as h from jsonb_array_elements_text(?::jsonb) p order by 1 offset 0) s`,
        [campaign.id, phones],
      );
      const numbers = (sql: string, param: number) => selectPrepared<{ phone_number: string }>(tx, sql, [param, phones]).then((found) => new Set(found.map((f) => f.phone_number)));
      taken = await numbers('select phone_number from leads where campaign_id = ? and phone_number in (select jsonb_array_elements_text(?::jsonb))', campaign.id);
      listed = await numbers('select phone_number from dnc_numbers where account_id = ? and phone_number in (select jsonb_array_elements_text(?::jsonb))', imp.account_id);
    }
    const fresh: LeadRow[] = [];
    let duplicates = 0;
    for (const row of rows) {
      if (taken.has(row.phone_number)) duplicates++;
      else {
        taken.add(row.phone_number);
        fresh.push(row);
      }
    }
    const blacklisted = fresh.filter((row) => listed.has(row.phone_number)).length;
    if (fresh.length) {
      const leads = await selectPrepared<{ id: number; phone_number: string }>(
        tx,
        `insert into leads (account_id, campaign_id, phone_number, variables, status)
         select ?, ?, r.phone_number, r.variables, r.status from jsonb_to_recordset(?::jsonb) as r(phone_number text, variables jsonb, status text)
         returning id, phone_number`,
        [imp.account_id, campaign.id, JSON.stringify(fresh.map((row) => ({ phone_number: row.phone_number, variables: row.variables, status: listed.has(row.phone_number) ? 'blacklisted' : 'created' })))],
      );
      const ids = new Map(leads.map((lead) => [lead.phone_number, lead.id]));
      const contacts = fresh.flatMap((row) => row.secondary_contacts.map((contact) => ({ lead_id: ids.get(row.phone_number)!, ...contact })));
      if (contacts.length) {
        await selectPrepared(
          tx,
          `insert into secondary_contacts (lead_id, phone_number, variables)
           select r.lead_id, r.phone_number, r.variables from jsonb_to_recordset(?::jsonb) as r(lead_id int, phone_number text, variables jsonb)`,
          [JSON.stringify(contacts)],
        );
      }
    }
    const room = Math.max(0, KEPT_ERRORS - Number(progress.kept));
    const kept: LeadImportError[] = problems.flatMap((problem) => problem.problems.map(({ field, message }) => ({ line: problem.line, message, field }))).slice(0, room);
    await tx.execute(
      `update lead_imports set rows_done = rows_done + ?, created = created + ?, duplicates = duplicates + ?, invalid = invalid + ?,
         blacklisted = blacklisted + ?, errors = errors || ?::jsonb, updated_at = now() where id = ?`,
      [items.length, fresh.length, duplicates, problems.length, blacklisted, JSON.stringify(kept), imp.id],
    );
    await emitProgress(tx, imp.account_id, imp.id, imp.campaign_id, 'running');
    if (campaign.status === 'running' && fresh.length > blacklisted) await wakeDialer(tx, campaign.id);
  });
}
