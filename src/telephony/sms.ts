import { randomBytes } from 'node:crypto';
import type { Config } from '../config';

/** Sends one SMS; `send` answers the provider's message id or throws SmsProviderError. */
export interface SmsProvider {
  readonly name: string;
  send(message: { from: string; to: string; body: string }): Promise<{ sid: string }>;
}

/** The provider refused or failed; `detail` is its own explanation, shown to the client. */
export class SmsProviderError extends Error {
  constructor(readonly detail: string) {
    super(detail);
    this.name = 'SmsProviderError';
  }
}

/** Accepts every message, except to numbers ending in 9999, which fail as a provider would. */
export class SimulatorSms implements SmsProvider {
  readonly name = 'simulator';

  async send(message: { to: string }): Promise<{ sid: string }> {
    if (message.to.endsWith('9999')) {
      throw new SmsProviderError(`simulator: the carrier rejected the message to ${message.to} (unreachable destination)`);
    }
    return { sid: `SM${randomBytes(16).toString('hex')}` };
  }
}

/**
 * Twilio's Messages API: a form-encoded POST to
 * `{base}/2010-04-01/Accounts/{AccountSid}/Messages.json` with basic auth; 201 answers the
 * message with its `sid`, errors answer `{code, message, more_info, status}`.
 */
export class TwilioSms implements SmsProvider {
  readonly name = 'twilio';

  constructor(
    private readonly settings: { accountSid: string; authToken: string; apiBase: string },
    private readonly timeoutMs: number,
  ) {}

  async send(message: { from: string; to: string; body: string }): Promise<{ sid: string }> {
    const { accountSid, authToken, apiBase } = this.settings;
    const url = `${apiBase}/2010-04-01/Accounts/${encodeURIComponent(accountSid)}/Messages.json`;
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams({ From: message.from, To: message.to, Body: message.body }).toString(),
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new SmsProviderError(`twilio: no answer (${(error as Error).name === 'TimeoutError' ? 'timeout' : (error as Error).message})`);
    }
    const text = await response.text();
    let payload: { sid?: unknown; code?: unknown; message?: unknown } = {};
    try {
      payload = JSON.parse(text);
    } catch {
      // not JSON: reported below with the status
    }
    if (response.status === 201 || response.status === 200) {
      if (typeof payload.sid === 'string' && payload.sid) return { sid: payload.sid };
      throw new SmsProviderError(`twilio: HTTP ${response.status} without a message sid`);
    }
    const code = payload.code !== undefined ? ` ${String(payload.code)}` : '';
    const detail = typeof payload.message === 'string' ? payload.message : text.slice(0, 200) || 'no detail';
    throw new SmsProviderError(`twilio${code}: ${detail} (HTTP ${response.status})`);
  }
}

export function createSmsProvider(config: Config): SmsProvider {
  return config.sms.provider === 'twilio' && config.sms.twilio ? new TwilioSms(config.sms.twilio, config.sms.timeoutMs) : new SimulatorSms();
}
