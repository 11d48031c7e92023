import { randomBytes } from 'node:crypto';
import twilio from 'twilio';
import { loadConfig } from '../src/config';
import { json, startReceiver, type Received, type Receiver } from './helpers/receiver';
import { startTestApp, type TestAccount, type TestApp } from './helpers/app';
import { until } from './helpers/dialer';

/**
 * The Twilio voice provider against a local server that speaks Twilio's Calls API (basic
 * auth, form bodies, its error bodies), with status callbacks signed by the official `twilio`
 * package's helper, so that a mistake in our signature check cannot hide behind the same
 * mistake in the test.
 */
const ACCOUNT_SID = `AC${randomBytes(16).toString('hex')}`;
const AUTH_TOKEN = randomBytes(16).toString('hex');

let app: TestApp;
let fake: Receiver;
let me: TestAccount;
let assistant: number;
let seq = 0;
/** The calls the fake Twilio made, by sid. */
const made: { sid: string; to: string; from: string; date_created: string }[] = [];
/** When set, the next POST answers this status (the call is made anyway on a 5xx). */
let nextStatus: number | null = null;

beforeAll(async () => {
  fake = await startReceiver();
  fake.respond = (request, res) => twilioApi(request, res);
  app = await startTestApp(
    { telephony: { provider: 'twilio', simulatorSpeed: 1000, twilio: { accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN, apiBase: fake.url } } },
    { workers: true },
  );
  me = await app.account({ balance: '20' });
  assistant = await app.outboundAssistant(me, { record_call: true, max_call_duration: 300 });
});
afterAll(async () => {
  await app?.close();
  await fake?.close();
});

function twilioApi(request: Received, res: import('node:http').ServerResponse): void {
  const base = `/2010-04-01/Accounts/${ACCOUNT_SID}/Calls.json`;
  if (request.headers.authorization !== `Basic ${Buffer.from(`${ACCOUNT_SID}:${AUTH_TOKEN}`).toString('base64')}`) {
    return json(res, 401, { code: 20003, message: 'Authenticate', more_info: 'https://www.twilio.com/docs/errors/20003', status: 401 });
  }
  if (request.method === 'GET' && request.url.startsWith(base)) {
    const query = new URL(request.url, 'http://x').searchParams;
    return json(res, 200, { calls: made.filter((call) => call.to === query.get('To') && call.from === query.get('From')) });
  }
  const update = /^\/2010-04-01\/Accounts\/AC\w+\/Calls\/(CA\w+)\.json$/.exec(request.url);
  if (request.method === 'POST' && update) return json(res, 200, { sid: update[1], status: new URLSearchParams(request.body).get('Status') });
  if (request.method !== 'POST' || request.url !== base) return json(res, 404, { code: 20404, message: 'Not found', status: 404 });
  const form = new URLSearchParams(request.body);
  if (form.get('To')!.endsWith('9999')) {
    return json(res, 400, { code: 21211, message: `The 'To' number ${form.get('To')} is not a valid phone number.`, more_info: 'https://www.twilio.com/docs/errors/21211', status: 400 });
  }
  const call = { sid: `CA${randomBytes(16).toString('hex')}`, to: form.get('To')!, from: form.get('From')!, date_created: new Date().toUTCString() };
  made.push(call);
  const status = nextStatus;
  nextStatus = null;
  if (status !== null) return json(res, status, { code: 20500, message: 'Internal Server Error', status });
  json(res, 201, { ...call, status: 'queued', account_sid: ACCOUNT_SID });
}

const posts = () => fake.requests.filter((request) => request.method === 'POST');

/** A callback as Twilio sends it: form-encoded, signed with the official helper. */
async function callback(kind: 'status' | 'amd' | 'recording', callId: number, params: Record<string, string>, sign = true) {
  const url = `${app.config.publicUrl}/telephony/twilio/${kind}?call=${callId}`;
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (sign) headers['x-twilio-signature'] = twilio.getExpectedTwilioSignature(AUTH_TOKEN, url, params);
  return fetch(url, { method: 'POST', headers, body: new URLSearchParams(params).toString() });
}

async function placed(phone: string) {
  const res = await app.request('POST', '/api/user/make_call', { token: me.token, body: { phone_number: phone, assistant_id: assistant } });
  expect(res.status).toBe(200);
  return res.body.call_id as number;
}

