import { randomBytes } from 'node:crypto';
import twilio from 'twilio';
import { loadConfig } from '../../src/config';
import { Call } from '../../src/modules/calls/call.entity';
import { sweepStuckCalls } from '../../src/modules/calls/call.lifecycle';
import type { Receiver } from '../helpers/receiver';
import { startFakeTwilio, type FakeTwilio } from '../helpers/twilio';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';
import { until } from '../helpers/dialer';

/** The Twilio voice provider against a local server that speaks Twilio's Calls API (tests/helpers/twilio.ts). */
let twilioFake: FakeTwilio;
let ACCOUNT_SID: string;
let app: TestApp;
let fake: Receiver;
let me: TestAccount;
let assistant: number;
let seq = 0;
/** What the app logged at warn, as the operator reads it. */
const warnings: { message: string; fields: Record<string, unknown> }[] = [];

beforeAll(async () => {
  twilioFake = await startFakeTwilio();
  ({ accountSid: ACCOUNT_SID, receiver: fake } = twilioFake);
  app = await startTestApp({ telephony: { provider: 'twilio', simulatorSpeed: 1000, twilio: twilioFake.settings() } }, {
    workers: true,
    logger: { access: () => {}, info: () => {}, debug: () => {}, error: () => {}, warn: (message, fields = {}) => void warnings.push({ message, fields }) },
  });
  me = await app.account({ balance: '20' });
  assistant = await app.outboundAssistant(me, {
    record_call: true,
    max_call_duration: 300,
    post_call_evaluation: true,
    post_call_schema: [{ name: 'confirmed', type: 'bool', description: 'O cliente confirmou o pedido' }],
  });
});
afterAll(async () => {
  await app?.close();
  await twilioFake?.close();
});

const posts = () => twilioFake.posts();
const made = () => twilioFake.made;
const twilioPost = (path: string, params: Record<string, string>, sign = true) => twilioFake.request(app.config.publicUrl, path, params, sign);

/** A callback of a call vozgate placed (its URL names the call). */
const callback = (kind: 'status' | 'amd' | 'recording', callId: number, params: Record<string, string>, sign = true) =>
  twilioPost(`/telephony/twilio/${kind}?call=${callId}`, params, sign);

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
  // No conversation was heard here: nothing is extracted or evaluated from it.
  expect((await app.sql('select variables, evaluation from calls where id = $1', [id]))[0]).toEqual({ variables: {}, evaluation: null });
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
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilio.getExpectedTwilioSignature(twilioFake.authToken, url, params) },
    body: new URLSearchParams(params).toString(),
  });
  expect(other.status).toBe(403);
  expect((await callRow(id)).status).toBe('initiated');

  // The log alone tells a missing header from a wrong one, and names the URL that was checked
  // (PUBLIC_URL + path), never the signature.
  const refused = warnings.filter((w) => w.message.startsWith('twilio: refused a callback'));
  expect(refused.map((w) => [w.fields.twilio_signature, w.fields.checked_url])).toEqual([
    ['missing', url],
    ['wrong', url],
    ['wrong', url.replace(`call=${id}`, `call=${id + 1}`)],
  ]);
  expect(refused[1].fields.public_url).toBe(app.config.publicUrl);
  expect(refused[1].message).toContain('PUBLIC_URL');
  expect(refused[1].message).toContain(url);
  const sent = twilio.getExpectedTwilioSignature('not-the-token', url, params);
  expect(JSON.stringify(refused)).not.toContain(sent);
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
  twilioFake.nextStatus = 500;
  const id = await placed(number);
  await until('linked', async () => (await callRow(id)).provider_call_id, (sid) => sid !== null, 20_000);
  expect(posts().filter((r) => new URLSearchParams(r.body).get('To') === number)).toHaveLength(1);
  expect((await callRow(id)).provider_call_id).toBe(made().find((call) => call.to === number)!.sid);
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
  expect(await callRow(id)).toMatchObject({ status: 'ended', duration: 7 });
  expect((await app.sql('select transcript from calls where id = $1', [id]))[0].transcript).toBe('Sistema: Chamada encerrada pela API.');
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

