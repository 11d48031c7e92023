/**
 * @jest-environment ./tests/setup/native-addons-environment.js
 *
 * @ci-once the pipeline engine's end-to-end calls: minutes of real-time audio and no GraphQL operation; their parts run on every Node
 */
import { burst, fanNoise, levelDb, speech } from '../helpers/caller';
import { until } from '../helpers/dialer';
import { decode } from '../../src/voice/codecs/mulaw';
import { decodeDtmf } from '../helpers/dtmf';
import type { TestAccount, TestApp } from '../helpers/app';
import type { FakeDeepgram } from '../helpers/fakes/deepgram';
import type { FakeOpenAi } from '../helpers/fakes/openai';
import type { Receiver } from '../helpers/receiver';
import { TURNS_COLUMN } from '../helpers/turns';
import { DEEPGRAM_KEY, OPENAI_KEY, pastTheOpeningWait, PipelineCalls, type LiveCall } from '../helpers/pipeline-calls';

/**
 * The built-in pipeline engine, end to end on real sockets: a call placed through a local
 * Twilio Calls API, its media stream opened by a client that speaks Twilio Media Streams and
 * talks like a phone (a frame every 20 ms, real speech by espeak-ng), the engine's vendors
 * local fakes of Deepgram and of OpenAI's chat completions and speech, each speaking its
 * documented wire format.
 */
let calls: PipelineCalls;
let app: TestApp;
let deepgram: FakeDeepgram;
let openai: FakeOpenAi;
let tools: Receiver;
let me: TestAccount;
let logged: string[];

beforeAll(async () => {
  calls = await PipelineCalls.start();
  ({ app, deepgram, openai, tools, me, logged } = calls);
});
afterAll(() => calls?.close());
afterEach(() => calls.reset());

const assistantWith = (settings: Record<string, unknown>) => calls.assistantWith(settings);
const callRow = (id: number) => calls.callRow(id);
const call = (assistant: number, variables: Record<string, unknown> = {}) => calls.call(assistant, variables);
const hangUp = (live: LiveCall) => calls.hangUp(live);
const hungUp = (live: LiveCall) => calls.hungUp(live);
const speechInputs = () => calls.speechInputs();
const quiet = (live: LiveCall, ms?: number) => calls.quiet(live, ms);

