import { stringify } from 'csv-stringify/sync';

/**
 * CSV as the exports write it: UTF-8, RFC 4180 (CRLF between records, a field quoted when it
 * holds a comma, a quote or a line break), values as text.
 */

const FORMULA_START = /^[=+\-@\t\r]/;
const NUMBER = /^[+-]?\d+(\.\d+)?$/;

/**
 * OWASP's rule against CSV injection: a cell a spreadsheet would read as a formula (starting
 * with = + - @, a tab or a carriage return) gets a leading quote. A plain number (+5511987650000,
 * -3.5) is no formula and stays as it is, so that phone numbers and amounts keep their value.
 */
export function neutralised(text: string): string {
  return FORMULA_START.test(text) && !NUMBER.test(text) ? `'${text}` : text;
}

/** A value as its cell's text: nothing for null, JSON for an object or a list. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return neutralised(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return neutralised(JSON.stringify(value));
}

/** Records (each a list of values) as CSV text. */
export function csvRecords(records: unknown[][]): string {
  return stringify(
    records.map((record) => record.map(cellText)),
    // csv-stringify quotes a cell holding the record delimiter (CRLF) but not a bare line break: say so.
    { record_delimiter: '\r\n', quoted_match: /[\r\n]/ },
  );
}
