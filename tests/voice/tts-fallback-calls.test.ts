/**
 * @jest-environment ./tests/setup/native-addons-environment.js
 *
 * @ci-once pipeline calls in real time; the TTS chain's rule runs on every Node (tts-fallback)
 */
import { phrases } from '../../src/voice/engines/pipeline/phrases';
import { speech } from '../helpers/caller';
import { until } from '../helpers/dialer';
import type { TestAccount, TestApp } from '../helpers/app';
import { startFakeCartesia, type FakeCartesia } from '../helpers/fakes/cartesia';
import type { FakeDeepgram } from '../helpers/fakes/deepgram';
import { MS_PER_CHARACTER, spokenCharacters, startFakeElevenLabs, type FakeElevenLabs } from '../helpers/fakes/elevenlabs';
import type { FakeOpenAi } from '../helpers/fakes/openai';
import { defaultVendors, pastTheOpeningWait, PipelineCalls, type LiveCall } from '../helpers/pipeline-calls';

/**
 * TTS that does not end a call by itself (design.md, "Vendors that never end a call by
 * themselves"), end to end on real sockets: ElevenLabs failing and Cartesia (the assistant's
 * fallback voice) speaking the rest of the call, the switch an event on the call; a dead TTS,
 * and the apology kept at the call's start heard before the hang-up.
 */
const KEY = 'tts-fallback-calls-key';
let calls: PipelineCalls;
let app: TestApp;
let deepgram: FakeDeepgram;
let openai: FakeOpenAi;
let me: TestAccount;
let eleven: FakeElevenLabs;
let cartesia: FakeCartesia;

beforeAll(async () => {
  [eleven, cartesia] = await Promise.all([startFakeElevenLabs(KEY), startFakeCartesia(KEY)]);
  calls = await PipelineCalls.start((fakes) => ({ ...defaultVendors(fakes), elevenlabs: { apiKey: KEY, url: eleven.url }, cartesia: { apiKey: KEY, url: cartesia.url } }));
  ({ app, deepgram, openai, me } = calls);
});
afterAll(async () => {
  await calls?.close();
  await Promise.all([eleven?.close(), cartesia?.close()]);
});
afterEach(() => {
  calls.reset();
  eleven.refuse = false;
  cartesia.refuse = false;
});

const voice = async (name: string) => (await app.sql(`select id, provider_voice_id from voices where name = $1 and account_id is null`, [name]))[0] as { id: number; provider_voice_id: string };
const vendorEvents = (id: number) => calls.vendorEvents(id);
/** Everything Cartesia was given, its voice and its words. */
const cartesiaInputs = () => cartesia.sockets.flatMap((socket) => socket.messages).filter((message) => message.transcript);
const cartesiaSaid = () => cartesiaInputs().map((message) => message.transcript).join('');
const elevenSaid = () => eleven.sockets.flatMap((socket) => socket.messages.slice(1).map((message) => message.text)).join('');
const hangupReason = async (live: LiveCall) => (await until('ended', () => calls.callRow(live.id), (row) => row.hangup_reason !== null, 20_000)).hangup_reason;

it('ElevenLabs refusing before the first audio: Cartesia speaks the opening with the fallback voice and the rest of the call; the switch is on the call', async () => {
  const [sarah, fallback] = [await voice('Sarah'), (await app.sql(`select id, provider_voice_id from voices where provider = 'cartesia' order by id limit 1`))[0]];
  const assistant = await calls.assistantWith({ voice_id: sarah.id, fallback_voice_id: fallback.id });
  eleven.refuse = true;
  const live = await calls.call(assistant);
  await until('the opening spoken by Cartesia', async () => cartesiaSaid(), (said) => said.includes('Olá cliente, aqui é a Ana.'), 20_000);
  expect(cartesiaInputs().every((message) => message.voice.id === fallback.provider_voice_id)).toBe(true);
  const asked = eleven.handshakes;

  // The next answer goes to Cartesia straight away, ElevenLabs (healthy again) not asked.
  eleven.refuse = false;
  deepgram.transcripts.push('Qual é o status?');
  openai.chat.push({ text: 'Seu pedido já saiu para entrega.' });
  await pastTheOpeningWait();
  await live.caller.say(speech());
  await until('the answer spoken by Cartesia', async () => cartesiaSaid(), (said) => said.includes('Seu pedido já saiu para entrega.'), 20_000);
  expect(eleven.handshakes).toBe(asked);
  expect(elevenSaid()).not.toContain('Seu pedido');
  expect(calls.hungUp(live)).toBe(false);

  const switched = { status: 'vendor_switched', part: 'tts', from: 'elevenlabs', to: 'cartesia', reason: 'ElevenLabs refused the stream: invalid_api_key' };
  const events = await until('the switch recorded', () => vendorEvents(live.id), (found) => found.length >= 1);
  expect(events).toContainEqual(switched);
  const shown = await app.request('POST', '/graphql', { token: me.token, body: { query: `{ call(id: ${live.id}) { events { status detail } } }` } });
  const { status, ...detail } = switched;
  expect(shown.body.data.call.events).toContainEqual({ status, detail });
  expect((await app.request('GET', '/metrics')).text).toMatch(/vozgate_voice_vendor_events_total\{part="tts",vendor="elevenlabs",kind="switched"\} [1-9]/);
  await calls.hangUp(live);
});