it('opens the call, hears the caller, answers through the model with the prompt, history and tools, runs a tool, and ends the call after the goodbye is heard', async () => {
  tools.respond = (_request, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"order":"123","status":"shipped"}');
  };
  const assistant = await assistantWith({ llm_temperature: 0.3 });
  const live = await call(assistant, { customer_name: 'Marina', order: '123' });

  // `who_speaks_first`: the opening, with the call's variables, spoken in the assistant's voice.
  await until('the opening spoken', async () => speechInputs(), (inputs) => inputs.includes('Olá Marina, aqui é a Ana.'));
  const opening = openai.speechRequests.find((r) => r.body.input === 'Olá Marina, aqui é a Ana.')!;
  expect(opening.body).toMatchObject({ voice: 'alloy', response_format: 'pcm', speed: 1 });
  expect(opening.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
  const started = Date.now();
  await quiet(live);
  // Paced: 25 characters of the fake's 60 ms each are 1.5 s of audio, sent in real time, 20 ms a frame.
  const frames = live.heard().length;
  expect(frames).toBeGreaterThanOrEqual(70);
  expect(live.media.messages.filter((m) => m.event === 'media').every((m) => Buffer.from(m.media.payload, 'base64').length === 160)).toBe(true);
  expect(Date.now() - started).toBeGreaterThan(frames * 20 - 600);

  // A full turn: the caller's speech, the STT's words, the model with the prompt, history and tools.
  deepgram.transcripts.push('Quero saber do meu pedido');
  openai.chat.push(
    { text: 'Claro, vou verificar.', toolCalls: [{ name: 'check_order', arguments: '{"order_id":"123"}' }] },
    { text: 'Seu pedido 123 foi enviado. Até logo!', toolCalls: [{ name: 'endCall', arguments: '{}' }] },
  );
  const speechAt = Date.now();
  await live.caller.say(speech());
  const [first] = await until('the model asked', async () => openai.chatRequests, (requests) => requests.length >= 1);
  const stt = deepgram.sessions.at(-1)!;
  expect(stt.headers.authorization).toBe(`Token ${DEEPGRAM_KEY}`);
  expect(Object.fromEntries(stt.query)).toMatchObject({ model: 'nova-3', encoding: 'mulaw', sample_rate: '8000', language: 'pt-BR', interim_results: 'true', vad_events: 'true' });
  expect(first.body).toMatchObject({ model: 'gpt-4o-mini', temperature: 0.3, stream: true, stream_options: { include_usage: true } });
  expect(first.body.messages).toEqual([
    { role: 'system', content: 'Você confirma o pedido 123 de Marina.' },
    { role: 'assistant', content: 'Olá Marina, aqui é a Ana.' },
    { role: 'user', content: 'Quero saber do meu pedido' },
  ]);
  expect(first.body.tools.map((t: any) => t.function.name)).toEqual(['check_order', 'endCall', 'press_digits']);

  // The tool through the guarded client, its result back to the model.
  const [order] = await until('the tool called', async () => tools.requests, (requests) => requests.length === 1);
  expect(JSON.parse(order.body)).toEqual({ order_id: '123' });
  const [, second] = await until('the model asked again', async () => openai.chatRequests, (requests) => requests.length >= 2);
  expect(second.body.messages.slice(-2)).toEqual([
    { role: 'assistant', content: 'Claro, vou verificar.', tool_calls: [{ id: expect.any(String), type: 'function', function: { name: 'check_order', arguments: '{"order_id":"123"}' } }] },
    { role: 'tool', tool_call_id: expect.any(String), content: JSON.stringify({ status: 200, response: '{"order":"123","status":"shipped"}' }) },
  ]);

  // Sentence by sentence to TTS, said as a person would ("123" in words; the transcript keeps
  // the model's text), and the end-call tool once the goodbye is heard.
  await until('the goodbye spoken', async () => speechInputs(), (inputs) => inputs.includes('Até logo!'));
  expect(speechInputs()).toEqual(expect.arrayContaining(['Claro, vou verificar.', 'Seu pedido cento e vinte e três foi enviado.', 'Até logo!']));
  await until('hung up', async () => hungUp(live), Boolean, 20_000);
  const row = await until('ended', () => callRow(live.id), (r) => r.hangup_reason !== null);
  expect(row.hangup_reason).toBe('end-call-tool');
  expect(row.turns.map((t: any) => [t.speaker, t.text])).toEqual([
    ['assistant', 'Olá Marina, aqui é a Ana.'],
    ['customer', 'Quero saber do meu pedido'],
    ['assistant', 'Claro, vou verificar. Seu pedido 123 foi enviado. Até logo!'],
  ]);
  expect(row.tool_calls).toHaveLength(1);
  // Each step of the answer after the caller's end of speech, in order.
  const { latency } = row.turns[2];
  expect(latency.stt_final_ms).toBeLessThanOrEqual(latency.llm_first_token_ms);
  expect(latency.llm_first_token_ms).toBeLessThanOrEqual(latency.tts_first_byte_ms);
  expect(latency.tts_first_byte_ms).toBeLessThanOrEqual(latency.first_audio_ms);
  // When each turn began, from the call's answer: the opening's first audio, the caller's
  // speech starting, the answer's first audio after the caller stopped.
  const [{ answered }] = await app.sql('select extract(epoch from answered_at) * 1000 as answered from calls where id = $1', [live.id]);
  const [openedAt, askedAt, answeredAt] = row.turns.map((t: any) => t.at_ms);
  expect(openedAt).toBeGreaterThanOrEqual(0);
  expect(openedAt).toBeLessThan(3000); // the stream opened and the opening synthesised
  expect(openedAt).toBeLessThan(askedAt);
  expect(Math.abs(askedAt - (speechAt - Number(answered)))).toBeLessThan(600);
  expect(answeredAt).toBeGreaterThan(askedAt + 2000); // the sentence is about 2.5 s
  await hangUp(live);

  // The call's record: why it ended, what the vendors report it used, its latency; /metrics has each step.
  const got = await until('the usage recorded', async () => (await app.request('GET', `/api/user/calls/${live.id}`, { token: me.token })).body, (body) => body.usage !== null);
  expect(got.hangup_reason).toBe('end-call-tool');
  expect(got.usage.stt_seconds).toBeGreaterThan(2);
  expect(got.usage.llm_input_tokens).toBeGreaterThan(0);
  expect(got.usage.llm_output_tokens).toBeGreaterThan(0);
  // TTS is billed on what it is given: the text as said.
  expect(got.usage.tts_characters).toBe(['Olá Marina, aqui é a Ana.', 'Claro, vou verificar.', 'Seu pedido cento e vinte e três foi enviado.', 'Até logo!'].join('').length);
  expect(got.latency).toEqual({ turns: 1, p50_ms: latency.first_audio_ms, p95_ms: latency.first_audio_ms });
  const metrics = (await app.request('GET', '/metrics')).text;
  for (const stage of ['stt_final', 'llm_first_token', 'tts_first_byte', 'first_audio']) expect(metrics).toContain(`vozgate_voice_turn_latency_seconds_count{stage="${stage}"} `);
  expect(logged.join('\n')).not.toContain(DEEPGRAM_KEY);
  expect(logged.join('\n')).not.toContain(OPENAI_KEY);
});

