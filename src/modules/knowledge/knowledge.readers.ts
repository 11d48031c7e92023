import { FieldMessages } from '../../errors';
import type { DocumentReaders } from './knowledge.ports';
import type { DocumentType } from './knowledge.rules';

/** A document whose text cannot be read: its ingestion fails for good, with this reason (retrying would not help). */
export class UnreadableDocumentError extends Error {}

/** UTF-8 text without NUL: what a `txt` file or a `text` document must be. Null when it is not (binary, or another encoding). */
export function utf8Text(bytes: Buffer): string | null {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
  return text.includes('\u0000') ? null : text;
}

/** What is wrong with an uploaded file for its type, checked when it is sent (a 422 on `file`), or null. */
export function checkFile(type: DocumentType, bytes: Buffer): string | null {
  if (bytes.length === 0) return FieldMessages.required('file');
  if (type === 'txt' && utf8Text(bytes) === null) return FieldMessages.fileNotText('file');
  if (type === 'pdf' && bytes.subarray(0, 5).toString('latin1') !== '%PDF-') return FieldMessages.fileType('file', 'PDF');
  // A DOCX is a ZIP archive.
  if (type === 'docx' && bytes.subarray(0, 4).toString('latin1') !== 'PK\u0003\u0004') return FieldMessages.fileType('file', 'DOCX');
  return null;
}

/** The text of a document made from a text or a file (websites are read by knowledge.website.ts). */
export async function readDocument(type: Exclude<DocumentType, 'website'>, source: Buffer | null, readers: DocumentReaders): Promise<string> {
  if (!source) throw new UnreadableDocumentError('O documento não tem arquivo.');
  if (type === 'pdf') return readers.pdf(source);
  if (type === 'docx') return readers.docx(source);
  const text = utf8Text(source);
  if (text === null) throw new UnreadableDocumentError('O arquivo não é texto UTF-8.');
  return text;
}
