/**
 * Where an import's file is read from when it is sent: a field's text (GraphQL's `csv`), or a
 * file an adapter staged (the REST upload, on disk). It can be read more than once (checked,
 * then stored), a piece at a time, so that no one holds the whole file.
 */
export interface CsvSource {
  /** The request's field the file came in, for its errors (`csv`, `file`). */
  field: string;
  /** Its size in bytes. */
  bytes: number;
  /** Its text, in pieces; throws CsvNotUtf8Error when its bytes are not UTF-8. */
  text(): AsyncIterable<string>;
}

export class CsvNotUtf8Error extends Error {}

/** The pieces a text is read and stored in (characters). */
export const SOURCE_PIECE_CHARS = 1024 * 1024;

/** A text in pieces of about `size` characters, never cutting a character in two (a surrogate pair). */
export function* slices(text: string, size: number): Generator<string> {
  for (let at = 0; at < text.length; ) {
    let end = Math.min(at + size, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end++;
    yield text.slice(at, end);
    at = end;
  }
}

/** A file given as text. */
export function textSource(field: string, text: string): CsvSource {
  return {
    field,
    bytes: Buffer.byteLength(text, 'utf8'),
    async *text() {
      yield* slices(text, SOURCE_PIECE_CHARS);
    },
  };
}
