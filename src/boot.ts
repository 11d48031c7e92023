import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from './config';
import { openDatabase, type Database } from './db/database';
import { initOrm } from './db/orm';
import { loadSecretBox, type SecretBox } from './lib/secrets';
import { createLogger, type Logger } from './log';
import { paramsOfModel } from './modules/catalog/catalog.service';
import { scheduleCallWebhook } from './modules/webhooks/webhook.service';
import type { Runtime } from './runtime';
import { startTelemetry, type Telemetry } from './telemetry';
import { createSmsProvider } from './telephony/sms.providers';
import { createNumberProvider } from './telephony/number.providers';
import { createSipProvisioner } from './telephony/twilio.sip';
import type { TelephonyProvider } from './modules/calls/call.ports';
import { recordServerTelephonyProvider } from './telephony/provider.record';
import { SimulatorProvider } from './telephony/simulator';
import { TwilioVoice } from './telephony/twilio';
import { heartbeatStaleMs } from './jobs/heartbeat';
import { mediaLoadReports } from './voice/load.report';
import { openAiAnalyst } from './voice/post-call';
import { OpenAiEmbedder } from './documents/openai.embedder';
import { ChatReplier } from './chat/chat.replier';

export interface Booted {
  database: Database;
  runtime: Runtime;
  /** Closes the pool, then stops the embedded cluster if this process started it. */
  close(): Promise<void>;
}

/**
 * What `npm start` and `npm run worker` both need first: the database (embedded or
 * DATABASE_URL), the secrets key, the migrations and the runtime. A failure on the way
 * leaves no embedded cluster behind.
 */
export async function boot(config: Config, log: Logger): Promise<Booted> {
  const database = await openDatabase(config, (line) => log.info(line));
  try {
    const secrets = await loadSecretBox(config);
    const orm = await initOrm({ databaseUrl: database.url, logSql: config.logSql, log, timeoutMs: config.databaseTimeoutMs });
    const telemetry = await startTelemetry(config.otlpEndpoint, log);
    const runtime = createRuntime({ orm, config, secrets, logger: log, telemetry });
    // The CLI, with a configuration of its own, reads it before it simulates a call here.
    await recordServerTelephonyProvider(orm.em.fork(), runtime.telephony.name);
    return {
      database,
      runtime,
      close: async () => {
        try {
          // The spans of the calls that just ended leave before the process does.
          await telemetry?.shutdown();
          await orm.close();
        } finally {
          await database.stop();
        }
      },
    };
  } catch (error) {
    await database.stop().catch(() => {});
    throw error;
  }
}

/** The telephony adapter of the configuration, chosen once. */
export function createTelephony(config: Config, secrets: SecretBox, logger?: Logger): TelephonyProvider {
  if (config.telephony.provider === 'twilio' && config.telephony.twilio) return new TwilioVoice(config.telephony.twilio, config, secrets);
  return new SimulatorProvider(config.telephony.simulatorSpeed, (error) => logger?.error('simulator: mid-call tools failed', error));
}

export function createRuntime(parts: { orm: MikroORM; config: Config; secrets: SecretBox; logger?: Logger; telemetry?: Telemetry | null }): Runtime {
  const { orm, config, secrets } = parts;
  const logger = parts.logger ?? createLogger();
  const embedder = config.embeddings ? new OpenAiEmbedder(config.embeddings) : null;
  return {
    orm,
    config,
    secrets,
    telephony: createTelephony(config, secrets, logger),
    sms: createSmsProvider(config),
    numbers: createNumberProvider(config),
    sipAccess: createSipProvisioner(config),
    lifecycle: { config, secrets, onFinished: scheduleCallWebhook, analyst: config.voice.openai ? openAiAnalyst(config.voice.openai, (model) => paramsOfModel(orm.em.fork(), model)) : null, logger },
    logger,
    mediaLoad: mediaLoadReports(heartbeatStaleMs(config.workers.heartbeatMs)),
    telemetry: parts.telemetry ?? null,
    embedder,
    replier: new ChatReplier({ orm, config, secrets, logger, embedder }),
  };
}

/** What a stop may take beyond its parts' SHUTDOWN_TIMEOUT_MS: the pool's close and the embedded cluster's fast shutdown. */
const STOP_MARGIN_MS = 5_000;

/**
 * On the first SIGINT, SIGTERM or SIGHUP (the terminal closed), runs `stop` (the parts in
 * order, the database last) and exits 0; a second signal while it runs exits at once (130).
 * The stop runs at most two parts of `shutdownTimeoutMs` each (requests and sockets, then
 * jobs); whatever a part waits on, the process exits within two of them and STOP_MARGIN_MS
 * (1 when the bound cut the stop short): a process that stopped serving WebSockets but still
 * answered HTTP would never be restarted.
 *
 * The last resort for failures no caller caught: a rejected promise that nobody awaited is
 * logged and the process keeps serving (it left no half-done state behind a call stack);
 * an exception thrown past every frame is logged and the process stops in the same order
 * and exits 1, since the state it interrupted is unknown.
 */
export function stopOnSignals(log: Logger, what: string, stop: () => Promise<void>, shutdownTimeoutMs: number): void {
  const boundMs = 2 * shutdownTimeoutMs + STOP_MARGIN_MS;
  let stopping = false;
  const shutdown = (reason: string, code: number) => {
    if (stopping) {
      // A second Ctrl-C: the person at the terminal does not want to wait.
      if (reason === 'SIGINT' || reason === 'SIGTERM') {
        log.info(`${reason} again: exiting without waiting`);
        process.exit(130);
      }
      return;
    }
    stopping = true;
    log.info(`${reason}: stopping ${what}`);
    setTimeout(() => {
      log.error(`${what} did not stop within ${boundMs} ms: exiting anyway`);
      process.exit(1);
    }, boundMs);
    stop().then(
      () => process.exit(code),
      (error) => {
        log.error(`${what} did not stop cleanly`, error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT', 0));
  process.on('SIGTERM', () => shutdown('SIGTERM', 0));
  process.on('SIGHUP', () => {
    // The terminal is gone: what is written to it now fails (EIO), and is lost anyway.
    process.stdout.on('error', () => {});
    process.stderr.on('error', () => {});
    shutdown('SIGHUP', 0);
  });
  process.on('unhandledRejection', (error) => log.error('unhandled promise rejection (the process goes on)', error));
  process.on('uncaughtException', (error) => {
    log.error('uncaught exception', error);
    shutdown('uncaught exception', 1);
  });
}
