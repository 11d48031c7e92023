import path from 'node:path';
import { cleanEnv, makeValidator } from 'envalid';
import { isSupportedCountry, type CountryCode } from 'libphonenumber-js/max';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const GRAPHQL_COMPILE = ['repeated', 'always', 'never'] as const;
export type GraphQLCompile = (typeof GRAPHQL_COMPILE)[number];

/** Every environment variable the service reads, parsed and validated here and nowhere else. */
export interface Config {
  port: number;
  host: string;
  /** The base URL clients reach this service at; recording URLs are built on it. */
  publicUrl: string;
  /** Set when the service runs on an external PostgreSQL; otherwise the embedded one is used. */
  databaseUrl: string | null;
  dataDir: string;
  /**
   * How long a statement may run, and a database connection be waited for, before the
   * request or job fails (503 to clients): a stalled database cannot hold requests longer.
   */
  databaseTimeoutMs: number;
  /** Region used to parse phone numbers written without a country code; null rejects them. */
  defaultPhoneRegion: CountryCode | null;
  /** Seed the demo account on an empty database (default: only on the embedded database). */
  seedDemo: boolean;
  /** Largest accepted request body, in bytes. */
  maxBodyBytes: number;
  /** Lead imports (CSV): the most data rows a file may have, its largest size in bytes, and the rows written per transaction. */
  leadImport: { maxRows: number; maxBytes: number; batchRows: number; maxConcurrent: number };
  logSql: boolean;
  /** pino's level: fatal, error, warn, info, debug, trace or silent. */
  logLevel: (typeof LOG_LEVELS)[number];
  /** AES-256 key for secrets kept readable (tool headers, webhook secrets); see lib/secrets.ts. */
  secretsKey: Buffer | null;
  /** The plan's limit of mid-call tools per account. */
  maxToolsPerAccount: number;
  /** Knowledge bases: bases per account, documents per base, bytes per document, pages per website document. */
  knowledge: { maxBases: number; maxDocuments: number; maxDocumentBytes: number; maxWebsitePages: number };
  /**
   * The embeddings model of knowledge-base search (EMBEDDINGS_MODEL through the OpenAI-compatible
   * `/embeddings` at EMBEDDINGS_BASE_URL with EMBEDDINGS_API_KEY); null: full-text search only.
   */
  embeddings: (VendorAccess & { model: string }) | null;
  /** The plan's limit of an account's calls in flight (initiated, ringing or in progress). */
  maxParallelCalls: number;
  /** Wall-clock seconds all the mid-call tools of one call may take together. */
  callToolsBudgetSeconds: number;
  /** A conversation with no message for this long is closed by the sweeper (then its post-call work and webhook). */
  conversationIdleMinutes: number;
  /**
   * Conversations' limits: the longest message (characters), the messages a conversation takes
   * through the API in a minute (0: no limit), and the open conversations an account may have.
   */
  conversationLimits: { messageChars: number; messagesPerMinute: number; openPerAccount: number };
  /**
   * Assistant tests: the tests an assistant may have, the attempts an account runs at once (across
   * processes), and the models of the simulated caller and the judge (null: the assistant's own).
   */
  assistantTests: { maxPerAssistant: number; runConcurrency: number; callerModel: string | null; judgeModel: string | null };
  /** Divides campaigns' retry intervals (tests and demos run the dialer on a fast clock). */
  dialerTimeScale: number;
  telephony: {
    provider: 'simulator' | 'twilio';
    /** How much faster than real time the simulator's clock runs. */
    simulatorSpeed: number;
    /** Twilio's Programmable Voice (or a Twilio-compatible API), with TELEPHONY_PROVIDER=twilio. */
    twilio: { accountSid: string; authToken: string; apiBase: string } | null;
  };
  /** The voice engines of real calls (design.md, "Voice engines"). */
  voice: {
    /** The built-in engine of multimodal assistants; null without OPENAI_API_KEY. */
    openai: { apiKey: string; realtimeUrl: string; realtimeModel: string; baseUrl: string; postCallModel: string } | null;
    /** Where the media of pipeline assistants' calls streams (a Pipecat bot, for example); unset, the built-in pipeline engine runs them. */
    pipelineEngineUrl: string | null;
    /** The built-in pipeline engine's vendors (design.md, "The pipeline engine"); each null without its key. */
    pipeline: PipelineVendors;
  };
  /**
   * Admission control (VOICE_MAX_LOAD_DELAY_MS, src/voice/load.monitor.ts): past this event-loop
   * delay or VAD lag over the last seconds, the process refuses new calls and the dialer holds
   * its dials; 0: off.
   */
  maxLoadDelayMs: number;
  /** How long a web call's token lives until its browser connects with it (design.md, "Web calls"). */
  webCallTokenTtlSeconds: number;
  /** The console web app at /console (CONSOLE); on unless turned off. */
  console: boolean;
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
    /** `contentApiBase`: Twilio's Content API (TWILIO_CONTENT_API_BASE), for WhatsApp templates; https://content.twilio.com when unset. */
    twilio: { accountSid: string; authToken: string; apiBase: string; contentApiBase?: string } | null;
  };
  /** Carrier price per started minute by destination region (ISO alpha-2), with `*` for the rest. */
  callRates: Record<string, string>;
  /** A bought number's monthly price by its country (ISO alpha-2), with `*` for the rest (PHONE_NUMBER_PRICES). */
  phoneNumberPrices: Record<string, string>;
  /** The platform's fee per started minute of an answered call. */
  callFeePerMinute: string;
  /** A balance that falls below it sends `balance.low` (the events). */
  balanceLowThreshold: string;
  /** ISO 4217 code of the balances, prices and costs (CURRENCY), for people and pages to show them. */
  currency: string;
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
    /** Subscriptions' WebSocket: how often it is pinged, and its token checked again. */
    wsKeepAliveMs: number;
    /** Open subscription connections of one account, in one process. */
    wsMaxAccountConnections: number;
    /** Running subscriptions of one connection. */
    wsMaxSubscriptions: number;
    /** Running subscriptions of one account across its connections, in one process. */
    wsMaxAccountSubscriptions: number;
    /** When an operation's document is compiled (graphql-jit) rather than run on graphql-js (src/graphql/compiled.ts). */
    compile: GraphQLCompile;
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
  /** An OTLP/HTTP collector's base URL: each answer of the pipeline engine is sent there as a span (src/telemetry.ts). */
  otlpEndpoint: string | null;
  /** GET /metrics without a token (a development instance), else only with METRICS_TOKEN. */
  metricsOpen: boolean;
  /**
   * A development instance (the embedded database, not NODE_ENV=production): errors may carry
   * hints for the person trying the API (a 401 whose header lacks `Bearer`).
   */
  development: boolean;
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

