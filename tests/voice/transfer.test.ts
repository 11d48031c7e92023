/**
 * @jest-environment ./tests/setup/native-addons-environment.js
 */
import Decimal from 'decimal.js';
import { Webhook } from 'standardwebhooks';
import { callCost } from '../../src/modules/calls/call.pricing';
import { OPENING_WAIT_MS } from '../../src/voice/amd/screening';
import { startTestApp, type TestAccount, type TestApp, NO_VENDORS } from '../helpers/app';
import { Caller, speech } from '../helpers/caller';
import { until } from '../helpers/dialer';
import { startFakeDeepgram, type FakeDeepgram } from '../helpers/fakes/deepgram';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fakes/openai';
import { toneFrames, TwilioMediaClient } from '../helpers/media';
import { startFakeRealtime, type FakeRealtime, type RealtimeSession } from '../helpers/realtime';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { startFakeTwilio, streamParameters, type FakeTwilio } from '../helpers/twilio';

/**
 * A cold transfer (transfer_call, design.md "Calls that act"), end to end on real sockets, on
 * both engines: the model calls the function, the transfer message is heard, the Twilio call
 * is updated with a Dial to the number (its caller id the call's own number) whose action
 * vozgate answers when that leg ends; the call ends as `transferred`, its cost both legs', and
 * `call.transferred` reaches the account's webhook. A number on the do-not-call list is
 * refused to the model, and nothing is dialled.
 */
const DEEPGRAM_KEY = 'dg-test-key-transfer';
const OPENAI_KEY = 'sk-test-transfer-key';
const SALES = '+551130030000';
const MESSAGE = 'Um momento, vou transferir sua ligação para o time de vendas.';

let app: TestApp;
let twilioFake: FakeTwilio;
let deepgram: FakeDeepgram;
let openai: FakeOpenAi;
let realtime: FakeRealtime;
let hooks: Receiver;
let me: TestAccount;
let secret: string;
let seq = 0;
/** The callers' lines (a frame every 20 ms): each is hung up after its test, whatever happened in it. */
const callers: Caller[] = [];

beforeAll(async () => {
  twilioFake = await startFakeTwilio();
  deepgram = await startFakeDeepgram(DEEPGRAM_KEY);
  openai = await startFakeOpenAi(OPENAI_KEY);
  realtime = await startFakeRealtime(OPENAI_KEY);
  hooks = await startReceiver();
  app = await startTestApp(
    {
      telephony: { provider: 'twilio', simulatorSpeed: 1000, twilio: twilioFake.settings() },
      voice: {
        openai: { apiKey: OPENAI_KEY, realtimeUrl: realtime.url, realtimeModel: 'gpt-realtime', baseUrl: openai.url, postCallModel: 'gpt-4o-mini' },
        pipelineEngineUrl: null,
        pipeline: { ...NO_VENDORS, deepgram: { apiKey: DEEPGRAM_KEY, url: deepgram.url }, openai: { apiKey: OPENAI_KEY, url: openai.url } },
      },
      allowPrivateNetworkTargets: true,
    },
    { workers: true },
  );
  me = await app.account({ balance: '50' });
  const hook = await app.request('POST', '/api/user/webhooks', { token: me.token, body: { url: `${hooks.url}/events`, events: ['call.transferred'] } });
  expect(hook.status).toBe(201);
  secret = hook.body.data.secret;
});
afterEach(() => {
  for (const caller of callers.splice(0)) caller.hangUp();
});
afterAll(async () => {
  await app?.close();
  await Promise.all([deepgram?.close(), openai?.close(), realtime?.close(), hooks?.close(), twilioFake?.close()]);
});

const transfers = { transfer_numbers: [{ number: '+55 11 3003-0000', description: 'Vendas: planos e preços' }], transfer_message: MESSAGE, record_call: false, noise_cancellation: false };
const callRow = async (id: number) =>
  (await app.sql('select status, duration, hangup_reason, transferred_to, transfer_status, transfer_duration, carrier_cost, total_cost, reserved_amount, transcript, provider_call_id from calls where id = $1', [id]))[0];