/** A long answer, so that the caller can talk over it. */
const LONG = 'Temos muitas opções de entrega para o seu pedido, desde a retirada na loja até a entrega expressa no mesmo dia, e cada uma tem um preço diferente.';

/** Opens a call, lets the opening play, and has the assistant start a long answer to a first question. */
async function talkingAssistant(settings: Record<string, unknown>): Promise<LiveCall> {
  const spoken = openai.speechRequests.length;
  const live = await call(await assistantWith(settings));
  await until('the opening spoken', async () => speechInputs().slice(spoken), (inputs) => inputs.includes('Olá cliente, aqui é a Ana.'));
  await quiet(live);
  deepgram.transcripts.push('Quais são as opções de entrega');
  openai.chat.push({ text: LONG });
  await live.caller.say(speech());
  await until('the long answer playing', async () => live.heard().length, (n) => n > 0);
  const before = live.heard().length;
  await until('a second of it played', async () => live.heard().length - before, (n) => n >= 50, 20_000);
  return live;
}

it('hears the caller from the first audio Twilio sends, while the engine is still starting', async () => {
  const sessions = deepgram.sessions.length;
  // The caller's line is live from the stream's start: its first frames arrive before the engine exists.
  const live = await call(await assistantWith({ who_speaks_first: 'Customer' }));
  const [stream] = await until('the STT stream', async () => deepgram.sessions.slice(sessions), (found) => found.length === 1);
  await new Promise((resolve) => setTimeout(resolve, 500));
  live.caller.hangUp();
  const sent = live.caller.sent;
  // Every frame the caller sent reached Deepgram, the first ones included.
  await until('all the audio at Deepgram', async () => stream.received, (received) => received >= sent * 160, 5_000).catch(() => {});
  expect(stream.received).toBe(sent * 160);
  await hangUp(live);
});

it('stops talking when the caller talks over it: clear sent, the model and TTS stopped, its turn cut to what was heard', async () => {
  const live = await talkingAssistant({ allow_interruptions: true, interrupt_sensitivity: 5 });
  deepgram.transcripts.push('Espera um pouco');
  openai.chat.push({ text: 'Pois não.' });
  await live.caller.say(speech());
  await live.media.next((m) => m.event === 'clear', 5000);
  const row = await until('the cut turn', () => callRow(live.id), (r) => r.turns.filter((t: any) => t.speaker === 'assistant').length >= 2);
  const cut = row.turns.filter((t: any) => t.speaker === 'assistant')[1].text as string;
  expect(cut.length).toBeGreaterThan(0);
  expect(cut.length).toBeLessThan(LONG.length);
  expect(LONG.startsWith(cut)).toBe(true);
  // The model's next request holds only what the caller heard.
  const next = await until('the model asked again', async () => openai.chatRequests.at(-1)!, (r) => r.body.messages.at(-1).content === 'Espera um pouco');
  expect(next.body.messages.at(-2)).toEqual({ role: 'assistant', content: cut });
  await hangUp(live);
});