describe('every outcome of a placed call, from its callbacks', () => {
  const reasonOf = async (id: number, status: string) => (await app.sql(`select detail from call_events where call_id = $1 and status = $2`, [id, status]))[0]?.detail.reason;

  it.each([
    ['busy', [{ CallStatus: 'ringing' }, { CallStatus: 'busy' }], { status: 'busy', duration: 0, answered_by: null, total_cost: '0.0000' }, undefined],
    ['no-answer', [{ CallStatus: 'ringing' }, { CallStatus: 'no-answer' }], { status: 'no-answer', duration: 0, total_cost: '0.0000' }, undefined],
    ['failed', [{ CallStatus: 'failed', ErrorCode: '32009' }], { status: 'failed', total_cost: '0.0000' }, 'twilio 32009'],
    ['canceled', [{ CallStatus: 'canceled' }], { status: 'failed', total_cost: '0.0000' }, 'canceled'],
    ['completed without the answer before it', [{ CallStatus: 'completed', CallDuration: '61' }], { status: 'completed', duration: 61, answered_by: 'unknown', total_cost: '0.2200' }, undefined],
  ])('%s', async (_name, steps, expected, reason) => {
    const id = await placed(phone());
    await until('placed', async () => (await callRow(id)).provider_call_id, (sid) => sid !== null);
    const sid = (await callRow(id)).provider_call_id;
    for (const step of steps) expect((await callback('status', id, { CallSid: sid, ...step })).status).toBe(204);
    expect(await callRow(id)).toMatchObject(expected);
    if (reason) expect(await reasonOf(id, expected.status)).toBe(reason);
  });

  it('answering machine detection: machine_*, fax and unknown, and no change before the answer; a voicemail is hung up (end_call_on_voicemail)', async () => {
    for (const [given, stored] of [['machine_end_beep', 'machine'], ['fax', 'machine'], ['unknown', 'unknown'], ['human', 'human']]) {
      const id = await placed(phone());
      await until('placed', async () => (await callRow(id)).provider_call_id, (sid) => sid !== null);
      const sid = (await callRow(id)).provider_call_id;
      await callback('amd', id, { CallSid: sid, AnsweredBy: given });
      expect((await callRow(id)).answered_by).toBeNull(); // not answered yet: nothing to say
      await callback('status', id, { CallSid: sid, CallStatus: 'in-progress' });
      await callback('amd', id, { CallSid: sid, AnsweredBy: given });
      const hangups = posts().filter((r) => r.url.endsWith(`/Calls/${sid}.json`)).map((r) => new URLSearchParams(r.body).get('Status'));
      expect(hangups).toEqual(stored === 'machine' ? ['completed'] : []);
      await callback('status', id, { CallSid: sid, CallStatus: 'completed', CallDuration: '9' });
      expect(await callRow(id)).toMatchObject({ status: stored === 'machine' ? 'ended' : 'completed', answered_by: stored });
    }
  });

  it('stale, repeated and foreign callbacks change nothing', async () => {
    const id = await placed(phone());
    await until('placed', async () => (await callRow(id)).provider_call_id, (sid) => sid !== null);
    const sid = (await callRow(id)).provider_call_id;
    await callback('status', id, { CallSid: sid, CallStatus: 'in-progress' });
    await callback('status', id, { CallSid: sid, CallStatus: 'ringing' }); // late
    expect((await callRow(id)).status).toBe('in-progress');
    await callback('status', id, { CallSid: 'CA00000000000000000000000000000000', CallStatus: 'busy' }); // another call's
    expect((await callRow(id)).status).toBe('in-progress');
    await callback('status', id, { CallSid: sid, CallStatus: 'completed', CallDuration: '30' });
    await callback('status', id, { CallSid: sid, CallStatus: 'in-progress' });
    await callback('status', id, { CallSid: sid, CallStatus: 'completed', CallDuration: '95' });
    expect(await callRow(id)).toMatchObject({ status: 'completed', duration: 30, total_cost: '0.1100' });
    expect(await app.sql(`select count(*)::int as n from ledger_entries where reference = $1 and kind = 'call'`, [`call:${id}`])).toEqual([{ n: 1 }]);
  });

  it('the recording callback keeps the recording URL Twilio gives, once it is completed', async () => {
    const id = await placed(phone());
    await until('placed', async () => (await callRow(id)).provider_call_id, (sid) => sid !== null);
    const sid = (await callRow(id)).provider_call_id;
    await callback('status', id, { CallSid: sid, CallStatus: 'completed', CallDuration: '12' });
    const url = `https://api.twilio.com/2010-04-01/Accounts/${ACCOUNT_SID}/Recordings/RE${'1'.repeat(32)}`;
    await callback('recording', id, { CallSid: sid, RecordingSid: `RE${'1'.repeat(32)}`, RecordingUrl: url, RecordingStatus: 'in-progress' });
    expect((await callRow(id)).recording_url).not.toBe(url);
    await callback('recording', id, { CallSid: sid, RecordingSid: `RE${'1'.repeat(32)}`, RecordingUrl: url, RecordingStatus: 'completed', RecordingDuration: '12' });
    expect((await callRow(id)).recording_url).toBe(url);
  });
});