const mediaUrl = () => `${app.config.publicUrl.replace(/^http/, 'ws')}/telephony/twilio/media`;
const balance = async () => (await app.sql('select balance from accounts where id = $1', [me.accountId]))[0].balance as string;

/** Places a call with the assistant, answers it and opens its media stream. */
async function call(assistant: number) {
  const phone = `+55119${String(5000 + seq++)}7000`;
  const res = await app.request('POST', '/api/user/make_call', { token: me.token, body: { phone_number: phone, assistant_id: assistant } });
  expect(res.status).toBe(200);
  const id = res.body.call_id as number;
  const { provider_call_id: sid } = await until('placed', () => callRow(id), (row) => row.provider_call_id !== null);
  const twiml = new URLSearchParams(twilioFake.posts().find((r) => new URLSearchParams(r.body).get('To') === phone)!.body).get('Twiml')!;
  const parameters = streamParameters(twiml);
  await twilioFake.request(app.config.publicUrl, `/telephony/twilio/status?call=${id}`, { CallSid: sid, CallStatus: 'in-progress' });
  const media = await TwilioMediaClient.connect(mediaUrl());
  media.start(parameters, sid);
  // An outbound call's opening waits for the callee (src/voice/amd/): these callers are people who let it pass before they speak.
  await new Promise((resolve) => setTimeout(resolve, OPENING_WAIT_MS + 300));
  return { id, sid: sid as string, phone, media };
}

/** The TwiML vozgate gave the call `sid` in an update (its transfer), once it has. */
const transferTwiml = (sid: string) =>
  until('the transfer', async () => twilioFake.posts().find((r) => r.url.endsWith(`/Calls/${sid}.json`) && new URLSearchParams(r.body).get('Twiml')), (found) => found !== undefined, 20_000).then(
    (found) => new URLSearchParams(found!.body).get('Twiml')!,
  );

/**
 * What Twilio does after a Dial ends: it asks the Dial's action what next (vozgate hangs up),
 * then reports the call completed. Checks the call's end, its cost and the webhook.
 */
async function legEnds(live: { id: number; sid: string; phone: string }, before: string, callSeconds: number, legSeconds: number, mode = 'cold'): Promise<void> {
  // A warm transfer's Dial is the caller's own time in the conference: the person's leg said how long it lasted.
  const action = await twilioFake.request(app.config.publicUrl, `/telephony/twilio/transfer?call=${live.id}`, {
    CallSid: live.sid,
    DialCallSid: 'CAleg0000000000000000000000000000',
    DialCallStatus: 'completed',
    DialCallDuration: String(mode === 'warm' ? legSeconds - 10 : legSeconds),
  });
  expect(action.status).toBe(200);
  expect(await action.text()).toBe('<Response><Hangup/></Response>');
  // Unsigned: refused, and nothing changes.
  expect((await twilioFake.request(app.config.publicUrl, `/telephony/twilio/transfer?call=${live.id}`, { CallSid: live.sid, DialCallStatus: 'failed', DialCallDuration: '1' }, false)).status).toBe(403);
  await twilioFake.request(app.config.publicUrl, `/telephony/twilio/status?call=${live.id}`, { CallSid: live.sid, CallStatus: 'completed', CallDuration: String(callSeconds) });
  const row = await until('ended', () => callRow(live.id), (r) => r.status !== 'in-progress');
  const first = callCost(app.config, live.phone, callSeconds, true);
  const leg = callCost(app.config, SALES, legSeconds, true);
  expect(row).toMatchObject({ status: 'ended', hangup_reason: 'transferred', transferred_to: SALES, transfer_status: 'completed', transfer_duration: legSeconds, duration: callSeconds });
  expect(row.total_cost).toBe(new Decimal(first.total_cost).plus(leg.total_cost).toFixed(4));
  expect(row.carrier_cost).toBe(new Decimal(first.carrier_cost).plus(leg.carrier_cost).toFixed(4));
  expect(row.transcript).toContain('Sistema: Chamada transferida pelo assistente.');
  // Both legs charged, every reservation given back.
  expect(await balance()).toBe(new Decimal(before).minus(row.total_cost).toFixed(4));
  const events = await app.sql(`select status, detail from call_events where call_id = $1 and status like 'transfer%' order by id`, [live.id]);
  expect(events).toEqual([
    { status: 'transferred', detail: { to: SALES, mode } },
    { status: 'transfer_ended', detail: { status: 'completed', duration: legSeconds } },
  ]);
  const delivered = await until('the webhook', async () => hooks.requests.find((r) => JSON.parse(r.body).data?.id === live.id), (r) => r !== undefined, 20_000);
  const payload = new Webhook(secret).verify(delivered!.body, {
    'webhook-id': delivered!.headers['webhook-id'] as string,
    'webhook-timestamp': delivered!.headers['webhook-timestamp'] as string,
    'webhook-signature': delivered!.headers['webhook-signature'] as string,
  }) as { type: string; data: Record<string, unknown> };
  expect(payload).toMatchObject({ type: 'call.transferred', data: { id: live.id, status: 'in-progress', transferred_to: SALES, transfer_mode: mode } });
}

