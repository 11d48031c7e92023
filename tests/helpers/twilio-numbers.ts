import { randomBytes } from 'node:crypto';
import { json, startReceiver, type Received, type Receiver } from './receiver';

/**
 * A local stand-in for Twilio's phone-number APIs, speaking their wire format: basic auth
 * (20003 otherwise); `GET .../AvailablePhoneNumbers/{Country}/Local.json` answering a page
 * `{available_phone_numbers: [...], page, page_size, uri, ...}` filtered by `Contains` (404
 * for a country it has none of); `POST .../IncomingPhoneNumbers.json` (a form: PhoneNumber,
 * VoiceUrl, VoiceMethod, SmsUrl, SmsMethod) answering 201 and the IncomingPhoneNumber resource
 * with its `PN` sid, or 400 error 21422 for a number it does not offer; the resources listed
 * by `PhoneNumber`; and `DELETE .../IncomingPhoneNumbers/{Sid}.json` answering 204 (20404 for
 * one it does not have).
 */
export interface AvailableEntry {
  phone_number: string;
  friendly_name: string;
  locality: string;
  region: string;
}

export interface FakeTwilioNumbers {
  accountSid: string;
  authToken: string;
  receiver: Receiver;
  /** What each country offers; a bought number leaves it. */
  available: Record<string, AvailableEntry[]>;
  /** The numbers bought and not released, by sid. */
  owned: Map<string, { sid: string; phone_number: string; form: URLSearchParams }>;
  /** When set, each purchase waits for it before it is made and answered. */
  holdPurchases: Promise<void> | null;
  /** When set, releases answer this status with Twilio's error body (and release nothing). */
  releaseStatus: number | null;
  settings(): { accountSid: string; authToken: string; apiBase: string };
  /** The requests of `method` whose path contains `part`. */
  requests(method: string, part: string): Received[];
  close(): Promise<void>;
}

const notFound = { code: 20404, message: 'The requested resource was not found', more_info: 'https://www.twilio.com/docs/errors/20404', status: 404 };

export async function startFakeTwilioNumbers(available: Record<string, AvailableEntry[]>): Promise<FakeTwilioNumbers> {
  const receiver = await startReceiver();
  const fake: FakeTwilioNumbers = {
    accountSid: `AC${randomBytes(16).toString('hex')}`,
    authToken: randomBytes(16).toString('hex'),
    receiver,
    available,
    owned: new Map(),
    holdPurchases: null,
    releaseStatus: null,
    settings: () => ({ accountSid: fake.accountSid, authToken: fake.authToken, apiBase: receiver.url }),
    requests: (method, part) => receiver.requests.filter((r) => r.method === method && r.url.includes(part)),
    close: () => receiver.close(),
  };
  receiver.respond = async (request, res) => {
    if (request.headers.authorization !== `Basic ${Buffer.from(`${fake.accountSid}:${fake.authToken}`).toString('base64')}`) {
      return json(res, 401, { code: 20003, message: 'Authenticate', more_info: 'https://www.twilio.com/docs/errors/20003', status: 401 });
    }
    const url = new URL(request.url, 'http://twilio.test');
    const base = `/2010-04-01/Accounts/${fake.accountSid}`;
    const search = new RegExp(`^${base}/AvailablePhoneNumbers/([A-Z]{2})/Local\\.json$`).exec(url.pathname);
    if (request.method === 'GET' && search) {
      const offered = fake.available[search[1]];
      if (!offered) return json(res, 404, notFound);
      const contains = url.searchParams.get('Contains');
      const pageSize = Number(url.searchParams.get('PageSize') ?? 50);
      const page = offered.filter((n) => !contains || n.phone_number.includes(contains)).slice(0, pageSize);
      return json(res, 200, {
        available_phone_numbers: page.map((n) => ({
          ...n,
          lata: null,
          rate_center: null,
          latitude: null,
          longitude: null,
          postal_code: null,
          iso_country: search[1],
          address_requirements: 'none',
          beta: false,
          capabilities: { voice: true, SMS: true, MMS: false },
        })),
        end: page.length - 1,
        first_page_uri: `${url.pathname}${url.search}`,
        next_page_uri: null,
        page: 0,
        page_size: pageSize,
        previous_page_uri: null,
        start: 0,
        uri: `${url.pathname}${url.search}`,
      });
    }
    if (url.pathname === `${base}/IncomingPhoneNumbers.json` && request.method === 'GET') {
      const number = url.searchParams.get('PhoneNumber');
      return json(res, 200, { incoming_phone_numbers: [...fake.owned.values()].filter((n) => !number || n.phone_number === number).map((n) => resource(fake, n)) });
    }
    if (url.pathname === `${base}/IncomingPhoneNumbers.json` && request.method === 'POST') {
      if (request.headers['content-type'] !== 'application/x-www-form-urlencoded') return json(res, 400, { code: 20001, message: 'Invalid content type', status: 400 });
      const form = new URLSearchParams(request.body);
      if (fake.holdPurchases) await fake.holdPurchases;
      const wanted = form.get('PhoneNumber') ?? '';
      const country = Object.keys(fake.available).find((c) => fake.available[c].some((n) => n.phone_number === wanted));
      if (!country) {
        return json(res, 400, { code: 21422, message: 'PhoneNumber Requested is Not Available', more_info: 'https://www.twilio.com/docs/errors/21422', status: 400 });
      }
      fake.available[country] = fake.available[country].filter((n) => n.phone_number !== wanted);
      const bought = { sid: `PN${randomBytes(16).toString('hex')}`, phone_number: wanted, form };
      fake.owned.set(bought.sid, bought);
      return json(res, 201, resource(fake, bought));
    }
    const one = new RegExp(`^${base}/IncomingPhoneNumbers/(PN\\w+)\\.json$`).exec(url.pathname);
    if (request.method === 'DELETE' && one) {
      if (fake.releaseStatus !== null) return json(res, fake.releaseStatus, { code: 20500, message: 'Internal Server Error', status: fake.releaseStatus });
      if (!fake.owned.delete(one[1])) return json(res, 404, notFound);
      res.writeHead(204);
      res.end();
      return;
    }
    return json(res, 404, notFound);
  };
  return fake;
}

/** An IncomingPhoneNumber as Twilio answers it. */
function resource(fake: FakeTwilioNumbers, n: { sid: string; phone_number: string; form: URLSearchParams }) {
  return {
    sid: n.sid,
    account_sid: fake.accountSid,
    phone_number: n.phone_number,
    friendly_name: n.phone_number,
    voice_url: n.form.get('VoiceUrl'),
    voice_method: n.form.get('VoiceMethod') ?? 'POST',
    sms_url: n.form.get('SmsUrl'),
    sms_method: n.form.get('SmsMethod') ?? 'POST',
    status_callback: n.form.get('StatusCallback') ?? '',
    capabilities: { fax: false, mms: false, sms: true, voice: true },
    status: 'in-use',
    origin: 'twilio',
    api_version: '2010-04-01',
    date_created: new Date().toUTCString().replace('GMT', '+0000'),
    uri: `/2010-04-01/Accounts/${fake.accountSid}/IncomingPhoneNumbers/${n.sid}.json`,
  };
}
