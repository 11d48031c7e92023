import { encode } from '../../src/voice/codecs/mulaw';
import { startTestApp, type TestAccount, type TestApp, NO_VENDORS } from '../helpers/app';
import { Caller } from '../helpers/caller';
import { until } from '../helpers/dialer';
import { concat, espeak, silence, tone } from '../helpers/espeak';
import { toneFrames, TwilioMediaClient } from '../helpers/media';
import { startFakeRealtime, type FakeRealtime, type RealtimeSession } from '../helpers/realtime';
import { startFakeTwilio, streamParameters, type FakeTwilio } from '../helpers/twilio';

/**
 * Answering machines found by the Realtime engine (design.md, "Calls that act"): the callee's
 * audio (espeak-ng speech, a synthetic beep) through Twilio Media Streams, their words as the
 * session's transcription reports them (scripted on the fake Realtime API), no AnsweredBy.
 */
const API_KEY = 'sk-test-realtime-amd-key';

let app: TestApp;
let twilioFake: FakeTwilio;
let realtime: FakeRealtime;
let me: TestAccount;
let voice: number;
let seq = 0;

beforeAll(async () => {
  twilioFake = await startFakeTwilio();
  realtime = await startFakeRealtime(API_KEY);
  app = await startTestApp(
    {
      telephony: { provider: 'twilio', simulatorSpeed: 1000, twilio: twilioFake.settings() },
      voice: { openai: { apiKey: API_KEY, realtimeUrl: realtime.url, realtimeModel: 'gpt-realtime', baseUrl: 'http://127.0.0.1:9', postCallModel: 'gpt-4o-mini' }, pipelineEngineUrl: null, pipeline: NO_VENDORS },
    },
    { workers: true },
  );
  me = await app.account({ balance: '50' });
  [{ id: voice }] = await app.sql(`select id from voices where name = 'coral' and mode = 'multimodal'`);
});
afterAll(async () => {
  await app?.close();
  await realtime?.close();
  await twilioFake?.close();
});

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

/** An outbound call on a multimodal assistant, answered (no AnsweredBy), its stream and Realtime session open. */
async function dial(settings: Record<string, unknown>) {
  const assistant = await app.outboundAssistant(me, {
    engine_type: 'multimodal',
    voice_id: voice,
    llm_model: 'gpt-realtime',
    initial_message: 'Olá, aqui é a Ana.',
    who_speaks_first: 'AI assistant',
    record_call: false,
    ...settings,
  });
  const phone = `+55119${String(6000 + seq++)}7000`;
  const res = await app.request('POST', '/api/user/make_call', { token: me.token, body: { phone_number: phone, assistant_id: assistant, variables: { customer_name: 'Marina' } } });
  expect(res.status).toBe(200);
  const id = res.body.call_id as number;
  const [{ provider_call_id: sid }] = await until('placed', () => app.sql('select provider_call_id from calls where id = $1', [id]), (rows) => rows[0].provider_call_id !== null);
  const twiml = new URLSearchParams(twilioFake.posts().find((r) => new URLSearchParams(r.body).get('To') === phone)!.body).get('Twiml')!;
  const parameters = streamParameters(twiml);
  await twilioFake.request(app.config.publicUrl, `/telephony/twilio/status?call=${id}`, { CallSid: sid, CallStatus: 'in-progress' });
  const media = await TwilioMediaClient.connect(`${app.config.publicUrl.replace(/^http/, 'ws')}/telephony/twilio/media`);
  media.start(parameters, sid);
  const model = await realtime.session();
  await model.next('session.update');
  const caller = new Caller(media);
  void media.closed.then(() => caller.hangUp());
  return { id, sid: sid as string, media, model, caller };
}

const creates = (model: RealtimeSession) => model.events.filter((e) => e.type === 'response.create');
const hangupPost = (sid: string) => twilioFake.posts().find((r) => r.url.endsWith(`/Calls/${sid}.json`) && new URLSearchParams(r.body).get('Status') === 'completed');
const callRow = async (id: number) => (await app.sql('select answered_by, hangup_reason from calls where id = $1', [id]))[0];
const verdictEvent = async (id: number) =>
  (await app.sql(`select detail, extract(epoch from created_at) * 1000 as at from call_events where call_id = $1 and status = 'answered-by'`, [id]))[0];

