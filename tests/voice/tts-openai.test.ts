import { Resampler, type SampleRate } from '../../src/voice/codecs/resample';
import { OpenAiTts } from '../../src/voice/services/openai.tts';
import type { ServiceError, TtsOptions } from '../../src/voice/services/service';
import { fakeSpeech, startFakeOpenAi, type FakeOpenAi } from '../helpers/fakes/openai';

/**
 * OpenAI's streaming TTS service against a local server that speaks `POST /v1/audio/speech`
 * with `pcm` audio (tests/helpers/fakes/openai.ts), over real HTTP.
 */
jest.setTimeout(15_000);

const KEY = 'sk-test-tts-0123456789abcdef';
let fake: FakeOpenAi;
let tts: OpenAiTts;

beforeAll(async () => {
  fake = await startFakeOpenAi(KEY);
  // Bounds well above the fake's scripted delays (250 ms at most, and a loaded CI machine's
  // first request of a run: 1 s was not enough once), well below its stalls (5 s and more).
  tts = new OpenAiTts({ apiKey: KEY, url: fake.url, firstByteMs: 2500, nextBytesMs: 2500 });
});
afterAll(() => fake?.close());
beforeEach(() => {
  fake.speech.length = 0;
  fake.speechRequests.length = 0;
});

const OPTIONS: TtsOptions = { voiceId: null, language: 'pt', speed: 1, stability: 0.5, similarity: 0.75, sampleRate: 8000 };

/** What an utterance emits, in order, and a promise of its end (done or failed). */
function listen() {
  const heard: (Int16Array | 'done' | ServiceError)[] = [];
  let end!: (how: 'done' | ServiceError) => void;
  const ended = new Promise<'done' | ServiceError>((resolve) => (end = resolve));
  let first!: () => void;
  const firstAudio = new Promise<void>((resolve) => (first = resolve));
  const events = {
    audio: (pcm: Int16Array) => (heard.push(pcm), first()),
    done: () => (heard.push('done'), end('done')),
    failed: (error: ServiceError) => (heard.push(error), end(error)),
  };
  const audio = () => concat(heard.filter((item): item is Int16Array => item instanceof Int16Array));
  return { events, heard, ended, firstAudio, audio };
}

function concat(parts: Int16Array[]): Int16Array {
  const all = new Int16Array(parts.reduce((n, part) => n + part.length, 0));
  parts.reduce((at, part) => (all.set(part, at), at + part.length), 0);
  return all;
}

/** The fake's speech of the pieces, one after the other, resampled at once to `rate`. */
function expected(pieces: string[], rate: SampleRate, speed = 1): Int16Array {
  return new Resampler(24_000, rate).process(concat(pieces.map((piece) => fakeSpeech(piece, speed))));
}

/** The index of the first sample where two signals differ (-1: none); cheaper to report than a diff of arrays. */
function firstDifference(a: Int16Array, b: Int16Array): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) if (a[i] !== b[i]) return i;
  return -1;
}