/** A vendor reached with a key at a base URL (tests point it at a local fake). */
export interface VendorAccess {
  apiKey: string;
  url: string;
}

export interface PipelineVendors {
  deepgram: VendorAccess | null;
  elevenlabs: VendorAccess | null;
  cartesia: VendorAccess | null;
  /** OpenAI's TTS and the default LLM: OPENAI_BASE_URL with OPENAI_API_KEY. */
  openai: VendorAccess | null;
  /** LLM providers of the model catalogue with their own OpenAI-compatible endpoint (LLM_PROVIDERS). */
  llmProviders: Record<string, VendorAccess>;
  /** OpenAI-compatible `/audio/speech` servers a voice may name (TTS_PROVIDERS), in their order. */
  ttsProviders: Record<string, HostedTts>;
  /** OpenAI-compatible `/audio/transcriptions` servers an assistant's `transcriber` may name (STT_PROVIDERS). */
  sttProviders: Record<string, HostedStt>;
}

/** A speech server of TTS_PROVIDERS: its model, and the rate of the raw PCM it answers (`response_format: "pcm"`). */
export interface HostedTts extends VendorAccess {
  model: string;
  sampleRate: 8000 | 16000 | 24000 | 48000;
}

/** A transcription server of STT_PROVIDERS. */
export interface HostedStt extends VendorAccess {
  model: string;
}

/** The built-in vendors' names, which a hosted one may not take (a voice's `provider`, an assistant's `transcriber`). */
const BUILT_IN_TTS = ['elevenlabs', 'cartesia', 'openai'];
const BUILT_IN_STT = ['deepgram', 'openai'];

export class ConfigError extends Error {}

/** The key sent to a hosted speech server configured without key_env. */
const NO_KEY = 'none';

/*
 * The variables, each with its rule, checked together by envalid: a start with bad
 * configuration is refused with every bad variable named, and what it allows. `ENV` is the one
 * definition; the README's table is checked against it (tests/platform/config.test.ts).
 */

/** A validator whose parse throws the rule; envalid names the variable. */
const rule = <T>(parse: (raw: string) => T) => makeValidator<T>((raw) => parse(raw.trim()));

const integer = (min: number, max: number) =>
  rule((raw) => {
    const value = Number(raw);
    if (!/^-?\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min || value > max) throw new Error(`must be an integer from ${min} to ${max}`);
    return value;
  });

const flag = rule((raw) => {
  const value = raw.toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(value)) return true;
  if (['0', 'false', 'no', 'off'].includes(value)) return false;
  throw new Error('must be true or false');
});

const oneOf = <T extends string>(allowed: readonly T[]) =>
  rule((raw) => {
    if (!(allowed as readonly string[]).includes(raw)) throw new Error(`must be one of ${allowed.join(', ')}`);
    return raw as T;
  });

