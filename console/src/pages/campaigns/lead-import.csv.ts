/**
 * What the console reads of a CSV file before it sends it: the header and one sample row, for
 * the column mapping, and the mapping the API takes (`{"<column>": target}`). The file itself
 * is read by the server; the rules here only mirror its defaults so the form starts where the
 * API would.
 */

export type TargetKind = 'phone' | 'variable' | 'ignore';

export interface ColumnChoice {
  column: string;
  sample: string;
  kind: TargetKind;
  /** The variable's name, when `kind` is variable. */
  name: string;
}

/** How much of the file is read for its header: a header longer than this is not a CSV a person made. */
const HEAD_BYTES = 64 * 1024;

/** The API's own default for a column: phone_number or phone (any case) is the number, a blank column is left out, any other a variable of its name. */
export function apiDefault(column: string, sample = ''): ColumnChoice {
  const name = column.trim();
  if (name === '') return { column, sample, kind: 'ignore', name: '' };
  return { column, sample, kind: /^(phone_number|phone)$/i.test(name) ? 'phone' : 'variable', name };
}

/** Headers people give a phone column, compared without case, accents, spaces or punctuation (Telefone, Celular 1, WhatsApp, Nº). */
const PHONE_HEADER = /^(phone|phonenumber|telephone|telefone|tel|fone|celular|cel|cell|cellphone|mobile|mobilephone|number|numero|whatsapp|whats)\d*$/;

const bare = (text: string) =>
  text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');

export const isPhoneHeader = (column: string) => PHONE_HEADER.test(bare(column));

/** A value that reads as a phone number: digits with the usual separators, 8 to 15 of them, an optional +. */
export const looksLikePhone = (value: string) => /^\+?[\d\s().-]+$/.test(value.trim()) && /^\d{8,15}$/.test(value.replace(/\D/g, ''));

/**
 * The form's starting mapping: the API's defaults, except that when no column is the phone
 * number by the API's rule, the first column with a usual phone header, else the first whose
 * sample values all read as phone numbers, is; so that a file from a spreadsheet starts
 * ready to import.
 */
export function defaultChoices(header: string[], samples: string[][]): ColumnChoice[] {
  const choices = header.map((column, index) => apiDefault(column, samples[0]?.[index] ?? ''));
  if (choices.some((choice) => choice.kind === 'phone')) return choices;
  const values = (index: number) => samples.map((row) => row[index] ?? '').filter((value) => value.trim() !== '');
  let phone = header.findIndex((column) => isPhoneHeader(column));
  if (phone < 0) phone = header.findIndex((_column, index) => values(index).length > 0 && values(index).every(looksLikePhone));
  if (phone >= 0) choices[phone] = { ...choices[phone], kind: 'phone' };
  return choices;
}

/** Rows read to guess the phone column by its values. */
const SAMPLE_ROWS = 5;

/**
 * The header and first data rows of `file`, with the server's own reading (RFC 4180, BOM
 * dropped, blank lines skipped, a stray quote taken as text). csv-parse is loaded on demand,
 * so the first load of the console does not carry it.
 */
export async function readHead(file: Blob): Promise<ColumnChoice[]> {
  const { parse } = await import('csv-parse/browser/esm/sync');
  const head = await file.slice(0, HEAD_BYTES).text();
  // A record cut at the slice's end is skipped, not an error: only the first few are wanted.
  const records = parse(head, { bom: true, relax_quotes: true, relax_column_count: true, skip_empty_lines: true, skip_records_with_error: true, to: 1 + SAMPLE_ROWS }) as string[][];
  const [header = [], ...samples] = records;
  return defaultChoices(header, samples);
}

/**
 * The mapping to send: only the columns whose choice differs from the API's default (none
 * differs: no mapping at all), so that the rest is the API's to decide.
 */
export function toMapping(choices: ColumnChoice[]): Record<string, string | null> | null {
  const mapping: Record<string, string | null> = {};
  for (const choice of choices) {
    const initial = apiDefault(choice.column);
    const name = choice.name.trim();
    if (choice.kind === initial.kind && (choice.kind !== 'variable' || name === initial.name)) continue;
    mapping[choice.column.trim()] = choice.kind === 'phone' ? 'phone_number' : choice.kind === 'variable' ? `variables.${name}` : null;
  }
  return Object.keys(mapping).length ? mapping : null;
}

/** The file's text if it is UTF-8; null if not (the server then names the problem itself). */
export async function utf8Text(file: Blob): Promise<string | null> {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(await file.arrayBuffer());
  } catch {
    return null;
  }
}
