/**
 * @jest-environment ./tests/setup/native-addons-environment.js
 *
 * @ci-once pipeline calls in real time; the detector itself runs on every Node (amd-detector, amd-beep)
 */
import { phrases } from '../../src/voice/engines/pipeline/phrases';
import { encode } from '../../src/voice/codecs/mulaw';
import { startTestApp, type TestAccount, type TestApp, NO_VENDORS } from '../helpers/app';
import { Caller } from '../helpers/caller';
import { ALL_DAY, until } from '../helpers/dialer';
import { concat, espeak, silence, tone } from '../helpers/espeak';
import { startFakeDeepgram, type FakeDeepgram } from '../helpers/fakes/deepgram';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fakes/openai';
import { TwilioMediaClient } from '../helpers/media';
import { startFakeTwilio, streamParameters, type FakeTwilio } from '../helpers/twilio';
import { TURNS_COLUMN } from '../helpers/turns';

/**
 * Answering machines found by the pipeline engine (design.md, "Calls that act"), end to end:
 * a campaign's call placed through a local Twilio Calls API, its media stream opened by a
 * client that talks like a phone (espeak-ng speech and a synthetic beep, 20 ms frames in real
 * time), the callee's words scripted in the fake Deepgram, and no AnsweredBy from Twilio at all.
 */
const DEEPGRAM_KEY = 'dg-test-key-amd-0123456789';
const OPENAI_KEY = 'sk-test-amd-key';

let app: TestApp;
let twilioFake: FakeTwilio;
let deepgram: FakeDeepgram;
let openai: FakeOpenAi;
let me: TestAccount;
let seq = 0;

beforeAll(async () => {
  twilioFake = await startFakeTwilio();
  deepgram = await startFakeDeepgram(DEEPGRAM_KEY);
  openai = await startFakeOpenAi(OPENAI_KEY);
  app = await startTestApp(
    {
      telephony: { provider: 'twilio', simulatorSpeed: 1000, twilio: twilioFake.settings() },
      voice: {
        openai: null,
        pipelineEngineUrl: null,
        pipeline: { ...NO_VENDORS, deepgram: { apiKey: DEEPGRAM_KEY, url: deepgram.url }, openai: { apiKey: OPENAI_KEY, url: openai.url } },
      },
      maxParallelCalls: 50,
      dialerTimeScale: 60,
    },
    { workers: true },
  );
  me = await app.account({ balance: '50' });
});
afterAll(async () => {
  await app?.close();
  await Promise.all([deepgram?.close(), openai?.close(), twilioFake?.close()]);
});
afterEach(() => {
  deepgram.transcripts.length = 0;
});

const OPENING = 'Olá Marina, aqui é a Ana da Loja Centro.';
/** One sentence: TTS is given a message sentence by sentence. */
const MESSAGE = 'Oi Marina, seu pedido da Loja Centro chegou e pode ser retirado amanhã.';

/** mu-law frames of 20 ms, as Twilio carries the callee's line. */
function frames(pcm: Int16Array): string[] {
  const mulaw = encode(pcm);
  const out: string[] = [];
  for (let at = 0; at < mulaw.length; at += 160) {
    const frame = Buffer.alloc(160, 0xff);
    frame.set(mulaw.subarray(at, at + 160));
    out.push(frame.toString('base64'));
  }
  return out;
}

interface Dialled {
  id: number;
  sid: string;
  lead: number;
  media: TwilioMediaClient;
  caller: Caller;
}