it('talks on over the caller when interruptions are off', async () => {
  const live = await talkingAssistant({ allow_interruptions: false });
  deepgram.transcripts.push('Espera um pouco');
  openai.chat.push({ text: 'Pois não.' });
  await live.caller.say(speech());
  const row = await until('the whole answer heard, then the caller answered', () => callRow(live.id), (r) => r.turns.some((t: any) => t.text === 'Pois não.'), 30_000);
  expect(live.media.messages.some((m) => m.event === 'clear')).toBe(false);
  expect(row.turns.map((t: any) => t.text)).toEqual(['Olá cliente, aqui é a Ana.', 'Quais são as opções de entrega', LONG, 'Espera um pouco', 'Pois não.']);
  await hangUp(live);
});

it('needs longer speech to interrupt at a lower interrupt_sensitivity: half a second does not at 0, does at 5', async () => {
  const patient = await talkingAssistant({ allow_interruptions: true, interrupt_sensitivity: 0 });
  await patient.caller.say(burst(500));
  await new Promise((resolve) => setTimeout(resolve, 1500));
  expect(patient.media.messages.some((m) => m.event === 'clear')).toBe(false);
  await hangUp(patient);
  const quick = await talkingAssistant({ allow_interruptions: true, interrupt_sensitivity: 5 });
  await quick.caller.say(burst(500));
  await quick.media.next((m) => m.event === 'clear', 5000);
  await hangUp(quick);
});

it('a cough over the answer pauses it, and with no word that interrupts it speaks again from the sentence it cut: the whole answer, no turn of the caller', async () => {
  const live = await talkingAssistant({ allow_interruptions: true, interrupt_sensitivity: 5, use_min_interrupt_words: true, min_interrupt_words: 3 });
  const asked = openai.chatRequests.length;
  await live.caller.say(burst(400)); // a cough: voice, and no words
  // Paused (Twilio's buffer cleared when it held audio), then said again: TTS is asked for the cut sentence a second time.
  const row = await until('the whole answer, said again from its cut sentence', () => callRow(live.id), (r) => r.turns.some((t: any) => t.speaker === 'assistant' && t.text === LONG), 30_000);
  expect(speechInputs().filter((input) => input === LONG).length).toBeGreaterThanOrEqual(2);
  expect(row.turns.map((t: any) => t.speaker)).toEqual(['assistant', 'customer', 'assistant']);
  expect(openai.chatRequests.length).toBe(asked);
  await hangUp(live);
});

it('ends the caller’s turn after the silence endpoint_sensitivity sets (vad), or at the STT’s end of turn (ai)', async () => {
  /** Frames of silence after the speech before the model was asked. */
  async function silenceBeforeReply(settings: Record<string, unknown>): Promise<{ frames: number; endpointing: string | null }> {
    const live = await call(await assistantWith({ who_speaks_first: 'Customer', ...settings }));
    const asked = openai.chatRequests.length;
    deepgram.transcripts.push('Bom dia');
    openai.chat.push({ text: 'Bom dia!' });
    await live.caller.say(speech());
    const spoke = live.caller.sent;
    await until('the model asked', async () => openai.chatRequests.length, (n) => n > asked, 10_000);
    const frames = live.caller.sent - spoke;
    const endpointing = deepgram.sessions.at(-1)!.query.get('endpointing');
    await hangUp(live);
    return { frames, endpointing };
  }
  const patient = await silenceBeforeReply({ endpoint_type: 'vad', endpoint_sensitivity: 0 });
  const quick = await silenceBeforeReply({ endpoint_type: 'vad', endpoint_sensitivity: 5 });
  // 1.2 s against 0.2 s of silence (the recording's own last moments count), give or take the final transcript's way back.
  expect(patient.frames - quick.frames).toBeGreaterThanOrEqual(35);
  expect(quick.frames).toBeLessThan(30);
  const semantic = await silenceBeforeReply({ endpoint_type: 'ai', endpoint_sensitivity: 5 });
  expect(semantic.endpointing).toBe('200');
  expect(patient.endpointing).toBe('1200');
});

