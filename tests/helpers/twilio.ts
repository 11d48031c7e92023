import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import twilio from 'twilio';
import { until } from './dialer';
import { json, startReceiver, type Received, type Receiver } from './receiver';
import { fakeSip, sipApi, type FakeSip } from './twilio-sip';

/**
 * A local server that speaks Twilio's Calls API as Twilio documents it: basic auth, form
 * bodies, JSON answers and Twilio's error bodies (20003 unauthenticated, 21211 invalid To for
 * numbers ending in 9999, 20404). And requests to vozgate as Twilio sends them: form-encoded,
 * signed with the official `twilio` package's helper, so that a mistake in vozgate's
 * signature check cannot hide behind the same mistake in the test.
 */
export interface FakeTwilio {
  accountSid: string;
  authToken: string;
  receiver: Receiver;
  /** The calls it made. */
  made: { sid: string; to: string; from: string; date_created: string }[];
  /**
   * The status Twilio has for each call it made (`queued` when made; a test moves it on). An
   * update's `Status` applies as Twilio documents: `canceled` ends a call queued or ringing and
   * leaves one in progress as it is, `completed` ends either; the answer carries the status after.
   */
  statuses: Map<string, string>;
  /** What GET /Calls/{sid}.json answers, by sid (404 otherwise). */
  resources: Map<string, { status: number; body: Record<string, unknown> }>;
  /** When set, call creations wait for it before they are made and answered (Twilio being slow to answer). */
  creating: Promise<void> | null;
  /** When set, the next call creation answers this status (the call is made anyway). */
  nextStatus: number | null;
  /** Its SIP domains, credential lists and IP access control lists (twilio-sip.ts). */
  sip: FakeSip;
  /** The POSTs it received. */
  posts(): Received[];
  /** The settings of TELEPHONY_PROVIDER=twilio against it. */
  settings(): { accountSid: string; authToken: string; apiBase: string };
  /** Waits for vozgate to ask Twilio to end the call `sid`; answers the Status it asked for. */
  hangupOf(sid: string, timeoutMs?: number): Promise<string | null>;
  /** POSTs `params` to vozgate's `publicUrl` + `path`, signed unless `sign` is false. */
  request(publicUrl: string, path: string, params: Record<string, string>, sign?: boolean): Promise<Response>;
  close(): Promise<void>;
}

export async function startFakeTwilio(): Promise<FakeTwilio> {
  const receiver = await startReceiver();
  const fake: FakeTwilio = {
    accountSid: `AC${randomBytes(16).toString('hex')}`,
    authToken: randomBytes(16).toString('hex'),
    receiver,
    made: [],
    statuses: new Map(),
    resources: new Map(),
    creating: null,
    nextStatus: null,
    sip: fakeSip(),
    posts: () => receiver.requests.filter((request) => request.method === 'POST'),
    async hangupOf(sid, timeoutMs = 20_000) {
      const update = await until('hung up at Twilio', async () => fake.posts().find((r) => r.url.endsWith(`/Calls/${sid}.json`)), (found) => found !== undefined, timeoutMs);
      return new URLSearchParams(update!.body).get('Status');
    },
    settings: () => ({ accountSid: fake.accountSid, authToken: fake.authToken, apiBase: receiver.url }),
    request(publicUrl, path, params, sign = true) {
      const url = `${publicUrl}${path}`;
      const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
      if (sign) headers['x-twilio-signature'] = twilio.getExpectedTwilioSignature(fake.authToken, url, params);
      return fetch(url, { method: 'POST', headers, body: new URLSearchParams(params).toString() });
    },
    close: () => receiver.close(),
  };
  receiver.respond = (request, res) => callsApi(fake, request, res);
  return fake;
}

async function callsApi(fake: FakeTwilio, request: Received, res: ServerResponse): Promise<void> {
  const base = `/2010-04-01/Accounts/${fake.accountSid}/Calls.json`;
  if (request.headers.authorization !== `Basic ${Buffer.from(`${fake.accountSid}:${fake.authToken}`).toString('base64')}`) {
    return json(res, 401, { code: 20003, message: 'Authenticate', more_info: 'https://www.twilio.com/docs/errors/20003', status: 401 });
  }
  if (sipApi(fake.sip, `/2010-04-01/Accounts/${fake.accountSid}`, request, res)) return;
  if (request.method === 'GET' && request.url.startsWith(base)) {
    const query = new URL(request.url, 'http://x').searchParams;
    return json(res, 200, { calls: fake.made.filter((call) => call.to === query.get('To') && call.from === query.get('From')) });
  }
  const update = /^\/2010-04-01\/Accounts\/AC\w+\/Calls\/(CA\w+)\.json$/.exec(request.url);
  if (request.method === 'GET' && update) {
    const resource = fake.resources.get(update[1]);
    return resource ? json(res, resource.status, resource.body) : json(res, 404, { code: 20404, message: 'The requested resource was not found', status: 404 });
  }
  if (request.method === 'POST' && update) {
    const asked = new URLSearchParams(request.body).get('Status');
    const now = fake.statuses.get(update[1]);
    if (asked && now && ['queued', 'ringing', 'in-progress'].includes(now) && !(asked === 'canceled' && now === 'in-progress')) fake.statuses.set(update[1], asked);
    return json(res, 200, { sid: update[1], status: now ? fake.statuses.get(update[1]) : asked });
  }
  if (request.method !== 'POST' || request.url !== base) return json(res, 404, { code: 20404, message: 'Not found', status: 404 });
  const form = new URLSearchParams(request.body);
  if (form.get('To')!.endsWith('9999')) {
    return json(res, 400, { code: 21211, message: `The 'To' number ${form.get('To')} is not a valid phone number.`, more_info: 'https://www.twilio.com/docs/errors/21211', status: 400 });
  }
  if (fake.creating) await fake.creating;
  const call = { sid: `CA${randomBytes(16).toString('hex')}`, to: form.get('To')!, from: form.get('From')!, date_created: new Date().toUTCString() };
  fake.made.push(call);
  fake.statuses.set(call.sid, 'queued');
  const status = fake.nextStatus;
  fake.nextStatus = null;
  if (status !== null) return json(res, status, { code: 20500, message: 'Internal Server Error', status });
  json(res, 201, { ...call, status: 'queued', account_sid: fake.accountSid });
}

/** The `<Parameter>`s of a `<Stream>` in TwiML (the media stream's token, call and the rest), by name. */
export function streamParameters(twiml: string): Record<string, string> {
  return Object.fromEntries([...twiml.matchAll(/<Parameter name="(\w+)" value="([^"]+)"\/>/g)].map((m) => [m[1], m[2]]));
}
