import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { boot } from '../../src/boot';
import { loadConfig } from '../../src/config';
import type { Logger } from '../../src/log';
import { startTestApp, workerEnv, type TestApp } from '../helpers/app';

/**
 * The operator CLI, compiled (`npm test` builds dist/ first), as an operator runs it: what it
 * answers before it loads anything, that it never makes a database, its English, and that it
 * rings a simulated call only where a simulator server answers it.
 */
const root = path.resolve(__dirname, '../..');
const cli = path.join(root, 'dist/src/cli/index.js');

let app: TestApp;
let dir: string;
let probe: string;

beforeAll(async () => {
  if (!existsSync(cli)) throw new Error('dist/ is missing: run the tests with `npm test`, which builds first');
  dir = await mkdtemp(path.join(tmpdir(), 'vozgate-cli-'));
  // Loaded with --require: on exit, says whether the ORM or the GraphQL schema were loaded.
  probe = path.join(dir, 'probe.js');
  await writeFile(
    probe,
    `process.on('exit', () => process.stderr.write('loaded: ' + Object.keys(require.cache).filter((f) => /@mikro-orm|type-graphql|[\\\\/]pg[\\\\/]/.test(f)).length + '\\n'));`,
  );
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(args: string[], env: NodeJS.ProcessEnv, node: string[] = []): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...node, cli, ...args], { env }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** The environment of a CLI on the test app's database. */
const onApp = (extra: NodeJS.ProcessEnv = {}) => ({ ...workerEnv(app), ...extra });
const errorOf = (result: Run) => JSON.parse(result.stderr.trim().split('\n').pop()!).error as string;

it('answers --help and a missing required flag (exit 2) before the configuration, the ORM or the database load', async () => {
  // A database that does not exist and a configuration that would not load: neither is reached.
  const env = { ...process.env, DATABASE_URL: 'postgresql://nobody@127.0.0.1:1/none', SECRETS_KEY: 'not a key', PORT: 'not a port' };
  const help = await run(['--help'], env, ['--require', probe]);
  expect(help).toMatchObject({ code: 0, stderr: 'loaded: 0\n' });
  expect(help.stdout).toContain('account:create');
  const missing = await run(['campaign:create', '--account', '2'], env, ['--require', probe]);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toMatch(/^--name is required\n/);
  expect(missing.stderr).toContain('usage: npm run -s cli -- campaign:create --account ID --name NAME');
  expect(missing.stderr).toContain('loaded: 0');
  const both = await run(['balance:add'], env);
  expect(both).toMatchObject({ code: 2, stderr: expect.stringMatching(/^--account, --amount are required/) });
  // With its flags, the same command does load (the probe sees it), and fails on that configuration.
  const loads = await run(['campaign:create', '--account', '2', '--name', 'X'], env, ['--require', probe]);
  expect(loads.code).toBe(1);
  expect(loads.stderr).not.toContain('loaded: 0');
});

it('never makes a database: no cluster in DATA_DIR, or no vozgate tables at DATABASE_URL, is an operator error (exit 1)', async () => {
  const dataDir = path.join(dir, 'forgotten');
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  const embedded = await run(['account:show', '--account', '1'], env);
  expect(embedded.code).toBe(1);
  expect(errorOf(embedded)).toMatch(/^there is no vozgate database in .*forgotten \(DATA_DIR\): the CLI never creates one\. Set DATA_DIR .* or DATABASE_URL/);
  expect(existsSync(dataDir)).toBe(false);

  const admin = new Client({ connectionString: process.env.TEST_DATABASE_URL });
  await admin.connect();
  const empty = `vozgate_cli_empty_${process.pid}`;
  await admin.query(`create database ${empty}`);
  try {
    const url = new URL(app.databaseUrl);
    url.pathname = `/${empty}`;
    const external = await run(['token:create', '--account', '1'], onApp({ DATABASE_URL: url.toString() }));
    expect(external.code).toBe(1);
    expect(errorOf(external)).toMatch(/^there is no vozgate database at DATABASE_URL: it has no vozgate tables, and the CLI never creates them/);
    const probeDb = new Client({ connectionString: url.toString() });
    await probeDb.connect();
    const { rows } = await probeDb.query(`select count(*)::int as n from information_schema.tables where table_schema = 'public'`);
    await probeDb.end();
    expect(rows[0].n).toBe(0);
  } finally {
    await admin.query(`drop database ${empty}`);
    await admin.end();
  }
});

it('tells the operator in English what the domain refused', async () => {
  const account = await app.account();
  const inbound = await app.request('POST', '/api/user/assistant', {
    token: account.token,
    body: {
      assistant_name: 'Recepção', voice_id: 1, language: 'Portuguese', llm_model: 'm', calls_direction: 'receive', engine_type: 'pipeline',
      timezone: 'America/Sao_Paulo', initial_message: 'Oi', system_prompt: 'x',
    },
  });
  expect(inbound.status).toBe(201);
  const notOutbound = await run(['campaign:create', '--account', String(account.accountId), '--name', 'X', '--assistant', String(inbound.body.data.id)], onApp());
  expect([notOutbound.code, errorOf(notOutbound)]).toEqual([1, '--assistant: the assistant does not make outbound calls (its calls_direction must be make)']);
  const missing = await run(['campaign:create', '--account', String(account.accountId), '--name', 'X', '--assistant', '999999'], onApp());
  expect(errorOf(missing)).toBe('--assistant names nothing this account has');
  const mode = await run(['voice:add', '--name', 'Nova', '--mode', 'duplex'], onApp());
  expect(errorOf(mode)).toBe('--mode must be one of: pipeline, multimodal');
  const longName = await run(['model:add', '--name', 'x'.repeat(101), '--provider', 'openai', '--type', 'llm'], onApp());
  expect(errorOf(longName)).toBe('--name must be at most 100 characters');
});

describe('call:simulate-inbound', () => {
  const logger: Logger = { access: () => {}, info: () => {}, debug: () => {}, warn: () => {}, error: () => {} };
  /** A server's start on the test app's database (what `npm start` and `npm run worker` do first). */
  async function serverStart(extra: NodeJS.ProcessEnv): Promise<void> {
    const booted = await boot(loadConfig(onApp(extra)), logger);
    await booted.close();
  }
  const ring = () => run(['call:simulate-inbound', '--to', '+5511955777001', '--from', '+5511987650777'], onApp());
  const calls = async () => (await app.sql('select count(*)::int as n from calls'))[0].n as number;

  it('refuses unless the server on the database runs the simulator, and rings when it does', async () => {
    await app.sql(`delete from server_settings`);
    const account = await app.account();
    const phone = await app.phoneNumber(account.accountId, '+5511955777001');
    const assistant = await app.request('POST', '/api/user/assistant', {
      token: account.token,
      body: {
        assistant_name: 'Recepção', voice_id: 1, language: 'Portuguese', llm_model: 'm', calls_direction: 'receive', engine_type: 'pipeline',
        timezone: 'America/Sao_Paulo', initial_message: 'Oi', system_prompt: 'x', phone_number_id: phone,
      },
    });
    expect(assistant.status).toBe(201);
    const before = await calls();

    expect(errorOf(await ring())).toMatch(/^no vozgate server has started on this database yet/);
    await serverStart({ TELEPHONY_PROVIDER: 'twilio', TWILIO_ACCOUNT_SID: 'AC00000000000000000000000000000000', TWILIO_AUTH_TOKEN: 'token', PUBLIC_URL: 'https://example.com' });
    expect(await app.sql(`select name, value from server_settings`)).toEqual([{ name: 'telephony_provider', value: 'twilio' }]);
    const refused = await ring();
    expect(refused.code).toBe(1);
    expect(errorOf(refused)).toMatch(/^the server on this database runs the twilio telephony provider .*TELEPHONY_PROVIDER=simulator/);
    // The CLI's own configuration is checked too.
    const ownTwilio = await run(['call:simulate-inbound', '--to', '+5511955777001', '--from', '+5511987650777'], onApp({
      TELEPHONY_PROVIDER: 'twilio', TWILIO_ACCOUNT_SID: 'AC00000000000000000000000000000000', TWILIO_AUTH_TOKEN: 'token',
    }));
    expect(errorOf(ownTwilio)).toMatch(/^this CLI runs with TELEPHONY_PROVIDER=twilio/);
    expect(await calls()).toBe(before);

    await serverStart({ TELEPHONY_PROVIDER: 'simulator' });
    const rung = await ring();
    expect(rung.code).toBe(0);
    expect(JSON.parse(rung.stdout)).toMatchObject({ call_id: expect.any(Number), status: 'initiated', assistant_id: assistant.body.data.id });
    expect((await app.sql('select provider from calls where id = $1', [JSON.parse(rung.stdout).call_id]))[0].provider).toBe('simulator');
  });
});
