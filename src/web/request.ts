import type { IncomingMessage } from 'node:http';

const REQUEST_ID = /^[\w.:@-]{1,128}$/;
const TRACEPARENT = /^[\da-f]{2}-([\da-f]{32})-[\da-f]{16}-[\da-f]{2}$/;

/** The caller's request id (X-Request-Id, else the trace id of a W3C traceparent), when well-formed. */
export function incomingRequestId(req: IncomingMessage): string | null {
  const given = req.headers['x-request-id'];
  if (typeof given === 'string' && REQUEST_ID.test(given)) return given;
  const trace = TRACEPARENT.exec(String(req.headers.traceparent ?? ''));
  return trace ? trace[1] : null;
}

/**
 * The path and query of a request in origin form (`/path?query`), read without the Host
 * header; null for anything else (`*`, absolute form, a target the URL parser refuses).
 */
export function requestTarget(raw: string | undefined): URL | null {
  if (!raw?.startsWith('/')) return null;
  try {
    return new URL(`http://localhost${raw}`);
  } catch {
    return null;
  }
}

/** RFC 9112: a Host that is not `host[:port]` gets a 400 (HTTP/1.0 may leave it out). */
export function isValidHost(host: string | undefined): boolean {
  if (host === undefined) return true;
  try {
    const url = new URL(`http://${host}`);
    return url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password && !host.includes('#');
  } catch {
    return false;
  }
}
