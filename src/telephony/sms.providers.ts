import { createHash } from 'node:crypto';
import type { Config } from '../config';
import { SmsOutcomeUnknown, SmsProviderError, type ContentTemplate, type OutgoingSms, type ProviderMessage, type SmsProvider } from '../modules/sms/sms.ports';
import { TwilioContentApi } from './twilio.content';
import { TwilioRest, type TwilioAnswer, type TwilioSettings } from './twilio.rest';

/**
 * Accepts every message, except to numbers ending in 9999, which fail as a provider would.
 * Its message ids follow from our ids, so it can be asked about a message after the fact.
 */
export class SimulatorSms implements SmsProvider {
  readonly name = 'simulator';

  private static sid(reference: number): string {
    return `SM${createHash('sha256').update(`simulator:${reference}`).digest('hex').slice(0, 32)}`;
  }

  async send(message: OutgoingSms): Promise<{ sid: string }> {
    if (message.to.endsWith('9999')) {
      throw new SmsProviderError(`simulator: the carrier rejected the message to ${message.to} (unreachable destination)`);
    }
    return { sid: SimulatorSms.sid(message.reference) };
  }

  async find(query: OutgoingSms): Promise<ProviderMessage[]> {
    return query.to.endsWith('9999') ? [] : [{ sid: SimulatorSms.sid(query.reference), state: 'accepted', detail: null }];
  }

  /** A fixed list, so that WhatsApp templates can be listed and sent without Twilio. */
  async templates(): Promise<ContentTemplate[]> {
    return SIMULATOR_TEMPLATES;
  }
}

const SIMULATOR_TEMPLATES: ContentTemplate[] = [
  {
    sid: 'HX00000000000000000000000000000001',
    name: 'confirmacao_pedido',
    language: 'pt_BR',
    body: 'Olá {{1}}, seu pedido {{2}} foi confirmado.',
    variables: { '1': 'Maria', '2': '1234' },
    status: 'approved',
    category: 'UTILITY',
  },
  {
    sid: 'HX00000000000000000000000000000002',
    name: 'lembrete_consulta',
    language: 'pt_BR',
    body: 'Olá {{1}}, lembramos da sua consulta em {{2}}. Responda SIM para confirmar.',
    variables: { '1': 'Maria', '2': '12/05 às 14h' },
    status: 'approved',
    category: 'UTILITY',
  },
  {
    sid: 'HX00000000000000000000000000000003',
    name: 'promocao_inverno',
    language: 'pt_BR',
    body: 'Oi {{1}}! Nossa promoção de inverno começou.',
    variables: { '1': 'Maria' },
    status: 'pending',
    category: 'MARKETING',
  },
];

/** Connection errors that mean the request never reached the provider. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ERR_INVALID_URL']);

/** A number as Twilio's Messages API addresses it on the message's channel: WhatsApp's are `whatsapp:+E164`. */
function address(message: Pick<OutgoingSms, 'channel'>, number: string): string {
  return message.channel === 'whatsapp' ? `whatsapp:${number}` : number;
}

interface TwilioMessage {
  sid?: unknown;
  status?: unknown;
  body?: unknown;
  date_created?: unknown;
  error_code?: unknown;
  error_message?: unknown;
}

/**
 * Twilio's Messages API: a form-encoded POST to
 * `{base}/2010-04-01/Accounts/{AccountSid}/Messages.json` with basic auth (WhatsApp's
 * messages too, their `From` and `To` as `whatsapp:+E164`); 201 answers the
 * message with its `sid`, errors answer `{code, message, more_info, status}`. Messages are
 * read back with `GET .../Messages/{Sid}.json`, or listed by `To` and `From`.
 */
export class TwilioSms implements SmsProvider {
  readonly name = 'twilio';

  private readonly rest: TwilioRest;
  private readonly content: TwilioContentApi;

  constructor(settings: TwilioSettings & { contentApiBase?: string }, timeoutMs: number) {
    this.rest = new TwilioRest(settings, timeoutMs);
    this.content = new TwilioContentApi({ accountSid: settings.accountSid, authToken: settings.authToken, base: settings.contentApiBase ?? 'https://content.twilio.com' }, timeoutMs);
  }

  templates(): Promise<ContentTemplate[]> {
    return this.content.templates();
  }

  async send(message: OutgoingSms): Promise<{ sid: string }> {
    let answer: TwilioAnswer;
    try {
      const form = new URLSearchParams({ From: address(message, message.from), To: address(message, message.to) });
      // A template goes as its Content SID and variables (JSON); Twilio renders its text.
      if (message.contentSid) {
        form.set('ContentSid', message.contentSid);
        form.set('ContentVariables', JSON.stringify(message.contentVariables ?? {}));
      } else {
        form.set('Body', message.body);
      }
      answer = await this.rest.send('/Messages.json', { method: 'POST', form });
    } catch (error) {
      const code = (error as { cause?: { code?: string } }).cause?.code;
      if (code && NOT_SENT.has(code)) throw new SmsProviderError(`twilio: not reached (${code})`);
      const reason = (error as Error).name === 'TimeoutError' ? 'timeout' : (error as Error).message;
      throw new SmsOutcomeUnknown(`twilio: no complete answer (${reason})`);
    }
    const { status, text } = answer;
    const payload = answer.body as (TwilioMessage & { code?: unknown; message?: unknown }) | null;
    if (status === 200 || status === 201) {
      if (typeof payload?.sid === 'string' && payload.sid) return { sid: payload.sid };
      throw new SmsOutcomeUnknown(`twilio: HTTP ${status} without a message sid`);
    }
    const code = payload?.code !== undefined ? ` ${String(payload.code)}` : '';
    const detail = typeof payload?.message === 'string' ? payload.message : text.slice(0, 200) || 'no detail';
    // A 5xx says nothing about whether the message was taken.
    if (status >= 500) throw new SmsOutcomeUnknown(`twilio${code}: ${detail} (HTTP ${status})`);
    throw new SmsProviderError(`twilio${code}: ${detail} (HTTP ${status})`);
  }

  async find(query: OutgoingSms & { sid: string | null; createdAfter: Date }): Promise<ProviderMessage[]> {
    const { status, body } = query.sid
      ? await this.rest.send(`/Messages/${encodeURIComponent(query.sid)}.json`, { method: 'GET' })
      : await this.rest.send('/Messages.json', { method: 'GET', query: new URLSearchParams({ To: address(query, query.to), From: address(query, query.from), PageSize: '100' }) });
    if (status === 404) return [];
    if (status !== 200) throw new Error(`twilio: HTTP ${status} reading messages`);
    const payload = body as (TwilioMessage & { messages?: TwilioMessage[] }) | null;
    if (!payload) throw new Error('twilio: the message list is not JSON');
    const messages = query.sid ? [payload] : (payload.messages ?? []);
    const after = query.createdAfter.getTime();
    return messages
      .filter((m) => typeof m.sid === 'string' && (query.sid !== null || (m.body === query.body && Date.parse(String(m.date_created)) >= after)))
      .map((m) => {
        const refused = m.status === 'failed' || m.status === 'undelivered';
        const code = m.error_code != null ? ` ${String(m.error_code)}` : '';
        const detail = refused ? `twilio${code}: ${String(m.error_message ?? m.status)}` : null;
        return { sid: m.sid as string, state: refused ? 'refused' : 'accepted', detail };
      });
  }
}

export function createSmsProvider(config: Config): SmsProvider {
  return config.sms.provider === 'twilio' && config.sms.twilio ? new TwilioSms(config.sms.twilio, config.sms.timeoutMs) : new SimulatorSms();
}
