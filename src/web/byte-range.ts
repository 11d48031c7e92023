/**
 * The `Range` header of a GET for one resource of `length` bytes (RFC 9110, section 14), as
 * an audio element sends it to seek: one byte range, or the header left unread. No package
 * for it is installed, and a media player sends one range only.
 *
 * - `{ kind: 'whole' }`: no Range, another unit, several ranges, or a range whose syntax is
 *   wrong; the whole resource is sent (200), as the RFC lets a server do.
 * - `{ kind: 'range', start, end }`: the bytes from start to end, inclusive (206).
 * - `{ kind: 'unsatisfiable' }`: no byte of the range exists (416).
 */
export type ByteRange = { kind: 'whole' } | { kind: 'range'; start: number; end: number } | { kind: 'unsatisfiable' };

const BYTES = /^bytes[ \t]*=[ \t]*(\d*)[ \t]*-[ \t]*(\d*)[ \t]*$/i;

export function parseByteRange(header: string | string[] | undefined, length: number): ByteRange {
  if (typeof header !== 'string') return { kind: 'whole' };
  const match = BYTES.exec(header);
  if (!match || (match[1] === '' && match[2] === '')) return { kind: 'whole' };
  const [first, last] = [match[1], match[2]].map((digits) => (digits === '' ? null : Number(digits)));
  if ((first !== null && !Number.isSafeInteger(first)) || (last !== null && !Number.isSafeInteger(last))) return { kind: 'whole' };
  if (first === null) {
    // A suffix: the last `last` bytes.
    if (last === 0 || length === 0) return { kind: 'unsatisfiable' };
    return { kind: 'range', start: Math.max(0, length - last!), end: length - 1 };
  }
  if (last !== null && last < first) return { kind: 'whole' };
  if (first >= length) return { kind: 'unsatisfiable' };
  return { kind: 'range', start: first, end: last === null ? length - 1 : Math.min(last, length - 1) };
}
