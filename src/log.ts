import pino, { type DestinationStream } from 'pino';
import { prettyFactory } from 'pino-pretty';

/** The line each HTTP request leaves: known fields, none of them a secret. */
export interface AccessLine {
  request_id: string;
  method: string | undefined;
  route: string;
  status: number;
  ms: number;
  account_id: number | null;
}

export interface Logger {
  /** One request's line, at info (written without the censor's search: its fields are fixed). */
  access(line: AccessLine): void;
  info(message: string, fields?: Record<string, unknown>): void;
  debug(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, error?: unknown, fields?: Record<string, unknown>): void;
}

/**
 * Structured JSON logs (pino), one object a line. Whatever might carry a credential is
 * censored by key wherever it appears: Authorization headers, tokens, secrets, passwords.
 */
export function createLogger(level = process.env.LOG_LEVEL ?? 'info', destination?: DestinationStream): Logger {
  // A person at a terminal reads lines, not JSON; anything else (a file, a collector) gets JSON.
  destination ??= process.stdout.isTTY ? terminalLines(process.stdout) : jsonLines();
  const log = pino(
    {
      level,
      base: { service: 'vozgate' },
      serializers: { err: serializeError },
      redact: {
        paths: [
          'authorization', '*.authorization', '*.*.authorization', 'headers.authorization',
          'token', '*.token', 'secret', '*.secret', 'webhook_secret', '*.webhook_secret',
          'password', '*.password', 'cookie', '*.cookie',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
  // Censoring walks every key of a line against the paths above: a tenth of a simple read's
  // time in the process. An access line cannot carry a credential, so it skips the walk.
  const access = log.child({}, { redact: { paths: [] } });
  return {
    access: (line) => access.info(line, 'request'),
    info: (message, fields) => log.info(fields ?? {}, message),
    debug: (message, fields) => log.debug(fields ?? {}, message),
    warn: (message, fields) => log.warn(fields ?? {}, message),
    error: (message, error, fields) => log.error({ ...fields, ...(error === undefined ? {} : { err: error }) }, message),
  };
}

/**
 * What a person at a terminal reads: pino-pretty's lines, each written at once, except a
 * request's, which is one short line (`12:00:01.250 INFO  POST /user/lead 200 14 ms account 1
 * req 5f0c...`) instead of pino-pretty's seven, so that a few requests do not scroll the
 * banner (and its token) away.
 */
export function terminalLines(out: { write(text: string): unknown }, colors = true): DestinationStream {
  const prettify = prettyFactory({ colorize: colors, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service' });
  return {
    write(line: string) {
      const record = JSON.parse(line) as Record<string, unknown>;
      out.write(record.msg === 'request' && record.level === 30 ? accessText(record as unknown as AccessLine & { time: number }, colors) : prettify(record));
    },
  };
}

function accessText(line: AccessLine & { time: number }, colors: boolean): string {
  const at = new Date(line.time);
  const time = [at.getHours(), at.getMinutes(), at.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':') + `.${String(at.getMilliseconds()).padStart(3, '0')}`;
  const status = colors ? `\x1b[${line.status >= 500 ? 31 : line.status >= 400 ? 33 : 32}m${line.status}\x1b[39m` : String(line.status);
  const account = line.account_id === null ? '' : ` account ${line.account_id}`;
  return `[${time}] ${colors ? '\x1b[32mINFO\x1b[39m' : 'INFO'}: ${line.method ?? '-'} ${line.route} ${status} ${line.ms} ms${account} req ${line.request_id}\n`;
}

/**
 * Standard output, written 4 KB at a time or every 100 ms, whichever comes first, and all of
 * it when the process exits (pino flushes its destinations on exit). pino's default writes
 * each line on its own: a write, through libuv's thread pool, for every request's access
 * line. A REST get call, one request at a time, took 15% less CPU without it.
 */
function jsonLines(): DestinationStream {
  return pino.destination({ dest: 1, minLength: 4096, periodicFlush: 100 });
}

const SQLSTATE = /^[0-9A-Z]{5}$/;
/** What a database error may say in a log: names and codes, never SQL text or values. */
const DATABASE_ERROR_KEYS = ['code', 'severity', 'schema', 'table', 'column', 'constraint', 'dataType', 'routine'] as const;

/**
 * pino's error serializer, except for database errors: their message carries the SQL text
 * (knex prefixes it) and their `detail`, `where` and `parameters` carry the values of the
 * statement (phone numbers, variables). Those are logged as the SQLSTATE, the objects named,
 * the server's message with its quoted parts removed, and the stack frames.
 */
export function serializeError(error: unknown): unknown {
  const serialized = pino.stdSerializers.err(error as Error);
  const code = (error as { code?: unknown } | null)?.code;
  if (!(error instanceof Error) || typeof code !== 'string' || !SQLSTATE.test(code)) return serialized;
  const record = error as unknown as Record<string, unknown>;
  const message = (error.message.split(' - ').pop() ?? '').replace(/"[^"]*"|'[^']*'/g, '"…"').slice(0, 300);
  const safe: Record<string, unknown> = { type: error.name, message };
  for (const key of DATABASE_ERROR_KEYS) if (typeof record[key] === 'string') safe[key] = record[key];
  safe.stack = (error.stack ?? '').split('\n').filter((line) => line.trim().startsWith('at ')).join('\n');
  return safe;
}
