import type { CountryCode } from 'libphonenumber-js';
import { FieldErrorCollector, FieldMessages } from '../../errors';
import { phoneProblem, toE164 } from '../../lib/phone';
import { MAX_SECONDARY_CONTACTS } from './lead.service';

/**
 * How a CSV file's rows become leads: the plan made from its header and the mapping, and each
 * row read against it with the rules and messages of POST /user/lead.
 */

/** Where a column goes. */
export type Target =
  | { kind: 'phone' }
  | { kind: 'variable'; key: string }
  | { kind: 'contact-phone'; index: number }
  | { kind: 'contact-variable'; index: number; key: string };

export interface ImportPlan {
  /** Each column's target, in the header's order; null: left out. */
  columns: (Target | null)[];
  /** How many secondary contacts a row may carry (the highest index mapped, plus one). */
  contacts: number;
}

const TARGET = /^(?:(phone_number)|variables\.(.+)|secondary_contacts\.(\d{1,2})\.(?:(phone_number)|variables\.(.+)))$/;

function parseTarget(text: string): Target | 'bad' {
  const match = TARGET.exec(text);
  if (!match) return 'bad';
  if (match[1]) return { kind: 'phone' };
  if (match[2] !== undefined) return { kind: 'variable', key: match[2] };
  const index = Number(match[3]);
  if (index >= MAX_SECONDARY_CONTACTS) return 'bad';
  return match[4] ? { kind: 'contact-phone', index } : { kind: 'contact-variable', index, key: match[5] };
}

/** The default target of a column: phone_number or phone (any case) is the number, any other a variable of its name. */
function defaultTarget(column: string): Target | null {
  const name = column.trim();
  if (name === '') return null;
  return /^(phone_number|phone)$/i.test(name) ? { kind: 'phone' } : { kind: 'variable', key: name };
}

/**
 * The plan of a file with `header`: the mapping's targets for the columns it names, the default
 * for the others. What is wrong is added to `errors` (on `mapping.<column>` or `csv`).
 */
export function planImport(header: string[], mapping: Record<string, unknown> | null | undefined, errors: FieldErrorCollector): ImportPlan {
  const trimmed = header.map((column) => column.trim());
  if (new Set(trimmed.filter((column) => column !== '')).size !== trimmed.filter((column) => column !== '').length) errors.add('csv', FieldMessages.csvHeader('csv'));
  const given = mapping ?? {};
  for (const column of Object.keys(given)) if (!trimmed.includes(column.trim())) errors.add(`mapping.${column}`, FieldMessages.mappingColumn(column));
  const mapped = new Map(Object.entries(given).map(([column, target]) => [column.trim(), target]));
  const columns = trimmed.map((column): Target | null => {
    if (!mapped.has(column)) return defaultTarget(column);
    const target = mapped.get(column);
    if (target === null) return null;
    const parsed = typeof target === 'string' ? parseTarget(target.trim()) : 'bad';
    if (parsed === 'bad') {
      errors.add(`mapping.${column}`, FieldMessages.mappingTarget(column));
      return null;
    }
    return parsed;
  });
  const phones = columns.filter((target) => target?.kind === 'phone').length;
  if (phones === 0) errors.add('csv', FieldMessages.csvNoPhoneColumn);
  if (phones > 1) errors.add('mapping', FieldMessages.mappingPhoneOnce('phone_number'));
  let contacts = 0;
  for (const target of columns) {
    if (target?.kind !== 'contact-phone' && target?.kind !== 'contact-variable') continue;
    contacts = Math.max(contacts, target.index + 1);
  }
  for (let index = 0; index < contacts; index++) {
    const own = columns.filter((target) => (target?.kind === 'contact-phone' || target?.kind === 'contact-variable') && target.index === index);
    const ownPhones = own.filter((target) => target?.kind === 'contact-phone').length;
    if (ownPhones > 1) errors.add('mapping', FieldMessages.mappingPhoneOnce(`secondary_contacts.${index}.phone_number`));
    if (own.length > 0 && ownPhones === 0) errors.add('mapping', FieldMessages.mappingContactPhone(index));
  }
  return { columns, contacts };
}

/** A row that passed: the lead to create. */
export interface LeadRow {
  line: number;
  phone_number: string;
  variables: Record<string, string>;
  secondary_contacts: { phone_number: string; variables: Record<string, string> }[];
}

/** A row that did not, with each field's first message. */
export interface RowProblem {
  line: number;
  problems: { field: string | null; message: string }[];
}

/**
 * One data row read against the plan, with POST /user/lead's rules and messages. An empty
 * cell is no value: a variable is left out, a secondary contact without a number is no contact.
 */
export function readRow(plan: ImportPlan, record: string[], line: number, region: CountryCode | null): LeadRow | RowProblem {
  if (record.length !== plan.columns.length) return { line, problems: [{ field: null, message: FieldMessages.csvColumnCount(record.length, plan.columns.length) }] };
  const errors = new FieldErrorCollector();
  let phone: string | null = null;
  let phoneText = '';
  const variables: Record<string, string> = {};
  const contacts = Array.from({ length: plan.contacts }, () => ({ phone: '', variables: {} as Record<string, string> }));
  plan.columns.forEach((target, index) => {
    if (!target) return;
    const cell = record[index];
    if (target.kind === 'phone') phoneText = cell;
    else if (target.kind === 'contact-phone') contacts[target.index].phone = cell;
    else if (cell !== '') (target.kind === 'variable' ? variables : contacts[target.index].variables)[target.key] = cell;
  });
  if (phoneText.trim() === '') errors.add('phone_number', FieldMessages.required('phone_number'));
  else phone = normalise(errors, 'phone_number', phoneText, region);
  const secondary: LeadRow['secondary_contacts'] = [];
  contacts.forEach((contact, index) => {
    if (contact.phone.trim() === '') return;
    const number = normalise(errors, `secondary_contacts.${index}.phone_number`, contact.phone, region);
    if (number) secondary.push({ phone_number: number, variables: contact.variables });
  });
  if (!errors.empty) {
    return { line, problems: Object.entries(errors.errors).map(([field, messages]) => ({ field, message: messages[0] })) };
  }
  return { line, phone_number: phone!, variables, secondary_contacts: secondary };
}

export const isProblem = (row: LeadRow | RowProblem): row is RowProblem => 'problems' in row;

function normalise(errors: FieldErrorCollector, field: string, input: string, region: CountryCode | null): string | null {
  const e164 = toE164(input, region);
  if (e164 === null) errors.add(field, phoneProblem(input, region) === 'no-region' ? FieldMessages.phoneWithoutRegion(field) : FieldMessages.phone(field));
  return e164;
}
