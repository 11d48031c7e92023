import path from 'node:path';
import { isSupportedCountry, type CountryCode } from 'libphonenumber-js/max';

/** Every environment variable the service reads, parsed and validated here and nowhere else. */
export interface Config {
  port: number;
  host: string;
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
  /** AES-256 key for secrets kept readable (tool headers, webhook secrets); see lib/secrets.ts. */
  secretsKey: Buffer | null;
  /** The plan's limit of mid-call tools per account. */
  maxToolsPerAccount: number;
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const databaseUrl = nonEmpty(env.DATABASE_URL);
  return {
    port: integer(env, 'PORT', 4000, 0, 65535),
    host: nonEmpty(env.HOST) ?? '0.0.0.0',
    databaseUrl,
    dataDir: path.resolve(nonEmpty(env.DATA_DIR) ?? '.data'),
    defaultPhoneRegion: phoneRegion(env.DEFAULT_PHONE_REGION),
    seedDemo: boolean(env, 'SEED_DEMO', databaseUrl === null),
    maxBodyBytes: integer(env, 'MAX_BODY_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    logSql: boolean(env, 'LOG_SQL', false),
    secretsKey: secretsKey(env.SECRETS_KEY),
    maxToolsPerAccount: integer(env, 'PLAN_MAX_TOOLS', 5, 0, 1000),
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
