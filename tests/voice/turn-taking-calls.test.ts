/**
 * @jest-environment ./tests/setup/native-addons-environment.js
 *
 * @ci-once pipeline calls in real time (about a minute of audio); the turn-taking rules themselves run on every Node on virtual time (pipeline-virtual)
 */
import { burst, speech } from '../helpers/caller';
import { until } from '../helpers/dialer';
import type { FakeOpenAi } from '../helpers/fakes/openai';
import type { FakeDeepgram } from '../helpers/fakes/deepgram';
import { pastTheOpeningWait, PipelineCalls, type LiveCall } from '../helpers/pipeline-calls';

/**
 * Turn-taking that survives real callers (design.md), end to end on real sockets: the caller's
 * audio over a Twilio media stream, the fakes of Deepgram, of OpenAI's chat completions and of
 * its speech. Each rule is also on virtual time (pipeline-virtual.test.ts); these show it holds
 * through the vendors' wire formats and the engine's real clocks.
 */
let calls: PipelineCalls;
let deepgram: FakeDeepgram;
let openai: FakeOpenAi;

beforeAll(async () => {
  calls = await PipelineCalls.start();
  ({ deepgram, openai } = calls);
});
afterAll(() => calls?.close());
afterEach(() => calls.reset());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const speechInputs = () => calls.speechInputs();
const customerTurns = (row: any) => row.turns.filter((t: any) => t.speaker === 'customer').map((t: any) => t.text);

/** A call whose callee speaks first, past the opening's wait for them. */
async function callerFirst(settings: Record<string, unknown> = {}): Promise<LiveCall> {
  const live = await calls.call(await calls.assistantWith({ who_speaks_first: 'Customer', ...settings }));
  await pastTheOpeningWait();
  return live;
}

it('an acknowledgement over the answer never interrupts it: no clear, the answer heard whole, kept in the transcript and never a turn of the model', async () => {
  // About 4.7 s of the fake's speech: long enough to be playing when the "aham" is over and its turn ends.
  const answer = 'Temos a entrega expressa no mesmo dia e a retirada na loja, as duas sem custo.';
  const live = await callerFirst();
  deepgram.transcripts.push('Quais são as opções de entrega', 'Aham.');
  openai.chat.push({ text: answer });
  await live.caller.say(speech());
  const before = await until('the answer playing', async () => live.heard().length, (n) => n > 0, 10_000);
  await until('a second of it played', async () => live.heard().length - before, (n) => n >= 50, 10_000);
  const asked = openai.chatRequests.length;
  await live.caller.say(burst(400)); // "aham": shorter than the speech that pauses the reply (575 ms)
  const row = await until('the answer heard, and the acknowledgement', () => calls.callRow(live.id), (r) => r.turns.some((t: any) => t.speaker === 'assistant') && customerTurns(r).length === 2, 20_000);
  expect(live.media.messages.some((m) => m.event === 'clear')).toBe(false);
  expect(row.turns.map((t: any) => `${t.speaker}: ${t.text}`)).toEqual(['customer: Quais são as opções de entrega', 'customer: Aham.', `assistant: ${answer}`]);
  expect(speechInputs().filter((input) => input === answer)).toHaveLength(1); // never paused nor said again
  await sleep(500);
  expect(openai.chatRequests.length).toBe(asked);
  await calls.hangUp(live);
});

it('a CPF read in three groups with pauses is one turn: the model is asked once, with all the digits', async () => {
  const live = await callerFirst();
  const asked = openai.chatRequests.length;
  deepgram.transcripts.push('Meu CPF é 123.456', '789', '-09.');
  openai.chat.push({ text: 'Obrigado.' });
  // Pauses of 1.2 s: longer than the 700 ms of silence that end a turn, shorter than the 1.9 s that end one after digits.
  await live.caller.say(burst(900));
  await sleep(1200);
  await live.caller.say(burst(600));
  await sleep(1200);
  await live.caller.say(burst(600));
  await until('the model asked', async () => openai.chatRequests.length, (n) => n > asked, 10_000);
  await sleep(2500); // time for a second request, were the groups turns of their own
  const requests = openai.chatRequests.slice(asked);
  expect(requests).toHaveLength(1);
  expect(requests[0].body.messages.filter((m: any) => m.role === 'user').map((m: any) => m.content)).toEqual(['Meu CPF é 123.456 789 -09.']);
  await calls.hangUp(live);
});

it('text for the voice: TTS is given the money in words, no markdown and the pronunciations; the transcript keeps what the model wrote', async () => {
  const written = 'O total é R$ 1.250,90. É **importante** pagar no Vozgate.';
  const live = await callerFirst({ pronunciations: [{ word: 'Vozgate', say_as: 'vóz gueit' }] });
  const spoken = openai.speechRequests.length;
  deepgram.transcripts.push('Quanto eu devo');
  openai.chat.push({ text: written });
  await live.caller.say(speech());
  const row = await until('the answer heard', () => calls.callRow(live.id), (r) => r.turns.some((t: any) => t.speaker === 'assistant'), 20_000);
  expect(row.turns.map((t: any) => `${t.speaker}: ${t.text}`)).toEqual(['customer: Quanto eu devo', `assistant: ${written}`]);
  const given = speechInputs().slice(spoken).join(' ');
  expect(given).toBe('O total é mil duzentos e cinquenta reais e noventa centavos. É importante pagar no vóz gueit.');
  await calls.hangUp(live);
});

it('a slow tool’s speak_during is asked of TTS while it runs, and the answer follows its result', async () => {
  const phrase = 'Estou consultando a agenda.';
  const created = await calls.app.request('POST', '/api/user/tools', {
    token: calls.me.token,
    body: {
      name: 'check_agenda',
      description: 'Looks the free slots up',
      endpoint: `${calls.tools.url}/agenda`,
      method: 'POST',
      timeout: 10,
      speak_during: phrase,
      schema: [{ name: 'day', type: 'string', description: 'The day' }],
    },
  });
  expect(created.status).toBe(201);
  let answered = false;
  calls.tools.respond = (_request, res) => {
    setTimeout(() => {
      answered = true;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"slots":["10:00"]}');
    }, 2500);
  };
  const live = await callerFirst({ tool_ids: [created.body.data.id] });
  const spoken = openai.speechRequests.length;
  deepgram.transcripts.push('Tem horário amanhã');
  openai.chat.push({ toolCalls: [{ name: 'check_agenda', arguments: '{"day":"amanhã"}' }] }, { text: 'Tenho às dez.' });
  await live.caller.say(speech());
  await until('the phrase spoken', async () => speechInputs().slice(spoken), (inputs) => inputs.includes(phrase), 10_000);
  expect(answered).toBe(false); // while the tool runs
  await until('the answer spoken', async () => speechInputs().slice(spoken), (inputs) => inputs.includes('Tenho às dez.'), 10_000);
  const row = await until('the turn', () => calls.callRow(live.id), (r) => r.turns.some((t: any) => t.text === 'Tenho às dez.'), 10_000);
  // The phrase is not part of the conversation.
  expect(row.turns.map((t: any) => t.text)).toEqual(['Tem horário amanhã', 'Tenho às dez.']);
  await calls.hangUp(live);
});