it('asks Deepgram for the assistant’s keyterms, with the call’s variables filled in', async () => {
  const sessions = deepgram.sessions.length;
  const live = await call(await assistantWith({ keyterms: ['Loja Centro', 'pedido {{order}}'] }), { order: 'A-1027' });
  const [session] = await until('the STT stream', async () => deepgram.sessions.slice(sessions), (found) => found.length === 1);
  expect(session.keyterms).toEqual(['Loja Centro', 'pedido A-1027']);
  await hangUp(live);
});

it('re-engages a silent caller after re_engagement_interval, then hangs up after max_silence_duration', async () => {
  const live = await call(await assistantWith({ who_speaks_first: 'Customer', re_engagement_interval: 7, max_silence_duration: 1 }));
  openai.chat.push({ text: 'Você ainda está aí?' });
  const [request] = await until('re-engaged', async () => openai.chatRequests.filter((r) => r.body.messages.some((m: any) => /silent/.test(m.content ?? ''))), (found) => found.length === 1, 12_000);
  expect(request.body.messages.at(-1).role).toBe('system');
  await until('hung up', async () => hungUp(live), Boolean, 15_000);
  expect((await until('ended', () => callRow(live.id), (r) => r.hangup_reason !== null)).hangup_reason).toBe('silence');
  await hangUp(live);
});

it('plays a filler while a tool is slow (filler_audios)', async () => {
  tools.respond = (_request, res) => {
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"status":"shipped"}');
    }, 2500);
  };
  const live = await call(await assistantWith({ filler_audios: true, who_speaks_first: 'Customer' }));
  await pastTheOpeningWait();
  deepgram.transcripts.push('Cadê meu pedido');
  openai.chat.push({ toolCalls: [{ name: 'check_order', arguments: '{"order_id":"9"}' }] }, { text: 'Foi enviado.' });
  await live.caller.say(speech());
  await until('the filler spoken', async () => speechInputs(), (inputs) => inputs.includes('Um momento.'), 10_000);
  await until('the answer spoken', async () => speechInputs(), (inputs) => inputs.includes('Foi enviado.'), 10_000);
  const row = await until('the turn', () => callRow(live.id), (r) => r.turns.some((t: any) => t.text === 'Foi enviado.'));
  // The filler is not part of the conversation.
  expect(row.turns.map((t: any) => t.text)).toEqual(['Cadê meu pedido', 'Foi enviado.']);
  await hangUp(live);
});