it('a dead TTS (every vendor refusing after the call started): the apology kept at the start is heard, then tts-failed', async () => {
  const apology = phrases('pt').apology;
  const live = await calls.call(await calls.assistantWith({ voice_id: (await voice('Roger')).id }));
  await until('the opening and the apology synthesised', async () => elevenSaid(), (said) => said.includes('aqui é a Ana.') && said.includes(apology), 20_000);
  await until('the opening heard', async () => live.heard().length, (frames) => frames >= (spokenCharacters('Olá cliente, aqui é a Ana.') * MS_PER_CHARACTER) / 20 - 2, 20_000);

  eleven.refuse = true;
  cartesia.refuse = true;
  openai.speech.push({ status: 401 }, { status: 401 });
  deepgram.transcripts.push('Alô');
  openai.chat.push({ text: 'Esta resposta ninguém consegue falar.' });
  await pastTheOpeningWait();
  const heardBefore = live.heard().length;
  await live.caller.say(speech());
  await until('hung up', async () => calls.hungUp(live), Boolean, 30_000);
  expect(await hangupReason(live)).toBe('tts-failed');
  // The kept apology, whole, before the hang-up (the fake's 60 ms a spoken character, 20 ms frames, less a frame or two).
  expect(live.heard().length - heardBefore).toBeGreaterThanOrEqual((spokenCharacters(apology) * MS_PER_CHARACTER) / 20 - 2);
  expect((await vendorEvents(live.id)).filter((event) => event.status === 'vendor_switched').map((event) => `${event.from}>${event.to}`)).toEqual(['elevenlabs>cartesia', 'cartesia>openai']);
  const row = await calls.callRow(live.id);
  expect(row.turns.map((turn: any) => turn.text)).toContain(apology);
  await calls.hangUp(live);
});

it('refuses a fallback_voice_id that is not a voice of a TTS vendor the account sees (422, nothing written), and clears it with null', async () => {
  const sarah = await voice('Sarah');
  const assistant = await calls.assistantWith({ fallback_voice_id: sarah.id });
  const other = await app.account({});
  const [{ id: private_ }] = await app.sql(`insert into voices (account_id, name, mode, provider, provider_voice_id) values ($1, 'Theirs', 'pipeline', 'cartesia', 'their-voice') returning id`, [other.accountId]);
  const [{ id: multimodal }] = await app.sql(`select id from voices where mode = 'multimodal' order by id limit 1`);
  const [{ id: noVendor }] = await app.sql(`select id from voices where mode = 'pipeline' and provider is null order by id limit 1`);
  const stored = async () => (await app.sql('select fallback_voice_id from assistants where id = $1', [assistant]))[0].fallback_voice_id;
  const update = (fallback_voice_id: unknown) => app.request('PUT', `/api/user/assistant/${assistant}`, { token: me.token, body: { fallback_voice_id } });
  for (const id of [999_999, 0, private_, multimodal, noVendor]) {
    const refused = await update(id);
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual({ fallback_voice_id: ['O fallback_voice_id selecionado é inválido.'] });
  }
  const graphql = await app.request('POST', '/graphql', {
    token: me.token,
    body: { query: `mutation { updateAssistant(id: ${assistant}, input: { fallback_voice_id: ${multimodal} }) { id } }` },
  });
  expect(graphql.body.errors[0].extensions.errors).toEqual({ fallback_voice_id: ['O fallback_voice_id selecionado é inválido.'] });
  expect(await stored()).toBe(sarah.id);
  expect((await app.request('GET', `/api/user/assistant/${assistant}`, { token: me.token })).body.fallback_voice_id).toBe(sarah.id);
  expect((await update(null)).status).toBe(200);
  expect(await stored()).toBeNull();
});
