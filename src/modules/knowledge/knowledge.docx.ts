import { inflateRawSync } from 'node:zlib';

/**
 * The text of a DOCX file, read without a dependency: a DOCX is a ZIP archive whose
 * `word/document.xml` holds the body. The archive is untrusted: every offset is checked against
 * the buffer, ZIP64 and encryption are refused, and the XML is inflated to at most
 * `maxXmlBytes` (a zip bomb stops there). Null when the file is not a DOCX this can read.
 */
export function docxText(file: Buffer, maxXmlBytes: number): string | null {
  const xml = zipEntry(file, 'word/document.xml', maxXmlBytes);
  return xml === null ? null : documentXmlText(xml.toString('utf8'));
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/** One file of a ZIP archive, uncompressed (stored or deflated), or null. */
export function zipEntry(zip: Buffer, name: string, maxBytes: number): Buffer | null {
  // The end-of-central-directory record: in the last 22 + 65535 bytes (its comment's most).
  let eocd = -1;
  for (let at = zip.length - 22; at >= Math.max(0, zip.length - 22 - 65535); at--) {
    if (zip.readUInt32LE(at) === EOCD) {
      eocd = at;
      break;
    }
  }
  if (eocd < 0) return null;
  const entries = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  for (let i = 0; i < entries; i++) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== CENTRAL) return null;
    const flags = zip.readUInt16LE(at + 8);
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const skip = nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    if (at + 46 + nameLength > zip.length) return null;
    const entryName = zip.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + skip;
    if (entryName !== name) continue;
    // Encrypted, or ZIP64 (sizes 0xffffffff): not a DOCX this reads.
    if (flags & 1 || compressed === 0xffffffff || local + 30 > zip.length || zip.readUInt32LE(local) !== LOCAL) return null;
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    if (start + compressed > zip.length) return null;
    const data = zip.subarray(start, start + compressed);
    if (method === 0) return data.length <= maxBytes ? data : null;
    if (method !== 8) return null;
    try {
      return inflateRawSync(data, { maxOutputLength: maxBytes });
    } catch {
      return null;
    }
  }
  return null;
}

const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * WordprocessingML's text: the characters of `<w:t>` elements, a paragraph's end as a blank
 * line, `<w:tab/>` and `<w:br/>` as white space. Runs join without a space (a word may be
 * split across runs). One pass with indexOf.
 */
export function documentXmlText(xml: string): string {
  const out: string[] = [];
  let pos = 0;
  let inText = false;
  while (pos < xml.length) {
    const lt = xml.indexOf('<', pos);
    if (lt < 0) break;
    if (inText) out.push(xml.slice(pos, lt));
    const gt = xml.indexOf('>', lt + 1);
    if (gt < 0) break;
    const tag = xml.slice(lt + 1, gt);
    pos = gt + 1;
    const name = /^\/?[\w:.-]{1,40}/.exec(tag)?.[0] ?? '';
    if (name === 'w:t') inText = !tag.endsWith('/');
    else if (name === '/w:t') inText = false;
    else if (name === '/w:p') out.push('\n\n');
    else if (name === 'w:tab') out.push(' ');
    else if (name === 'w:br' || name === 'w:cr') out.push('\n');
  }
  return out
    .join('')
    .replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,4});/gi, (whole, entity: string) => {
      if (entity[0] !== '#') return XML_ENTITIES[entity] ?? whole;
      const code = entity[1] === 'x' || entity[1] === 'X' ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10);
      return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : ' ';
    });
}
