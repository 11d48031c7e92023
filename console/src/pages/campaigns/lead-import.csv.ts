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

/** The API's default target of a column: phone_number or phone (any case) is the number, a blank column is left out, any other a variable of its name. */
export function defaultChoice(column: string, sample = ''): ColumnChoice {
  const name = column.trim();
  if (name === '') return { column, sample, kind: 'ignore', name: '' };
  return { column, sample, kind: /^(phone_number|phone)$/i.test(name) ? 'phone' : 'variable', name };
}

/**
 * The header and first data row of `file`, with the server's own reading (RFC 4180, BOM
 * dropped, blank lines skipped, a stray quote taken as text). csv-parse is loaded on demand,
 * so the first load of the console does not carry it.
 */
export async function readHead(file: Blob): Promise<ColumnChoice[]> {
  const { parse } = await import('csv-parse/browser/esm/sync');
  const head = await file.slice(0, HEAD_BYTES).text();
  // A record cut at the slice's end is skipped, not an error: only the first two are wanted.
  const records = parse(head, { bom: true, relax_quotes: true, relax_column_count: true, skip_empty_lines: true, skip_records_with_error: true, to: 2 }) as string[][];
  const [header = [], sample = []] = records;
  return header.map((column, index) => defaultChoice(column, sample[index] ?? ''));
}

/**
 * The mapping to send: only the columns whose choice differs from the API's default (none
 * changed: no mapping at all), so that what the operator did not touch is the API's to decide.
 */
export function toMapping(choices: ColumnChoice[]): Record<string, string | null> | null {
  const mapping: Record<string, string | null> = {};
  for (const choice of choices) {
    const initial = defaultChoice(choice.column);
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
