/**
 * @jest-environment ./tests/setup/native-addons-environment.js
 *
 * @ci-once pipeline calls in real time; Deepgram's reconnect itself runs on every Node (stt-reconnect)
 */
import { speech } from '../helpers/caller';
import { until } from '../helpers/dialer';
import type { TestAccount, TestApp } from '../helpers/app';
import type { FakeDeepgram } from '../helpers/fakes/deepgram';
import type { FakeOpenAi } from '../helpers/fakes/openai';
import { pastTheOpeningWait, PipelineCalls, type LiveCall } from '../helpers/pipeline-calls';

/**
 * Deepgram that does not end a call by itself (design.md, "Vendors that never end a call by
 * themselves"), end to end on real sockets as tests/voice/llm-fallback.test.ts: a stream that
 * drops mid-call is reopened and the caller's next turn answered; the reconnect an event on the
 * call and a /metrics counter.
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

const saidToCaller = () => calls.speechInputs().join(' ');
const quiet = (live: LiveCall, ms?: number) => calls.quiet(live, ms);
const vendorEvents = (id: number) => calls.vendorEvents(id);

it('reopens a Deepgram stream that drops mid-call and answers the next turn: one vendor_retried event, counted in /metrics', async () => {
  const sessionsBefore = deepgram.sessions.length;
  const live: LiveCall = await calls.call(await calls.assistantWith({ who_speaks_first: 'Customer' }));
  deepgram.transcripts.push('Alô');
  openai.chat.push({ text: 'Oi, tudo bem? Posso ajudar com o pedido.' });
  await pastTheOpeningWait();
  await live.caller.say(speech());
  await until('the first answer spoken', async () => saidToCaller(), (said) => said.includes('Posso ajudar com o pedido'), 20_000);
  await quiet(live);

  const first = await until('the call’s stream', async () => deepgram.sessions[sessionsBefore], Boolean);
  first.drop();
  const second = await until('the stream reopened', async () => deepgram.sessions[sessionsBefore + 1], Boolean, 10_000);
  expect(Object.fromEntries(second.query)).toEqual(Object.fromEntries(first.query));
  deepgram.transcripts.push('Quero saber do pedido 123');
  openai.chat.push({ text: 'O pedido 123 sai amanhã.' });
  await live.caller.say(speech());
  await until('the second answer spoken', async () => saidToCaller(), (said) => said.includes('sai amanhã'), 20_000);
  expect(openai.chatRequests.at(-1)!.body.messages.at(-1)).toEqual({ role: 'user', content: 'Quero saber do pedido 123' });
  expect(calls.hungUp(live)).toBe(false);

  const events = await until('the event recorded', () => vendorEvents(live.id), (found) => found.length === 1);
  expect(events).toEqual([{ status: 'vendor_retried', part: 'stt', vendor: 'deepgram', reason: expect.stringContaining('Deepgram closed the stream: 1006') }]);
  const shown = await app.request('POST', '/graphql', { token: me.token, body: { query: `{ call(id: ${live.id}) { events { status detail } } }` } });
  expect(shown.body.data.call.events.filter((e: any) => e.status.startsWith('vendor'))).toEqual([{ status: 'vendor_retried', detail: { part: 'stt', vendor: 'deepgram', reason: events[0].reason } }]);
  expect((await app.request('GET', '/metrics')).text).toMatch(/vozgate_voice_vendor_events_total\{part="stt",vendor="deepgram",kind="retried"\} 1\b/);
  await calls.hangUp(live);
  expect((await until('ended', () => calls.callRow(live.id), (row) => row.hangup_reason !== null, 20_000)).hangup_reason).toBe('customer');
});
