import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { workerEnv, type TestApp } from './app';

/** The compiled server (`npm start`), built by `npm test`. */
export const serverMain = path.resolve(__dirname, '../../dist/src/main.js');

export interface ServerProcess {
  child: ChildProcess;
  /** `http://127.0.0.1:port` */
  base: string;
  /** What it has written so far, stdout and stderr. */
  output(): string;
  /** Resolves with its exit code (null when a signal ended it) once it has exited. */
  exited: Promise<number | null>;
}

/**
 * The compiled server as its own process on a test app's database (no workers, no demo seed),
 * so that what would end a process ends that one and the test sees it. `env` adds to it.
 */
export function startServer(app: TestApp, env: NodeJS.ProcessEnv = {}): Promise<ServerProcess> {
  if (!existsSync(serverMain)) throw new Error('dist/ is missing: run the tests with `npm test`, which builds first');
  const child = spawn(process.execPath, [serverMain], {
    env: { ...workerEnv(app), PORT: '0', HOST: '127.0.0.1', SEED_DEMO: 'false', WORKERS_IN_PROCESS: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start:\n${output}`)), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /REST\s+(http:\/\/[^\s]+)\/api/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ child, base: match[1], output: () => output, exited });
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code}:\n${output}`));
    });
  });
}