describe('the pipeline engine', () => {
  let assistant: number;
  beforeAll(async () => {
    assistant = await app.outboundAssistant(me, { ...transfers, who_speaks_first: 'Customer', system_prompt: 'Você atende a loja.' });
  });
  afterEach(() => {
    openai.chat.length = 0;
    deepgram.transcripts.length = 0;
  });

  it('a cold transfer: the message is heard, then the call is dialled to the number; it ends as transferred, both legs charged', async () => {
    const before = await balance();
    const live = await call(assistant);
    const caller = new Caller(live.media);
    callers.push(caller);
    deepgram.transcripts.push('Quero falar com um vendedor.');
    openai.chat.push({ toolCalls: [{ name: 'transfer_call', arguments: JSON.stringify({ number: SALES }) }] });
    await caller.say(speech());
    const twiml = await transferTwiml(live.sid);
    // The model was offered the function with its destination, and not asked again.
    const offered = openai.chatRequests[0].body.tools.find((tool: { function: { name: string } }) => tool.function.name === 'transfer_call');
    expect(offered.function.parameters.properties.number.enum).toEqual([SALES]);
    expect(offered.function.description).toContain('Vendas: planos e preços');
    expect(openai.chatRequests).toHaveLength(1);
    // The message was said as written, and the call dialled once it was heard.
    expect(openai.speechRequests.map((r) => r.body.input)).toContain(MESSAGE);
    const [{ assistant_phone_number: own }] = await app.sql('select assistant_phone_number from calls where id = $1', [live.id]);
    expect(twiml).toBe(
      `<Response><Dial callerId="${own}" timeout="30" action="${app.config.publicUrl}/telephony/twilio/transfer?call=${live.id}" method="POST"><Number>${SALES}</Number></Dial></Response>`,
    );
    // The leg's first minute is reserved beside the call's until the call ends.
    const [{ reserved_amount }] = await app.sql('select reserved_amount from calls where id = $1', [live.id]);
    expect(new Decimal(reserved_amount).greaterThan(callCost(app.config, live.phone, 60, true).total_cost)).toBe(true);
    // Twilio ends the stream as the Dial takes the call over.
    caller.hangUp();
    live.media.stop(live.sid);
    live.media.close();
    await live.media.closed;
    await legEnds(live, before, 130, 95);
  });

  it('a number on the do-not-call list is refused to the model: nothing is dialled, and the call goes on', async () => {
    expect((await app.request('POST', '/api/user/dnc', { token: me.token, body: { phone_number: SALES } })).status).toBe(201);
    const live = await call(assistant);
    const caller = new Caller(live.media);
    callers.push(caller);
    try {
      const from = openai.chatRequests.length;
      deepgram.transcripts.push('Quero falar com um vendedor.');
      openai.chat.push({ toolCalls: [{ name: 'transfer_call', arguments: JSON.stringify({ number: SALES }) }] }, { text: 'Não posso transferir agora, mas posso ajudar.' });
      await caller.say(speech());
      await until('the second request', async () => openai.chatRequests.length - from, (n) => n >= 2, 20_000);
      const output = openai.chatRequests[from + 1].body.messages.find((m: { role: string }) => m.role === 'tool');
      expect(JSON.parse(output.content)).toEqual({ error: 'that number is on the account’s do-not-call list' });
      await until('the answer said', async () => openai.speechRequests.map((r) => r.body.input), (inputs) => inputs.includes('Não posso transferir agora, mas posso ajudar.'));
      expect(twilioFake.posts().some((r) => r.url.endsWith(`/Calls/${live.sid}.json`))).toBe(false);
      expect(await callRow(live.id)).toMatchObject({ status: 'in-progress', transferred_to: null });
    } finally {
      caller.hangUp();
      live.media.stop(live.sid);
      live.media.close();
      await app.sql('delete from dnc_numbers where account_id = $1', [me.accountId]);
    }
  });
  it('a balance that cannot cover the leg’s first minute is refused to the model: nothing is reserved or dialled, and the call goes on', async () => {
    const live = await call(assistant);
    const caller = new Caller(live.media);
    callers.push(caller);
    const before = await balance();
    const [{ reserved_amount: reserved }] = await app.sql('select reserved_amount::text from calls where id = $1', [live.id]);
    // Less than the leg's first minute (the call's own is reserved already).
    const low = new Decimal(callCost(app.config, SALES, 60, true).total_cost).dividedBy(2).toFixed(4);
    await app.sql('update accounts set balance = $2 where id = $1', [me.accountId, low]);
    try {
      const from = openai.chatRequests.length;
      deepgram.transcripts.push('Quero falar com um vendedor.');
      openai.chat.push({ toolCalls: [{ name: 'transfer_call', arguments: JSON.stringify({ number: SALES }) }] }, { text: 'Não consigo transferir agora, mas posso ajudar.' });
      await caller.say(speech());
      await until('the second request', async () => openai.chatRequests.length - from, (n) => n >= 2, 20_000);
      const output = openai.chatRequests[from + 1].body.messages.find((m: { role: string }) => m.role === 'tool');
      expect(JSON.parse(output.content)).toEqual({ error: 'the account’s balance does not cover the transfer' });
      await until('the answer said', async () => openai.speechRequests.map((r) => r.body.input), (inputs) => inputs.includes('Não consigo transferir agora, mas posso ajudar.'));
      expect(twilioFake.posts().some((r) => r.url.endsWith(`/Calls/${live.sid}.json`))).toBe(false);
      expect(await callRow(live.id)).toMatchObject({ status: 'in-progress', transferred_to: null, reserved_amount: reserved });
      expect(await app.sql(`select kind from ledger_entries where reference = $1`, [`call:${live.id}:transfer`])).toEqual([]);
      expect(await balance()).toBe(low);
    } finally {
      caller.hangUp();
      live.media.stop(live.sid);
      live.media.close();
      await app.sql('update accounts set balance = $2 where id = $1', [me.accountId, before]);
    }
  });
});

