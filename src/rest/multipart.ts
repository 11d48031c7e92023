import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';

/** A multipart/form-data body: its text fields, and its one file part when it came whole. */
export interface MultipartBody {
  fields: Record<string, string>;
  /** The file part named as asked; 'too-large' when it passed `maxFileBytes`. */
  file: Buffer | 'too-large' | null;
}

export class MalformedMultipartError extends Error {}

export const isMultipart = (contentType: string | undefined): boolean => contentType?.split(';')[0].trim().toLowerCase() === 'multipart/form-data';

/** Text fields beyond these are not read: a form of this API has a few short ones. */
const FIELD_LIMITS = { fields: 20, fieldSize: 1024 * 1024, parts: 25, files: 1 };

/**
 * Reads a multipart/form-data request (busboy): the file part `fileField` up to
 * `maxFileBytes` (past it the rest is read and dropped, and the answer says so), other file
 * parts dropped, text fields kept.
 */
export function readMultipart(req: IncomingMessage, fileField: string, maxFileBytes: number): Promise<MultipartBody> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { ...FIELD_LIMITS, fileSize: maxFileBytes } });
    } catch (error) {
      return reject(new MalformedMultipartError((error as Error).message));
    }
    const fields: Record<string, string> = {};
    let file: MultipartBody['file'] = null;
    parser.on('field', (name, value) => (fields[name] = value));
    parser.on('file', (name, stream) => {
      if (name !== fileField) return void stream.resume();
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => (file = 'too-large'));
      stream.on('end', () => {
        if (file !== 'too-large') file = Buffer.concat(chunks);
      });
    });
    parser.on('error', (error) => reject(new MalformedMultipartError((error as Error).message)));
    parser.on('close', () => resolve({ fields, file }));
    req.pipe(parser);
  });
}
