import 'reflect-metadata';
import path from 'node:path';
import { createApp, type App } from './app';
import { boot, stopOnSignals } from './boot';
import { loadConfig, type Config } from './config';
import { startWorkers, type Workers } from './jobs/runner';
import { createLogger } from './log';
import type { Runtime } from './runtime';
import { findDemoAccountId, seedDemo, type DemoSeed } from './seed';

interface Serving {
  app: App;
  workers: Workers | null;
  base: string;
  seed: DemoSeed | null;
}

/** The demo seed, the HTTP server and (unless told not to) the workers. */
async function serve(runtime: Runtime, databaseUrl: string): Promise<Serving> {
  const { config } = runtime;
  let app: App | undefined;
  try {
    const seed = config.seedDemo ? await seedDemo(runtime.orm, config) : null;
    app = await createApp(runtime);
    const base = await app.listen(config.port, config.host);
    const workers = config.workers.inProcess ? await startWorkers(runtime, databaseUrl) : null;
    return { app, workers, base, seed };
  } catch (error) {
    await app?.close().catch(() => {});
    throw error;
  }
}

/** How to run the CLI on this server's database from the directory `npm start` ran in. */
function cliCommand(config: Config, embedded: boolean): string {
  const where = embedded && config.dataDir !== path.resolve('.data') ? `DATA_DIR=${config.dataDir} ` : '';
  return `${where}npm run -s cli --`;
}

async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  const { database, runtime, close } = await boot(config, log);
  let serving: Serving;
  try {
    serving = await serve(runtime, database.url);
  } catch (error) {
    // Leave no embedded cluster behind a failed start (a port in use, say).
    await close().catch(() => {});
    throw error;
  }
  const { app, workers, base, seed } = serving;

  // One write, so that whoever watches the output sees the whole banner at once.
  const banner = [
    `vozgate is up (${database.embedded ? `embedded PostgreSQL in ${config.dataDir}` : 'DATABASE_URL'})`,
    // The pages first: the console and /talk are where a person starts.
    ...(config.console ? [`  console   ${base}/console (paste the token below)`] : []),
    `  talk      ${base}/talk (hear an assistant through your microphone)`,
    `  GraphQL   ${base}/graphql${config.graphql.ide ? ' (GraphiQL in a browser)' : ''}`,
    `  REST      ${base}/api`,
    `  docs      ${base}/docs (the REST reference)`,
    `  health    ${base}/healthz, ${base}/readyz`,
    `  workers   ${workers ? `in this process (telephony: ${runtime.telephony.name})` : 'not in this process: run `npm run worker`'}`,
  ];
  if (seed) {
    banner.push(
      `Demo account ${seed.accountId} created (campaign_id ${seed.campaignId}, assistant_id ${seed.assistantId} outbound, phone number id ${seed.phoneNumberId}).`,
      'Its token is shown only this once; paste this line into the shell you try the API from:',
      `  export TOKEN=${seed.token}`,
      `  then: curl -s ${base}/api/user/leads -H "Authorization: Bearer $TOKEN"`,
    );
  } else if (config.seedDemo) {
    const demo = await findDemoAccountId(runtime.orm);
    if (demo !== null) banner.push(`Demo account ${demo}: a new token for it with \`${cliCommand(config, database.embedded)} token:create --account ${demo}\``);
  }
  // Requests and sockets, then jobs, each for at most SHUTDOWN_TIMEOUT_MS, then the database.
  stopOnSignals(
    log,
    'vozgate',
    async () => {
      try {
        await app.close(config.shutdownTimeoutMs);
        await workers?.stop(config.shutdownTimeoutMs);
      } finally {
        await close();
      }
    },
    config.shutdownTimeoutMs,
  );
  // The banner is for the person who ran `npm start`; the logs are JSON lines. It comes once the
  // signals are handled: whoever reads "vozgate is up" may send one at once (a test, a supervisor).
  process.stdout.write(`${banner.join('\n')}\n`);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