const callRow = async (id: number) => (await app.sql('select status, duration, answered_by, provider_call_id, recording_url, total_cost::text from calls where id = $1', [id]))[0];
const phone = () => `+55119${String(2000 + seq++)}7000`;

it('places a call with every parameter of the contract, and follows its signed status callbacks', async () => {
  const number = phone();
  const id = await placed(number);
  await until('the request to Twilio', async () => (await callRow(id)).provider_call_id, (sid) => sid !== null);
  const request = posts().at(-1)!;
  const form = new URLSearchParams(request.body);
  const callbackUrl = (kind: string) => `${app.config.publicUrl}/telephony/twilio/${kind}?call=${id}`;
  expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
  expect(form.get('To')).toBe(number);
  expect(form.get('From')).toMatch(/^\+5511955/);
  expect(form.get('Twiml')).toMatch(new RegExp(`^<Response><Connect><Stream url="ws://127\\.0\\.0\\.1:\\d+/telephony/twilio/media"><Parameter name="call_id" value="${id}"/><Parameter name="token" value="[\\w-]+"/></Stream></Connect></Response>$`));
  expect(form.get('StatusCallback')).toBe(callbackUrl('status'));
  expect(form.getAll('StatusCallbackEvent')).toEqual(['initiated', 'ringing', 'answered', 'completed']);
  expect(form.get('StatusCallbackMethod')).toBe('POST');
  expect([form.get('MachineDetection'), form.get('AsyncAmd'), form.get('AsyncAmdStatusCallback')]).toEqual(['Enable', 'true', callbackUrl('amd')]);
  expect([form.get('Record'), form.get('TimeLimit')]).toEqual(['true', '300']);
  const sid = (await callRow(id)).provider_call_id;

  const base = { CallSid: sid, AccountSid: ACCOUNT_SID, To: number, From: form.get('From')!, Direction: 'outbound-api' };
  expect((await callback('status', id, { ...base, CallStatus: 'initiated' })).status).toBe(204);
  await callback('status', id, { ...base, CallStatus: 'ringing' });
  expect((await callRow(id)).status).toBe('ringing');
  await callback('status', id, { ...base, CallStatus: 'in-progress' });
  await callback('amd', id, { ...base, AnsweredBy: 'human' });
  expect(await callRow(id)).toMatchObject({ status: 'in-progress', answered_by: 'human' });
  await callback('status', id, { ...base, CallStatus: 'completed', CallDuration: '42' });
  await callback('recording', id, { ...base, RecordingSid: 'RE1', RecordingUrl: 'https://api.twilio.com/2010-04-01/Accounts/x/Recordings/RE1', RecordingStatus: 'completed' });
  // Twilio repeats itself; nothing happens twice.
  await callback('status', id, { ...base, CallStatus: 'completed', CallDuration: '42' });
  await callback('status', id, { ...base, CallStatus: 'ringing' });
  expect(await callRow(id)).toMatchObject({ status: 'completed', duration: 42, answered_by: 'human', recording_url: expect.stringContaining('RE1') });
  // Charged once, on Twilio's duration: one started minute at 0.06 + 0.05.
  expect(await app.sql(`select kind, amount::text from ledger_entries where reference = $1 order by id`, [`call:${id}`])).toEqual([
    { kind: 'call_reservation', amount: '-0.1100' },
    { kind: 'call_reservation_release', amount: '0.1100' },
    { kind: 'call', amount: '-0.1100' },
  ]);
  expect((await app.sql('select status from call_events where call_id = $1 order by id', [id])).map((e) => e.status)).toEqual(['initiated', 'ringing', 'in-progress', 'completed']);
  expect(posts().filter((r) => new URLSearchParams(r.body).get('To') === number)).toHaveLength(1);
});

