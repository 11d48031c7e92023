import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { json, startReceiver, type Receiver } from '../helpers/receiver';
import { startWorkers } from '../../src/jobs/runner';
import { startTestApp, workerEnv, type TestAccount, type TestApp } from '../helpers/app';

/**
 * SIGTERM on the compiled server: it stops accepting at once, lets in-flight requests finish,
 * but never waits longer than SHUTDOWN_TIMEOUT_MS. A slow SMS provider (a local server that
 * speaks Twilio's format) keeps a request in flight.
 */
const main = path.resolve(__dirname, '../../dist/src/main.js');
let app: TestApp;
let account: TestAccount;
let smsNumber: number;
let twilio: Receiver;
const children: ChildProcess[] = [];

beforeAll(async () => {
  if (!existsSync(main)) throw new Error('dist/ is missing: run the tests with `npm test`, which builds first');
  app = await startTestApp();
  account = await app.account({ balance: '10' });
  smsNumber = await app.phoneNumber(account.accountId, '+5511933009000', { sms: true });
  twilio = await startReceiver();
});
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await twilio?.close();
  await app?.close();
});

function startServer(shutdownMs: number): Promise<{ child: ChildProcess; base: string }> {
  const env = {
    ...workerEnv(app),
    PORT: '0',
    HOST: '127.0.0.1',
    SEED_DEMO: 'false',
    WORKERS_IN_PROCESS: 'false',
    SHUTDOWN_TIMEOUT_MS: String(shutdownMs),
    SMS_PROVIDER: 'twilio',
    TWILIO_ACCOUNT_SID: 'AC1',
    TWILIO_AUTH_TOKEN: 't',
    TWILIO_API_BASE: twilio.url,
    SMS_PROVIDER_TIMEOUT_MS: '20000',
  };
  const child = spawn(process.execPath, [main], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /REST\s+(http:\/\/[^\s]+)\/api/.exec(output);
      if (match) resolve({ child, base: match[1] });
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`exited with ${code}:\n${output}`)));
  });
}

const exitOf = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', (code) => resolve(code));
  });

async function until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const sendSms = (base: string) =>
  fetch(`${base}/api/user/sms`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ from: smsNumber, to: '+5511987654321', body: 'oi' }),
  });

it('finishes an in-flight request, refuses new connections, and exits 0', async () => {
  twilio.respond = (_req, res) => void setTimeout(() => json(res, 201, { sid: 'SMslow' }), 800);
  const { child, base } = await startServer(10_000);
  const exited = exitOf(child);
  const inFlight = sendSms(base);
  const seen = twilio.requests.length;
  await until(() => twilio.requests.length > seen); // the request is at the provider
  child.kill('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 100));
  await expect(fetch(`${base}/healthz`)).rejects.toThrow();
  const response = await inFlight;
  expect(response.status).toBe(200);
  expect(((await response.json()) as any).data).toMatchObject({ status: 'sent', sms_sid: 'SMslow' });
  expect(await exited).toBe(0);
});

it('stops waiting after SHUTDOWN_TIMEOUT_MS', async () => {
  twilio.respond = () => {}; // never answers
  const { child, base } = await startServer(300);
  const exited = exitOf(child);
  const inFlight = sendSms(base).then(
    (res) => res.status,
    () => 'dropped',
  );
  const seen = twilio.requests.length;
  await until(() => twilio.requests.length > seen);
  const started = Date.now();
  child.kill('SIGTERM');
  expect(await exited).toBe(0);
  expect(Date.now() - started).toBeLessThan(5000);
  expect(await inFlight).toBe('dropped');
});

it("closes every connection of the job queue before its stop resolves, so that the database can go next", async () => {
  const name = `queue_${process.pid}_${Date.now()}`;
  const url = new URL(app.databaseUrl);
  url.searchParams.set('application_name', name);
  const connections = async () =>
    (await app.sql<{ n: number }>('select count(*)::int as n from pg_stat_activity where application_name = $1', [name]))[0].n;
  const workers = await startWorkers(app.runtime, url.toString());
  // The queue at work: its LISTEN connection and a poll or two.
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(await connections()).toBeGreaterThan(0);
  await workers.stop();
  // pool.end() alone resolves before the connections have closed: this read often counted them.
  expect(await connections()).toBe(0);
});
