import { createHash } from 'node:crypto';
import type { Config } from '../config';
import { NumberProviderFailure, NumberRefused, type AvailableNumber, type NumberProvider, type NumberWebhooks } from '../modules/accounts/phone-number.ports';
import { TwilioRest, type TwilioAnswer, type TwilioSettings } from './twilio.rest';

/** At most this many numbers of one search reach a client (Twilio's page is 50 at most too). */
const SEARCH_PAGE = 20;

/**
 * A fixed inventory, so that numbers can be searched and bought without Twilio. It sells any
 * valid number (those of the inventory are what a search shows) except numbers ending in
 * 9999, which it refuses as Twilio refuses a number that is no longer available.
 */
export class SimulatorNumbers implements NumberProvider {
  readonly name = 'simulator';

  async search(country: string, contains: string | null): Promise<AvailableNumber[]> {
    return (SIMULATOR_INVENTORY[country] ?? [])
      .filter((entry) => !contains || entry.phone_number.slice(1).includes(contains))
      .slice(0, SEARCH_PAGE)
      .map((entry) => ({ ...entry, iso_country: country, capabilities: { voice: true, sms: true, mms: false } }));
  }

  async buy(number: string): Promise<{ sid: string }> {
    if (number.endsWith('9999')) throw new NumberRefused(`simulator 21422: the number ${number} is not available`);
    return { sid: `PN${createHash('sha256').update(`simulator:${number}`).digest('hex').slice(0, 32)}` };
  }

  async release(): Promise<void> {}
}

type InventoryEntry = Pick<AvailableNumber, 'phone_number' | 'friendly_name' | 'locality' | 'region'>;

const SIMULATOR_INVENTORY: Record<string, InventoryEntry[]> = {
  BR: [
    { phone_number: '+551140045001', friendly_name: '(11) 4004-5001', locality: 'São Paulo', region: 'SP' },
    { phone_number: '+551140045002', friendly_name: '(11) 4004-5002', locality: 'São Paulo', region: 'SP' },
    { phone_number: '+552140045003', friendly_name: '(21) 4004-5003', locality: 'Rio de Janeiro', region: 'RJ' },
    { phone_number: '+553140045004', friendly_name: '(31) 4004-5004', locality: 'Belo Horizonte', region: 'MG' },
  ],
  DE: [
    { phone_number: '+4930123456', friendly_name: '030 123456', locality: 'Berlin', region: 'BE' },
    { phone_number: '+4930900001', friendly_name: '030 900001', locality: 'Berlin', region: 'BE' },
    { phone_number: '+498912345670', friendly_name: '089 12345670', locality: 'München', region: 'BY' },
  ],
  US: [
    { phone_number: '+14155550101', friendly_name: '(415) 555-0101', locality: 'San Francisco', region: 'CA' },
    { phone_number: '+12125550102', friendly_name: '(212) 555-0102', locality: 'New York', region: 'NY' },
    { phone_number: '+13125550103', friendly_name: '(312) 555-0103', locality: 'Chicago', region: 'IL' },
  ],
  PT: [{ phone_number: '+351211234567', friendly_name: '211 234 567', locality: 'Lisboa', region: null }],
};

/** Connection errors that mean the request never reached Twilio. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ERR_INVALID_URL']);

/** A string field of vendor JSON, at most `max` characters, or null. */
function text(value: unknown, max = 255): string | null {
  return typeof value === 'string' && value !== '' ? value.slice(0, max) : null;
}

/** Twilio's error body as one line: `twilio 21422: message (HTTP 400)`. */
export function refusal(answer: TwilioAnswer): string {
  const body = answer.body as { code?: unknown; message?: unknown } | null;
  const code = typeof body?.code === 'number' || typeof body?.code === 'string' ? ` ${String(body.code).slice(0, 16)}` : '';
  const detail = text(body?.message, 300) ?? (answer.text.slice(0, 200) || 'no detail');
  return `twilio${code}: ${detail} (HTTP ${answer.status})`;
}

/**
 * Twilio's phone numbers: `GET .../AvailablePhoneNumbers/{Country}/Local.json?Contains=` to
 * search, `POST .../IncomingPhoneNumbers.json` (form: PhoneNumber, VoiceUrl, VoiceMethod,
 * SmsUrl, SmsMethod) to buy, answered 201 with the number's resource and its `PN` sid, and
 * `DELETE .../IncomingPhoneNumbers/{Sid}.json` (204) to release.
 */
export class TwilioNumbers implements NumberProvider {
  readonly name = 'twilio';
  private readonly rest: TwilioRest;

  constructor(settings: TwilioSettings, timeoutMs: number) {
    this.rest = new TwilioRest(settings, timeoutMs);
  }