const text = rule((raw) => raw);

/** A model's name as a vendor's API takes it; kept with what it made (knowledge_documents.embeddings_model), so at most 200 characters. */
const modelName = rule((raw) => {
  const name = raw.trim();
  if (name.length > 200 || /[\u0000-\u001f]/.test(name)) throw new Error("must be a model's name of at most 200 characters");
  return name;
});

const currency = rule((raw) => {
  if (!/^[A-Z]{3}$/.test(raw)) throw new Error('must be an ISO 4217 code of three capital letters, such as EUR or BRL');
  return raw;
});

const positiveNumber = rule((raw) => {
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error('must be a positive number');
  return value;
});

const PRICE = /^\d{1,10}(\.\d{1,4})?$/;

const price = rule((raw) => {
  if (!PRICE.test(raw)) throw new Error('must be a decimal price with at most 4 decimals');
  return raw;
});

/** A JSON object of region (ISO alpha-2, or `*` for the rest) to price; `*` is required. */
const priceTable = rule((raw) => {
  let table: unknown;
  try {
    table = JSON.parse(raw);
  } catch {
    throw new Error('must be a JSON object such as {"BR":"0.06","*":"0.10"}');
  }
  if (typeof table !== 'object' || table === null || Array.isArray(table)) throw new Error('must be a JSON object');
  const result: Record<string, string> = {};
  for (const [region, value] of Object.entries(table)) {
    const amount = String(value);
    if ((region !== '*' && !/^[A-Z]{2}$/.test(region)) || !PRICE.test(amount)) throw new Error(`"${region}": "${amount}" is not a region and a decimal price`);
    result[region] = amount;
  }
  if (!('*' in result)) throw new Error('needs a "*" price for the other regions');
  return result;
});

/** A comma-separated list of non-negative seconds (fractions allowed), at most 20 of them. */
const secondsList = rule((raw) => {
  const values = raw.split(',').map((part) => Number(part.trim()));
  if (values.length > 20 || values.some((v) => !Number.isFinite(v) || v < 0 || v > 86_400)) {
    throw new Error('must be up to 20 comma-separated seconds, each from 0 to 86400');
  }
  return values;
});

const secretsKey = rule((raw) => {
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32) throw new Error('must be 32 bytes, as base64 or 64 hex digits');
  return key;
});

const phoneRegion = rule((raw) => {
  const region = raw.toUpperCase();
  if (!isSupportedCountry(region)) throw new Error('must be an ISO 3166-1 alpha-2 region such as BR');
  return region as CountryCode;
});

const httpUrl = rule((raw) => {
  const base = raw.replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]+/.test(base)) throw new Error('must be an http(s) URL');
  return base;
});

const wsUrl = rule((raw) => {
  const base = raw.replace(/\/+$/, '');
  if (!/^wss?:\/\/[^/]+/.test(base)) throw new Error('must be a ws(s) URL');
  return base;
});

/** LLM_PROVIDERS: `{"<provider>": {"base_url": "https://...", "key_env": "<VARIABLE>"}}`; the key is read from that variable. */
const llmProviders = rule((raw) => {
  let table: unknown;
  try {
    table = JSON.parse(raw);
  } catch {
    throw new Error('must be a JSON object such as {"groq":{"base_url":"https://api.groq.com/openai/v1","key_env":"GROQ_API_KEY"}}');
  }
  if (typeof table !== 'object' || table === null || Array.isArray(table)) throw new Error('must be a JSON object');
  const result: Record<string, { baseUrl: string; keyEnv: string }> = {};
  for (const [provider, entry] of Object.entries(table as Record<string, unknown>)) {
    const { base_url: baseUrl, key_env: keyEnv } = (entry ?? {}) as Record<string, unknown>;
    if (typeof baseUrl !== 'string' || !/^https?:\/\/[^/]+/.test(baseUrl)) throw new Error(`"${provider}": base_url must be an http(s) URL`);
    if (typeof keyEnv !== 'string' || !/^[A-Z_][A-Z0-9_]*$/.test(keyEnv)) throw new Error(`"${provider}": key_env must name an environment variable`);
    result[provider.toLowerCase()] = { baseUrl: baseUrl.replace(/\/+$/, ''), keyEnv };
  }
  return result;
});

/** A JSON object of providers, each an object; `example` shows one in the error. */
function providerTable(raw: string, example: string): [string, Record<string, unknown>][] {
  let table: unknown;
  try {
    table = JSON.parse(raw);
  } catch {
    throw new Error(`must be a JSON object such as ${example}`);
  }
  if (typeof table !== 'object' || table === null || Array.isArray(table)) throw new Error('must be a JSON object');
  return Object.entries(table as Record<string, unknown>).map(([name, entry]) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new Error(`"${name}" must be an object with base_url`);
    return [name, entry as Record<string, unknown>];
  });
}