describe('incoming calls', () => {
  let inbound: number;
  let number: string;

  beforeAll(async () => {
    inbound = await app.outboundAssistant(me, { calls_direction: 'receive', max_call_duration: 20 });
    [{ number }] = await app.sql('select p.number from assistants a join phone_numbers p on p.id = a.phone_number_id where a.id = $1', [inbound]);
  });

  /** The number of a new inbound assistant of the account. */
  const inboundNumber = async (account: TestAccount): Promise<string> => {
    const id = await app.outboundAssistant(account, { calls_direction: 'receive' });
    return (await app.sql('select p.number from assistants a join phone_numbers p on p.id = a.phone_number_id where a.id = $1', [id]))[0].number;
  };

  const ring = (to: string, sid = `CA${randomBytes(16).toString('hex')}`, from = '+5511987650123') =>
    twilioPost('/telephony/twilio/voice', { CallSid: sid, AccountSid: ACCOUNT_SID, From: from, To: to, CallStatus: 'ringing', Direction: 'inbound', ApiVersion: '2010-04-01' });

  it('answers a call to an inbound assistant’s number with the media stream, once per CallSid', async () => {
    const sid = `CA${randomBytes(16).toString('hex')}`;
    const res = await ring(number, sid);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/xml/);
    const twiml = await res.text();
    const [call] = await app.sql('select id, type, status, answered_by, assistant_id, client_phone_number, assistant_phone_number from calls where provider_call_id = $1', [sid]);
    expect(call).toMatchObject({ type: 'inbound', status: 'in-progress', answered_by: 'human', assistant_id: inbound, client_phone_number: '+5511987650123', assistant_phone_number: number });
    expect(twiml).toMatch(new RegExp(`^<Response><Connect><Stream url="ws://[^"]+/telephony/twilio/media"><Parameter name="call_id" value="${call.id}"/><Parameter name="token" value="[\\w-]+"/></Stream></Connect></Response>$`));
    // Twilio asks again (its request timed out): the same answer, no second call, nothing placed.
    expect(await (await ring(number, sid)).text()).toBe(twiml);
    expect(await app.sql('select count(*)::int as n from calls where provider_call_id = $1', [sid])).toEqual([{ n: 1 }]);
    expect(posts().filter((r) => new URLSearchParams(r.body).get('From') === number)).toHaveLength(0);

    const listed = await app.request('GET', '/api/user/calls?type=inbound', { token: me.token });
    expect(listed.body.data.map((c: { id: number }) => c.id)).toContain(call.id);
    expect(listed.body.data.find((c: { id: number }) => c.id === call.id)).toMatchObject({ type: 'inbound', status: 'in-progress' });

    // The number's status callback has no `call` parameter: the CallSid names the call.
    expect((await twilioPost('/telephony/twilio/status', { CallSid: sid, CallStatus: 'completed', CallDuration: '75', Direction: 'inbound' })).status).toBe(204);
    expect(await callRow(call.id)).toMatchObject({ status: 'completed', duration: 75, total_cost: '0.2200' });
  });

  it('rejects a call to a number no inbound assistant answers, and a forged request', async () => {
    const outboundNumber = (await app.sql('select p.number from assistants a join phone_numbers p on p.id = a.phone_number_id where a.id = $1', [assistant]))[0].number;
    for (const to of ['+5511912345678', outboundNumber]) {
      const sid = `CA${randomBytes(16).toString('hex')}`;
      const res = await ring(to, sid);
      expect([res.status, await res.text()]).toEqual([200, '<Response><Reject reason="rejected"/></Response>']);
      expect(await app.sql('select count(*)::int as n from calls where provider_call_id = $1', [sid])).toEqual([{ n: 0 }]);
    }
    const sid = `CA${randomBytes(16).toString('hex')}`;
    const forged = await twilioPost('/telephony/twilio/voice', { CallSid: sid, From: '+5511987650123', To: number }, false);
    expect(forged.status).toBe(403);
    expect(await app.sql('select count(*)::int as n from calls where provider_call_id = $1', [sid])).toEqual([{ n: 0 }]);
  });

  it('gives a busy tone when the account has no balance to answer with', async () => {
    const broke = await app.account({ balance: '0' });
    const res = await ring(await inboundNumber(broke));
    expect(await res.text()).toBe('<Response><Reject reason="busy"/></Response>');
    expect(await app.sql('select count(*)::int as n from calls where account_id = $1', [broke.accountId])).toEqual([{ n: 0 }]);
  });

  it('answers at most PLAN_MAX_PARALLEL_CALLS calls at once, however many ring together', async () => {
    const busy = await app.account({ balance: '50' });
    const shared = await inboundNumber(busy);
    const cap = app.config.maxParallelCalls;
    const answers = await Promise.all(Array.from({ length: cap + 6 }, (_, i) => ring(shared, undefined, `+55119876${String(50200 + i)}`).then((res) => res.text())));
    expect(answers.filter((twiml) => twiml.includes('<Stream'))).toHaveLength(cap);
    expect(answers.filter((twiml) => twiml === '<Response><Reject reason="busy"/></Response>')).toHaveLength(6);
    expect(await app.sql('select count(*)::int as n from calls where account_id = $1', [busy.accountId])).toEqual([{ n: cap }]);
  });

  it('hangs up at max_call_duration through Twilio, and the call ends as the time limit', async () => {
    const sid = `CA${randomBytes(16).toString('hex')}`;
    await ring(number, sid);
    const [call] = await app.sql('select id, answered_at from calls where provider_call_id = $1', [sid]);
    const [job] = await app.sql(`select run_at from graphile_worker.jobs where key = $1`, [`twilio:time-limit:${call.id}`]);
    // Due 20 s (the assistant's max_call_duration) and a grace of 2 s after the answer, to the millisecond.
    expect(new Date(job.run_at).getTime() - new Date(call.answered_at).getTime()).toBe(22_000);
    await app.sql(`update graphile_worker._private_jobs set run_at = now() where key = $1`, [`twilio:time-limit:${call.id}`]);
    await until('hung up at Twilio', async () => fake.requests.filter((r) => r.method === 'POST' && r.url.endsWith(`/Calls/${sid}.json`)), (found) => found.length === 1);
    expect(new URLSearchParams(fake.requests.find((r) => r.url.endsWith(`/Calls/${sid}.json`))!.body).get('Status')).toBe('completed');
    await twilioPost('/telephony/twilio/status', { CallSid: sid, CallStatus: 'completed', CallDuration: '21' });
    const [ended] = await app.sql('select status, duration, transcript from calls where id = $1', [call.id]);
    expect(ended).toEqual({ status: 'ended', duration: 21, transcript: 'Sistema: Chamada encerrada pela plataforma: tempo máximo excedido.' });
  });
});

