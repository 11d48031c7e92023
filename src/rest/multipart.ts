import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import busboy from 'busboy';
import type { UploadedFile } from '../modules/knowledge/knowledge.service';
import { CsvNotUtf8Error, type CsvSource } from '../modules/leads/lead.import.source';

/**
 * A file part written to disk as it arrived: never whole in memory (five 18 MB uploads at
 * once were 700 MB of heap), read back a piece at a time, removed by `dispose`.
 */
export interface StagedFile extends CsvSource, UploadedFile {
  dispose(): Promise<void>;
}

/** A multipart/form-data body: its text fields, and its one file part when it came whole. */
export interface MultipartBody {
  fields: Record<string, string>;
  /** The file part named as asked; 'too-large' when it passed `maxFileBytes`. */
  file: StagedFile | 'too-large' | null;
}

export class MalformedMultipartError extends Error {}

export const isMultipart = (contentType: string | undefined): boolean => contentType?.split(';')[0].trim().toLowerCase() === 'multipart/form-data';

/** Text fields beyond these are not read: a form of this API has a few short ones. */
const FIELD_LIMITS = { fields: 20, fieldSize: 1024 * 1024, parts: 25, files: 1 };

/** A staged file read back: its text, decoded as UTF-8 piece by piece (a byte that is not UTF-8 throws CsvNotUtf8Error). */
function stagedFile(field: string, file: string, bytes: number, dispose: () => Promise<void>): StagedFile {
  return {
    field,
    bytes,
    dispose,
    // Whole, for a reader that needs it so (a knowledge document, at most KB_MAX_DOCUMENT_BYTES).
    buffer: () => readFile(file),
    async *text() {
      const decoder = new TextDecoder('utf-8', { fatal: true });
      const decode = (chunk?: Buffer) => {
        try {
          return chunk ? decoder.decode(chunk, { stream: true }) : decoder.decode();
        } catch {
          throw new CsvNotUtf8Error();
        }
      };
      for await (const chunk of createReadStream(file, { highWaterMark: 256 * 1024 })) yield decode(chunk as Buffer);
      const rest = decode();
      if (rest) yield rest;
    },
  };
}

/**
 * Reads a multipart/form-data request (busboy): the file part `fileField` written to a file of
 * its own up to `maxFileBytes` (past it the rest is read and dropped, and the answer says so),
 * other file parts dropped, text fields kept. The caller disposes of the file.
 */
export async function readMultipart(req: IncomingMessage, fileField: string, maxFileBytes: number): Promise<MultipartBody> {
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: req.headers, limits: { ...FIELD_LIMITS, fileSize: maxFileBytes } });
  } catch (error) {
    throw new MalformedMultipartError((error as Error).message);
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'vozgate-upload-'));
  const dispose = () => rm(dir, { recursive: true, force: true });
  try {
    return await new Promise<MultipartBody>((resolve, reject) => {
      const fields: Record<string, string> = {};
      let file: MultipartBody['file'] = null;
      let writing: Promise<void> = Promise.resolve();
      parser.on('field', (name, value) => (fields[name] = value));
      parser.on('file', (name, stream) => {
        if (name !== fileField) return void stream.resume();
        const target = path.join(dir, 'file');
        let bytes = 0;
        let tooLarge = false;
        const count = new Transform({
          transform(chunk: Buffer, _encoding, done) {
            bytes += chunk.length;
            done(null, chunk);
          },
        });
        stream.on('limit', () => (tooLarge = true));
        // Written at the pace the disk takes it: busboy, and so the socket, wait for it.
        writing = pipeline(stream, count, createWriteStream(target)).then(() => {
          file = tooLarge ? 'too-large' : stagedFile(fileField, target, bytes, dispose);
        });
        // Its failure (a full disk) is the request's, reported at 'close'; until then it is handled here.
        writing.catch(() => {});
      });
      parser.on('error', (error) => reject(new MalformedMultipartError((error as Error).message)));
      parser.on('close', () => writing.then(() => resolve({ fields, file }), reject));
      req.pipe(parser);
    }).then((body) => {
      if (body.file === null || body.file === 'too-large') void dispose();
      return body;
    });
  } catch (error) {
    await dispose();
    throw error;
  }
}
