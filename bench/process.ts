import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';

/** A server process for the benchmark, started as it would be deployed; resolves with the port its banner names. */
export function start(command: string[], env: NodeJS.ProcessEnv, readyLine: RegExp, node = process.execPath): Promise<{ child: ChildProcess; port: number }> {
  // Every server runs as it would be deployed (graphql-js, for one, skips development checks).
  const child = spawn(node, command, { env: { ...process.env, NODE_ENV: 'production', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  // Until the banner, the output is searched for it; after it, only its last 64 KB are kept, for
  // the error if the process dies (a server's request log grows for the whole run, and searching
  // all of it on every chunk took the load generator's CPU from under the measured servers).
  let output = '';
  let ready = false;
  const keep = (chunk: Buffer) => {
    output += chunk.toString();
    if (ready && output.length > 65_536) output = output.slice(-65_536);
  };
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      keep(chunk);
      const match = !ready && readyLine.exec(output);
      if (match) {
        ready = true;
        resolve({ child, port: Number(match[1]) });
      }
    });
    child.stderr!.on('data', keep);
    child.on('exit', (code) => reject(new Error(`${command.join(' ')} exited with ${code}:\n${output}`)));
  });
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

export function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : 0;
}
