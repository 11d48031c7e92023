import { randomBytes } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Client, Pool } from 'pg';
import { createApp, type App } from '../../src/app';
import { loadConfig, type Config, type PipelineVendors } from '../../src/config';
import { initOrm } from '../../src/db/orm';
import { startWorkers } from '../../src/jobs/runner';
import { SecretBox } from '../../src/lib/secrets';
import { createRuntime } from '../../src/boot';
import type { Logger } from '../../src/log';
import type { Runtime } from '../../src/runtime';
import { Campaign } from '../../src/modules/campaigns/campaign.entity';
import { addPhoneNumber, createAccount } from '../../src/modules/accounts/account.service';
import { until } from './dialer';

/** The pipeline engine's vendors, none configured (a test's `voice` override starts from it). */
export const NO_VENDORS: PipelineVendors = { deepgram: null, elevenlabs: null, cartesia: null, openai: null, llmProviders: {}, ttsProviders: {}, sttProviders: {} };

/**
 * Every voice vendor configured, none reachable (the discard port): for tests whose web calls
 * must start (an assistant without its vendors is refused, voice_ready) but never talk.
 */
export const UNREACHABLE_VOICE: Config['voice'] = {
  openai: { apiKey: 'sk-unused', realtimeUrl: 'ws://127.0.0.1:9', realtimeModel: 'gpt-realtime', baseUrl: 'http://127.0.0.1:9', postCallModel: 'gpt-4o-mini' },
  pipelineEngineUrl: null,
  pipeline: { ...NO_VENDORS, deepgram: { apiKey: 'dg-unused', url: 'ws://127.0.0.1:9' }, openai: { apiKey: 'sk-unused', url: 'http://127.0.0.1:9' } },
};

export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  token?: string | null;
  body?: unknown;
  /** Sent as it is, instead of JSON-encoding `body`. */
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface TestAccount {
  accountId: number;
  token: string;
  campaignId: number;
}

export interface TestApp {
  url: string;
  runtime: Runtime;
  /** The key of the app's SecretBox, for worker processes on the same database. */
  secretsKey: Buffer;
  orm: MikroORM;
  config: Config;
  databaseUrl: string;
  /** Every SQL statement sent since the last `resetQueries()`. */
  queries: string[];
  resetQueries(): void;
  /** Errors the app logged (unexpected failures). */
  loggedErrors: unknown[];
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<HttpResult<T>>;
  graphql(query: string, variables?: Record<string, unknown>, token?: string | null): Promise<HttpResult>;
  /** An account with a token and one campaign. */
  account(options?: { balance?: string; name?: string }): Promise<TestAccount>;
  campaign(accountId: number, name?: string): Promise<number>;
  phoneNumber(accountId: number, number: string, options?: { sms?: boolean; whatsapp?: boolean; expiresAt?: string | null }): Promise<number>;
  /** An outbound assistant of the account with a number of its own; `extra` overrides fields. */
  outboundAssistant(account: Pick<TestAccount, 'accountId' | 'token'>, extra?: Record<string, unknown>): Promise<number>;
  /** Runs SQL straight against the test database. */
  sql<T = any>(text: string, params?: unknown[]): Promise<T[]>;
  /** Polls a call until it reaches a final state (or the time runs out) and answers it. */
  finishedCall(callId: number, token: string, timeoutMs?: number): Promise<any>;
  close(): Promise<void>;
}

/** The environment a worker process needs to work on this test app's database. */
export function workerEnv(app: TestApp): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: app.databaseUrl,
    SECRETS_KEY: app.secretsKey.toString('base64'),
    SIMULATOR_SPEED: String(app.config.telephony.simulatorSpeed),
    WORKER_POLL_INTERVAL_MS: String(app.config.workers.pollIntervalMs),
    WORKER_CONCURRENCY: String(app.config.workers.concurrency),
    WORKER_HEARTBEAT_MS: String(app.config.workers.heartbeatMs),
    SWEEPER_MARGIN_SECONDS: String(app.config.workers.sweeperMarginSeconds),
    PLAN_MAX_PARALLEL_CALLS: String(app.config.maxParallelCalls),
    DIALER_TIME_SCALE: String(app.config.dialerTimeScale),
    PUBLIC_URL: app.config.publicUrl,
  };
  return env;
}

/** Resolves once a statement of the app's database whose text holds `statement` waits on a lock (another connection holds a row it writes). */
export async function waitingOnLock(app: TestApp, statement: string, timeoutMs = 10_000): Promise<void> {
  const waiting = async () =>
    (await app.sql(`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and strpos(query, $1) > 0`, [statement]))[0]
      .n as number;
  await until(`statements holding "${statement}" waiting on a lock`, waiting, (n) => n > 0, timeoutMs);
}

const FINAL = ['busy', 'ended', 'completed', 'ended_by_customer', 'ended_by_assistant', 'no-answer', 'failed'];

