import { randomBytes } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import { createApp, type App } from '../../src/app';
import { loadConfig, type Config } from '../../src/config';
import { initOrm } from '../../src/db/orm';
import { SecretBox } from '../../src/lib/secrets';
import { createRuntime, type Logger, type Runtime } from '../../src/runtime';
import { Campaign } from '../../src/modules/campaigns/campaign.entity';
import { addPhoneNumber, createAccount } from '../../src/modules/accounts/account.service';

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
  phoneNumber(accountId: number, number: string, options?: { sms?: boolean; expiresAt?: string | null }): Promise<number>;
  /** Runs SQL straight against the test database. */
  sql<T = any>(text: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** A server on port 0 over a database of its own, with the migrations applied. */
export async function startTestApp(overrides: Partial<Config> = {}): Promise<TestApp> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('TEST_DATABASE_URL is not set: run the tests through jest (tests/setup/global-setup.mjs)');
  const database = `vozgate_test_${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${database}`);
  await admin.end();
  const databaseUrl = withDatabase(adminUrl, database);

  const queries: string[] = [];
  const loggedErrors: unknown[] = [];
  const orm = await initOrm({
    databaseUrl,
    poolMax: 30,
    onQuery: (message) => {
      if (message.startsWith('[query]')) queries.push(message);
    },
  });
  const config: Config = { ...loadConfig({}), port: 0, seedDemo: false, ...overrides };
  const logger: Logger = { info: () => {}, error: (_message, error) => loggedErrors.push(error) };
  const secrets = new SecretBox(randomBytes(32));
  const runtime = createRuntime({ orm, config, secrets, logger });
  const app: App = await createApp(runtime);
  const url = await app.listen(0, '127.0.0.1');
  const sqlClient = new Client({ connectionString: databaseUrl });
  await sqlClient.connect();

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
        expiresAt: options.expiresAt ?? null,
      });
      return phone.id;
    },
    sql: async (text, params) => (await sqlClient.query(text, params as unknown[])).rows,
    async close() {
      await app.close();
      await orm.close();
      await sqlClient.end();
      const cleanup = new Client({ connectionString: adminUrl });
      await cleanup.connect();
      await cleanup.query(`drop database if exists ${database} with (force)`);
      await cleanup.end();
    },
  };
  return testApp;
}