/** Lets pending I/O callbacks run, so that anything still on its way would have come. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

it.each([8000, 16000] as const)('speaks a piece as pcm and emits exactly the fake’s audio resampled to %i Hz, then done', async (sampleRate) => {
  const session = tts.open({ ...OPTIONS, sampleRate, voiceId: 'coral', speed: 1.25 });
  const { events, heard, ended, audio } = listen();
  const utterance = session.utterance(events);
  utterance.push('Olá! Sua consulta está confirmada para terça-feira às dez horas.');
  utterance.end();
  await expect(ended).resolves.toBe('done');

  const [request] = fake.speechRequests;
  expect(request.path).toBe('/v1/audio/speech');
  expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
  expect(request.body).toEqual({
    model: 'gpt-4o-mini-tts',
    input: 'Olá! Sua consulta está confirmada para terça-feira às dez horas.',
    voice: 'coral',
    response_format: 'pcm',
    speed: 1.25,
  });
  expect(firstDifference(audio(), expected([request.body.input], sampleRate, 1.25))).toBe(-1);
  expect(heard.at(-1)).toBe('done');
  expect(heard.filter((item) => item === 'done')).toHaveLength(1);
});

it('speaks with the default voice, and the model it was given', async () => {
  const { events, ended } = listen();
  const utterance = new OpenAiTts({ apiKey: KEY, url: fake.url, model: 'tts-1' }).open(OPTIONS).utterance(events);
  utterance.push('Oi.');
  utterance.end();
  await expect(ended).resolves.toBe('done');
  expect(fake.speechRequests[0].body).toMatchObject({ model: 'tts-1', voice: 'alloy' });
});

it('a hosted server (TTS_PROVIDERS) is asked for its model, and its PCM read at its own rate', async () => {
  // The fake's samples, taken as a 16 kHz server's: at the call's 16 kHz they pass as they are.
  const hosted = new OpenAiTts({ apiKey: KEY, url: fake.url, model: 'kokoro', sampleRate: 16000, firstByteMs: 2500, nextBytesMs: 2500 });
  const { events, ended, audio } = listen();
  const utterance = hosted.open({ ...OPTIONS, sampleRate: 16000, voiceId: 'nova' }).utterance(events);
  utterance.push('Bom dia.');
  utterance.end();
  await expect(ended).resolves.toBe('done');
  expect(fake.speechRequests[0].body).toMatchObject({ model: 'kokoro', voice: 'nova', response_format: 'pcm' });
  expect(firstDifference(audio(), fakeSpeech('Bom dia.'))).toBe(-1);
});

it('keeps the pieces in order when their answers come at different speeds, the requests running side by side', async () => {
  const pieces = ['Primeiro, o mais lento a responder.', 'Depois, o mais rápido.', 'Por fim, um meio-termo.'];
  fake.speech.push({ firstByteMs: 250, chunkMs: 10 }, { firstByteMs: 0 }, { firstByteMs: 80, chunkMs: 5 });
  const { events, heard, ended, firstAudio, audio } = listen();
  const utterance = tts.open(OPTIONS).utterance(events);
  for (const piece of pieces) utterance.push(piece);
  utterance.end();
  await Promise.race([firstAudio, ended]);
  // The first piece's audio is the first heard, and by then all three were asked for.
  expect(fake.speechRequests.map((request) => request.body.input)).toEqual(pieces);
  await expect(ended).resolves.toBe('done');
  expect(firstDifference(audio(), expected(pieces, 8000))).toBe(-1);
  expect(heard.at(-1)).toBe('done');
});

it('emits done only after the last piece’s audio, and at once for an utterance with nothing to say', async () => {
  fake.speech.push({ firstByteMs: 100 });
  const { events, heard, ended } = listen();
  const utterance = tts.open(OPTIONS).utterance(events);
  utterance.push('Tudo certo.');
  utterance.end();
  expect(heard).toEqual([]);
  await ended;
  expect(heard.at(-2)).toBeInstanceOf(Int16Array);

  const empty = listen();
  const nothing = tts.open(OPTIONS).utterance(empty.events);
  nothing.push('   ');
  nothing.end();
  expect(empty.heard).toEqual(['done']);
});

it('cancel stops the audio at once and closes every request of the utterance', async () => {
  const long = 'Esta frase é longa o bastante para levar vários segundos para chegar inteira. '.repeat(3);
  fake.speech.push({ chunkMs: 100 }, { firstByteMs: 5000 });
  const { events, heard, ended, firstAudio } = listen();
  const utterance = tts.open(OPTIONS).utterance(events);
  utterance.push(long);
  utterance.push('E esta nunca chega.');
  await Promise.race([firstAudio, ended]);
  expect(heard[0]).toBeInstanceOf(Int16Array);
  utterance.cancel();
  const count = heard.length;
  await expect(fake.speechRequests[0].outcome).resolves.toBe('closed');
  await expect((await fake.speechRequest(1)).outcome).resolves.toBe('closed');
  utterance.end();
  await settle();
  expect(heard.length).toBe(count);
  expect(heard.every((item) => item instanceof Int16Array)).toBe(true);
});

it('hears nothing more once an audio handler cancels, not even audio already waiting its turn', async () => {
  const pieces = ['Primeira.', 'Segunda parte, que chega antes e espera a vez.'];
  // The second piece is all in, in many chunks, before the first one starts: it waits its turn.
  fake.speech.push({ firstByteMs: 400 }, { chunkMs: 2 });
  const firstLength = expected(pieces.slice(0, 1), 8000).length;
  const heard: (Int16Array | string)[] = [];
  let samples = 0;
  let afterCancel = 0;
  let cancelled = false;
  let over!: () => void;
  const cancel = new Promise<void>((resolve) => (over = resolve));
  const utterance = tts.open(OPTIONS).utterance({
    audio: (pcm) => {
      if (cancelled) afterCancel++;
      heard.push(pcm);
      samples += pcm.length;
      // The first audio of the second piece: a socket read may hold any number of the vendor's chunks.
      if (samples > firstLength && !cancelled) {
        cancelled = true;
        utterance.cancel();
        over();
      }
    },
    // Either would be wrong; they end the wait too.
    done: () => (heard.push('done'), over()),
    failed: () => (heard.push('failed'), over()),
  });
  for (const piece of pieces) utterance.push(piece);
  utterance.end();
  await cancel;
  await settle();
  expect(heard.filter((item) => typeof item === 'string')).toEqual([]);
  expect(cancelled).toBe(true);
  expect(afterCancel).toBe(0);
});

it('close ends the session’s utterances like cancel', async () => {
  fake.speech.push({ firstByteMs: 5000 });
  const { events, heard } = listen();
  const session = tts.open(OPTIONS);
  session.utterance(events).push('Nunca dita.');
  const request = await fake.speechRequest(0);
  session.close();
  await expect(request.outcome).resolves.toBe('closed');
  await settle();
  expect(heard).toEqual([]);
});

it('counts the characters sent, across utterances, and not blank pieces', async () => {
  const session = tts.open(OPTIONS);
  for (const pieces of [['Bom dia!', '   ', 'Como vai?'], ['Até logo.']]) {
    const { events, ended } = listen();
    const utterance = session.utterance(events);
    for (const piece of pieces) utterance.push(piece);
    utterance.end();
    await expect(ended).resolves.toBe('done');
  }
  expect(session.characters).toBe('Bom dia!'.length + 'Como vai?'.length + 'Até logo.'.length);
  expect(fake.speechRequests.map((request) => request.body.input)).toEqual(['Bom dia!', 'Como vai?', 'Até logo.']);
});

it('fails refused once on a wrong key (401), without the key in the message, and emits nothing else', async () => {
  const wrong = 'sk-wrong-key-ABCDEFGHIJKLMNOP';
  const { events, heard, ended } = listen();
  const utterance = new OpenAiTts({ apiKey: wrong, url: fake.url }).open(OPTIONS).utterance(events);
  utterance.push('Primeira parte.');
  utterance.push('Segunda parte.');
  utterance.end();
  const error = (await ended) as ServiceError;
  expect(error).toMatchObject({ name: 'ServiceError', part: 'tts', kind: 'refused' });
  expect(error.message).toContain('401');
  expect(error.message).toContain('invalid_api_key');
  for (const secret of [wrong, wrong.slice(0, 8), wrong.slice(-4), 'Incorrect API key']) expect(error.message).not.toContain(secret);
  await settle();
  expect(heard).toEqual([error]);
});

it.each([429, 500])('fails refused when the vendor answers HTTP %i', async (status) => {
  fake.speech.push({ status });
  const { events, ended } = listen();
  const utterance = tts.open(OPTIONS).utterance(events);
  utterance.push('Oi.');
  await expect(ended).resolves.toMatchObject({ part: 'tts', kind: 'refused', message: expect.stringContaining(String(status)) });
});

it.each([
  ['never answers', { stall: true }],
  ['sends its headers and then no audio', { firstByteMs: 10_000 }],
  ['stops between two chunks of audio', { chunkMs: 10_000 }],
])('fails stalled once when the vendor %s within the bound, and closes the request', async (_, reply) => {
  fake.speech.push(reply);
  const { events, heard, ended } = listen();
  const utterance = tts.open(OPTIONS).utterance(events);
  utterance.push('Uma frase que não termina.');
  utterance.end();
  const error = await ended;
  expect(error).toMatchObject({ part: 'tts', kind: 'stalled' });
  await expect(fake.speechRequests[0].outcome).resolves.toBe('closed');
  await settle();
  expect(heard.filter((item) => !(item instanceof Int16Array))).toEqual([error]);
});

it('fails dropped once when the connection is reset mid-audio, and the other pieces’ requests are closed', async () => {
  fake.speech.push({ drop: true, chunkMs: 20 }, { stall: true });
  const { events, heard, ended } = listen();
  // Bounds long enough that the second piece cannot stall before the first one drops.
  const patient = new OpenAiTts({ apiKey: KEY, url: fake.url, firstByteMs: 10_000, nextBytesMs: 10_000 });
  const utterance = patient.open(OPTIONS).utterance(events);
  utterance.push('Esta parte cai no meio do caminho.');
  utterance.push('Esta espera.');
  utterance.end();
  const error = await ended;
  expect(error).toMatchObject({ part: 'tts', kind: 'dropped' });
  expect(heard[0]).toBeInstanceOf(Int16Array);
  await expect((await fake.speechRequest(1)).outcome).resolves.toBe('closed');
  await settle();
  expect(heard.filter((item) => !(item instanceof Int16Array))).toEqual([error]);
});