it('a mailbox: its greeting heard through the session’s transcription, the session’s own answer cancelled, the message asked for after the beep, hung up once heard', async () => {
  const call = await dial({ voicemail_message: 'Oi {{customer_name}}, seu pedido chegou.' });
  const greeting = 'Você ligou para a caixa postal. Deixe seu recado após o sinal.';
  const line = call.caller.say(frames(concat(silence(200), espeak(greeting, 'pt-br'), silence(600), tone(1000, 500))));
  // The session heard speech and answers it on its own (create_response): not to a callee not yet judged.
  await new Promise((resolve) => setTimeout(resolve, 800));
  const from = call.model.events.length;
  call.model.send({ type: 'response.created', response: { id: 'resp_auto', status: 'in_progress' } });
  await call.model.next('response.cancel', from);
  call.model.send({ type: 'response.done', response: { id: 'resp_auto', status: 'cancelled' } });
  call.model.send({ type: 'conversation.item.input_audio_transcription.completed', item_id: 'item_greeting', content_index: 0, transcript: greeting });
  await line;
  const beepEnded = Date.now();
  expect(creates(call.model)).toEqual([]);
  const message = await call.model.next('response.create', 0, 5000);
  expect(Date.now()).toBeGreaterThanOrEqual(beepEnded);
  expect(message.response.instructions).toContain('"Oi Marina, seu pedido chegou."');
  expect(message.response.instructions).not.toContain('Olá, aqui é a Ana.');
  // The model says it; once Twilio has played it, the call is hung up.
  const audio = toneFrames(5, 660);
  call.model.send({ type: 'response.created', response: { id: 'resp_message', status: 'in_progress' } });
  for (const delta of audio) call.model.send({ type: 'response.output_audio.delta', response_id: 'resp_message', item_id: 'item_message', output_index: 0, content_index: 0, delta });
  call.model.send({ type: 'response.done', response: { id: 'resp_message', status: 'completed' } });
  await until('hung up', async () => hangupPost(call.sid), Boolean, 10_000);
  for (const payload of audio) expect(call.media.messages.some((m) => m.event === 'media' && m.media.payload === payload)).toBe(true);
  expect(await callRow(call.id)).toMatchObject({ answered_by: 'machine', hangup_reason: 'voicemail-message' });
  expect((await until('the verdict', () => verdictEvent(call.id), (found) => Boolean(found), 5_000)).detail).toMatchObject({ answered_by: 'machine', source: 'phrase', reason: 'mailbox: "caixa postal"' });
  call.caller.hangUp();
  call.media.close();
});

it('a carrier’s intercept: hung up within a second of the verdict, nothing asked of the model', async () => {
  const call = await dial({});
  const intercept = 'O número chamado não existe. Verifique o número e ligue novamente.';
  void call.caller.say(frames(concat(silence(200), espeak(intercept, 'pt-br'))));
  await new Promise((resolve) => setTimeout(resolve, 1500));
  call.model.send({ type: 'conversation.item.input_audio_transcription.completed', item_id: 'item_intercept', content_index: 0, transcript: intercept });
  const hungUp = await until('hung up', async () => hangupPost(call.sid), Boolean, 10_000);
  const verdict = await until('the verdict', () => verdictEvent(call.id), (found) => Boolean(found), 5_000);
  expect(verdict.detail).toMatchObject({ answered_by: 'unavailable', source: 'phrase' });
  expect(hungUp!.at - Number(verdict.at)).toBeLessThan(1000);
  expect(creates(call.model)).toEqual([]);
  expect(await callRow(call.id)).toMatchObject({ answered_by: 'unavailable', hangup_reason: 'unavailable' });
  call.caller.hangUp();
  call.media.close();
});

it('a person’s “Alô?”: the opening once they have said it', async () => {
  const call = await dial({});
  await call.caller.say(frames(concat(silence(300), espeak('Alô?', 'pt-br'))));
  call.model.send({ type: 'conversation.item.input_audio_transcription.completed', item_id: 'item_alo', content_index: 0, transcript: 'Alô?' });
  expect(creates(call.model)).toEqual([]);
  const opening = await call.model.next('response.create', 0, 5000);
  expect(opening.response.instructions).toContain('"Olá, aqui é a Ana."');
  // The verdict is written as the opening is asked for: on a busy machine the write may come a moment later.
  expect((await until('the verdict', () => verdictEvent(call.id), (found) => Boolean(found), 5_000)).detail).toMatchObject({ answered_by: 'human' });
  expect(hangupPost(call.sid)).toBeUndefined();
  call.caller.hangUp();
  call.media.close();
});
