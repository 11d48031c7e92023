/**
 * Whether an error means the database cannot be reached right now (down, restarting,
 * refusing connections, stalled past DATABASE_TIMEOUT_MS, the pool starved), as opposed to a
 * bug or a bad query. Clients then get a clean 503 and may retry.
 */
// 57014: a statement past DATABASE_TIMEOUT_MS (statement_timeout), a database too slow to answer now.
const CODES = new Set(['57014', '57P01', '57P02', '57P03', '53300', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH']);
const MESSAGES = [
  'connection terminated',
  'not currently accepting connections',
  'timeout acquiring a connection',
  'timeout exceeded when trying to connect',
  // pg's bound on a connection the server never answered (DATABASE_TIMEOUT_MS, db/orm.ts).
  'timeout expired',
  'the database system is shutting down',
  'the database system is starting up',
  'client has encountered a connection error',
  'connect econnrefused',
  // A refused connection that reached graphql-js as a plain object, not an Error: it wraps it
  // as "Unexpected error value: { errno: -111, code: "ECONNREFUSED", ... }".
  'code: "econnrefused"',
  // knex's answer to a query in a transaction whose connection was cut under it (the code
  // never uses a transaction after it ends: tests would show that as this message at once).
  'transaction query already complete',
];

export function isDatabaseUnavailable(error: unknown): boolean {
  for (const { code, message } of causes(error)) {
    // Class 08 is "connection exception", but 08P01 (protocol violation) is what the server
    // answers a statement it cannot read, such as text with a NUL byte: a bad request.
    if (typeof code === 'string' && (CODES.has(code) || (code.startsWith('08') && code !== '08P01'))) return true;
    if (typeof message === 'string' && MESSAGES.some((text) => message.toLowerCase().includes(text))) return true;
  }
  return false;
}

/** An error and what it wraps (`cause`, or graphql-js's `originalError`), at most five deep. */
export function* causes(error: unknown): Generator<{ code?: unknown; message?: unknown }> {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth++) {
    yield current as { code?: unknown; message?: unknown };
    const { cause, originalError } = current as { cause?: unknown; originalError?: unknown };
    current = cause ?? originalError;
  }
}