it('the keypad both ways: the caller’s keys reach the model and the transcript as "[keypad] 123"; press_digits is heard as its DTMF pairs', async () => {
  const live = await call(await assistantWith({ who_speaks_first: 'Customer' }));
  openai.chat.push({ text: 'Vou digitar.', toolCalls: [{ name: 'press_digits', arguments: '{"digits":"5#0"}' }] }, { text: 'Pronto.' });
  const asked = openai.chatRequests.length;
  for (const digit of '123#') live.media.send({ event: 'dtmf', streamSid: live.media.streamSid, sequenceNumber: '7', dtmf: { track: 'inbound_track', digit } });
  const request = await until('the model asked', async () => openai.chatRequests[asked], Boolean, 10_000);
  expect(request.body.messages.at(-1)).toEqual({ role: 'user', content: '[keypad] 123' });
  const answered = await until('the tool answered', async () => openai.chatRequests[asked + 1], Boolean, 15_000);
  expect(answered.body.messages.find((m: any) => m.role === 'tool')?.content).toBe('{"pressed":"5#0"}');
  await until('the answer spoken', async () => speechInputs(), (inputs) => inputs.includes('Pronto.'), 10_000);
  await quiet(live);
  const heard = live.heard().map((payload) => decode(Buffer.from(payload, 'base64')));
  const audio = new Int16Array(heard.reduce((n, frame) => n + frame.length, 0));
  heard.reduce((at, frame) => (audio.set(frame, at), at + frame.length), 0);
  expect(decodeDtmf(audio, 8000)).toBe('5#0');
  const row = await until('the turns', () => callRow(live.id), (r) => r.turns.length >= 3);
  // The keys pressed are the assistant's turn when they sounded (at_ms), recorded as they were heard.
  expect(row.turns.map((t: any) => `${t.speaker}: ${t.text}`)).toEqual(['customer: [keypad] 123', 'assistant: [keypad] 5#0', 'assistant: Vou digitar. Pronto.']);
  await hangUp(live);
});

it('answers a tool the caller talked over as interrupted, goes on with the caller, and keeps what the tool really did once it answers', async () => {
  // The tool answers when the test says so: within its timeout, 30 s here, as the caller's
  // second words can take a loaded machine more than the tool's usual 5 s to reach the model
  // (seen in CI: the tool timed out before the caller was heard).
  const toolTimeout = (timeout: number) => app.request('PUT', `/api/user/tools/${calls.tool}`, { token: me.token, body: { timeout } });
  expect((await toolTimeout(30)).status).toBe(200);
  let answer = () => {};
  tools.respond = (_request, res) => {
    answer = () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"status":"shipped"}');
    };
  };
  const live = await call(await assistantWith({ who_speaks_first: 'Customer', allow_interruptions: true, interrupt_sensitivity: 5 }));
  await pastTheOpeningWait();
  deepgram.transcripts.push('Cadê meu pedido');
  openai.chat.push({ text: 'Vou ver.', toolCalls: [{ name: 'check_order', arguments: '{"order_id":"9"}' }] });
  const toolRequests = tools.requests.length;
  await live.caller.say(speech());
  await until('the tool called', async () => tools.requests.length, (n) => n > toolRequests);
  const asked = openai.chatRequests.length;
  deepgram.transcripts.push('Alô, tem alguém aí');
  openai.chat.push({ text: 'Estou aqui.' });
  await live.caller.say(speech());
  const [next] = await until('the model asked again', async () => openai.chatRequests.slice(asked), (found) => found.length === 1);
  answer(); // the tool answers now, after the model was asked without its result
  // The tool's call is answered before the caller's words, as the model's API requires.
  const messages = next.body.messages.slice(-3);
  expect(messages[0]).toMatchObject({ role: 'assistant', tool_calls: [{ function: { name: 'check_order' } }] });
  expect(messages[1]).toEqual({ role: 'tool', tool_call_id: messages[0].tool_calls[0].id, content: '{"error":"the caller spoke before the tool answered"}' });
  expect(messages[2]).toEqual({ role: 'user', content: 'Alô, tem alguém aí' });
  await until('answered', () => callRow(live.id), (r) => r.turns.some((t: any) => t.text === 'Estou aqui.'));
  expect((await callRow(live.id)).hangup_reason).toBeNull();

  // The tool answers after all: the model's next request holds what it really did, in the
  // placeholder's place, so that it never asks for it twice (a booking is never made twice).
  const { tool_calls: [record] } = await until('the tool recorded', () => callRow(live.id), (r) => r.tool_calls.length === 1, 15_000);
  const before = openai.chatRequests.length;
  deepgram.transcripts.push('E o meu pedido');
  openai.chat.push({ text: 'Foi enviado.' });
  await live.caller.say(speech());
  const [after] = await until('the model asked a third time', async () => openai.chatRequests.slice(before), (found) => found.length === 1);
  const results = after.body.messages.filter((m: any) => m.role === 'tool');
  expect(results).toHaveLength(1);
  expect(results[0].tool_call_id).toBe(messages[0].tool_calls[0].id);
  // What the tool really did: its answer, or (on a machine slow enough that the second turn came
  // after the tool's 30 s) its timeout; never the placeholder.
  expect(JSON.parse(results[0].content)).toEqual(record.error ? { error: record.error } : { status: 200, response: '{"status":"shipped"}' });
  expect(tools.requests.length).toBe(toolRequests + 1);
  await hangUp(live);
  expect((await toolTimeout(5)).status).toBe(200);
});