describe('a warm transfer (pipeline engine)', () => {
  let assistant: number;
  beforeAll(async () => {
    assistant = await app.outboundAssistant(me, { ...transfers, transfer_mode: 'warm', who_speaks_first: 'Customer', system_prompt: 'Você atende a loja.' });
  });
  afterEach(() => {
    openai.chat.length = 0;
    deepgram.transcripts.length = 0;
  });

  /** The caller asks for a person; the model transfers; the message is heard. Answers the TwiML the caller's call got, and the person's leg as vozgate placed it. */
  async function transferred(live: Awaited<ReturnType<typeof call>>) {
    const caller = new Caller(live.media);
    callers.push(caller);
    deepgram.transcripts.push('Quero falar com um vendedor sobre o plano empresarial.');
    openai.chat.push(
      { toolCalls: [{ name: 'transfer_call', arguments: JSON.stringify({ number: SALES }) }] },
      // The briefing, written by the post-call model from the transcript.
      { text: 'O cliente quer falar sobre o plano empresarial.' },
    );
    const dialled = twilioFake.made.filter((made) => made.to === SALES).length;
    await caller.say(speech());
    const hold = await transferTwiml(live.sid);
    await until('the person dialled', async () => twilioFake.made.filter((made) => made.to === SALES).length, (n) => n > dialled, 20_000);
    const leg = twilioFake.posts().filter((r) => r.url.endsWith('/Calls.json') && new URLSearchParams(r.body).get('To') === SALES).at(-1);
    caller.hangUp();
    // The caller's stream ends as the conference takes the call over.
    live.media.stop(live.sid);
    live.media.close();
    await live.media.closed;
    return { hold, leg: new URLSearchParams(leg!.body), legSid: twilioFake.made.filter((made) => made.to === SALES).at(-1)!.sid };
  }

  it('the caller waits in the conference while the person is dialled and briefed, then joins; the call ends as transferred, both legs charged', async () => {
    const before = await balance();
    const live = await call(assistant);
    const { hold, leg, legSid } = await transferred(live);
    const room = `vozgate-transfer-${live.id}`;
    expect(hold).toBe(
      `<Response><Dial action="${app.config.publicUrl}/telephony/twilio/transfer?call=${live.id}" method="POST"><Conference startConferenceOnEnter="false" endConferenceOnExit="true" beep="false">${room}</Conference></Dial></Response>`,
    );
    expect(openai.speechRequests.map((r) => r.body.input)).toContain(MESSAGE);
    // The briefing was asked of the post-call model with the conversation, and the person hears it before joining.
    const asked = openai.chatRequests.at(-1)!.body;
    expect(asked.model).toBe('gpt-4o-mini');
    expect(JSON.stringify(asked.messages)).toContain('Quero falar com um vendedor sobre o plano empresarial.');
    const [{ assistant_phone_number: own }] = await app.sql('select assistant_phone_number from calls where id = $1', [live.id]);
    expect(Object.fromEntries(leg)).toMatchObject({ To: SALES, From: own, Timeout: '30', StatusCallback: `${app.config.publicUrl}/telephony/twilio/transfer-leg?call=${live.id}` });
    expect(leg.getAll('StatusCallbackEvent')).toEqual(['answered', 'completed']);
    expect(leg.get('Twiml')).toBe(
      `<Response><Say language="pt-BR">O cliente quer falar sobre o plano empresarial.</Say><Dial><Conference startConferenceOnEnter="true" endConferenceOnExit="true" beep="false">${room}</Conference></Dial></Response>`,
    );
    // The person answers, talks, hangs up: the conference ends, and with it the caller's Dial.
    const legStatus = (status: string, extra: Record<string, string> = {}) =>
      twilioFake.request(app.config.publicUrl, `/telephony/twilio/transfer-leg?call=${live.id}`, { CallSid: legSid, CallStatus: status, ...extra });
    expect((await legStatus('in-progress')).status).toBe(204);
    // Another call's sid changes nothing.
    await twilioFake.request(app.config.publicUrl, `/telephony/twilio/transfer-leg?call=${live.id}`, { CallSid: 'CA00000000000000000000000000000000', CallStatus: 'completed', CallDuration: '999' });
    await legStatus('completed', { CallDuration: '95' });
    await legEnds(live, before, 130, 95, 'warm');
  });

  it('nobody answers: the assistant comes back to the caller on a stream of its own and says so, not offered a second transfer; the call goes on', async () => {
    const live = await call(assistant);
    const { legSid } = await transferred(live);
    const from = openai.chatRequests.length;
    const dialled = twilioFake.made.filter((made) => made.to === SALES).length;
    // The model asks for a transfer anyway (it is not offered): nothing is dialled, and it answers the caller.
    openai.chat.push({ toolCalls: [{ name: 'transfer_call', arguments: JSON.stringify({ number: SALES }) }] }, { text: 'Ninguém pôde atender agora. Posso anotar um recado?' });
    await twilioFake.request(app.config.publicUrl, `/telephony/twilio/transfer-leg?call=${live.id}`, { CallSid: legSid, CallStatus: 'no-answer' });
    // The caller's call gets the assistant's stream again, with a token of its own.
    const back = await until(
      'the assistant back',
      async () => twilioFake.posts().filter((r) => r.url.endsWith(`/Calls/${live.sid}.json`)).map((r) => new URLSearchParams(r.body).get('Twiml') ?? ''),
      (twimls) => twimls.some((twiml) => twiml.includes('name="resume"')),
    );
    const twiml = back.find((t) => t.includes('name="resume"'))!;
    expect(twiml).toContain('<Parameter name="resume" value="transfer"/>');
    const parameters = streamParameters(twiml);
    expect(await callRow(live.id)).toMatchObject({ status: 'in-progress', hangup_reason: null, transferred_to: null, transfer_status: 'no-answer' });
    // The first stream's token is spent; the resume token works once.
    const media = await TwilioMediaClient.connect(mediaUrl());
    media.start(parameters, live.sid);
    callers.push(new Caller(media));
    await until('the model asked', async () => openai.chatRequests.length - from, (n) => n >= 1, 20_000);
    const request = openai.chatRequests[from].body;
    expect(request.messages[0].content).toContain('Quero falar com um vendedor sobre o plano empresarial.');
    expect(JSON.stringify(request.messages)).toContain('nobody could answer the transfer');
    // A call is transferred once: the model is told, and not offered transfer_call again.
    expect(request.messages[0].content).toContain('The call cannot be transferred again.');
    expect(request.tools.map((tool: { function: { name: string } }) => tool.function.name)).not.toContain('transfer_call');
    await until('said', async () => openai.speechRequests.map((r) => r.body.input), (inputs) => inputs.includes('Ninguém pôde atender agora.') && inputs.includes('Posso anotar um recado?'));
    const output = openai.chatRequests[from + 1].body.messages.find((m: { role: string }) => m.role === 'tool');
    expect(JSON.parse(output.content)).toEqual({ error: 'unknown tool' });
    expect(twilioFake.made.filter((made) => made.to === SALES)).toHaveLength(dialled);
    expect(await callRow(live.id)).toMatchObject({ status: 'in-progress', hangup_reason: null, transferred_to: null, transfer_status: 'no-answer' });
    const replay = await TwilioMediaClient.connect(mediaUrl());
    replay.start(parameters, live.sid);
    expect((await replay.closed).code).toBe(1008);
    media.stop(live.sid);
    media.close();
  });
});

