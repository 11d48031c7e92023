import { fromBufferPromise, type ZipFile } from 'yauzl';
import { UnreadableDocumentError } from '../modules/knowledge/knowledge.readers';

/**
 * The text of a DOCX file: a ZIP archive whose `word/document.xml` holds the body, read with
 * yauzl. The archive is untrusted: an entry whose declared size exceeds the bound is refused
 * before a byte of it is inflated, and yauzl checks while inflating that the entry is no bigger
 * than declared (`validateEntrySizes`), so a bomb that lies about its size stops there too.
 */
export function docxReader(maxXmlBytes = DOCX_MAX_XML_BYTES): (file: Buffer) => Promise<string> {
  return async (file) => documentXmlText((await documentXml(file, maxXmlBytes)).toString('utf8'));
}

/** The most XML a DOCX's body may inflate to. */
export const DOCX_MAX_XML_BYTES = 64 * 1024 * 1024;

const NOT_A_DOCX = 'O arquivo não é um DOCX legível (corrompido, cifrado ou sem word/document.xml).';

async function documentXml(file: Buffer, maxBytes: number): Promise<Buffer> {
  let zip: ZipFile;
  try {
    zip = await fromBufferPromise(file, { lazyEntries: true, validateEntrySizes: true, strictFileNames: false, decodeStrings: true });
  } catch {
    throw new UnreadableDocumentError(NOT_A_DOCX);
  }
  try {
    for await (const entry of zip.eachEntry()) {
      if (entry.fileName !== 'word/document.xml') continue;
      if (entry.isEncrypted()) break;
      if (entry.uncompressedSize > maxBytes) throw new UnreadableDocumentError(`O texto do DOCX passa de ${Math.round(maxBytes / 1024 / 1024) || '<1'} MB descompactado.`);
      const chunks: Buffer[] = [];
      for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    }
  } catch (error) {
    if (error instanceof UnreadableDocumentError) throw error;
    // yauzl's refusals (a bad offset, a CRC or size that does not match what was declared).
    throw new UnreadableDocumentError(NOT_A_DOCX);
  } finally {
    zip.close();
  }
  throw new UnreadableDocumentError(NOT_A_DOCX);
}

const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * WordprocessingML's text: the characters of `<w:t>` elements, a paragraph's end as a blank
 * line, `<w:tab/>` and `<w:br/>` as white space. Runs join without a space (a word may be
 * split across runs). One pass with indexOf: the cost is the XML's length, whatever its shape.
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