it('answers 403 to a callback without a valid signature, and changes nothing', async () => {
  const id = await placed(phone());
  await until('placed', async () => (await callRow(id)).provider_call_id, (sid) => sid !== null);
  const params = { CallSid: (await callRow(id)).provider_call_id, CallStatus: 'busy' };
  expect((await callback('status', id, params, false)).status).toBe(403);
  const url = `${app.config.publicUrl}/telephony/twilio/status?call=${id}`;
  const forged = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilio.getExpectedTwilioSignature('not-the-token', url, params) },
    body: new URLSearchParams(params).toString(),
  });
  expect(forged.status).toBe(403);
  // Signed for another call's URL: refused too.
  const other = await fetch(url.replace(`call=${id}`, `call=${id + 1}`), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilio.getExpectedTwilioSignature(AUTH_TOKEN, url, params) },
    body: new URLSearchParams(params).toString(),
  });
  expect(other.status).toBe(403);
  expect((await callRow(id)).status).toBe('initiated');
  await callback('status', id, params);
  expect((await callRow(id)).status).toBe('busy');
});

it('turns a Twilio error into a failed call, with the code and message in its events', async () => {
  const id = await placed('+5511987659999');
  await until('failed', async () => (await callRow(id)).status, (status) => status === 'failed');
  const [event] = await app.sql(`select detail from call_events where call_id = $1 and status = 'failed'`, [id]);
  expect(event.detail.reason).toMatch(/^twilio 21211: The 'To' number \+5511987659999 is not a valid phone number\.$/);
  expect(await app.sql(`select count(*)::int as n from ledger_entries where reference = $1 and kind = 'call'`, [`call:${id}`])).toEqual([{ n: 0 }]);
});

it('after a 5xx, finds the call Twilio made anyway instead of placing it twice', async () => {
  const number = phone();
  nextStatus = 500;
  const id = await placed(number);
  await until('linked', async () => (await callRow(id)).provider_call_id, (sid) => sid !== null, 20_000);
  expect(posts().filter((r) => new URLSearchParams(r.body).get('To') === number)).toHaveLength(1);
  expect((await callRow(id)).provider_call_id).toBe(made.find((call) => call.to === number)!.sid);
});

it('hangs up through Twilio: the call ends when Twilio says so', async () => {
  const number = phone();
  const id = await placed(number);
  await until('placed', async () => (await callRow(id)).provider_call_id, (sid) => sid !== null);
  const sid = (await callRow(id)).provider_call_id;
  await callback('status', id, { CallSid: sid, CallStatus: 'in-progress' });
  const res = await app.request('POST', `/api/user/calls/${id}/hangup`, { token: me.token });
  expect(res).toMatchObject({ status: 200, body: { data: { id, status: 'in-progress' } } });
  const request = fake.requests.at(-1)!;
  expect([request.method, request.url, new URLSearchParams(request.body).get('Status')]).toEqual([
    'POST',
    `/2010-04-01/Accounts/${ACCOUNT_SID}/Calls/${sid}.json`,
    'completed',
  ]);
  await callback('status', id, { CallSid: sid, CallStatus: 'completed', CallDuration: '7' });
  expect(await callRow(id)).toMatchObject({ status: 'completed', duration: 7 });
});

it('cancels at Twilio a call hung up while it was being placed', async () => {
  const number = phone();
  // The hangup lands while the request to Twilio is under way.
  let hungUp: Promise<unknown> | null = null;
  const respond = fake.respond;
  fake.respond = (request, res, index) => {
    if (request.method === 'POST' && new URLSearchParams(request.body).get('To') === number && !hungUp) {
      hungUp = app
        .sql('select id from calls where client_phone_number = $1', [number])
        .then(([call]) => app.request('POST', `/api/user/calls/${call.id}/hangup`, { token: me.token }))
        .then(() => respond(request, res, index));
      return;
    }
    respond(request, res, index);
  };
  const id = await placed(number);
  await until('cancelled at Twilio', async () => fake.requests.filter((r) => /\/Calls\/CA\w+\.json$/.test(r.url) && new URLSearchParams(r.body).get('Status') === 'canceled').length, (n) => n === 1);
  fake.respond = respond;
  expect(await callRow(id)).toMatchObject({ status: 'failed' });
  expect((await callRow(id)).provider_call_id).toMatch(/^CA/);
});

it('refuses to start with TELEPHONY_PROVIDER=twilio and no credentials', () => {
  expect(() => loadConfig({ TELEPHONY_PROVIDER: 'twilio' })).toThrow('TELEPHONY_PROVIDER=twilio needs TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN');
});
