import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from './config';
import type { SecretBox } from './lib/secrets';
import type { LifecycleDeps } from './modules/calls/call.lifecycle';
import type { TelephonyProvider } from './telephony/provider';
import { createSmsProvider, type SmsProvider } from './telephony/sms';
import { SimulatorProvider } from './telephony/simulator';
import { scheduleCallWebhook } from './modules/webhooks/webhook.service';

export interface Logger {
  info(message: string): void;
  error(message: string, error?: unknown): void;
}

export const consoleLogger: Logger = {
  info: (message) => process.stdout.write(`${message}\n`),
  error: (message, error) => console.error(message, error ?? ''),
};

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
    logger: parts.logger ?? consoleLogger,
  };
}
