import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpStatusByCode, type ErrorCode } from './errors';

export class BodyTooLargeError extends Error {}

/** Reads the whole request body, refusing more than `limit` bytes. */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw new BodyTooLargeError();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new BodyTooLargeError();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string | number> = {},
): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
  });
  res.end(payload);
}

/**
 * A GraphQL error answered before any operation runs, in GraphQL's shape:
 * `{errors: [{message, extensions: {code, status}}]}`, with the code's HTTP status.
 */
export function sendGraphQLError(res: ServerResponse, code: ErrorCode, message: string, headers: Record<string, string | number> = {}): void {
  const status = HttpStatusByCode[code];
  sendJson(res, status, { errors: [{ message, extensions: { code, status } }] }, headers);
}

/**
 * A REST error body: the spec's `message`, the code a program can switch on (the same as
 * GraphQL's `extensions.code`), and whatever the case adds (`errors`, a provider's `error`).
 * A 401 names the scheme it wants; a 429 says when to come back, in the header and, as the
 * original platform's clients read it, in the body.
 */
export function sendError(
  res: ServerResponse,
  code: ErrorCode,
  message: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string | number> = {},
): void {
  const status = HttpStatusByCode[code];
  const allHeaders = { ...headers };
  if (status === 401) allHeaders['www-authenticate'] = 'Bearer';
  const retryAfter = allHeaders['retry-after'];
  const body = { message, code, ...extra, ...(status === 429 && retryAfter !== undefined ? { retry_after: Number(retryAfter) } : {}) };
  sendJson(res, status, body, allHeaders);
}