/** A campaign of one lead with the assistant; the dialer places the call, Twilio answers it (no AnsweredBy), its media stream opens. */
async function dial(settings: Record<string, unknown>): Promise<Dialled> {
  const assistant = await app.outboundAssistant(me, {
    initial_message: 'Olá {{customer_name}}, aqui é a Ana da Loja Centro.',
    who_speaks_first: 'AI assistant',
    variables: { customer_name: 'Marina' },
    record_call: false,
    noise_cancellation: false,
    ...settings,
  });
  const campaign = await app.request('POST', '/api/user/campaigns', {
    token: me.token,
    body: { name: `AMD ${seq}`, assistant_id: assistant, retry_interval: 60, max_retries: 2, ...ALL_DAY },
  });
  expect(campaign.status).toBe(201);
  const phone = `+55119${String(5000 + seq++)}7000`;
  const lead = await app.request('POST', '/api/user/lead', { token: me.token, body: { phone_number: phone, campaign_id: campaign.body.data.id } });
  expect(lead.status).toBe(200);
  expect((await app.request('POST', '/api/user/campaigns/update-status', { token: me.token, body: { campaign_id: campaign.body.data.id, action: 'start' } })).status).toBe(200);
  const [row] = await until(
    'placed',
    () => app.sql('select id, provider_call_id from calls where lead_id = $1', [lead.body.data.id]),
    (rows) => rows.length === 1 && rows[0].provider_call_id !== null,
  );
  const twiml = new URLSearchParams(twilioFake.posts().find((r) => new URLSearchParams(r.body).get('To') === phone)!.body).get('Twiml')!;
  const parameters = streamParameters(twiml);
  const sid = row.provider_call_id as string;
  await twilioFake.request(app.config.publicUrl, `/telephony/twilio/status?call=${row.id}`, { CallSid: sid, CallStatus: 'in-progress' });
  const media = await TwilioMediaClient.connect(`${app.config.publicUrl.replace(/^http/, 'ws')}/telephony/twilio/media`);
  media.start(parameters, sid);
  const caller = new Caller(media);
  void media.closed.then(() => caller.hangUp());
  return { id: row.id, sid, lead: lead.body.data.id, media, caller };
}

/** Twilio's side of the end: the stream stops, the call is reported completed. */
async function completed(call: Dialled): Promise<void> {
  call.caller.hangUp();
  if (call.media.open) call.media.stop(call.sid);
  call.media.close();
  await call.media.closed;
  await twilioFake.request(app.config.publicUrl, `/telephony/twilio/status?call=${call.id}`, { CallSid: call.sid, CallStatus: 'completed', CallDuration: '9' });
}

const hangupPost = (call: Dialled) => twilioFake.posts().find((r) => r.url.endsWith(`/Calls/${call.sid}.json`) && new URLSearchParams(r.body).get('Status') === 'completed');
/** What was said to the line: the apology synthesised and kept at a call's start is not (src/voice/engines/pipeline/apology.ts). */
const speechInputs = () => openai.speechRequests.map((r) => r.body.input as string).filter((input) => input !== phrases('pt').apology);
const callRow = async (id: number) => (await app.sql(`select answered_by, hangup_reason, status, ${TURNS_COLUMN} from calls where id = $1`, [id]))[0];
const verdictEvent = async (id: number) =>
  (await app.sql(`select detail, extract(epoch from created_at) * 1000 as at from call_events where call_id = $1 and status = 'answered-by'`, [id]))[0];
const leadRow = async (id: number) => (await app.sql('select status, attempts, next_attempt_at from leads where id = $1', [id]))[0];

it('a Brazilian carrier’s mailbox then its beep, no AnsweredBy: nothing said over the greeting, the voicemail_message left after the beep, then hung up; the lead retried as voicemail', async () => {
  const before = speechInputs().length;
  const call = await dial({ voicemail_message: 'Oi {{customer_name}}, seu pedido da Loja Centro chegou e pode ser retirado amanhã.', voicemail_beep_timeout_seconds: 20 });
  const greeting = 'A chamada está sendo encaminhada para a caixa postal. Grave seu recado após o sinal.';
  deepgram.transcripts.push(greeting);
  // The mailbox answers at once, talks, pauses, beeps.
  await call.caller.say(frames(concat(silence(200), espeak(greeting, 'pt-br'), silence(600), tone(1000, 500))));
  const beepEnded = Date.now();
  // Not a word to the mailbox: no opening, and the message not before the beep's end.
  expect(speechInputs().slice(before)).toEqual([]);
  await until('the message synthesised', async () => speechInputs().slice(before), (inputs) => inputs.includes(MESSAGE), 10_000);
  expect(speechInputs().slice(before)).toEqual([MESSAGE]);
  expect(Date.now()).toBeGreaterThanOrEqual(beepEnded);
  // Hung up once the message is heard (the fake speaks 60 ms a character: about 4.5 s), never before.
  const hungUp = await until('hung up', async () => hangupPost(call), Boolean, 20_000);
  expect(hungUp!.at - beepEnded).toBeGreaterThan(MESSAGE.length * 60 - 1000);
  const heard = call.media.messages.filter((m) => m.event === 'media').length;
  expect(heard * 20).toBeGreaterThanOrEqual(MESSAGE.length * 60 - 200);
  await completed(call);

  const row = await until('ended', () => callRow(call.id), (r) => r.status !== 'in-progress');
  expect(row).toMatchObject({ answered_by: 'machine', hangup_reason: 'voicemail-message', status: 'ended' });
  expect(row.turns.map((t: any) => [t.speaker, t.text])).toEqual([
    ['customer', greeting],
    ['assistant', MESSAGE],
    ['system', 'Caixa postal detectada: mensagem deixada (voicemail_message).'],
  ]);
  const verdict = await until('the verdict', () => verdictEvent(call.id), (found) => Boolean(found), 5_000);
  expect(verdict.detail).toMatchObject({ answered_by: 'machine', source: 'phrase', reason: 'mailbox: "caixa postal"' });
  // The call's events through the API carry the verdict too.
  const api = await app.request('POST', '/graphql', { token: me.token, body: { query: `{ call(id: ${call.id}) { answered_by events { status detail } } }` } });
  expect(api.body.data.call.answered_by).toBe('machine');
  expect(api.body.data.call.events.find((e: any) => e.status === 'answered-by').detail).toMatchObject({ answered_by: 'machine', source: 'phrase' });
  // retry_on_voicemail (the default): the lead waits for its next attempt.
  const lead = await until('the lead settled', () => leadRow(call.lead), (l) => l.status !== 'processing' && l.status !== 'scheduled');
  expect(lead).toMatchObject({ status: 'rescheduled', attempts: 1 });
  expect(lead.next_attempt_at).not.toBeNull();
});

