/**
 * @jest-environment ./tests/setup/native-addons-environment.js
 */
import { startTestApp, type TestAccount, type TestApp, NO_VENDORS } from '../helpers/app';
import { Caller, speech } from '../helpers/caller';
import { until } from '../helpers/dialer';
import { startFakeDeepgram, type FakeDeepgram } from '../helpers/fakes/deepgram';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fakes/openai';
import { TwilioMediaClient } from '../helpers/media';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { startFakeTwilio, type FakeTwilio } from '../helpers/twilio';
import { TURNS_COLUMN } from '../helpers/turns';
import { OPENING_WAIT_MS } from '../../src/voice/amd/screening';

/**
 * The LLM that does not end a call by itself (design.md, "Vendors that never end a call by
 * themselves"), end to end on real sockets as tests/voice/pipeline-engine.test.ts: one retry
 * before the first token, then the assistant's fallback_models; each retry and switch an event
 * on the call and a /metrics counter.
 */
const DEEPGRAM_KEY = 'dg-test-key-0123456789';
const OPENAI_KEY = 'sk-test-pipeline-key';

let app: TestApp;
let twilioFake: FakeTwilio;
let deepgram: FakeDeepgram;
let openai: FakeOpenAi;
let tools: Receiver;
let me: TestAccount;
let tool: number;
let seq = 0;
const logged: string[] = [];

beforeAll(async () => {
  twilioFake = await startFakeTwilio();
  deepgram = await startFakeDeepgram(DEEPGRAM_KEY);
  openai = await startFakeOpenAi(OPENAI_KEY);
  tools = await startReceiver();
  const log = (message: string, fields?: unknown) => logged.push(`${message} ${JSON.stringify(fields ?? {})}`);
  app = await startTestApp(
    {
      telephony: { provider: 'twilio', simulatorSpeed: 1000, twilio: twilioFake.settings() },
      voice: {
        openai: null,
        pipelineEngineUrl: null,
        pipeline: { ...NO_VENDORS, deepgram: { apiKey: DEEPGRAM_KEY, url: deepgram.url }, openai: { apiKey: OPENAI_KEY, url: openai.url } },
      },
      allowPrivateNetworkTargets: true,
      maxParallelCalls: 50,
    },
    {
      workers: true,
      logger: {
        access: (line) => log('request', line),
        info: log,
        debug: log,
        warn: log,
        error: (message, error, fields) => log(`${message} ${String(error)}`, fields),
      },
    },
  );
  me = await app.account({ balance: '50' });
  const created = await app.request('POST', '/api/user/tools', {
    token: me.token,
    body: {
      name: 'check_order',
      description: 'Looks an order up by its number',
      endpoint: `${tools.url}/orders`,
      method: 'POST',
      timeout: 5,
      schema: [{ name: 'order_id', type: 'string', description: 'The order number' }],
    },
  });
  expect(created.status).toBe(201);
  tool = created.body.data.id;
});
afterAll(async () => {
  await app?.close();
  await Promise.all([deepgram?.close(), openai?.close(), tools?.close(), twilioFake?.close()]);
});
afterEach(() => {
  openai.chat.length = 0;
  deepgram.transcripts.length = 0;
  deepgram.refuse = false;
});

const assistantWith = (settings: Record<string, unknown>) =>
  app.outboundAssistant(me, {
    system_prompt: 'Você confirma o pedido {{order}} de {{customer_name}}.',
    initial_message: 'Olá {{customer_name}}, aqui é a Ana.',
    who_speaks_first: 'AI assistant',
    variables: { customer_name: 'cliente' },
    tool_ids: [tool],
    record_call: false,
    noise_cancellation: false,
    ...settings,
  });

const callRow = async (id: number) => (await app.sql(`select status, transcript, ${TURNS_COLUMN}, tool_calls, provider_call_id, hangup_reason from calls where id = $1`, [id]))[0];
const mediaUrl = () => `${app.config.publicUrl.replace(/^http/, 'ws')}/telephony/twilio/media`;

interface LiveCall {
  id: number;
  sid: string;
  media: TwilioMediaClient;
  caller: Caller;
  /** Media frames vozgate sent, base64. */
  heard(): string[];
}

