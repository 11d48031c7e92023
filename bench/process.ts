import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** A server process for the benchmark, started as it would be deployed; resolves with the port its banner names. */
export function start(command: string[], env: NodeJS.ProcessEnv, ready: RegExp, node = process.execPath): Promise<{ child: ChildProcess; port: number }> {
  // Every server runs as it would be deployed (graphql-js, for one, skips development checks).
  const child = spawn(node, command, { env: { ...process.env, NODE_ENV: 'production', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = ready.exec(output);
      if (match) resolve({ child, port: Number(match[1]) });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
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