it('mixes the ambient bed under the call at ambient_sound_volume', async () => {
  async function silenceLevel(volume: number): Promise<number> {
    const live = await call(await assistantWith({ who_speaks_first: 'Customer', ambient_sound_volume: volume }));
    await new Promise((resolve) => setTimeout(resolve, 1200));
    // A second of the bed (50 frames of 20 ms), however long a loaded machine takes to start the call's engine.
    if (volume > 0) await until('a second of the bed', async () => live.heard().length, (frames) => frames >= 50, 15_000);
    const level = levelDb(live.heard());
    const frames = live.heard().length;
    await hangUp(live);
    return volume === 0 ? (frames === 0 ? -Infinity : level) : level;
  }
  expect(await silenceLevel(0)).toBe(-Infinity); // nothing sent between utterances
  const low = await silenceLevel(0.2);
  const high = await silenceLevel(0.8);
  expect(low).toBeGreaterThan(-60);
  expect(high - low).toBeGreaterThan(9);
});

it('takes the noise out of the caller’s audio before the STT (noise_cancellation)', async () => {
  async function noiseAtStt(cancel: boolean): Promise<number> {
    const sessions = deepgram.sessions.length;
    const live = await call(await assistantWith({ who_speaks_first: 'Customer', noise_cancellation: cancel }));
    const [session] = await until('the STT stream', async () => deepgram.sessions.slice(sessions), (found) => found.length === 1);
    await live.caller.say(fanNoise(3000, 1000));
    await until('the noise heard', async () => session.received, (bytes) => bytes >= 24_000);
    const level = levelDb([session.audio.subarray(-8000).toString('base64')]);
    await hangUp(live);
    return level;
  }
  const raw = await noiseAtStt(false);
  const cleaned = await noiseAtStt(true);
  expect(raw - cleaned).toBeGreaterThan(10);
});

it('apologises and hangs up when the model fails, naming it: never a silent line, never a key in the log', async () => {
  // The model refuses (a revoked key): the apology in the assistant's language, then llm-failed.
  const live = await call(await assistantWith({ who_speaks_first: 'Customer' }));
  deepgram.transcripts.push('Alô');
  openai.chat.push({ status: 401 });
  await live.caller.say(speech());
  await until('the apology spoken', async () => speechInputs(), (inputs) => inputs.some((input) => input.startsWith('Desculpe, estamos com um problema técnico')));
  await until('hung up', async () => hungUp(live), Boolean, 20_000);
  expect((await until('ended', () => callRow(live.id), (r) => r.hangup_reason !== null)).hangup_reason).toBe('llm-failed');
  expect(live.heard().length).toBeGreaterThan(0);
  await hangUp(live);

  // The model stalls (nothing within its 10 s bound): the apology, then llm-failed.
  const waiting = await call(await assistantWith({ who_speaks_first: 'Customer' }));
  deepgram.transcripts.push('Alô');
  openai.chat.push({ stall: true });
  const before = speechInputs().length;
  await waiting.caller.say(speech());
  await until('the apology spoken', async () => speechInputs().slice(before), (inputs) => inputs.some((input) => input.startsWith('Desculpe')), 20_000);
  await until('hung up', async () => hungUp(waiting), Boolean, 20_000);
  expect((await until('ended', () => callRow(waiting.id), (r) => r.hangup_reason !== null)).hangup_reason).toBe('llm-failed');
  await hangUp(waiting);
  expect(logged.join('\n')).not.toContain(OPENAI_KEY);
});

