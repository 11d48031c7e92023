import type { DocumentReaders } from '../modules/knowledge/knowledge.ports';
import { docxReader } from './docx.reader';
import { pdfReader, type PdfReaderOptions } from './pdf.reader';

/** The readers knowledge-base ingestion uses for files (the domain's DocumentReaders port). */
export function documentReaders(pdf: PdfReaderOptions = {}): DocumentReaders {
  return { pdf: pdfReader(pdf), docx: docxReader() };
}
