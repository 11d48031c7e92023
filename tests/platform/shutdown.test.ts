import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import WebSocket from 'ws';
import { startServer as startPlainServer } from '../helpers/server';
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

/**
 * A graphql-ws connection whose client stops reading: it never answers the server's close
 * frame, so ws would wait its own 30 s for it (and a socket whose handler threw, forever).
 */
async function stuckSubscriber(base: string): Promise<WebSocket> {
  const socket = new WebSocket(`${base.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
  socket.on('error', () => {});
  await new Promise((resolve) => socket.once('open', resolve));
  socket.send(JSON.stringify({ type: 'connection_init', payload: { Authorization: `Bearer ${account.token}` } }));
  await new Promise((resolve) => socket.once('message', resolve)); // connection_ack
  (socket as unknown as { _socket: net.Socket })._socket.pause();
  return socket;
}

/** A request to /readyz whose headers end only when `finish()` is called; resolves with its status line. */
function slowReadyz(base: string): { finish(): void; status: Promise<string> } {
  const { port } = new URL(base);
  const socket = net.connect(Number(port), '127.0.0.1');
  socket.write('GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
  let answer = '';
  const status = new Promise<string>((resolve) => {
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('close', () => resolve(answer.split('\r\n')[0]));
    socket.on('error', () => {});
  });
  return { finish: () => socket.end('\r\n'), status };
}

it('answers /readyz 503 from the moment it stops, and a WebSocket that never closes does not hold the stop', async () => {
  const server = await startPlainServer(app, { SHUTDOWN_TIMEOUT_MS: '1000' });
  children.push(server.child);
  const stuck = await stuckSubscriber(server.base);
  const probe = slowReadyz(server.base);
  await new Promise((resolve) => setTimeout(resolve, 100));
  const started = Date.now();
  server.child.kill('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 300));
  probe.finish();
  expect(await probe.status).toBe('HTTP/1.1 503 Service Unavailable');
  expect(await server.exited).toBe(0);
  // SHUTDOWN_TIMEOUT_MS, a second for the sockets it terminated, and the database's stop, on a
  // busy machine; ws alone would have waited 30 s for the stuck socket.
  expect(Date.now() - started).toBeLessThan(15_000);
  stuck.terminate();
});

it('an exception no handler caught ends the process, with 1, within the stop’s bound', async () => {
  const preload = path.resolve(__dirname, '../fixtures/throw-on-sigusr2.cjs');
  const server = await startPlainServer(app, { SHUTDOWN_TIMEOUT_MS: '1000', NODE_OPTIONS: `--require ${preload}` });
  children.push(server.child);
  const stuck = await stuckSubscriber(server.base);
  const started = Date.now();
  server.child.kill('SIGUSR2');
  expect(await server.exited).toBe(1);
  expect(Date.now() - started).toBeLessThan(15_000);
  expect(server.output()).toContain('uncaught exception: stopping vozgate');
  stuck.terminate();
});