it('apologises and hangs up when speech to text fails, and with the apology kept at the start when text to speech does', async () => {
  // The STT's socket drops mid-call and Deepgram is down (its reconnects answered 503: the third
  // failure within 30 s): the apology, then stt-failed.
  const sessions = deepgram.sessions.length;
  const dropped = await call(await assistantWith({ who_speaks_first: 'Customer' }));
  const [stream] = await until('the STT stream', async () => deepgram.sessions.slice(sessions), (found) => found.length === 1);
  const apologies = speechInputs().length;
  Object.assign(deepgram, { refuse: true, refuseStatus: 503 });
  stream.drop();
  await until('the apology spoken', async () => speechInputs().slice(apologies), (inputs) => inputs.some((input) => input.startsWith('Desculpe')));
  await until('hung up', async () => hungUp(dropped), Boolean, 20_000);
  expect((await until('ended', () => callRow(dropped.id), (r) => r.hangup_reason !== null)).hangup_reason).toBe('stt-failed');
  await hangUp(dropped);
  deepgram.refuseStatus = 401;

  // Speech to text refuses the key at the call's start (the caller speaks first, so nothing was
  // being said): the apology is spoken and heard to its end, then stt-failed.
  deepgram.refuse = true;
  const spokenBefore = speechInputs().length;
  const deaf = await call(await assistantWith({ who_speaks_first: 'Customer' }));
  await until('hung up', async () => hungUp(deaf), Boolean, 20_000);
  const heardAtHangup = deaf.heard().length;
  deepgram.refuse = false;
  expect((await until('ended', () => callRow(deaf.id), (r) => r.hangup_reason !== null)).hangup_reason).toBe('stt-failed');
  const apology = speechInputs().slice(spokenBefore).find((input) => input.startsWith('Desculpe'));
  expect(apology).toBeDefined();
  // The fake's 60 ms a character, sent in 20 ms frames, all before the hang-up (less a frame or two of rounding).
  expect(heardAtHangup).toBeGreaterThanOrEqual(Math.floor((apology!.length * 60) / 20) - 2);
  await hangUp(deaf);

  // TTS refuses (its only vendor here): the apology kept since the calls' start is heard, then tts-failed.
  openai.speech.push({ status: 401 });
  const mute = await call(await assistantWith({}));
  await until('hung up', async () => hungUp(mute), Boolean, 20_000);
  expect((await until('ended', () => callRow(mute.id), (r) => r.hangup_reason !== null)).hangup_reason).toBe('tts-failed');
  expect(mute.heard().length).toBeGreaterThan(0);
  await hangUp(mute);

  expect(logged.join('\n')).not.toContain(DEEPGRAM_KEY);
  expect(logged.join('\n')).not.toContain(OPENAI_KEY);
});

it('runs 20 calls at once in one process, each hearing and answering only its own caller', async () => {
  const assistant = await assistantWith({ who_speaks_first: 'Customer', system_prompt: 'Cliente: {{customer_name}}.' });
  openai.defaultChat = (body) => ({ text: `Certo, ${String(body.messages[0].content).slice('Cliente: '.length, -1)}.` });
  const calls = await Promise.all(Array.from({ length: 20 }, (_, i) => call(assistant, { customer_name: `Pessoa${i}` })));
  for (let i = 0; i < 20; i++) deepgram.transcripts.push('Bom dia');
  await Promise.all(calls.map((live) => live.caller.say(speech())));
  const ids = calls.map((live) => live.id);
  const rows = await until(
    'every call answered',
    () => app.sql(`select id, ${TURNS_COLUMN} from calls where id = any($1) order by id`, [ids]),
    (found) => found.every((row: any) => row.turns.length === 2),
    30_000,
  );
  const turns = new Map(rows.map((row: any) => [row.id, row.turns.map((t: any) => t.text)]));
  calls.forEach((live, i) => expect(turns.get(live.id)).toEqual(['Bom dia', `Certo, Pessoa${i}.`]));
  await Promise.all(calls.map(hangUp));
});