/** Places a call with the assistant, answers it and opens its media stream; the caller's line is live from then on. */
async function call(assistant: number, variables: Record<string, unknown> = {}): Promise<LiveCall> {
  const phone = `+55119${String(4000 + seq++)}7000`;
  const res = await app.request('POST', '/api/user/make_call', { token: me.token, body: { phone_number: phone, assistant_id: assistant, variables } });
  expect(res.status).toBe(200);
  const id = res.body.call_id as number;
  const { provider_call_id: sid } = await until('placed', () => callRow(id), (row) => row.provider_call_id !== null);
  const twiml = new URLSearchParams(twilioFake.posts().find((r) => new URLSearchParams(r.body).get('To') === phone)!.body).get('Twiml')!;
  const parameters = Object.fromEntries([...twiml.matchAll(/<Parameter name="(\w+)" value="([^"]+)"\/>/g)].map((m) => [m[1], m[2]]));
  await twilioFake.request(app.config.publicUrl, `/telephony/twilio/status?call=${id}`, { CallSid: sid, CallStatus: 'in-progress' });
  const media = await TwilioMediaClient.connect(mediaUrl());
  media.start(parameters, sid);
  const caller = new Caller(media);
  void media.closed.then(() => caller.hangUp());
  return { id, sid, media, caller, heard: () => media.messages.filter((m) => m.event === 'media').map((m) => m.media.payload) };
}

/**
 * An outbound call's opening waits for the callee (src/voice/amd/): a callee who talks on from
 * the answer is a mailbox's greeting. The caller of these tests is a person who lets the line
 * be quiet until then, so what they say answers the assistant.
 */
const pastTheOpeningWait = () => new Promise((resolve) => setTimeout(resolve, OPENING_WAIT_MS + 300));

/** The call's end: the caller hangs up (Twilio's `stop`) unless vozgate did, and Twilio reports the call completed. */
async function hangUp(live: LiveCall): Promise<void> {
  live.caller.hangUp();
  if (live.media.open) live.media.stop(live.sid);
  live.media.close();
  await live.media.closed;
  await twilioFake.request(app.config.publicUrl, `/telephony/twilio/status?call=${live.id}`, { CallSid: live.sid, CallStatus: 'completed', CallDuration: '5' });
}

const hungUp = (live: LiveCall) => twilioFake.posts().some((r) => r.url.endsWith(`/Calls/${live.sid}.json`) && new URLSearchParams(r.body).get('Status') === 'completed');
const speechInputs = () => openai.speechRequests.map((r) => r.body.input as string);
const vendorEvents = async (id: number) =>
  (await app.sql(`select status, detail from call_events where call_id = $1 and status like 'vendor%' order by id`, [id])).map((row) => ({ status: row.status, ...row.detail }));
const saidToCaller = () => speechInputs().join(' ');

it('retries a 429 once and the caller hears the answer: one vendor_retried event, counted in /metrics', async () => {
  const live = await call(await assistantWith({ who_speaks_first: 'Customer' }));
  deepgram.transcripts.push('Alô');
  const before = openai.chatRequests.length;
  openai.chat.push({ status: 429 }, { text: 'Oi, tudo bem? Posso ajudar com o pedido.' });
  await pastTheOpeningWait();
  await live.caller.say(speech());
  await until('the answer spoken', async () => saidToCaller(), (said) => said.includes('Posso ajudar com o pedido'), 20_000);
  expect(openai.chatRequests.slice(before).map((r) => r.body.model)).toEqual(['gpt-4o-mini', 'gpt-4o-mini']);
  const events = await until('the event recorded', () => vendorEvents(live.id), (found) => found.length === 1);
  expect(events).toEqual([{ status: 'vendor_retried', part: 'llm', vendor: 'gpt-4o-mini', reason: expect.stringContaining('HTTP 429') }]);
  expect(hungUp(live)).toBe(false);
  const metrics = (await app.request('GET', '/metrics')).text;
  expect(metrics).toMatch(/vozgate_voice_vendor_events_total\{part="llm",vendor="gpt-4o-mini",kind="retried"\} [1-9]/);
  // Call.events shows it.
  const shown = await app.request('POST', '/graphql', { token: me.token, body: { query: `{ call(id: ${live.id}) { events { status detail } } }` } });
  expect(shown.body.data.call.events.filter((e: any) => e.status.startsWith('vendor'))).toEqual([{ status: 'vendor_retried', detail: events.map(({ status, ...detail }) => detail)[0] }]);
  await hangUp(live);
});

it('switches to the first fallback model when the first is dead (500 twice), with that model’s own params, for the rest of the call', async () => {
  const live = await call(await assistantWith({ who_speaks_first: 'Customer', llm_temperature: 0.4, fallback_models: ['gpt-5', 'gpt-4.1'] }));
  deepgram.transcripts.push('Alô');
  const before = openai.chatRequests.length;
  openai.chat.push({ status: 500 }, { status: 500 }, { text: 'Aqui é o modelo reserva falando.' });
  await pastTheOpeningWait();
  await live.caller.say(speech());
  await until('the answer spoken', async () => saidToCaller(), (said) => said.includes('modelo reserva'), 20_000);
  const asked = openai.chatRequests.slice(before);
  expect(asked.map((r) => r.body.model)).toEqual(['gpt-4o-mini', 'gpt-4o-mini', 'gpt-5']);
  // gpt-5 takes no temperature (the catalogue's params): the fake refuses one as OpenAI does.
  expect(asked[0].body.temperature).toBe(0.4);
  expect(asked[2].body).not.toHaveProperty('temperature');
  expect(asked[2].body.messages).toEqual(asked[0].body.messages);
  const events = await until('the events recorded', () => vendorEvents(live.id), (found) => found.length === 2);
  expect(events).toEqual([
    { status: 'vendor_retried', part: 'llm', vendor: 'gpt-4o-mini', reason: expect.stringContaining('HTTP 500') },
    { status: 'vendor_switched', part: 'llm', from: 'gpt-4o-mini', to: 'gpt-5', reason: expect.stringContaining('HTTP 500') },
  ]);
  await hangUp(live);
  expect((await app.request('GET', '/metrics')).text).toMatch(/vozgate_voice_vendor_events_total\{part="llm",vendor="gpt-4o-mini",kind="switched"\} [1-9]/);
});

it('apologises and ends the call (llm-failed) only when every model failed', async () => {
  const live = await call(await assistantWith({ who_speaks_first: 'Customer', fallback_models: ['gpt-4.1'] }));
  deepgram.transcripts.push('Alô');
  const before = openai.chatRequests.length;
  openai.chat.push({ status: 503 }, { status: 502 }, { status: 500 });
  await pastTheOpeningWait();
  await live.caller.say(speech());
  await until('the apology spoken', async () => speechInputs(), (inputs) => inputs.some((input) => input.startsWith('Desculpe, estamos com um problema técnico')), 20_000);
  await until('hung up', async () => hungUp(live), Boolean, 20_000);
  expect((await until('ended', () => callRow(live.id), (r) => r.hangup_reason !== null)).hangup_reason).toBe('llm-failed');
  expect(openai.chatRequests.slice(before).map((r) => r.body.model)).toEqual(['gpt-4o-mini', 'gpt-4o-mini', 'gpt-4.1']);
  expect((await vendorEvents(live.id)).map((e) => e.status)).toEqual(['vendor_retried', 'vendor_switched']);
  await hangUp(live);
});

it('does not retry a failure after the first token: the caller heard part of the answer', async () => {
  const live = await call(await assistantWith({ who_speaks_first: 'Customer', fallback_models: ['gpt-4.1'] }));
  deepgram.transcripts.push('Alô');
  const before = openai.chatRequests.length;
  openai.chat.push({ text: 'Primeira frase da resposta. Segunda frase que nunca chega inteira.', tokenMs: 20, drop: true });
  await pastTheOpeningWait();
  await live.caller.say(speech());
  await until('hung up', async () => hungUp(live), Boolean, 20_000);
  expect((await until('ended', () => callRow(live.id), (r) => r.hangup_reason !== null)).hangup_reason).toBe('llm-failed');
  expect(openai.chatRequests.length - before).toBe(1);
  expect(await vendorEvents(live.id)).toEqual([]);
  await hangUp(live);
});

it('refuses fallback_models that are not language models of the catalogue, more than 3, or repeated (422, nothing written), and clears them with null', async () => {
  const assistant = await assistantWith({ fallback_models: ['gpt-4.1'] });
  const update = (fallback_models: unknown) => app.request('PUT', `/api/user/assistant/${assistant}`, { token: me.token, body: { fallback_models } });
  const refused = await update(['gpt-5', 'no-such-model', 'gpt-realtime', 'gpt-5']);
  expect(refused.status).toBe(422);
  expect(refused.body.errors).toEqual({
    'fallback_models.1': ['O fallback_models.1 selecionado é inválido.'],
    'fallback_models.2': ['O fallback_models.2 selecionado é inválido.'],
    'fallback_models.3': ['O campo fallback_models.3 tem um valor duplicado.'],
    fallback_models: ['O campo fallback_models não pode ter mais de 3 itens.'],
  });
  const stored = async () => (await app.sql('select fallback_models from assistants where id = $1', [assistant]))[0].fallback_models;
  expect(await stored()).toEqual(['gpt-4.1']);
  const shown = await app.request('GET', `/api/user/assistant/${assistant}`, { token: me.token });
  expect(shown.body.fallback_models).toEqual(['gpt-4.1']);
  expect((await update(['gpt-5', 'claude-haiku-4-5'])).status).toBe(200);
  expect(await stored()).toEqual(['gpt-5', 'claude-haiku-4-5']);
  expect((await update(null)).status).toBe(200);
  expect(await stored()).toEqual([]);
});
