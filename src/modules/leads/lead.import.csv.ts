import { finished } from 'node:stream/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { parse, type Options } from 'csv-parse';
import { slices } from './lead.import.source';

/**
 * RFC 4180 with a header row; a UTF-8 BOM is dropped; blank lines are not rows; a quote inside
 * an unquoted cell (`=HYPERLINK("x")`) is taken as text, as spreadsheets write it.
 */
const OPTIONS: Options = { bom: true, relax_column_count: true, relax_quotes: true, skip_empty_lines: true };

/**
 * The text parsed in one go before the loop gets a turn: a few milliseconds of work, so that a
 * 20 MB file parsed in a process that also serves requests never holds it (the whole file in
 * one synchronous call held /healthz for seconds).
 */
export const PARSE_SLICE_CHARS = 16 * 1024;

/** csv-parse may report one malformed record more than once: one row per line it reports. */
const lineOf = (error: unknown) => (error as { lines?: number }).lines ?? 0;

/** A record of the file (the header first): its cells and the line it starts on; or a row csv-parse could not read. */
export type CsvItem = { line: number; cells: string[] } | { line: number; malformed: true };

/** The line a record starts on, from the line it ends on and the line breaks inside its cells. */
function startLine(endLine: number, cells: string[]): number {
  let breaks = 0;
  for (const cell of cells) for (let i = cell.indexOf('\n'); i !== -1; i = cell.indexOf('\n', i + 1)) breaks++;
  return endLine - breaks;
}

/**
 * Reads a file's records in order, the header first, from its text in pieces of any size: a
 * malformed row (an unclosed quote) is kept in its place. The same text always gives the same
 * records, however it is cut, so that an import that stopped resumes at the row it had reached.
 * Stopping early (a `break`, a `return`) stops the reading of the text.
 */
export async function* csvItems(text: AsyncIterable<string>): AsyncGenerator<CsvItem> {
  // csv-parse calls both hooks synchronously, in the file's order, from inside `write`: the
  // records are taken there, so that a skipped record keeps its place among them.
  let ready: CsvItem[] = [];
  const skipped = new Set<number>();
  const parser = parse({
    ...OPTIONS,
    skip_records_with_error: true,
    on_skip: (error) => {
      const line = lineOf(error);
      if (skipped.has(line)) return;
      skipped.add(line);
      ready.push({ line, malformed: true });
    },
    on_record: (record: string[], context) => {
      ready.push({ line: startLine(context.lines, record), cells: record });
      return null; // taken here, not pushed to the stream
    },
  });
  let failure: Error | null = null;
  parser.on('error', (error) => (failure = error));
  parser.resume();
  const take = function* () {
    const items = ready;
    ready = [];
    yield* items;
  };
  for await (const piece of text) {
    for (const slice of slices(piece, PARSE_SLICE_CHARS)) {
      parser.write(slice);
      if (failure) throw failure;
      yield* take();
      await nextTurn();
    }
  }
  parser.end();
  await finished(parser).catch((error: Error) => (failure ??= error));
  if (failure) throw failure;
  yield* take();
}
