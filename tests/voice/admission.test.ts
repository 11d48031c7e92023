import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import twilio from 'twilio';
import { Messages } from '../../src/errors';
import { startTestApp, UNREACHABLE_VOICE, type TestAccount, type TestApp } from '../helpers/app';
import { until } from '../helpers/dialer';
import { startServer, type ServerProcess } from '../helpers/server';

/**
 * Admission control end to end (issue 50, item 6): a real server process whose event loop is
 * really busy (a preload blocks it 60 ms of every 100 ms, as calls past its capacity would) and
 * whose bound it cannot meet measures that, and refuses new calls: a web call 503 with
 * Retry-After in the REST error shape, an incoming Twilio call `<Reject reason="busy"/>`; each
 * counted in /metrics, its load reported for the dialer, and nothing of a refused call written.
 * The test's own server, idle, takes the same calls.
 */
let app: TestApp;
let busy: ServerProcess;
let me: TestAccount;
const ACCOUNT_SID = `AC${randomBytes(16).toString('hex')}`;
const AUTH_TOKEN = randomBytes(16).toString('hex');
const METRICS_TOKEN = randomBytes(8).toString('hex');

beforeAll(async () => {
  app = await startTestApp({ voice: UNREACHABLE_VOICE });
  me = await app.account({ balance: '50' });
  const preload = path.join(tmpdir(), `vozgate-busy-${process.pid}.js`);
  writeFileSync(preload, 'setInterval(() => { const end = Date.now() + 60; while (Date.now() < end); }, 100).unref();\n');
  busy = await startServer(app, {
    NODE_OPTIONS: `--require ${preload}`,
    VOICE_MAX_LOAD_DELAY_MS: '20',
    TELEPHONY_PROVIDER: 'twilio',
    TWILIO_ACCOUNT_SID: ACCOUNT_SID,
    TWILIO_AUTH_TOKEN: AUTH_TOKEN,
    TWILIO_API_BASE: 'http://127.0.0.1:9',
    OPENAI_API_KEY: 'sk-unused',
    OPENAI_BASE_URL: 'http://127.0.0.1:9',
    DEEPGRAM_API_KEY: 'dg-unused',
    DEEPGRAM_URL: 'ws://127.0.0.1:9',
    METRICS_TOKEN,
    RATE_LIMIT_PER_MINUTE: '0',
  });
}, 90_000);

afterAll(async () => {
  busy?.child.kill('SIGTERM');
  await busy?.exited;
  await app?.close();
});

const startWebCall = (base: string, assistantId: number) =>
  fetch(`${base}/api/user/calls/web`, {
    method: 'POST',
    headers: { authorization: `Bearer ${me.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ assistant_id: assistantId }),
  });

const refusals = async () => {
  const text = await (await fetch(`${busy.base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const count = (kind: string) => Number(new RegExp(`^vozgate_voice_calls_refused_total\\{kind="${kind}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  return { web: count('web'), inbound: count('inbound'), loop: Number(/^vozgate_voice_load_delay_seconds\{measure="loop"\} (\S+)/m.exec(text)?.[1] ?? 0) };
};

it('a process over its bound answers a new web call 503 with Retry-After, writes nothing of it, and counts it', async () => {
  const assistant = await app.outboundAssistant(me);
  // The load is the mean of the last 3 s: it passes the bound within a few seconds of the start.
  const refused = await until('a refusal', () => startWebCall(busy.base, assistant), (res) => res.status !== 201, 15_000);
  expect(refused.status).toBe(503);
  expect(refused.headers.get('retry-after')).toBe('3');
  expect(await refused.json()).toEqual({ message: Messages.overloaded(3), code: 'UNAVAILABLE' });
  // The refusal is decided before anything is written (an admitted call raced before the load showed may exist).
  const before = await app.sql('select count(*)::int as n from calls where assistant_id = $1', [assistant]);
  const again = await startWebCall(busy.base, assistant);
  expect(again.status).toBe(503);
  expect(await app.sql('select count(*)::int as n from calls where assistant_id = $1', [assistant])).toEqual(before);
  const seen = await refusals();
  expect(seen.web).toBeGreaterThanOrEqual(2);
  expect(seen.loop).toBeGreaterThan(0.02);
  // Its load is reported for the dialer, beside the workers' heartbeat.
  const [report] = await until('a load report', () => app.sql('select overloaded, loop_delay_ms from media_loads where overloaded'), (rows) => rows.length > 0);
  expect(report.loop_delay_ms).toBeGreaterThan(20);

  // The idle process, at the default bound, takes the same call.
  expect((await startWebCall(app.url, assistant)).status).toBe(201);
}, 60_000);

it('a process over its bound answers a new incoming Twilio call <Reject reason="busy"/>, creates no call, and counts it', async () => {
  const inbound = await app.outboundAssistant(me, { calls_direction: 'receive' });
  const [{ number }] = await app.sql('select p.number from assistants a join phone_numbers p on p.id = a.phone_number_id where a.id = $1', [inbound]);
  // Twilio signs the URL it was given: PUBLIC_URL's (the test app's), whichever process answers.
  const ring = (sid: string) => {
    const params = { CallSid: sid, AccountSid: ACCOUNT_SID, From: '+5511987650123', To: number, CallStatus: 'ringing', Direction: 'inbound', ApiVersion: '2010-04-01' };
    return fetch(`${busy.base}/telephony/twilio/voice`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': twilio.getExpectedTwilioSignature(AUTH_TOKEN, `${app.config.publicUrl}/telephony/twilio/voice`, params),
      },
      body: new URLSearchParams(params).toString(),
    });
  };
  await until('overloaded', refusals, (seen) => seen.loop > 0.02, 15_000);
  const before = (await refusals()).inbound;
  const sid = `CA${randomBytes(16).toString('hex')}`;
  const res = await ring(sid);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/xml/);
  expect(await res.text()).toBe('<Response><Reject reason="busy"/></Response>');
  expect(await app.sql('select id from calls where provider_call_id = $1', [sid])).toEqual([]);
  expect((await refusals()).inbound).toBe(before + 1);
}, 60_000);