/** Test settings: a fast simulator, quick polling; workers only when a test asks for them. */
const TEST_DEFAULTS = (base: Config): Partial<Config> => ({
  port: 0,
  seedDemo: false,
  // Tests fire bursts with one token; the rate limit has tests of its own.
  rateLimitPerMinute: 0,
  telephony: { provider: 'simulator', simulatorSpeed: 1000, twilio: null },
  workers: { ...base.workers, inProcess: false, concurrency: 4, pollIntervalMs: 20, sweeperMarginSeconds: 30, heartbeatMs: 200 },
  // Admission control off: a jest process busy with a test's own work (a browser, an import)
  // must not turn the test's calls away; admission.test.ts runs a server process with it on.
  maxLoadDelayMs: 0,
});

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** A server on port 0 over a database of its own, with the migrations applied. */
export async function startTestApp(
  overrides: Omit<Partial<Config>, 'graphql'> & { graphql?: Partial<Config['graphql']> } = {},
  /** `adminUrl`: a PostgreSQL server of the test's own (default: the run's, TEST_DATABASE_URL). */
  /**
   * `recordQueries: false`: no SQL is logged into `queries` (a test that moves megabytes through
   * statements measures the service, not the logger's copies of their parameters).
   */
  options: { workers?: boolean; logger?: Logger; adminUrl?: string; recordQueries?: boolean } = {},
): Promise<TestApp> {
  const adminUrl = options.adminUrl ?? process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('TEST_DATABASE_URL is not set: run the tests through jest (tests/setup/global-setup.mjs)');
  const database = `vozgate_test_${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${database}`);
  await admin.end();
  const databaseUrl = withDatabase(adminUrl, database);

  const queries: string[] = [];
  const loggedErrors: unknown[] = [];
  // GRAPHQL_COMPILE=always runs every operation of the suite compiled (CI's second run).
  const base = loadConfig({ GRAPHQL_COMPILE: process.env.GRAPHQL_COMPILE });
  const config: Config = { ...base, ...TEST_DEFAULTS(base), ...overrides, graphql: { ...base.graphql, ...overrides.graphql } };
  const orm = await initOrm({
    databaseUrl,
    poolMax: 30,
    timeoutMs: config.databaseTimeoutMs,
    onQuery:
      options.recordQueries === false
        ? undefined
        : (message) => {
            if (message.startsWith('[query]')) queries.push(message);
          },
  });
  const logger: Logger = options.logger ?? { access: () => {}, info: () => {}, debug: () => {}, warn: () => {}, error: (_message, error) => loggedErrors.push(error) };
  const secretsKey = randomBytes(32);
  const runtime = createRuntime({ orm, config, secrets: new SecretBox(secretsKey), logger });
  const app: App = await createApp(runtime);
  const url = await app.listen(0, '127.0.0.1');
  // Links and recording URLs are built on PUBLIC_URL: here, the address the server got.
  if (!('publicUrl' in overrides)) config.publicUrl = url;
  const workers = options.workers ? await startWorkers(runtime, databaseUrl) : null;
  // A pool, so that a test's concurrent statements each get a connection of their own.
  const sqlPool = new Pool({ connectionString: databaseUrl, max: 4 });
  // A test that takes the database away must not crash the run through this pool.
  sqlPool.on('error', () => {});

  let assistantNumbers = 0;
  const request = async (method: string, path: string, options: RequestOptions = {}): Promise<HttpResult> => {
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined = options.rawBody;
    if (body === undefined && options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined) headers['content-type'] ??= 'application/json';
    const response = await fetch(`${url}${path}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: the test sees the text
    }
    return { status: response.status, headers: response.headers, body: parsed, text };
  };

  const testApp: TestApp = {
    url,
    runtime,
    secretsKey,
    orm,
    config,
    databaseUrl,
    queries,
    resetQueries: () => void queries.splice(0),
    loggedErrors,
    request,
    graphql: (query, variables, token) => request('POST', '/graphql', { token, body: { query, variables } }),
    async account(options = {}) {
      const { account, token } = await createAccount(orm.em.fork(), {
        name: options.name ?? 'Test account',
        balance: options.balance ?? '0',
      });
      const campaignId = await testApp.campaign(account.id);
      return { accountId: account.id, token, campaignId };
    },
    async campaign(accountId, name = 'Campaign') {
      const em = orm.em.fork();
      const campaign = em.create(Campaign, { account: accountId, name });
      await em.persist(campaign).flush();
      return campaign.id;
    },
    async phoneNumber(accountId, number, options = {}) {
      const phone = await addPhoneNumber(orm.em.fork(), {
        accountId,
        number,
        smsEnabled: options.sms ?? false,
        whatsappEnabled: options.whatsapp ?? false,
        expiresAt: options.expiresAt ?? null,
      });
      return phone.id;
    },
    async outboundAssistant(account, extra = {}) {
      const phone = await testApp.phoneNumber(account.accountId, `+5511955${String(100000 + assistantNumbers++)}`);
      const res = await request('POST', '/api/user/assistant', {
        token: account.token,
        body: {
          assistant_name: 'Ana',
          voice_id: 1,
          language: 'Portuguese',
          llm_model: 'gpt-4o-mini',
          calls_direction: 'make',
          engine_type: 'pipeline',
          timezone: 'America/Sao_Paulo',
          initial_message: 'Olá, aqui é a Ana da Loja Centro.',
          system_prompt: 'Você confirma pedidos de clientes. Seja breve e educada.',
          phone_number_id: phone,
          ...extra,
        },
      });
      if (res.status !== 201) throw new Error(`outbound assistant: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.data.id;
    },
    sql: async (text, params) => (await sqlPool.query(text, params as unknown[])).rows,
    async finishedCall(callId, token, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const res = await request('GET', `/api/user/calls/${callId}`, { token });
        if (res.status === 200 && FINAL.includes(res.body.status)) return res.body;
        if (Date.now() > deadline) throw new Error(`call ${callId} did not finish: ${JSON.stringify(res.body)}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    async close() {
      await app.close();
      await workers?.stop();
      await orm.close();
      await sqlPool.end().catch(() => {});
      const cleanup = new Client({ connectionString: adminUrl });
      await cleanup.connect();
      await cleanup.query(`drop database if exists ${database} with (force)`);
      await cleanup.end();
    },
  };
  return testApp;
}