const PROVIDER_NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;
const TTS_RATES = [8000, 16000, 24000, 48000] as const;

/**
 * TTS_PROVIDERS / STT_PROVIDERS: `{"<name>": {"base_url", "key_env"?, "model", "sample_rate"?}}`;
 * a server without a key (most self-hosted ones) leaves key_env out. The name is what a voice's
 * `provider` or an assistant's `transcriber` says, so it is lowercase and no built-in vendor's.
 */
const speechProviders = (builtIn: string[], withRate: boolean) =>
  rule((raw) => {
    const example = withRate
      ? '{"kokoro":{"base_url":"http://kokoro:8880/v1","model":"kokoro","sample_rate":24000}}'
      : '{"whisper":{"base_url":"http://whisper:8000/v1","model":"Systran/faster-whisper-small"}}';
    const result: Record<string, { baseUrl: string; keyEnv: string | null; model: string; sampleRate: (typeof TTS_RATES)[number] }> = {};
    for (const [name, entry] of providerTable(raw, example)) {
      const { base_url: baseUrl, key_env: keyEnv, model, sample_rate: sampleRate = 24_000 } = entry;
      if (!PROVIDER_NAME.test(name)) throw new Error(`"${name}": a name is 1 to 32 lowercase letters, digits, _ or -`);
      if (builtIn.includes(name)) throw new Error(`"${name}" is a built-in vendor's name`);
      if (typeof baseUrl !== 'string' || !/^https?:\/\/[^/]+/.test(baseUrl)) throw new Error(`"${name}": base_url must be an http(s) URL`);
      if (keyEnv !== undefined && (typeof keyEnv !== 'string' || !/^[A-Z_][A-Z0-9_]*$/.test(keyEnv))) throw new Error(`"${name}": key_env must name an environment variable`);
      if (typeof model !== 'string' || !model.trim() || model.length > 200) throw new Error(`"${name}": model must be a model's name`);
      if (withRate && !(TTS_RATES as readonly unknown[]).includes(sampleRate)) throw new Error(`"${name}": sample_rate must be one of ${TTS_RATES.join(', ')}`);
      result[name] = { baseUrl: baseUrl.replace(/\/+$/, ''), keyEnv: keyEnv ?? null, model: model.trim(), sampleRate: sampleRate as (typeof TTS_RATES)[number] };
    }
    return result;
  });

/** `*`, or a comma-separated list of origins (`https://app.example.com`). */
const origins = rule((raw) => {
  const entries = raw.split(',').map((part) => part.trim()).filter(Boolean);
  const list = entries.filter((entry) => entry !== '*').map((origin) => {
    let parsed: URL | null = null;
    try {
      parsed = new URL(origin);
    } catch {
      // reported below
    }
    if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin.replace(/\/$/, '')) {
      throw new Error(`"${origin}" is not an origin such as https://app.example.com (scheme, host and port only)`);
    }
    return parsed.origin;
  });
  return { anyOrigin: entries.includes('*'), origins: list };
});

