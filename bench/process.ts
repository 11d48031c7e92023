import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { closeSync, fstatSync, mkdtempSync, openSync, readFileSync, readSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { WebSocket } from 'ws';
import { KEEP_ALIVE } from '../src/lib/keep-alive';

/**
 * Where the servers' output goes: a file each, as a deployment would log (see `start`). Removed
 * at exit, unless BENCH_KEEP_LOGS is set: then its path is printed, to read what a server said.
 */
const logDir = mkdtempSync(path.join(tmpdir(), 'vozgate-bench-'));
process.once('exit', () => (process.env.BENCH_KEEP_LOGS ? console.error(`the servers' logs: ${logDir}`) : rmSync(logDir, { recursive: true, force: true })));
let started = 0;

/**
 * A server process for the benchmark, started as it would be deployed; resolves with the port
 * its banner names. Its output goes to a file, not to a pipe into this process: this process
 * is also the load generator, and reading a server's request log took CPU from under the
 * measured servers (a pipe's reader is work no deployment's server pays for).
 */
export function start(command: string[], env: NodeJS.ProcessEnv, readyLine: RegExp, node = process.execPath): Promise<{ child: ChildProcess; port: number; logFile: string }> {
  const logFile = path.join(logDir, `${++started}-${path.basename(command.at(-1)!)}.log`);
  const fd = openSync(logFile, 'w');
  // Every server runs as it would be deployed (graphql-js, for one, skips development checks).
  const child = spawn(node, command, { env: { ...process.env, NODE_ENV: 'production', ...env }, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  return new Promise((resolve, reject) => {
    const poll = setInterval(() => {
      const match = readyLine.exec(logHead(logFile));
      if (match) {
        clearInterval(poll);
        resolve({ child, port: Number(match[1]), logFile });
      }
    }, 50);
    child.on('exit', (code) => {
      clearInterval(poll);
      reject(new Error(`${command.join(' ')} exited with ${code}; the end of its output (${logFile}):\n${logTail(logFile)}`));
    });
  });
}

/** Ends a server process started by `start` and waits for its exit (at once when it has exited). */
export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/**
 * The first or the last 64 KB of a server's log. A whole run's request lines take hundreds
 * of MB, more than a string can hold; the banner and the inspector's address are at its start.
 */
function logHead(file: string): string {
  return readPart(file, (size) => [0, Math.min(size, 65_536)]);
}

function logTail(file: string): string {
  return readPart(file, (size) => [Math.max(0, size - 65_536), Math.min(size, 65_536)]);
}

function readPart(file: string, range: (size: number) => [number, number]): string {
  const fd = openSync(file, 'r');
  try {
    const [position, length] = range(fstatSync(fd).size);
    const buffer = Buffer.alloc(length);
    return buffer.subarray(0, readSync(fd, buffer, 0, length, position)).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * A full garbage collection in a server started with `--inspect=127.0.0.1:0`, through its
 * inspector as DevTools' "collect garbage" button does; answers the V8 heap's size after it,
 * in MB: what the process's objects hold, without the garbage a collection has not yet taken.
 */
export async function collectGarbage(server: { logFile: string }): Promise<{ live_mb: number }> {
  const url = /Debugger listening on (ws:\/\/\S+)/.exec(logHead(server.logFile))?.[1];
  if (!url) throw new Error(`no inspector in ${server.logFile}: start the server with --inspect=127.0.0.1:0`);
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  let id = 0;
  const call = (method: string): Promise<any> =>
    new Promise((resolve, reject) => {
      const mine = ++id;
      const onMessage = (data: Buffer) => {
        const message = JSON.parse(data.toString());
        if (message.id !== mine) return;
        socket.off('message', onMessage);
        if (message.error) reject(new Error(`${method}: ${message.error.message}`));
        else resolve(message.result);
      };
      socket.on('message', onMessage);
      socket.send(JSON.stringify({ id: mine, method }));
    });
  try {
    await call('HeapProfiler.collectGarbage');
    const { usedSize } = await call('Runtime.getHeapUsage');
    return { live_mb: Math.round(usedSize / 1048576) };
  } finally {
    socket.close();
  }
}

/** The kernel's clock ticks a second, the unit of /proc's CPU times. */
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** A process's CPU time so far (user and system), in milliseconds. */
export function cpuMs(pid: number): number {
  // /proc/<pid>/stat: after the command's name (in parentheses) come the fields from the
  // 3rd on; utime and stime are the 14th and 15th, in clock ticks.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** A process's resident memory, in MB. */
export function rssMb(pid: number): number {
  return Math.round(rssKb(pid) / 1024);
}

export function rssKb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
}

/**
 * vozgate's compiled server on `databaseUrl`, as the benchmark runs it: no workers, no demo
 * seed, no rate limit (`nodeFlags`: `--cpu-prof` for a profile; `node`: the binary).
 */
export function startVozgate(root: string, databaseUrl: string, env: NodeJS.ProcessEnv = {}, nodeFlags: string[] = [], node = process.execPath) {
  return start(
    [...nodeFlags, path.join(root, 'dist/src/main.js')],
    {
      DATABASE_URL: databaseUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      SEED_DEMO: 'false',
      WORKERS_IN_PROCESS: 'false',
      // The load comes from one token, far above any per-token limit.
      RATE_LIMIT_PER_MINUTE: '0',
      SECRETS_KEY: randomBytes(32).toString('base64'),
      ...env,
    },
    /REST\s+http:\/\/[^:]+:(\d+)\/api/,
    node,
  );
}

/** A new empty database of that name on the benchmark's cluster (dropped first if there); answers its URL. */
export async function freshDatabase(adminUrl: string, name: string): Promise<string> {
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Drops a scenario's database. */
export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.end();
}

/** The load generators' connections (a customer thinks for up to 7.5 s between two requests). */
const apiAgent = new http.Agent(KEEP_ALIVE);

/**
 * The API of a bench's server as its token's client: a JSON request, answered parsed; any
 * status of 300 or more throws. node:http, not fetch: this process shares the machine with the
 * measured server, and with fetch's web streams its collector paused 6-30 ms about once a
 * second, while a round's slowest replies, the floor's as vozgate's, came in clusters.
 */
export function apiClient(port: number, token: string) {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  return (method: string, path: string, body?: unknown): Promise<any> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const sent = payload === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(payload) };
      const request = http.request({ host: '127.0.0.1', port, path: `/api${path}`, method, agent: apiAgent, headers: sent }, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (piece: string) => (text += piece));
        response.on('error', reject);
        response.on('end', () => {
          if (response.statusCode! >= 300) return reject(new Error(`${method} ${path}: ${response.statusCode} ${text.slice(0, 200)}`));
          try {
            resolve(JSON.parse(text));
          } catch (error) {
            reject(error);
          }
        });
      });
      request.on('error', reject);
      request.end(payload);
    });
}

/** A pipeline assistant that takes calls, in Portuguese, with the benches' prompt (`{{loja}}` filled). */
export async function benchAssistant(call: ReturnType<typeof apiClient>, name: string, voice: number, initialMessage: string): Promise<number> {
  const created = await call('POST', '/user/assistant', {
    assistant_name: name,
    voice_id: voice,
    language: 'Portuguese',
    llm_model: 'gpt-4o-mini',
    calls_direction: 'receive',
    engine_type: 'pipeline',
    timezone: 'America/Sao_Paulo',
    initial_message: initialMessage,
    system_prompt: 'Você confirma pedidos da {{loja}}. Seja breve.',
    variables: { loja: 'Loja Centro' },
  });
  return created.data.id as number;
}

export function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : 0;
}

/** X-Twilio-Signature of a request Twilio would make: HMAC-SHA1 with the auth token over the URL, then each sorted parameter. */
export function twilioSignature(authToken: string, url: string, params: Record<string, string>): string {
  const data = url + Object.keys(params).sort().map((name) => name + params[name]).join('');
  return createHmac('sha1', authToken).update(data).digest('base64');
}