describe('the Realtime engine', () => {
  let assistant: number;
  beforeAll(async () => {
    const [{ id: voice }] = await app.sql(`select id from voices where name = 'coral' and mode = 'multimodal'`);
    assistant = await app.outboundAssistant(me, { ...transfers, engine_type: 'multimodal', voice_id: voice, llm_model: 'gpt-realtime', who_speaks_first: 'Customer' });
  });

  /** The model's response: audio frames of one item, and what it calls. */
  function respond(model: RealtimeSession, item: string, frames: string[], text: string, extra: Record<string, unknown>[] = []) {
    model.send({ type: 'response.created', response: { id: `resp_${item}`, status: 'in_progress' } });
    for (const delta of frames) model.send({ type: 'response.output_audio.delta', response_id: `resp_${item}`, item_id: item, output_index: 0, content_index: 0, delta });
    if (text) model.send({ type: 'response.output_audio_transcript.done', response_id: `resp_${item}`, item_id: item, output_index: 0, content_index: 0, transcript: text });
    for (const event of extra) model.send(event);
    model.send({ type: 'response.done', response: { id: `resp_${item}`, status: 'completed' } });
  }

  /** A warm transfer on the Realtime engine: the model calls transfer_call, then says the message; the call and its session, and how many times SALES was dialled before. */
  async function warmTransfer() {
    const [{ id: voice }] = await app.sql(`select id from voices where name = 'coral' and mode = 'multimodal'`);
    const warm = await app.outboundAssistant(me, { ...transfers, transfer_mode: 'warm', engine_type: 'multimodal', voice_id: voice, llm_model: 'gpt-realtime', who_speaks_first: 'Customer' });
    const live = await call(warm);
    const model = await realtime.session();
    await model.next('session.update');
    const from = model.events.length;
    respond(model, 'item_fc', [], '', [
      { type: 'response.function_call_arguments.done', response_id: 'resp_item_fc', item_id: 'item_fc', output_index: 0, call_id: 'call_transfer', name: 'transfer_call', arguments: JSON.stringify({ number: SALES }) },
    ]);
    await model.next('response.create', from);
    const dialled = twilioFake.made.filter((made) => made.to === SALES).length;
    respond(model, 'item_msg', toneFrames(4, 500), MESSAGE);
    return { live, model, dialled };
  }

  it('a cold transfer: the model is asked to say the message word for word, and the call is dialled once it has played', async () => {
    const before = await balance();
    const live = await call(assistant);
    const model = await realtime.session();
    const { session } = await model.next('session.update');
    const offered = session.tools.find((tool: { name: string }) => tool.name === 'transfer_call');
    expect(offered.parameters.properties.number.enum).toEqual([SALES]);

    const from = model.events.length;
    respond(model, 'item_fc', [], '', [
      { type: 'response.function_call_arguments.done', response_id: 'resp_item_fc', item_id: 'item_fc', output_index: 0, call_id: 'call_transfer', name: 'transfer_call', arguments: JSON.stringify({ number: SALES }) },
    ]);
    const output = await model.next('conversation.item.create', from);
    expect(JSON.parse(output.item.output)).toEqual({ ok: true, transferring_to: SALES });
    const asked = await model.next('response.create', from);
    expect(asked.response.instructions).toContain(JSON.stringify(MESSAGE));
    expect(twilioFake.posts().some((r) => r.url.endsWith(`/Calls/${live.sid}.json`))).toBe(false);
    // The message plays (the client echoes the marks once played); then the call is dialled.
    respond(model, 'item_msg', toneFrames(4, 500), MESSAGE);
    const twiml = await transferTwiml(live.sid);
    expect(twiml).toContain(`<Number>${SALES}</Number>`);
    live.media.stop(live.sid);
    live.media.close();
    await model.closed;
    await legEnds(live, before, 70, 200);
  });

  it('a warm transfer nobody answers: the assistant comes back on a new session with the conversation so far, and says so', async () => {
    const { live, model, dialled } = await warmTransfer();
    expect(await transferTwiml(live.sid)).toContain('<Conference startConferenceOnEnter="false"');
    await until('the person dialled', async () => twilioFake.made.filter((made) => made.to === SALES).length, (n) => n > dialled, 20_000);
    const legSid = twilioFake.made.filter((made) => made.to === SALES).at(-1)!.sid;
    live.media.stop(live.sid);
    live.media.close();
    await model.closed;
    await twilioFake.request(app.config.publicUrl, `/telephony/twilio/transfer-leg?call=${live.id}`, { CallSid: legSid, CallStatus: 'busy' });
    const twiml = await until(
      'the assistant back',
      async () => twilioFake.posts().filter((r) => r.url.endsWith(`/Calls/${live.sid}.json`)).map((r) => new URLSearchParams(r.body).get('Twiml') ?? '').find((t) => t.includes('name="resume"')),
      (found) => found !== undefined,
    );
    const parameters = streamParameters(twiml!);
    const media = await TwilioMediaClient.connect(mediaUrl());
    media.start(parameters, live.sid);
    const again = await realtime.session();
    const { session } = await again.next('session.update');
    expect(session.instructions).toContain(MESSAGE);
    expect(session.instructions).toContain('nobody answered');
    expect(session.instructions).toContain('The call cannot be transferred again.');
    expect(session.tools.map((tool: { name: string }) => tool.name)).not.toContain('transfer_call');
    const asked = await again.next('response.create');
    expect(asked.response.instructions).toContain('nobody could answer the transfer');
    expect(await callRow(live.id)).toMatchObject({ status: 'in-progress', transferred_to: null, transfer_status: 'busy' });
    media.stop(live.sid);
    media.close();
  });

  it('a warm transfer the person answers: the caller waits in the conference, the person is briefed and joins; both legs charged', async () => {
    const before = await balance();
    const { live, model, dialled } = await warmTransfer();
    expect(await transferTwiml(live.sid)).toContain(`<Conference startConferenceOnEnter="false" endConferenceOnExit="true" beep="false">vozgate-transfer-${live.id}</Conference>`);
    await until('the person dialled', async () => twilioFake.made.filter((made) => made.to === SALES).length, (n) => n > dialled, 20_000);
    const leg = new URLSearchParams(twilioFake.posts().filter((r) => r.url.endsWith('/Calls.json') && new URLSearchParams(r.body).get('To') === SALES).at(-1)!.body);
    // Briefed before joining: the Realtime engine's call has no transcript turn of the customer here, so the briefing opens the call.
    expect(leg.get('Twiml')).toMatch(/^<Response><Say language="pt-BR">.+<\/Say><Dial><Conference startConferenceOnEnter="true"/);
    const legSid = twilioFake.made.filter((made) => made.to === SALES).at(-1)!.sid;
    live.media.stop(live.sid);
    live.media.close();
    await model.closed;
    await twilioFake.request(app.config.publicUrl, `/telephony/twilio/transfer-leg?call=${live.id}`, { CallSid: legSid, CallStatus: 'in-progress' });
    await twilioFake.request(app.config.publicUrl, `/telephony/twilio/transfer-leg?call=${live.id}`, { CallSid: legSid, CallStatus: 'completed', CallDuration: '61' });
    await legEnds(live, before, 90, 61, 'warm');
  });

  it('a number on the do-not-call list is refused to the model, and nothing is dialled', async () => {
    expect((await app.request('POST', '/api/user/dnc', { token: me.token, body: { phone_number: SALES } })).status).toBe(201);
    try {
      const live = await call(assistant);
      const model = await realtime.session();
      await model.next('session.update');
      const from = model.events.length;
      respond(model, 'item_fc', [], '', [
        { type: 'response.function_call_arguments.done', response_id: 'resp_item_fc', item_id: 'item_fc', output_index: 0, call_id: 'call_transfer', name: 'transfer_call', arguments: JSON.stringify({ number: SALES }) },
      ]);
      const output = await model.next('conversation.item.create', from);
      expect(JSON.parse(output.item.output)).toEqual({ error: 'that number is on the account’s do-not-call list' });
      // The model answers the caller; no closing line is asked for, and nothing is dialled.
      const asked = await model.next('response.create', from);
      expect(asked.response?.instructions).toBeUndefined();
      expect(twilioFake.posts().some((r) => r.url.endsWith(`/Calls/${live.sid}.json`))).toBe(false);
      live.media.stop(live.sid);
      live.media.close();
      await model.closed;
    } finally {
      await app.sql('delete from dnc_numbers where account_id = $1', [me.accountId]);
    }
  });
});