/** Every variable, with its rule and default (`undefined`: unset, or a default worked out below). */
export const ENV = {
  PORT: integer(0, 65535)({ default: 4000 }),
  HOST: text({ default: '0.0.0.0' }),
  PUBLIC_URL: httpUrl({ default: undefined }),
  DATABASE_URL: text({ default: undefined }),
  DATA_DIR: text({ default: '.data' }),
  DATABASE_TIMEOUT_MS: integer(500, 600_000)({ default: 5000 }),
  NODE_ENV: text({ default: undefined }),
  DEFAULT_PHONE_REGION: phoneRegion({ default: undefined }),
  SEED_DEMO: flag({ default: undefined }),
  MAX_BODY_BYTES: integer(1024, 64 * 1024 * 1024)({ default: 1024 * 1024 }),
  LEAD_IMPORT_MAX_ROWS: integer(1, 1_000_000)({ default: 100_000 }),
  MAX_IMPORT_BYTES: integer(1024, 256 * 1024 * 1024)({ default: 20 * 1024 * 1024 }),
  LEAD_IMPORT_BATCH_ROWS: integer(1, 10_000)({ default: 1000 }),
  LEAD_IMPORT_MAX_CONCURRENT: integer(1, 100)({ default: 2 }),
  LOG_LEVEL: oneOf(LOG_LEVELS)({ default: 'info' }),
  LOG_SQL: flag({ default: false }),
  SECRETS_KEY: secretsKey({ default: undefined }),
  PLAN_MAX_TOOLS: integer(0, 1000)({ default: 5 }),
  KB_MAX_BASES: integer(0, 10_000)({ default: 20 }),
  KB_MAX_DOCUMENTS: integer(0, 100_000)({ default: 200 }),
  KB_MAX_DOCUMENT_BYTES: integer(1024, 256 * 1024 * 1024)({ default: 10 * 1024 * 1024 }),
  KB_MAX_WEBSITE_PAGES: integer(1, 10_000)({ default: 50 }),
  EMBEDDINGS_MODEL: modelName({ default: undefined }),
  EMBEDDINGS_BASE_URL: httpUrl({ default: undefined }),
  EMBEDDINGS_API_KEY: text({ default: undefined }),
  PLAN_MAX_PARALLEL_CALLS: integer(1, 10_000)({ default: 10 }),
  CALL_TOOLS_BUDGET_SECONDS: integer(1, 600)({ default: 30 }),
  CONVERSATION_IDLE_MINUTES: integer(1, 43200)({ default: 1440 }),
  CONVERSATION_MAX_MESSAGE_CHARS: integer(1, 100_000)({ default: 2000 }),
  CONVERSATION_MESSAGES_PER_MINUTE: integer(0, 10_000)({ default: 30 }),
  CONVERSATION_MAX_OPEN: integer(0, 10_000_000)({ default: 10_000 }),
  TEST_MAX_PER_ASSISTANT: integer(1, 10_000)({ default: 100 }),
  TEST_RUN_CONCURRENCY: integer(1, 1000)({ default: 4 }),
  TEST_CALLER_MODEL: modelName({ default: undefined }),
  TEST_JUDGE_MODEL: modelName({ default: undefined }),
  TELEPHONY_PROVIDER: oneOf(['simulator', 'twilio'] as const)({ default: 'simulator' }),
  SIMULATOR_SPEED: positiveNumber({ default: 10 }),
  DIALER_TIME_SCALE: positiveNumber({ default: 1 }),
  CALL_RATES: priceTable({ default: { BR: '0.06', US: '0.02', '*': '0.10' } }),
  CALL_FEE_PER_MINUTE: price({ default: '0.05' }),
  PHONE_NUMBER_PRICES: priceTable({ default: { BR: '5.00', US: '1.50', DE: '2.00', '*': '3.00' } }),
  BALANCE_LOW_THRESHOLD: price({ default: '5' }),
  CURRENCY: currency({ default: 'EUR' }),
  SMS_PROVIDER: oneOf(['simulator', 'twilio'] as const)({ default: 'simulator' }),
  SMS_PRICES: priceTable({ default: { BR: '0.05', US: '0.0079', '*': '0.08' } }),
  SMS_PROVIDER_TIMEOUT_MS: integer(100, 120_000)({ default: 10_000 }),
  SMS_RECONCILE_AFTER_MS: integer(0, 3_600_000)({ default: 30_000 }),
  TWILIO_ACCOUNT_SID: text({ default: undefined }),
  TWILIO_AUTH_TOKEN: text({ default: undefined }),
  TWILIO_API_BASE: httpUrl({ default: 'https://api.twilio.com' }),
  TWILIO_CONTENT_API_BASE: httpUrl({ default: 'https://content.twilio.com' }),
  OPENAI_API_KEY: text({ default: undefined }),
  OPENAI_REALTIME_URL: wsUrl({ default: 'wss://api.openai.com/v1/realtime' }),
  OPENAI_REALTIME_MODEL: text({ default: 'gpt-realtime' }),
  OPENAI_BASE_URL: httpUrl({ default: 'https://api.openai.com/v1' }),
  OPENAI_POST_CALL_MODEL: text({ default: 'gpt-4o-mini' }),
  PIPELINE_ENGINE_URL: wsUrl({ default: undefined }),
  WEB_CALL_TOKEN_TTL_SECONDS: integer(5, 3600)({ default: 60 }),
  CONSOLE: flag({ default: true }),
  DEEPGRAM_API_KEY: text({ default: undefined }),
  DEEPGRAM_URL: wsUrl({ default: 'wss://api.deepgram.com/v1/listen' }),
  ELEVENLABS_API_KEY: text({ default: undefined }),
  ELEVENLABS_URL: wsUrl({ default: 'wss://api.elevenlabs.io' }),
  CARTESIA_API_KEY: text({ default: undefined }),
  CARTESIA_URL: wsUrl({ default: 'wss://api.cartesia.ai' }),
  LLM_PROVIDERS: llmProviders({ default: {} }),
  TTS_PROVIDERS: speechProviders(BUILT_IN_TTS, true)({ default: {} }),
  STT_PROVIDERS: speechProviders(BUILT_IN_STT, false)({ default: {} }),
  GRAPHQL_INTROSPECTION: flag({ default: undefined }),
  GRAPHQL_IDE: flag({ default: undefined }),
  GRAPHQL_MAX_DEPTH: integer(2, 100)({ default: 8 }),
  GRAPHQL_MAX_COST: integer(10, 1_000_000)({ default: 5000 }),
  GRAPHQL_MAX_ALIASES: integer(0, 1000)({ default: 15 }),
  GRAPHQL_MAX_TOKENS: integer(50, 100_000)({ default: 2000 }),
  GRAPHQL_MAX_DIRECTIVES: integer(0, 1000)({ default: 20 }),
  GRAPHQL_WS_KEEPALIVE_MS: integer(1000, 600_000)({ default: 12_000 }),
  GRAPHQL_WS_MAX_ACCOUNT_CONNECTIONS: integer(1, 100_000)({ default: 2000 }),
  GRAPHQL_WS_MAX_SUBSCRIPTIONS: integer(1, 10_000)({ default: 100 }),
  GRAPHQL_WS_MAX_ACCOUNT_SUBSCRIPTIONS: integer(1, 1_000_000)({ default: 5000 }),
  GRAPHQL_COMPILE: oneOf(GRAPHQL_COMPILE)({ default: 'repeated' }),
  SHUTDOWN_TIMEOUT_MS: integer(0, 600_000)({ default: 10_000 }),
  RATE_LIMIT_PER_MINUTE: integer(0, 10_000_000)({ default: 1200 }),
  CORS_ORIGINS: origins({ default: undefined }),
  METRICS_TOKEN: text({ default: undefined }),
  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl({ default: undefined }),
  ALLOW_PRIVATE_NETWORK_TARGETS: flag({ default: false }),
  WEBHOOK_TIMEOUT_MS: integer(100, 120_000)({ default: 10_000 }),
  WEBHOOK_CONNECT_TIMEOUT_MS: integer(50, 60_000)({ default: 3_000 }),
  WEBHOOK_RETRY_SCHEDULE: secondsList({ default: [10, 60, 300, 1800, 7200, 21600] }),
  WEBHOOK_MAX_RETRY_AFTER_SECONDS: integer(0, 86_400)({ default: 3600 }),
  WORKERS_IN_PROCESS: flag({ default: true }),
  WORKER_CONCURRENCY: integer(1, 100)({ default: 5 }),
  WORKER_POLL_INTERVAL_MS: integer(10, 60_000)({ default: 500 }),
  SWEEPER_MARGIN_SECONDS: integer(0, 86_400)({ default: 300 }),
  WORKER_HEARTBEAT_MS: integer(50, 600_000)({ default: 10_000 }),
  WORKER_ALIVE_FILE: text({ default: undefined }),
  VOICE_MAX_LOAD_DELAY_MS: integer(0, 60_000)({ default: 100 }),
};