  private async exchange(path: string, init: Parameters<TwilioRest['send']>[1]): Promise<TwilioAnswer> {
    try {
      return await this.rest.send(path, init);
    } catch (error) {
      const code = (error as { cause?: { code?: string } }).cause?.code;
      const reason = code ?? ((error as Error).name === 'TimeoutError' ? 'timeout' : (error as Error).message);
      throw new NumberProviderFailure(`twilio: no answer (${reason})`);
    }
  }

  async search(country: string, contains: string | null): Promise<AvailableNumber[]> {
    const query = new URLSearchParams({ PageSize: String(SEARCH_PAGE) });
    if (contains) query.set('Contains', contains);
    const answer = await this.exchange(`/AvailablePhoneNumbers/${encodeURIComponent(country)}/Local.json`, { method: 'GET', query });
    // Twilio answers 404 for a country it has no numbers of.
    if (answer.status === 404) return [];
    if (answer.status >= 400 && answer.status < 500) throw new NumberRefused(refusal(answer));
    if (answer.status !== 200) throw new NumberProviderFailure(refusal(answer));
    const list = (answer.body as { available_phone_numbers?: unknown } | null)?.available_phone_numbers;
    if (!Array.isArray(list)) throw new NumberProviderFailure('twilio: the search answer has no available_phone_numbers');
    return list.slice(0, SEARCH_PAGE).flatMap((entry): AvailableNumber[] => {
      const number = text(entry?.phone_number, 20);
      if (!number || !/^\+[1-9]\d{6,14}$/.test(number)) return [];
      // Twilio writes these keys in capitals on some answers (SMS, MMS): either is read.
      const capabilities = Object.fromEntries(Object.entries(entry?.capabilities ?? {}).map(([k, v]) => [k.toLowerCase(), v === true]));
      return [
        {
          phone_number: number,
          friendly_name: text(entry.friendly_name, 64) ?? number,
          locality: text(entry.locality, 128),
          region: text(entry.region, 64),
          iso_country: text(entry.iso_country, 2) ?? country,
          capabilities: { voice: capabilities.voice === true, sms: capabilities.sms === true, mms: capabilities.mms === true },
        },
      ];
    });
  }

  async buy(number: string, webhooks: NumberWebhooks): Promise<{ sid: string }> {
    const form = new URLSearchParams({ PhoneNumber: number, VoiceUrl: webhooks.voiceUrl, VoiceMethod: 'POST', SmsUrl: webhooks.smsUrl, SmsMethod: 'POST' });
    let answer: TwilioAnswer;
    try {
      answer = await this.rest.send('/IncomingPhoneNumbers.json', { method: 'POST', form });
    } catch (error) {
      const code = (error as { cause?: { code?: string } }).cause?.code;
      if (code && NOT_SENT.has(code)) throw new NumberProviderFailure(`twilio: not reached (${code})`);
      await this.undoUnknownPurchase(number);
      throw new NumberProviderFailure(`twilio: no complete answer (${(error as Error).name === 'TimeoutError' ? 'timeout' : (error as Error).message})`);
    }
    if (answer.status === 200 || answer.status === 201) {
      const sid = text((answer.body as { sid?: unknown } | null)?.sid, 64);
      if (sid) return { sid };
      await this.undoUnknownPurchase(number);
      throw new NumberProviderFailure(`twilio: HTTP ${answer.status} without a number sid`);
    }
    if (answer.status >= 500) {
      await this.undoUnknownPurchase(number);
      throw new NumberProviderFailure(refusal(answer));
    }
    throw new NumberRefused(refusal(answer));
  }

  /**
   * A purchase whose answer was lost may have happened: the number is looked up and, when
   * Twilio has it, released, so that nothing is rented that the account was not charged for.
   */
  private async undoUnknownPurchase(number: string): Promise<void> {
    try {
      const found = await this.rest.send('/IncomingPhoneNumbers.json', { method: 'GET', query: new URLSearchParams({ PhoneNumber: number }) });
      const list = (found.body as { incoming_phone_numbers?: unknown } | null)?.incoming_phone_numbers;
      if (found.status !== 200 || !Array.isArray(list)) return;
      for (const entry of list) {
        const sid = text(entry?.sid, 64);
        if (sid && entry.phone_number === number) await this.release(sid);
      }
    } catch {
      // Twilio cannot be asked either: the operator's Twilio console shows the number.
    }
  }

  async release(sid: string): Promise<void> {
    const answer = await this.exchange(`/IncomingPhoneNumbers/${encodeURIComponent(sid)}.json`, { method: 'DELETE' });
    if (answer.status === 204 || answer.status === 200 || answer.status === 404) return;
    throw new NumberProviderFailure(refusal(answer));
  }
}

/** The numbers of the telephony provider the configuration chose (TELEPHONY_PROVIDER). */
export function createNumberProvider(config: Config): NumberProvider {
  return config.telephony.provider === 'twilio' && config.telephony.twilio ? new TwilioNumbers(config.telephony.twilio, config.sms.timeoutMs) : new SimulatorNumbers();
}