it('a carrier’s intercept is hung up within a second of its verdict, with nothing said; the lead’s attempt retried', async () => {
  const before = speechInputs().length;
  const call = await dial({ voicemail_message: 'Olá, retorne por favor.' });
  const intercept = 'O celular chamado está desligado ou fora da área de cobertura. Por favor, ligue mais tarde.';
  deepgram.transcripts.push(intercept);
  void call.caller.say(frames(concat(silence(200), espeak(intercept, 'pt-br'), silence(3000))));
  const hungUp = await until('hung up', async () => hangupPost(call), Boolean, 20_000);
  const verdict = await until('the verdict', () => verdictEvent(call.id), (found) => Boolean(found), 5_000);
  expect(verdict.detail).toMatchObject({ answered_by: 'unavailable', source: 'phrase', reason: 'carrier intercept: "fora da area de cobertura"' });
  expect(hungUp!.at - Number(verdict.at)).toBeLessThan(1000);
  expect(speechInputs().slice(before)).toEqual([]);
  await completed(call);
  const row = await until('ended', () => callRow(call.id), (r) => r.status !== 'in-progress');
  expect(row).toMatchObject({ answered_by: 'unavailable', hangup_reason: 'unavailable' });
  // Nobody was reached: retried, as a call not answered.
  const lead = await until('the lead settled', () => leadRow(call.lead), (l) => l.status !== 'processing' && l.status !== 'scheduled');
  expect(lead).toMatchObject({ status: 'rescheduled', attempts: 1 });
  const api = await app.request('GET', `/api/user/calls/${call.id}`, { token: me.token });
  expect(api.body.answered_by).toBe('unavailable');
});

it('a person’s “Alô?” is answered with the opening, after their word and not over it', async () => {
  const before = speechInputs().length;
  const call = await dial({});
  deepgram.transcripts.push('Alô?');
  const spoke = call.caller.say(frames(concat(silence(300), espeak('Alô?', 'pt-br'))));
  // The opening waits for the callee: nothing before they have said their word.
  await spoke;
  const saidAt = Date.now();
  expect(speechInputs().slice(before)).toEqual([]);
  await until('the opening spoken', async () => speechInputs().slice(before), (inputs) => inputs.includes(OPENING), 10_000);
  expect(Date.now() - saidAt).toBeLessThan(3000);
  const verdict = await until('the verdict', () => verdictEvent(call.id), (found) => Boolean(found), 5_000);
  expect(verdict.detail).toMatchObject({ answered_by: 'human', source: 'timing' });
  const row = await until('the opening heard', () => callRow(call.id), (r) => r.turns.some((t: any) => t.speaker === 'assistant'), 15_000);
  expect(hangupPost(call)).toBeUndefined();
  expect(row.answered_by).toBe('human');
  // Twilio's AMD, late and wrong: the engine's verdict stands, and the person is not hung up on.
  expect((await twilioFake.request(app.config.publicUrl, `/telephony/twilio/amd?call=${call.id}`, { CallSid: call.sid, AnsweredBy: 'machine_start' })).status).toBe(204);
  expect((await callRow(call.id)).answered_by).toBe('human');
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(hangupPost(call)).toBeUndefined();
  await completed(call);
  expect(row.turns.slice(0, 2).map((t: any) => [t.speaker, t.text])).toEqual([
    ['customer', 'Alô?'],
    ['assistant', OPENING],
  ]);
});

