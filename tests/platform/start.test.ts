import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * What `npm start` does on a new machine, for real: the compiled server on an embedded
 * PostgreSQL in a fresh DATA_DIR, the CLI beside it, a clean stop, and a restart that keeps
 * the data. (`npm test` builds dist/ first.)
 */
const root = path.resolve(__dirname, '../..');
const main = path.join(root, 'dist/src/main.js');
const cli = path.join(root, 'dist/src/cli/index.js');

let dataDir: string;
let env: NodeJS.ProcessEnv;
const children: ChildProcess[] = [];

beforeAll(async () => {
  if (!existsSync(main)) throw new Error('dist/ is missing: run the tests with `npm test`, which builds first');
  const dir = await mkdtemp(path.join(tmpdir(), 'vozgate-e2e-'));
  await chmod(dir, 0o755);
  dataDir = path.join(dir, 'data');
  env = { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', SIMULATOR_SPEED: '1000', WORKER_POLL_INTERVAL_MS: '20' };
  delete env.DATABASE_URL;
  delete env.SEED_DEMO;
});
afterAll(async () => {
  // A failed assertion must not leave a server (and its cluster) running.
  const running = children.filter((child) => child.exitCode === null && child.signalCode === null);
  for (const child of running) child.kill('SIGTERM');
  await Promise.all(running.map((child) => new Promise((r) => child.once('exit', r))));
  if (dataDir) await rm(path.dirname(dataDir), { recursive: true, force: true });
});

interface Running {
  child: ChildProcess;
  output: () => string;
  base: string;
}

/** Starts the compiled server; `group` makes it the leader of a process group, as a terminal's foreground job is. */
function start(options: { group?: boolean } = {}): Promise<Running> {
  const child = spawn(process.execPath, [main], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: options.group ?? false });
  children.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /REST\s+(http:\/\/[^\s]+)\/api/.exec(output);
      if (match && /health/.test(output)) {
        clearTimeout(timer);
        resolve({ child, output: () => output, base: match[1] });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code}:\n${output}`));
    });
  });
}

function stop(running: Running, signal: NodeJS.Signals): Promise<number | null> {
  return new Promise((resolve) => {
    running.child.removeAllListeners('exit');
    running.child.on('exit', (code) => resolve(code));
    running.child.kill(signal);
  });
}

/** The CLI's exit code, stdout and stderr, whatever the exit code. */
function cliRun(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cli, ...args], { env }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

async function runCli(...args: string[]): Promise<any> {
  const { stdout } = await promisify(execFile)(process.execPath, [cli, ...args], { env });
  return JSON.parse(stdout);
}

// Two starts of the server and its embedded PostgreSQL (the first with initdb and every
// migration) and eighteen CLI runs, in real time: over a minute on a loaded 2-core machine.
it('starts on an empty embedded database, serves, stops cleanly and keeps its data across restarts', async () => {
  const first = await start();
  // The token, once, as a line to paste into a shell.
  const token = /^ {2}export TOKEN=(vzg_\S+)$/m.exec(first.output())![1];
  expect(first.output().split(token)).toHaveLength(2);
  // Discovery: every page a person may want is in the banner.
  for (const page of ['/console', '/talk', '/graphql', '/docs']) expect(first.output()).toMatch(new RegExp(`^ {2}\\w+ +${first.base}${page}\\b`, 'm'));

  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const created = await fetch(`${first.base}/api/user/lead`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ phone_number: '+5511987654501', campaign_id: 1, variables: { customer_name: 'Ana' } }),
  });
  expect(created.status).toBe(200);
  expect((await fetch(`${first.base}/readyz`)).status).toBe(200);

  // The CLI reaches the cluster of the running server, and what it creates works at once.
  const account = await runCli('account:create', '--name', 'Acme', '--balance', '12.50');
  expect(account).toEqual({ account_id: 2, token: expect.stringMatching(/^vzg_/) });
  const campaign = await runCli('campaign:create', '--account', '2', '--name', 'Inverno');
  const phone = await runCli('phone-number:add', '--account', '2', '--number', '+5511987654502', '--sms');
  expect(phone).toEqual({ id: expect.any(Number), number: '+5511987654502' });
  const campaigns = await fetch(`${first.base}/api/user/campaigns`, { headers: { authorization: `Bearer ${account.token}` } });
  expect(((await campaigns.json()) as any[]).map((c) => [c.id, c.name, c.status])).toEqual([[campaign.id, 'Inverno', 'draft']]);
  expect(await runCli('balance:add', '--account', '2', '--amount', '0.25')).toEqual({ account_id: 2, balance: 12.75 });
  expect(await runCli('balance:add', '--account', '2', '--amount=-0.75')).toEqual({ account_id: 2, balance: 12 });
  expect(await runCli('account:show', '--account', '2')).toEqual({
    id: 2, name: 'Acme', email: null, balance: 12, created_at: expect.any(String), tokens: 1, phone_numbers: 1, campaigns: 1,
  });
  expect(await runCli('campaign:list', '--account', '2')).toEqual({ account_id: 2, campaigns: [{ id: campaign.id, name: 'Inverno', created_at: expect.any(String) }] });
  expect((await runCli('phone-number:list', '--account', '2')).phone_numbers).toEqual([
    { id: phone.id, phone_number: '+5511987654502', sms_capable: true, expires_at: null, assistant_id: null, whatsapp: false, nickname: null, monthly_price: null, renews: false },
  ]);

  // Tokens are listed without their secret and revoked at once, by the token or by its id.
  const spare = await runCli('token:create', '--account', '2');
  const listed = await runCli('token:list', '--account', '2');
  expect(listed.tokens).toEqual([
    { id: expect.any(Number), prefix: account.token.slice(0, 12), name: null, created_at: expect.any(String), last_used_at: expect.any(String) },
    { id: expect.any(Number), prefix: spare.token.slice(0, 12), name: null, created_at: expect.any(String), last_used_at: null },
  ]);
  expect(JSON.stringify(listed)).not.toContain(spare.token);
  const meWith = (bearer: string) => fetch(`${first.base}/api/user/me`, { headers: { authorization: `Bearer ${bearer}` } }).then((r) => r.status);
  expect(await meWith(spare.token)).toBe(200);
  expect(await runCli('token:revoke', '--account', '2', '--token', spare.token)).toEqual({ account_id: 2, revoked: listed.tokens[1].id });
  expect(await meWith(spare.token)).toBe(401);
  expect(await meWith(account.token)).toBe(200);
  await expect(runCli('token:revoke', '--account', '2', '--id', String(listed.tokens[1].id))).rejects.toThrow(/no such token/);
  const voice = await runCli('voice:add', '--name', 'Nova', '--mode', 'pipeline', '--account', '2');
  expect(voice).toEqual({ id: expect.any(Number), name: 'Nova', mode: 'pipeline', public: false });
  const voicesOf = async (bearer: string) =>
    ((await (await fetch(`${first.base}/api/user/assistants/voices?mode=pipeline`, { headers: { authorization: `Bearer ${bearer}` } })).json()) as any[]).map(
      (v) => v.name,
    );
  expect(await voicesOf(account.token)).toContain('Nova');
  expect(await voicesOf(token)).not.toContain('Nova');
  const model = await runCli('model:add', '--name', 'gpt-5.1', '--provider', 'openai', '--type', 'llm');
  expect(model).toEqual({ id: expect.any(Number), name: 'gpt-5.1', provider: 'openai', type: 'llm' });
  await expect(runCli('model:add', '--name', 'gpt-5.1', '--provider', 'openai', '--type', 'llm')).rejects.toThrow(/already has a model named gpt-5.1/);
  await expect(runCli('model:add', '--name', 'x', '--provider', 'openai', '--type', 'dualplex')).rejects.toThrow(/type/);
  const models = (await (await fetch(`${first.base}/api/user/assistants/models?type=llm`, { headers: { authorization: `Bearer ${token}` } })).json()) as any[];
  expect(models.map((m) => m.name)).toContain('gpt-5.1');

  // An inbound call, rung from the CLI, answered by the server's in-process workers.
  const assistant = await fetch(`${first.base}/api/user/assistant`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      assistant_name: 'Recepção', voice_id: voice.id, language: 'Portuguese', llm_model: 'm', calls_direction: 'receive',
      engine_type: 'pipeline', timezone: 'America/Sao_Paulo', initial_message: 'Loja, bom dia!', system_prompt: 'Atenda.',
      phone_number_id: phone.id,
    }),
  });
  expect(assistant.status).toBe(201);
  const inbound = await runCli('call:simulate-inbound', '--to', '+5511987654502', '--from', '+5511987650777');
  expect(inbound).toMatchObject({ call_id: expect.any(Number), status: 'initiated' });
  let status = '';
  for (let i = 0; i < 200 && !['completed'].includes(status); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    status = ((await (await fetch(`${first.base}/api/user/calls/${inbound.call_id}`, { headers: { authorization: `Bearer ${account.token}` } })).json()) as any).status;
  }
  expect(status).toBe('completed');

  expect(await stop(first, 'SIGTERM')).toBe(0);
  expect(existsSync(path.join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);

  const second = await start();
  expect(second.output()).not.toContain('vzg_');
  // A later start says how to get a token for the demo account (this DATA_DIR is not the default).
  expect(second.output()).toContain(`Demo account 1: a new token for it with \`DATA_DIR=${dataDir} npm run -s cli -- token:create --account 1\``);
  const leads = await fetch(`${second.base}/api/user/leads`, { headers: auth });
  expect(leads.status).toBe(200);
  expect(((await leads.json()) as any[]).map((lead) => lead.phone_number)).toEqual(['+5511987654501']);
  expect(await stop(second, 'SIGINT')).toBe(0);
  expect(existsSync(path.join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);

  // With no server running, the CLI starts the cluster for itself and stops it again.
  expect(await runCli('token:create', '--account', '2')).toEqual({ account_id: 2, token: expect.stringMatching(/^vzg_/) });
  expect(existsSync(path.join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
}, 180_000);

it('runs the README’s dialer demo: campaign 1 of the demo account calls its leads by itself', async () => {
  // The README's steps, on a faster clock (its demo: SIMULATOR_SPEED=20 DIALER_TIME_SCALE=60).
  const saved = env;
  env = { ...env, DIALER_TIME_SCALE: '600' };
  const running = await start();
  env = saved;
  const token = (await runCli('token:create', '--account', '1')).token;
  const call = (method: string, route: string, body?: unknown) =>
    fetch(`${running.base}/api${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

  const updated = await call('PUT', '/user/campaigns/1', {
    max_calls_in_parallel: 5, max_retries: 1, retry_interval: 1,
    allowed_days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'],
    allowed_hours_start_time: '00:00', allowed_hours_end_time: '00:00',
  });
  expect(updated.body.data).toMatchObject({ assistant_id: 1, status: 'draft' });
  for (let i = 10; i <= 29; i++) {
    const end = [12, 17, 23].includes(i) ? '0001' : [14, 26].includes(i) ? '0004' : '7000';
    expect((await call('POST', '/user/lead', { phone_number: `+5511987${i}${end}`, campaign_id: 1 })).status).toBe(200);
  }
  expect((await call('POST', '/user/campaigns/update-status', { campaign_id: 1, action: 'start' })).body.data.status).toBe('running');
  let campaign: any;
  let mostInFlight = 0;
  for (let i = 0; i < 600; i++) {
    campaign = (await call('GET', '/user/campaigns/1')).body;
    mostInFlight = Math.max(mostInFlight, campaign.stats.calls_in_progress);
    if (campaign.status === 'completed') break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  // The first test's lead is in campaign 1 too, and answers.
  expect(campaign.status).toBe('completed');
  expect(campaign.stats).toMatchObject({
    leads: { created: 0, scheduled: 0, processing: 0, rescheduled: 0, completed: 16, 'reached-max-retries': 5, blacklisted: 0 },
    calls_in_progress: 0,
    attempts: 26,
  });
  expect(mostInFlight).toBeLessThanOrEqual(5);
  expect(await stop(running, 'SIGTERM')).toBe(0);
});

it('the CLI helps, names a bad flag, and says which database it uses', async () => {
  const help = await cliRun('--help');
  expect(help.code).toBe(0);
  expect(help.stdout).toMatch(/account:create .*\n/);
  expect(help.stdout).toContain('token:revoke');
  const commandHelp = await cliRun('balance:add', '--help');
  expect(commandHelp).toMatchObject({ code: 0, stdout: expect.stringContaining('--account ID --amount DECIMAL') });
  const badFlag = await cliRun('balance:add', '--acount', '2');
  expect(badFlag.code).toBe(2);
  expect(badFlag.stderr).toContain("Unknown option '--acount'");
  const unknown = await cliRun('acount:create');
  expect(unknown).toMatchObject({ code: 2, stderr: expect.stringContaining('unknown command "acount:create"') });
  const missing = await cliRun('account:show', '--account', '999');
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain(`the embedded database in ${dataDir}`);
  expect(JSON.parse(missing.stderr.trim().split('\n').pop()!)).toEqual({ error: 'account 999 does not exist' });
});

it('stops cleanly on Ctrl-C: SIGINT to the whole process group, under load, the database last', async () => {
  const running = await start({ group: true });
  const token = (await runCli('token:create', '--account', '1')).token;
  // Requests in flight while the signal arrives.
  const load = Array.from({ length: 20 }, (_, i) =>
    fetch(`${running.base}/api/user/lead`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ phone_number: `+55119876${String(70000 + i)}`, campaign_id: 1 }),
    }).then((r) => r.status, () => 'closed'),
  );
  const exited = new Promise<number | null>((resolve) => {
    running.child.removeAllListeners('exit');
    running.child.on('exit', (code) => resolve(code));
  });
  process.kill(-running.child.pid!, 'SIGINT'); // what a terminal does on Ctrl-C
  expect(await exited).toBe(0);
  await Promise.all(load);
  const output = running.output();
  expect(output).not.toMatch(/"level":(50|60)/);
  expect(output).not.toMatch(/\n\s+at /); // no stack trace
  expect(output).toContain('SIGINT: stopping vozgate');
  expect(existsSync(path.join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
});

const postmasterPid = () => path.join(dataDir, 'pg', 'postmaster.pid');
const readyz = (running: Running) => fetch(`${running.base}/readyz`).then((r) => r.status);

it('stops cleanly when its terminal closes (SIGHUP), the database last', async () => {
  const running = await start({ group: true });
  expect(await stop(running, 'SIGHUP')).toBe(0);
  expect(running.output()).toContain('SIGHUP: stopping vozgate');
  expect(existsSync(postmasterPid())).toBe(false);
});

it('takes over a cluster that a vozgate which is gone left running, and leaves one a live vozgate uses alone', async () => {
  const killed = await start();
  expect(await stop(killed, 'SIGKILL')).toBe(null);
  expect(existsSync(postmasterPid())).toBe(true); // the orphan: its postmaster runs in a process group of its own

  const next = await start();
  expect(next.output()).toContain('took over the embedded PostgreSQL');
  // A second server and the CLI beside it find it in use: they leave it running.
  const beside = await start();
  expect(beside.output()).not.toContain('took over');
  expect(await stop(beside, 'SIGTERM')).toBe(0);
  expect(await runCli('token:create', '--account', '1')).toEqual({ account_id: 1, token: expect.stringMatching(/^vzg_/) });
  expect(await readyz(next)).toBe(200);

  expect(await stop(next, 'SIGTERM')).toBe(0);
  expect(existsSync(postmasterPid())).toBe(false);
});
