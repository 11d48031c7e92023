import type { MikroORM } from '@mikro-orm/postgresql';
import pino, { type DestinationStream } from 'pino';
import type { Config } from './config';
import type { SecretBox } from './lib/secrets';
import type { LifecycleDeps } from './modules/calls/call.lifecycle';
import type { TelephonyProvider } from './telephony/provider';
import { createSmsProvider, type SmsProvider } from './telephony/sms';
import { SimulatorProvider } from './telephony/simulator';
import { scheduleCallWebhook } from './modules/webhooks/webhook.service';

export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  debug(message: string, fields?: Record<string, unknown>): void;
  error(message: string, error?: unknown, fields?: Record<string, unknown>): void;
}

/**
 * Structured JSON logs (pino), one object a line. Whatever might carry a credential is
 * censored by key wherever it appears: Authorization headers, tokens, secrets, passwords.
 */
export function createLogger(level = process.env.LOG_LEVEL ?? 'info', destination?: DestinationStream): Logger {
  const log = pino(
    {
      level,
      base: { service: 'vozgate' },
      redact: {
        paths: [
          'authorization', '*.authorization', '*.*.authorization', 'headers.authorization',
          'token', '*.token', 'secret', '*.secret', 'webhook_secret', '*.webhook_secret',
          'password', '*.password', 'cookie', '*.cookie',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
  return {
    info: (message, fields) => log.info(fields ?? {}, message),
    debug: (message, fields) => log.debug(fields ?? {}, message),
    error: (message, error, fields) => log.error({ ...fields, ...(error === undefined ? {} : { err: error }) }, message),
  };
}

/** What the API and the workers share in one process. */
export interface Runtime {
  orm: MikroORM;
  config: Config;
  secrets: SecretBox;
  telephony: TelephonyProvider;
  sms: SmsProvider;
  lifecycle: LifecycleDeps;
  logger: Logger;
}

export function createTelephony(config: Config): TelephonyProvider {
  switch (config.telephony.provider) {
    case 'simulator':
      return new SimulatorProvider(config.telephony.simulatorSpeed);
  }
}

export function createRuntime(parts: { orm: MikroORM; config: Config; secrets: SecretBox; logger?: Logger }): Runtime {
  const { orm, config, secrets } = parts;
  return {
    orm,
    config,
    secrets,
    telephony: createTelephony(config),
    sms: createSmsProvider(config),
    lifecycle: { config, secrets, onFinished: scheduleCallWebhook },
    logger: parts.logger ?? createLogger(),
  };
}

/**
 * On the first SIGINT or SIGTERM, runs `stop` (the parts in order, the database last) and
 * exits; later signals while it runs change nothing.
 */
export function stopOnSignals(log: Logger, what: string, stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info(`${signal}: stopping ${what}`);
    stop().then(
      () => process.exit(0),
      (error) => {
        log.error(`${what} did not stop cleanly`, error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}