it('Twilio’s AnsweredBy decides when the engine cannot: a silent mailbox, no beep: the message after voicemail_beep_timeout_seconds', async () => {
  const before = speechInputs().length;
  const call = await dial({ voicemail_message: MESSAGE, voicemail_beep_timeout_seconds: 1 });
  // Nothing said: the opening starts after 1.5 s; then Twilio's AMD says machine.
  await until('the opening spoken', async () => speechInputs().slice(before), (inputs) => inputs.includes(OPENING), 10_000);
  const amdAt = Date.now();
  await twilioFake.request(app.config.publicUrl, `/telephony/twilio/amd?call=${call.id}`, { CallSid: call.sid, AnsweredBy: 'machine_end_other' });
  await until('the message synthesised', async () => speechInputs().slice(before), (inputs) => inputs.includes(MESSAGE), 10_000);
  // No beep: at most voicemail_beep_timeout_seconds after the verdict (read within half a second), then left anyway.
  expect(Date.now() - amdAt).toBeGreaterThanOrEqual(1000);
  expect(Date.now() - amdAt).toBeLessThan(3000);
  await until('hung up', async () => hangupPost(call), Boolean, 20_000);
  const verdict = await until('the verdict', () => verdictEvent(call.id), (found) => Boolean(found), 5_000);
  expect(verdict.detail).toMatchObject({ answered_by: 'machine', source: 'twilio' });
  await completed(call);
  expect((await until('ended', () => callRow(call.id), (r) => r.status !== 'in-progress')).hangup_reason).toBe('voicemail-message');
});

it('a callee who says nothing is greeted after 1.5 s', async () => {
  const before = speechInputs().length;
  const started = Date.now();
  const call = await dial({});
  const opened = await until('the opening spoken', async () => speechInputs().slice(before), (inputs) => inputs.includes(OPENING), 10_000);
  expect(opened).toContain(OPENING);
  expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
  await completed(call);
});

describe('the settings', () => {
  it('voicemail_message (at most 1000 characters, blank: none) and voicemail_beep_timeout_seconds (1-60, default 20), refused with the field named before any write', async () => {
    const assistant = await app.outboundAssistant(me, {});
    const got = await app.request('GET', `/api/user/assistant/${assistant}`, { token: me.token });
    expect(got.body.data ?? got.body).toMatchObject({ voicemail_message: null, voicemail_beep_timeout_seconds: 20 });
    for (const [body, field] of [
      [{ voicemail_message: 'x'.repeat(1001) }, 'voicemail_message'],
      [{ voicemail_beep_timeout_seconds: 0 }, 'voicemail_beep_timeout_seconds'],
      [{ voicemail_beep_timeout_seconds: 61 }, 'voicemail_beep_timeout_seconds'],
      [{ voicemail_beep_timeout_seconds: null }, 'voicemail_beep_timeout_seconds'],
    ] as const) {
      const res = await app.request('PUT', `/api/user/assistant/${assistant}`, { token: me.token, body: { ...body, assistant_name: 'Changed' } });
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual([field]);
    }
    const [row] = await app.sql('select assistant_name, voicemail_message, voicemail_beep_timeout_seconds from assistants where id = $1', [assistant]);
    expect(row).toEqual({ assistant_name: 'Ana', voicemail_message: null, voicemail_beep_timeout_seconds: 20 });
    const set = await app.request('PUT', `/api/user/assistant/${assistant}`, { token: me.token, body: { voicemail_message: '  Olá {{nome}}  ', voicemail_beep_timeout_seconds: 60 } });
    expect(set.status).toBe(200);
    expect((await app.sql('select voicemail_message, voicemail_beep_timeout_seconds from assistants where id = $1', [assistant]))[0]).toEqual({
      voicemail_message: 'Olá {{nome}}',
      voicemail_beep_timeout_seconds: 60,
    });
    expect((await app.request('PUT', `/api/user/assistant/${assistant}`, { token: me.token, body: { voicemail_message: '   ' } })).status).toBe(200);
    expect((await app.sql('select voicemail_message from assistants where id = $1', [assistant]))[0].voicemail_message).toBeNull();
    const gql = await app.request('POST', '/graphql', { token: me.token, body: { query: `mutation { updateAssistant(id: ${assistant}, input: { voicemail_message: "Oi" }) { voicemail_message voicemail_beep_timeout_seconds } }` } });
    expect(gql.body.data.updateAssistant).toEqual({ voicemail_message: 'Oi', voicemail_beep_timeout_seconds: 60 });
  });
});
