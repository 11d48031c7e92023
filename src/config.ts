import path from 'node:path';
import { isSupportedCountry, type CountryCode } from 'libphonenumber-js/max';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Every environment variable the service reads, parsed and validated here and nowhere else. */
export interface Config {
  port: number;
  host: string;
  /** The base URL clients reach this service at; recording URLs are built on it. */
  publicUrl: string;
  /** Set when the service runs on an external PostgreSQL; otherwise the embedded one is used. */
  databaseUrl: string | null;
  dataDir: string;
  /** Region used to parse phone numbers written without a country code; null rejects them. */
  defaultPhoneRegion: CountryCode | null;
  /** Seed the demo account on an empty database (default: only on the embedded database). */
  seedDemo: boolean;
  /** Largest accepted request body, in bytes. */
  maxBodyBytes: number;
  logSql: boolean;
  /** pino's level: fatal, error, warn, info, debug, trace or silent. */
  logLevel: (typeof LOG_LEVELS)[number];
  /** AES-256 key for secrets kept readable (tool headers, webhook secrets); see lib/secrets.ts. */
  secretsKey: Buffer | null;
  /** The plan's limit of mid-call tools per account. */
  maxToolsPerAccount: number;
  /** The plan's limit of an account's calls in flight (initiated, ringing or in progress). */
  maxParallelCalls: number;
  /** Wall-clock seconds all the mid-call tools of one call may take together. */
  callToolsBudgetSeconds: number;
  telephony: {
    provider: 'simulator';
    /** How much faster than real time the simulator's clock runs. */
    simulatorSpeed: number;
  };
  sms: {
    provider: 'simulator' | 'twilio';
    /** Price per segment by destination region (ISO alpha-2), with `*` for the rest. */
    prices: Record<string, string>;
    timeoutMs: number;
    /**
     * How long past the provider's timeout a send whose outcome is unknown waits before the
     * provider is asked what became of it (a late answer may still create the message).
     */
    reconcileAfterMs: number;
    twilio: { accountSid: string; authToken: string; apiBase: string } | null;
  };
  /** Carrier price per started minute by destination region (ISO alpha-2), with `*` for the rest. */
  callRates: Record<string, string>;
  /** The platform's fee per started minute of an answered call. */
  callFeePerMinute: string;
  graphql: {
    /** Schema introspection; on by default only on the embedded (development) database. */
    introspection: boolean;
    /** GraphiQL for browsers at GET /graphql; on by default where introspection is. */
    ide: boolean;
    maxDepth: number;
    maxCost: number;
    maxAliases: number;
    maxTokens: number;
    maxDirectives: number;
  };
  /** How long SIGTERM waits for in-flight requests, then for running jobs, before stopping anyway. */
  shutdownTimeoutMs: number;
  /** Requests per token per minute, across all processes; 0 turns the limit off. */
  rateLimitPerMinute: number;
  /**
   * Browser origins allowed to call the API (CORS): any (`*`), these, and on a development
   * database any page served from localhost or 127.0.0.1.
   */
  cors: { anyOrigin: boolean; origins: string[]; localhost: boolean };
  /** GET /metrics without a token (a development instance), else only with METRICS_TOKEN. */
  metricsOpen: boolean;
  metricsToken: string | null;
  /** Let tools and webhooks call private, loopback and link-local addresses (development, tests). */
  allowPrivateNetworkTargets: boolean;
  webhooks: {
    timeoutMs: number;
    connectTimeoutMs: number;
    /** Seconds to wait before each retry; its length bounds the attempts (one more than retries). */
    retrySchedule: number[];
    /** The longest Retry-After the service honours. */
    maxRetryAfterSeconds: number;
  };
  workers: {
    /** Run the job workers inside the API process (`npm start`); `npm run worker` runs them alone. */
    inProcess: boolean;
    concurrency: number;
    pollIntervalMs: number;
    /** Extra wall-clock seconds past a call's longest possible life before the sweeper ends it. */
    sweeperMarginSeconds: number;
    /** How often a worker process says it is alive; three missed beats and its jobs are released. */
    heartbeatMs: number;
    /** A file touched with every heartbeat, for a container's health check (docker-compose.yml). */
    aliveFile: string | null;
  };
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const databaseUrl = nonEmpty(env.DATABASE_URL);
  // A development instance: the embedded database, and not NODE_ENV=production (Apollo's
  // convention). Introspection, the demo seed and the localhost CORS default follow it.
  const development = databaseUrl === null && nonEmpty(env.NODE_ENV) !== 'production';
  const port = integer(env, 'PORT', 4000, 0, 65535);
  return {
    port,
    publicUrl: (nonEmpty(env.PUBLIC_URL) ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    host: nonEmpty(env.HOST) ?? '0.0.0.0',
    databaseUrl,
    dataDir: path.resolve(nonEmpty(env.DATA_DIR) ?? '.data'),
    defaultPhoneRegion: phoneRegion(env.DEFAULT_PHONE_REGION),
    seedDemo: boolean(env, 'SEED_DEMO', development),
    maxBodyBytes: integer(env, 'MAX_BODY_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    logSql: boolean(env, 'LOG_SQL', false),
    logLevel: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    secretsKey: secretsKey(env.SECRETS_KEY),
    maxToolsPerAccount: integer(env, 'PLAN_MAX_TOOLS', 5, 0, 1000),
    maxParallelCalls: integer(env, 'PLAN_MAX_PARALLEL_CALLS', 10, 1, 10_000),
    callToolsBudgetSeconds: integer(env, 'CALL_TOOLS_BUDGET_SECONDS', 30, 1, 600),
    telephony: {
      provider: oneOf(env, 'TELEPHONY_PROVIDER', ['simulator'] as const, 'simulator'),
      simulatorSpeed: positiveNumber(env, 'SIMULATOR_SPEED', 10),
    },
    sms: smsConfig(env),
    callRates: priceTable(env, 'CALL_RATES', { BR: '0.06', US: '0.02', '*': '0.10' }),
    callFeePerMinute: price(env, 'CALL_FEE_PER_MINUTE', '0.05'),
    graphql: {
      introspection: boolean(env, 'GRAPHQL_INTROSPECTION', development),
      ide: boolean(env, 'GRAPHQL_IDE', development),
      maxDepth: integer(env, 'GRAPHQL_MAX_DEPTH', 8, 2, 100),
      maxCost: integer(env, 'GRAPHQL_MAX_COST', 5000, 10, 1_000_000),
      maxAliases: integer(env, 'GRAPHQL_MAX_ALIASES', 15, 0, 1000),
      maxTokens: integer(env, 'GRAPHQL_MAX_TOKENS', 2000, 50, 100_000),
      maxDirectives: integer(env, 'GRAPHQL_MAX_DIRECTIVES', 20, 0, 1000),
    },
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 1200, 0, 10_000_000),
    cors: corsOrigins(env, development),
    metricsOpen: development && nonEmpty(env.METRICS_TOKEN) === null,
    metricsToken: nonEmpty(env.METRICS_TOKEN),
    allowPrivateNetworkTargets: boolean(env, 'ALLOW_PRIVATE_NETWORK_TARGETS', false),
    webhooks: {
      timeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
      connectTimeoutMs: integer(env, 'WEBHOOK_CONNECT_TIMEOUT_MS', 3_000, 50, 60_000),
      retrySchedule: secondsList(env, 'WEBHOOK_RETRY_SCHEDULE', [10, 60, 300, 1800, 7200, 21600]),
      maxRetryAfterSeconds: integer(env, 'WEBHOOK_MAX_RETRY_AFTER_SECONDS', 3600, 0, 86_400),
    },
    workers: {
      inProcess: boolean(env, 'WORKERS_IN_PROCESS', true),
      concurrency: integer(env, 'WORKER_CONCURRENCY', 5, 1, 100),
      pollIntervalMs: integer(env, 'WORKER_POLL_INTERVAL_MS', 500, 10, 60_000),
      sweeperMarginSeconds: integer(env, 'SWEEPER_MARGIN_SECONDS', 300, 0, 86_400),
      heartbeatMs: integer(env, 'WORKER_HEARTBEAT_MS', 10_000, 50, 600_000),
      aliveFile: nonEmpty(env.WORKER_ALIVE_FILE),
    },
  };
}

function nonEmpty(value: string | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = nonEmpty(env[name]);
  if (raw === null) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function boolean(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = nonEmpty(env[name])?.toLowerCase();
  if (raw === undefined || raw === null) return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
}

function oneOf<T extends string>(env: NodeJS.ProcessEnv, name: string, allowed: readonly T[], fallback: T): T {
  const raw = nonEmpty(env[name]);
  if (raw === null) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  return raw as T;
}

function positiveNumber(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = nonEmpty(env[name]);
  if (raw === null) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new ConfigError(`${name} must be a positive number, got "${raw}"`);
  return value;
}

function smsConfig(env: NodeJS.ProcessEnv): Config['sms'] {
  const provider = oneOf(env, 'SMS_PROVIDER', ['simulator', 'twilio'] as const, 'simulator');
  let twilio: Config['sms']['twilio'] = null;
  if (provider === 'twilio') {
    const accountSid = nonEmpty(env.TWILIO_ACCOUNT_SID);
    const authToken = nonEmpty(env.TWILIO_AUTH_TOKEN);
    if (!accountSid || !authToken) throw new ConfigError('SMS_PROVIDER=twilio needs TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN');
    const apiBase = (nonEmpty(env.TWILIO_API_BASE) ?? 'https://api.twilio.com').replace(/\/+$/, '');
    if (!/^https?:\/\/[^/]+/.test(apiBase)) throw new ConfigError(`TWILIO_API_BASE must be an http(s) URL, got "${apiBase}"`);
    twilio = { accountSid, authToken, apiBase };
  }
  return {
    provider,
    prices: priceTable(env, 'SMS_PRICES', { BR: '0.05', US: '0.0079', '*': '0.08' }),
    timeoutMs: integer(env, 'SMS_PROVIDER_TIMEOUT_MS', 10_000, 100, 120_000),
    reconcileAfterMs: integer(env, 'SMS_RECONCILE_AFTER_MS', 30_000, 0, 3_600_000),
    twilio,
  };
}

/** `CORS_ORIGINS`: `*`, or a comma-separated list of origins (`https://app.example.com`). */
function corsOrigins(env: NodeJS.ProcessEnv, development: boolean): Config['cors'] {
  const raw = nonEmpty(env.CORS_ORIGINS);
  if (raw === null) return { anyOrigin: false, origins: [], localhost: development };
  const entries = raw.split(',').map((part) => part.trim()).filter(Boolean);
  const origins = entries.filter((entry) => entry !== '*');
  for (const origin of origins) {
    let parsed: URL | null = null;
    try {
      parsed = new URL(origin);
    } catch {
      // reported below
    }
    if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin.replace(/\/$/, '')) {
      throw new ConfigError(`CORS_ORIGINS: "${origin}" is not an origin such as https://app.example.com (scheme, host and port only)`);
    }
  }
  return { anyOrigin: entries.includes('*'), origins: origins.map((origin) => origin.replace(/\/$/, '')), localhost: false };
}

/** A comma-separated list of non-negative seconds (fractions allowed), at most 20 of them. */
function secondsList(env: NodeJS.ProcessEnv, name: string, fallback: number[]): number[] {
  const raw = nonEmpty(env[name]);
  if (raw === null) return fallback;
  const values = raw.split(',').map((part) => Number(part.trim()));
  if (values.length > 20 || values.some((v) => !Number.isFinite(v) || v < 0 || v > 86_400)) {
    throw new ConfigError(`${name} must be up to 20 comma-separated seconds, each from 0 to 86400, got "${raw}"`);
  }
  return values;
}

const PRICE = /^\d{1,10}(\.\d{1,4})?$/;

function price(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const raw = nonEmpty(env[name]) ?? fallback;
  if (!PRICE.test(raw)) throw new ConfigError(`${name} must be a decimal price with at most 4 decimals, got "${raw}"`);
  return raw;
}

/** A JSON object of region (ISO alpha-2, or `*` for the rest) to price; `*` is required. */
function priceTable(env: NodeJS.ProcessEnv, name: string, fallback: Record<string, string>): Record<string, string> {
  const raw = nonEmpty(env[name]);
  if (raw === null) return fallback;
  let table: unknown;
  try {
    table = JSON.parse(raw);
  } catch {
    throw new ConfigError(`${name} must be a JSON object such as {"BR":"0.06","*":"0.10"}`);
  }
  if (typeof table !== 'object' || table === null || Array.isArray(table)) throw new ConfigError(`${name} must be a JSON object`);
  const result: Record<string, string> = {};
  for (const [region, value] of Object.entries(table)) {
    const text = String(value);
    if ((region !== '*' && !/^[A-Z]{2}$/.test(region)) || !PRICE.test(text)) {
      throw new ConfigError(`${name}: "${region}": "${text}" is not a region and a decimal price`);
    }
    result[region] = text;
  }
  if (!('*' in result)) throw new ConfigError(`${name} needs a "*" price for the other regions`);
  return result;
}

function secretsKey(value: string | undefined): Buffer | null {
  const raw = nonEmpty(value);
  if (raw === null) return null;
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32) throw new ConfigError('SECRETS_KEY must be 32 bytes, as base64 or 64 hex digits');
  return key;
}

function phoneRegion(value: string | undefined): CountryCode | null {
  const raw = nonEmpty(value)?.toUpperCase() ?? null;
  if (raw === null) return null;
  if (!isSupportedCountry(raw)) {
    throw new ConfigError(`DEFAULT_PHONE_REGION must be an ISO 3166-1 alpha-2 region such as BR, got "${value}"`);
  }
  return raw;
}
