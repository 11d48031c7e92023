import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpStatusByCode, type ErrorCode } from './errors';

export class BodyTooLargeError extends Error {}

/**
 * How much of a body that was answered before it was read (a 413, a 401) is still read and
 * dropped, and for how long: a client writes its whole body before it reads the answer
 * (Node's own client does), and a connection closed under it loses the answer to a reset.
 * Past either bound the connection is closed anyway. (Node itself would read such a body to
 * its end, however long.)
 */
export const UNREAD_BODY_DRAIN_BYTES = 16 * 1024 * 1024;
export const UNREAD_BODY_DRAIN_MS = 10_000;

/**
 * Reads the whole request body, refusing more than `limit` bytes (BodyTooLargeError). A refused
 * body is left to `drainUnread` once its 413 has gone out.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      stop();
      reject(new BodyTooLargeError());
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks));
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) return reject(new BodyTooLargeError());
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/**
 * Reads and drops what is left of a request body once its answer is complete (call it on the
 * response's 'prefinish', before Node would start dropping it unbounded), at most
 * UNREAD_BODY_DRAIN_BYTES for at most UNREAD_BODY_DRAIN_MS; past either, the connection closes.
 */
export function drainUnread(req: IncomingMessage): void {
  if (req.complete || req.destroyed) return;
  let left = UNREAD_BODY_DRAIN_BYTES;
  const timer = setTimeout(() => req.destroy(), UNREAD_BODY_DRAIN_MS);
  timer.unref();
  req.once('end', () => clearTimeout(timer));
  req.on('data', (chunk: Buffer) => {
    left -= chunk.length;
    if (left < 0) req.destroy();
  });
  req.on('error', () => {});
}

/** Whether the request has a body that has not all arrived yet: its answer comes before it was read. */
function bodyStillComing(req: IncomingMessage | undefined): req is IncomingMessage {
  if (!req || req.complete || req.destroyed) return false;
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length']) > 0;
}

/**
 * Ends an answer given before its request's body was read (a 413, a 401): the answer is written
 * at once, marked `Connection: close` by the caller, but the response ends (and Node closes the
 * connection) only once the body has arrived, read and dropped up to UNREAD_BODY_DRAIN_BYTES
 * within UNREAD_BODY_DRAIN_MS. A connection closed while the client still writes is reset by
 * the client's next bytes, and the reset drops the answer the client had not read yet (EPIPE
 * instead of the 413); past either bound the connection is closed all the same.
 */
function endAfterBody(req: IncomingMessage, res: ServerResponse, payload: string): void {
  res.write(payload);
  let left = UNREAD_BODY_DRAIN_BYTES;
  const finish = (whole: boolean) => {
    clearTimeout(timer);
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('close', onClose);
    if (!res.writableEnded) res.end();
    if (!whole) req.destroy();
  };
  const onData = (chunk: Buffer) => {
    left -= chunk.length;
    if (left < 0) finish(false);
  };
  const onEnd = () => finish(true);
  const onClose = () => finish(req.complete);
  const timer = setTimeout(() => finish(false), UNREAD_BODY_DRAIN_MS);
  timer.unref();
  req.on('data', onData);
  req.once('end', onEnd);
  req.once('close', onClose);
  req.on('error', () => {});
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string | number> = {},
): void {
  const payload = JSON.stringify(body);
  const unread = bodyStillComing(res.req);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
    ...(unread ? { connection: 'close' } : {}),
  });
  if (unread) endAfterBody(res.req, res, payload);
  else res.end(payload);
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
