import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { workerEnv, type TestApp } from './app';

/** Worker processes (`npm run worker`, compiled by `npm test`) on a test app's database. */
export const workerMain = path.resolve(__dirname, '../../dist/src/worker.js');

export interface WorkerProcess {
  child: ChildProcess;
  /** What it has written so far, stdout and stderr. */
  output(): string;
}

/** Starts a worker process and waits until it says it is up. */
export function startWorker(app: TestApp, env: NodeJS.ProcessEnv = {}): Promise<WorkerProcess> {
  if (!existsSync(workerMain)) throw new Error('dist/ is missing: run the tests with `npm test`, which builds first');
  const child = spawn(process.execPath, [workerMain], { env: { ...workerEnv(app), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the worker did not start:\n${output}`)), 30_000);
    const check = () => {
      if (!output.includes('vozgate worker is up')) return;
      clearTimeout(timer);
      child.stdout!.off('data', check);
      resolve({ child, output: () => output });
    };
    child.stdout!.on('data', check);
    child.on('exit', (code) => reject(new Error(`the worker exited with ${code}:\n${output}`)));
  });
}

export function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));
}