/** Variables whose values never appear in an error message. */
const SECRET = new Set(['SECRETS_KEY', 'TWILIO_AUTH_TOKEN', 'OPENAI_API_KEY', 'DEEPGRAM_API_KEY', 'ELEVENLABS_API_KEY', 'CARTESIA_API_KEY', 'LLM_PROVIDERS', 'TTS_PROVIDERS', 'STT_PROVIDERS', 'METRICS_TOKEN', 'DATABASE_URL', 'EMBEDDINGS_API_KEY']);

/** Reads and checks every variable at once; a ConfigError names each bad one. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable counts as unset (compose files pass `VAR:` through as "").
  const given = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== undefined && value.trim() !== ''));
  const env = cleanEnv(given, ENV, {
    reporter: ({ errors }) => {
      const bad = Object.entries(errors).map(
        ([name, error]) => `${name} ${error?.message ?? 'is invalid'}${SECRET.has(name) ? '' : `, got "${String(given[name] ?? '')}"`}`,
      );
      if (bad.length) throw new ConfigError(`bad configuration:\n  ${bad.join('\n  ')}`);
    },
  });
  const problems: string[] = [];
  if (env.SMS_PROVIDER === 'twilio' && (!env.TWILIO_ACCOUNT_SID || !env.TWILIO_AUTH_TOKEN)) {
    problems.push('SMS_PROVIDER=twilio needs TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN');
  }
  if (env.TELEPHONY_PROVIDER === 'twilio' && (!env.TWILIO_ACCOUNT_SID || !env.TWILIO_AUTH_TOKEN)) {
    problems.push('TELEPHONY_PROVIDER=twilio needs TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN');
  }
  for (const [provider, { keyEnv }] of Object.entries(env.LLM_PROVIDERS)) {
    if (!given[keyEnv]) problems.push(`LLM_PROVIDERS names ${keyEnv} for "${provider}", and it is not set`);
  }
  for (const variable of ['TTS_PROVIDERS', 'STT_PROVIDERS'] as const) {
    for (const [provider, { keyEnv }] of Object.entries(env[variable])) {
      if (keyEnv && !given[keyEnv]) problems.push(`${variable} names ${keyEnv} for "${provider}", and it is not set`);
    }
  }
  if (env.EMBEDDINGS_MODEL && !(env.EMBEDDINGS_API_KEY ?? env.OPENAI_API_KEY)) {
    problems.push('EMBEDDINGS_MODEL needs EMBEDDINGS_API_KEY (or OPENAI_API_KEY); unset EMBEDDINGS_MODEL to search by full text only');
  }
  if (problems.length) throw new ConfigError(`bad configuration:\n  ${problems.join('\n  ')}`);

  const databaseUrl = env.DATABASE_URL ?? null;
  // A development instance: the embedded database, and not NODE_ENV=production (Apollo's
  // convention). Introspection, the IDE, the demo seed, open metrics and the localhost CORS
  // default follow it.
  const development = databaseUrl === null && env.NODE_ENV !== 'production';
  return {
    port: env.PORT,
    publicUrl: env.PUBLIC_URL ?? `http://localhost:${env.PORT}`,
    host: env.HOST,
    databaseUrl,
    dataDir: path.resolve(env.DATA_DIR),
    databaseTimeoutMs: env.DATABASE_TIMEOUT_MS,
    defaultPhoneRegion: env.DEFAULT_PHONE_REGION ?? null,
    seedDemo: env.SEED_DEMO ?? development,
    maxBodyBytes: env.MAX_BODY_BYTES,
    leadImport: { maxRows: env.LEAD_IMPORT_MAX_ROWS, maxBytes: env.MAX_IMPORT_BYTES, batchRows: env.LEAD_IMPORT_BATCH_ROWS, maxConcurrent: env.LEAD_IMPORT_MAX_CONCURRENT },
    logSql: env.LOG_SQL,
    logLevel: env.LOG_LEVEL,
    secretsKey: env.SECRETS_KEY ?? null,
    maxToolsPerAccount: env.PLAN_MAX_TOOLS,
    knowledge: {
      maxBases: env.KB_MAX_BASES,
      maxDocuments: env.KB_MAX_DOCUMENTS,
      maxDocumentBytes: env.KB_MAX_DOCUMENT_BYTES,
      maxWebsitePages: env.KB_MAX_WEBSITE_PAGES,
    },
    embeddings: env.EMBEDDINGS_MODEL
      ? { model: env.EMBEDDINGS_MODEL, url: (env.EMBEDDINGS_BASE_URL ?? env.OPENAI_BASE_URL).replace(/\/+$/, ''), apiKey: (env.EMBEDDINGS_API_KEY ?? env.OPENAI_API_KEY)!.trim() }
      : null,
    maxParallelCalls: env.PLAN_MAX_PARALLEL_CALLS,
    callToolsBudgetSeconds: env.CALL_TOOLS_BUDGET_SECONDS,
    conversationIdleMinutes: env.CONVERSATION_IDLE_MINUTES,
    conversationLimits: {
      messageChars: env.CONVERSATION_MAX_MESSAGE_CHARS,
      messagesPerMinute: env.CONVERSATION_MESSAGES_PER_MINUTE,
      openPerAccount: env.CONVERSATION_MAX_OPEN,
    },
    assistantTests: {
      maxPerAssistant: env.TEST_MAX_PER_ASSISTANT,
      runConcurrency: env.TEST_RUN_CONCURRENCY,
      callerModel: env.TEST_CALLER_MODEL ?? null,
      judgeModel: env.TEST_JUDGE_MODEL ?? null,
    },
    telephony: {
      provider: env.TELEPHONY_PROVIDER,
      simulatorSpeed: env.SIMULATOR_SPEED,
      twilio:
        env.TELEPHONY_PROVIDER === 'twilio'
          ? { accountSid: env.TWILIO_ACCOUNT_SID!, authToken: env.TWILIO_AUTH_TOKEN!, apiBase: env.TWILIO_API_BASE }
          : null,
    },
    voice: {
      openai: env.OPENAI_API_KEY
        ? {
            apiKey: env.OPENAI_API_KEY,
            realtimeUrl: env.OPENAI_REALTIME_URL,
            realtimeModel: env.OPENAI_REALTIME_MODEL,
            baseUrl: env.OPENAI_BASE_URL,
            postCallModel: env.OPENAI_POST_CALL_MODEL,
          }
        : null,
      pipelineEngineUrl: env.PIPELINE_ENGINE_URL ?? null,
      pipeline: {
        deepgram: env.DEEPGRAM_API_KEY ? { apiKey: env.DEEPGRAM_API_KEY, url: env.DEEPGRAM_URL } : null,
        elevenlabs: env.ELEVENLABS_API_KEY ? { apiKey: env.ELEVENLABS_API_KEY, url: env.ELEVENLABS_URL } : null,
        cartesia: env.CARTESIA_API_KEY ? { apiKey: env.CARTESIA_API_KEY, url: env.CARTESIA_URL } : null,
        openai: env.OPENAI_API_KEY ? { apiKey: env.OPENAI_API_KEY, url: env.OPENAI_BASE_URL } : null,
        llmProviders: Object.fromEntries(
          Object.entries(env.LLM_PROVIDERS).map(([provider, { baseUrl, keyEnv }]) => [provider, { apiKey: given[keyEnv]!.trim(), url: baseUrl }]),
        ),
        // A server without a key gets a placeholder: the OpenAI client always sends one, and such servers ignore it.
        ttsProviders: Object.fromEntries(
          Object.entries(env.TTS_PROVIDERS).map(([name, { baseUrl, keyEnv, model, sampleRate }]) => [
            name,
            { apiKey: keyEnv ? given[keyEnv]!.trim() : NO_KEY, url: baseUrl, model, sampleRate },
          ]),
        ),
        sttProviders: Object.fromEntries(
          Object.entries(env.STT_PROVIDERS).map(([name, { baseUrl, keyEnv, model }]) => [name, { apiKey: keyEnv ? given[keyEnv]!.trim() : NO_KEY, url: baseUrl, model }]),
        ),
      },
    },
    maxLoadDelayMs: env.VOICE_MAX_LOAD_DELAY_MS,
    webCallTokenTtlSeconds: env.WEB_CALL_TOKEN_TTL_SECONDS,
    console: env.CONSOLE,
    dialerTimeScale: env.DIALER_TIME_SCALE,
    sms: {
      provider: env.SMS_PROVIDER,
      prices: env.SMS_PRICES,
      timeoutMs: env.SMS_PROVIDER_TIMEOUT_MS,
      reconcileAfterMs: env.SMS_RECONCILE_AFTER_MS,
      twilio:
        env.SMS_PROVIDER === 'twilio'
          ? { accountSid: env.TWILIO_ACCOUNT_SID!, authToken: env.TWILIO_AUTH_TOKEN!, apiBase: env.TWILIO_API_BASE, contentApiBase: env.TWILIO_CONTENT_API_BASE }
          : null,
    },
    callRates: env.CALL_RATES,
    phoneNumberPrices: env.PHONE_NUMBER_PRICES,
    callFeePerMinute: env.CALL_FEE_PER_MINUTE,
    balanceLowThreshold: env.BALANCE_LOW_THRESHOLD,
    currency: env.CURRENCY,
    graphql: {
      introspection: env.GRAPHQL_INTROSPECTION ?? development,
      ide: env.GRAPHQL_IDE ?? development,
      maxDepth: env.GRAPHQL_MAX_DEPTH,
      maxCost: env.GRAPHQL_MAX_COST,
      maxAliases: env.GRAPHQL_MAX_ALIASES,
      maxTokens: env.GRAPHQL_MAX_TOKENS,
      maxDirectives: env.GRAPHQL_MAX_DIRECTIVES,
      wsKeepAliveMs: env.GRAPHQL_WS_KEEPALIVE_MS,
      wsMaxAccountConnections: env.GRAPHQL_WS_MAX_ACCOUNT_CONNECTIONS,
      wsMaxSubscriptions: env.GRAPHQL_WS_MAX_SUBSCRIPTIONS,
      wsMaxAccountSubscriptions: env.GRAPHQL_WS_MAX_ACCOUNT_SUBSCRIPTIONS,
      compile: env.GRAPHQL_COMPILE,
    },
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE,
    cors: env.CORS_ORIGINS ? { ...env.CORS_ORIGINS, localhost: false } : { anyOrigin: false, origins: [], localhost: development },
    otlpEndpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT ?? null,
    metricsOpen: development && !env.METRICS_TOKEN,
    development,
    metricsToken: env.METRICS_TOKEN ?? null,
    allowPrivateNetworkTargets: env.ALLOW_PRIVATE_NETWORK_TARGETS,
    webhooks: {
      timeoutMs: env.WEBHOOK_TIMEOUT_MS,
      connectTimeoutMs: env.WEBHOOK_CONNECT_TIMEOUT_MS,
      retrySchedule: env.WEBHOOK_RETRY_SCHEDULE,
      maxRetryAfterSeconds: env.WEBHOOK_MAX_RETRY_AFTER_SECONDS,
    },
    workers: {
      inProcess: env.WORKERS_IN_PROCESS,
      concurrency: env.WORKER_CONCURRENCY,
      pollIntervalMs: env.WORKER_POLL_INTERVAL_MS,
      sweeperMarginSeconds: env.SWEEPER_MARGIN_SECONDS,
      heartbeatMs: env.WORKER_HEARTBEAT_MS,
      aliveFile: env.WORKER_ALIVE_FILE ?? null,
    },
  };
}
