/**
 * @jest-environment ./tests/setup/native-addons-environment.js
 *
 * @ci-once pipeline calls in real time; the fallback's rule runs on every Node (fallback-llm)
 */
import { speech } from '../helpers/caller';
import { until } from '../helpers/dialer';
import type { TestAccount, TestApp } from '../helpers/app';
import type { FakeDeepgram } from '../helpers/fakes/deepgram';
import type { FakeOpenAi } from '../helpers/fakes/openai';
import { pastTheOpeningWait, PipelineCalls, type LiveCall } from '../helpers/pipeline-calls';

/**
 * The LLM that does not end a call by itself (design.md, "Vendors that never end a call by
 * themselves"), end to end on real sockets as tests/voice/pipeline-engine.test.ts: one retry
 * before the first token, then the assistant's fallback_models; each retry and switch an event
 * on the call and a /metrics counter.
 */
let calls: PipelineCalls;
let app: TestApp;
let deepgram: FakeDeepgram;
let openai: FakeOpenAi;
let me: TestAccount;

beforeAll(async () => {
  calls = await PipelineCalls.start();
  ({ app, deepgram, openai, me } = calls);
});
afterAll(() => calls?.close());
afterEach(() => calls.reset());

const assistantWith = (settings: Record<string, unknown>) => calls.assistantWith(settings);
const callRow = (id: number) => calls.callRow(id);
const call = (assistant: number, variables: Record<string, unknown> = {}) => calls.call(assistant, variables);
const hangUp = (live: LiveCall) => calls.hangUp(live);
const hungUp = (live: LiveCall) => calls.hungUp(live);
const speechInputs = () => calls.speechInputs();
const vendorEvents = (id: number) => calls.vendorEvents(id);
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