it('the end-call tool hangs up through Twilio, and the call ends as ended_by_assistant', async () => {
  const id = await placed(phone());
  await until('placed', async () => (await callRow(id)).provider_call_id, (sid) => sid !== null);
  const sid = (await callRow(id)).provider_call_id;
  await callback('status', id, { CallSid: sid, CallStatus: 'in-progress' });
  const call = await app.orm.em.fork().findOneOrFail(Call, { id });
  await app.runtime.telephony.hangup(app.orm.em.fork(), app.runtime.lifecycle, call, 'end-call-tool');
  expect(new URLSearchParams(fake.requests.at(-1)!.body).get('Status')).toBe('completed');
  await callback('status', id, { CallSid: sid, CallStatus: 'completed', CallDuration: '44' });
  expect(await callRow(id)).toMatchObject({ status: 'ended_by_assistant', duration: 44 });
});

describe('the sweeper asks Twilio before it ends a call whose callbacks never came', () => {
  const overdue = async (id: number) => app.sql(`update calls set deadline_at = now() - interval '1 minute' where id = $1`, [id]);
  const sweep = (now = new Date()) => sweepStuckCalls(app.orm.em.fork(), app.runtime.lifecycle, app.runtime.telephony, now);
  const placedCall = async () => {
    const id = await placed(phone());
    await until('placed', async () => (await callRow(id)).provider_call_id, (sid) => sid !== null);
    return { id, sid: (await callRow(id)).provider_call_id as string };
  };

  it('takes how the call ended from Twilio', async () => {
    const done = await placedCall();
    const busy = await placedCall();
    twilioFake.resources.set(done.sid, { status: 200, body: { sid: done.sid, status: 'completed', duration: '48', answered_by: 'human' } });
    twilioFake.resources.set(busy.sid, { status: 200, body: { sid: busy.sid, status: 'busy', duration: '0', answered_by: null } });
    await overdue(done.id);
    await overdue(busy.id);
    await sweep();
    expect(await callRow(done.id)).toMatchObject({ status: 'completed', duration: 48, answered_by: 'human', total_cost: '0.1100' });
    expect((await callRow(busy.id)).status).toBe('busy');
  });

  it('ends at Twilio a call that still runs there, and here', async () => {
    const { id, sid } = await placedCall();
    await callback('status', id, { CallSid: sid, CallStatus: 'in-progress' });
    twilioFake.resources.set(sid, { status: 200, body: { sid, status: 'in-progress', duration: null } });
    await overdue(id);
    await sweep();
    const hangups = fake.requests.filter((r) => r.method === 'POST' && r.url.endsWith(`/Calls/${sid}.json`));
    expect(hangups.map((r) => new URLSearchParams(r.body).get('Status'))).toEqual(['completed']);
    expect(await callRow(id)).toMatchObject({ status: 'ended', duration: 300 });
  });

  it('ends a call Twilio does not know; waits while Twilio cannot answer, for an hour at most', async () => {
    const unknown = await placedCall();
    const unreachable = await placedCall();
    twilioFake.resources.set(unreachable.sid, { status: 503, body: { code: 20503, message: 'Service unavailable', status: 503 } });
    await overdue(unknown.id);
    await overdue(unreachable.id);
    await sweep();
    expect((await callRow(unknown.id)).status).toBe('failed');
    expect((await callRow(unreachable.id)).status).toBe('initiated');
    await sweep(new Date(Date.now() + 2 * 60 * 60_000));
    expect((await callRow(unreachable.id)).status).toBe('failed');
  });
});
