import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { freePort } from '../../src/db/embedded';

type Command = 'stop' | 'start' | 'stall' | 'resume';
const ANSWERS: Record<Command, string> = { stop: 'stopped', start: 'started', stall: 'stalled', resume: 'resumed' };

export interface OwnCluster {
  /** The server's `postgres` database, for `startTestApp`'s `adminUrl`. */
  adminUrl: string;
  /** stop/start: a fast shutdown and a start; stall/resume: SIGSTOP and SIGCONT of every process of the server. */
  run(command: Command): Promise<void>;
  close(): Promise<void>;
}

/**
 * A PostgreSQL server of one test file's own (tests/helpers/cluster.mjs in a child process), so
 * that stopping or stalling it touches no other test file.
 */
export async function startOwnCluster(): Promise<OwnCluster> {
  const port = await freePort();
  const server: ChildProcess = spawn(process.execPath, [path.join(__dirname, 'cluster.mjs'), String(port)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const replies = createInterface({ input: server.stdout! })[Symbol.asyncIterator]();
  const answer = async () => (await replies.next()).value;
  if ((await answer()) !== 'started') throw new Error('the test cluster did not start');
  return {
    adminUrl: `postgresql://postgres:test@127.0.0.1:${port}/postgres`,
    async run(command) {
      server.stdin!.write(`${command}\n`);
      const reply = await answer();
      if (reply !== ANSWERS[command]) throw new Error(`the test cluster answered ${reply} to ${command}`);
    },
    async close() {
      if (server.exitCode !== null) return;
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.stdin!.write('exit\n');
      await exited;
    },
  };
}
