import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { parse as parseSync, type Options } from 'csv-parse/sync';

/**
 * RFC 4180 with a header row; a UTF-8 BOM is dropped; blank lines are not rows; a quote inside
 * an unquoted cell (`=HYPERLINK("x")`) is taken as text, as spreadsheets write it.
 */
const OPTIONS: Options = { bom: true, relax_column_count: true, relax_quotes: true, skip_empty_lines: true };

/** csv-parse may report one malformed record more than once: one row per line it reports. */
const lineOf = (error: unknown) => (error as { lines?: number }).lines ?? 0;

/** A data row of the file: its cells and the line it starts on; or a row csv-parse could not read. */
export type CsvItem = { line: number; cells: string[] } | { line: number; malformed: true };

/** The line a record starts on, from the line it ends on and the line breaks inside its cells. */
function startLine(endLine: number, cells: string[]): number {
  let breaks = 0;
  for (const cell of cells) for (let i = cell.indexOf('\n'); i !== -1; i = cell.indexOf('\n', i + 1)) breaks++;
  return endLine - breaks;
}

/**
 * Reads a whole file: its header and its data rows in order, a malformed row (an unclosed
 * quote) kept in its place. The same text always gives the same rows, so that an import that
 * stopped resumes at the row it had reached.
 */
export function readCsv(text: string): { header: string[]; items: CsvItem[] } {
  const skippedLines = new Set<number>();
  const records = parseSync(text, {
    ...OPTIONS,
    info: true,
    skip_records_with_error: true,
    on_skip: (error) => void skippedLines.add(lineOf(error)),
  }) as unknown as { record: string[]; info: { lines: number } }[];
  const rows: CsvItem[] = records.map(({ record, info }) => ({ line: startLine(info.lines, record), cells: record }));
  const skipped: CsvItem[] = [...skippedLines].map((line) => ({ line, malformed: true }));
  const all = skipped.length ? [...rows, ...skipped].sort((a, b) => a.line - b.line) : rows;
  const [first, ...items] = all;
  return { header: first && 'cells' in first ? first.cells : [], items };
}

/**
 * A file's header and how many data rows it has, read in chunks so that a large file does not
 * hold the event loop (the API process checks a file before it accepts it).
 */
export async function surveyCsv(text: string): Promise<{ header: string[] | null; rows: number }> {
  const CHUNK = 256 * 1024;
  const chunks = function* () {
    for (let at = 0; at < text.length; at += CHUNK) yield text.slice(at, at + CHUNK);
  };
  let header: string[] | null = null;
  let rows = 0;
  // A malformed row is a row all the same (the import reports it with its line).
  const skippedLines = new Set<number>();
  const parser = Readable.from(chunks()).pipe(parse({ ...OPTIONS, skip_records_with_error: true, on_skip: (error) => void skippedLines.add(lineOf(error)) }));
  for await (const record of parser as AsyncIterable<string[]>) {
    if (header === null) header = record;
    else rows++;
  }
  return { header, rows: rows + skippedLines.size };
}
