import { readFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { encode } from '../../src/voice/codecs/mulaw';
import { Resampler } from '../../src/voice/codecs/resample';
import { deepgramLanguage, DeepgramStt, listenUrl, type DeepgramBounds } from '../../src/voice/services/deepgram.stt';
import { ServiceError, type SttEvents, type SttOptions, type SttStream } from '../../src/voice/services/service';
import { startFakeDeepgram, type DeepgramSession, type FakeDeepgram } from '../helpers/fakes/deepgram';
import { sttListener } from '../helpers/stt-listener';

/**
 * Deepgram live STT against a local fake that speaks Deepgram's wire format and really listens
 * (by energy, on the audio's clock). The caller's audio is real speech: a pt-BR sentence spoken
 * by espeak-ng (tests/fixtures/speech-pt-br-16k.wav), taken to 8 kHz mu-law in 20 ms frames of
 * 160 bytes as Twilio carries it.
 */
const KEY = 'dg-key-4d1f9a0c2b';
const SENTENCE = 'Bom dia, eu gostaria de marcar uma consulta.';
const PT: SttOptions = { language: 'pt-BR', endpointingMs: 300 };
const FRAME_BYTES = 160;
const FRAMES_PER_SECOND = 50;

function frames(mulaw: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at < mulaw.length; at += FRAME_BYTES) {
    const frame = new Uint8Array(FRAME_BYTES).fill(0xff);
    frame.set(mulaw.subarray(at, at + FRAME_BYTES));
    out.push(frame);
  }
  return out;
}

function sentence(): Uint8Array[] {
  const wav = readFileSync(path.join(__dirname, '..', 'fixtures', 'speech-pt-br-16k.wav'));
  const pcm = new Int16Array(wav.buffer.slice(wav.byteOffset + 44, wav.byteOffset + wav.length - ((wav.length - 44) % 2)));
  return frames(encode(new Resampler(16000, 8000).process(pcm)));
}

/** Mu-law silence (0xff codes zero). */
const silence = (ms: number) => Array.from({ length: ms / 20 }, () => new Uint8Array(FRAME_BYTES).fill(0xff));

/** White noise of `peak` amplitude: a quiet line's hiss. */
function noise(ms: number, peak: number): Uint8Array[] {
  let seed = 7;
  const pcm = Int16Array.from({ length: (ms / 1000) * 8000 }, () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return Math.round(((seed / 0x7fffffff) * 2 - 1) * peak);
  });
  return frames(encode(pcm));
}


/** Sends the audio a second at a time, each second once the fake has the one before. */
async function feed(stream: SttStream, session: DeepgramSession, audio: Uint8Array[]): Promise<void> {
  for (let at = 0; at < audio.length; at += FRAMES_PER_SECOND) {
    const second = audio.slice(at, at + FRAMES_PER_SECOND);
    const expected = session.received + second.length * FRAME_BYTES;
    for (const frame of second) stream.send(frame);
    await session.until(() => session.received >= expected);
  }
}

const bytes = (audio: Uint8Array[]) => audio.length * FRAME_BYTES;

let fake: FakeDeepgram;
const streams: SttStream[] = [];

function open(options: SttOptions, events: SttEvents, bounds?: Partial<DeepgramBounds>, apiKey = KEY): SttStream {
  const stream = new DeepgramStt({ apiKey, url: fake.url, bounds }).open(options, events);
  streams.push(stream);
  return stream;
}

beforeAll(async () => {
  fake = await startFakeDeepgram(KEY);
});

afterAll(() => fake.close());

beforeEach(() => {
  Object.assign(fake, { refuse: false, finalLatencyMs: 0, idleCloseMs: 10_000, metadata: true, transcripts: [] });
});

afterEach(async () => {
  await Promise.all(streams.splice(0).map((stream) => stream.close()));
});

it('asks for nova-3 on 8 kHz mu-law with the documented query, the language when there is one, and Token auth', async () => {
  open(PT, sttListener().events);
  const session = await fake.session();
  expect(session.path).toBe('/v1/listen');
  expect(Object.fromEntries(session.query)).toEqual({
    model: 'nova-3',
    encoding: 'mulaw',
    sample_rate: '8000',
    channels: '1',
    interim_results: 'true',
    endpointing: '300',
    utterance_end_ms: '1000',
    vad_events: 'true',
    smart_format: 'true',
    language: 'pt-BR',
  });
  expect(session.headers.authorization).toBe(`Token ${KEY}`);

  open({ language: null, endpointingMs: 800 }, sttListener().events);
  const other = await fake.session();
  expect(other.query.has('language')).toBe(false);
  expect(other.query.get('endpointing')).toBe('800');

  expect([deepgramLanguage('pt'), deepgramLanguage('en'), deepgramLanguage(null)]).toEqual(['pt-BR', 'en', null]);
});

it('asks for the assistant’s keyterms as Deepgram documents keyterm prompting: one keyterm a term, a phrase’s spaces as %20', async () => {
  const keyterms = ['Vozgate', 'pedido A-1027', 'São & Cia'];
  expect(listenUrl('wss://api.deepgram.com/v1/listen', { ...PT, keyterms })).toMatch(/&keyterm=Vozgate&keyterm=pedido%20A-1027&keyterm=S%C3%A3o%20%26%20Cia$/);
  open({ ...PT, keyterms }, sttListener().events);
  const session = await fake.session();
  expect(session.keyterms).toEqual(keyterms);
  expect(session.query.get('model')).toBe('nova-3');
  // None: no keyterm at all (the first test's query is whole).
  expect(listenUrl('wss://api.deepgram.com/v1/listen', { ...PT, keyterms: [] })).not.toContain('keyterm');
});

it('hears the sentence: SpeechStarted, interim words, one speech_final with the words, then UtteranceEnd', async () => {
  fake.transcripts.push(SENTENCE);
  const { events, heard, until, transcripts } = sttListener();
  const stream = open(PT, events);
  const session = await fake.session();
  const speech = sentence();
  await feed(stream, session, [...silence(1000), ...speech, ...silence(1500)]);
  await until(() => heard.some((entry) => entry.event === 'utteranceEnd'));

  expect(heard[0]).toEqual({ event: 'speechStarted' });
  expect(heard.at(-1)).toEqual({ event: 'utteranceEnd' });
  const finals = transcripts().filter((transcript) => transcript.isFinal);
  expect(finals).toHaveLength(1);
  expect(heard.at(-2)).toEqual({ event: 'transcript', transcript: finals[0] });
  expect(finals[0]).toMatchObject({ text: SENTENCE, isFinal: true, speechFinal: true });
  // The endpoint is the 300 ms of silence after the sentence's last sound (its own last 280 ms are quiet).
  const sentenceEnd = 1 + speech.length / FRAMES_PER_SECOND;
  expect(finals[0].start + finals[0].duration).toBeGreaterThan(sentenceEnd - 0.3);
  expect(finals[0].start + finals[0].duration).toBeLessThan(sentenceEnd + 0.4);

  const interims = transcripts().filter((transcript) => !transcript.isFinal);
  expect(interims.length).toBeGreaterThanOrEqual(2);
  for (const interim of interims) expect(SENTENCE.startsWith(interim.text)).toBe(true);
  // Deepgram heard the speech begin where it begins, after the second of silence.
  expect(session.sent.find((message) => message.type === 'SpeechStarted')?.timestamp).toBeCloseTo(1, 1);
});

it('the fake holds each final back by finalLatencyMs, and what follows it waits behind it (for benchmarks)', async () => {
  fake.transcripts.push(SENTENCE);
  fake.finalLatencyMs = 400;
  const { events, heard, until, transcripts } = sttListener();
  const stream = open(PT, events);
  const session = await fake.session();
  await feed(stream, session, [...silence(1000), ...sentence()]);
  // The endpoint is in the silence sent from here on.
  const silenceSentAt = Date.now();
  await feed(stream, session, silence(1500));
  await until(() => transcripts().some((transcript) => transcript.speechFinal));
  expect(Date.now() - silenceSentAt).toBeGreaterThanOrEqual(400);
  expect(transcripts().at(-1)?.text).toBe(SENTENCE);
  await until(() => heard.some((entry) => entry.event === 'utteranceEnd'));
  expect(heard.at(-1)).toEqual({ event: 'utteranceEnd' });
});

it('hears nothing in silence or a low hiss: the empty results Deepgram sends for them are dropped', async () => {
  const { events, heard, until } = sttListener();
  const stream = open(PT, events);
  const session = await fake.session();
  await feed(stream, session, [...silence(2000), ...noise(3000, 200), ...silence(1000)]);
  // A message of Deepgram's own, after all the others: once it is heard, so would they have been.
  session.send({ type: 'SpeechStarted', channel: [0, 1], timestamp: 6 });
  await until(() => heard.length > 0);

  const results = session.sent.filter((message) => message.type === 'Results');
  expect(results.length).toBeGreaterThanOrEqual(5);
  expect(results.every((message) => message.channel.alternatives[0].transcript === '')).toBe(true);
  expect(heard).toEqual([{ event: 'speechStarted' }]);
});

it('passes an empty speech_final that ends a turn whose words came before, and drops the other empty results', async () => {
  const { events, heard, until } = sttListener();
  open(PT, events);
  const session = await fake.session();
  const results = (transcript: string, isFinal: boolean, speechFinal: boolean) => ({
    type: 'Results',
    channel_index: [0, 1],
    duration: 1,
    start: 0,
    is_final: isFinal,
    speech_final: speechFinal,
    channel: { alternatives: [{ transcript, confidence: transcript ? 0.99 : 0, words: [] }] },
    metadata: { request_id: session.requestId, model_info: { name: 'general-nova-3', version: '2025-04-17.21547', arch: 'nova-3' }, model_uuid: 'uuid' },
    from_finalize: false,
  });
  session.send(results('Bom dia', true, false));
  session.send(results('', true, true));
  session.send(results('', false, false));
  // No words since the last end of turn: nothing to end.
  session.send(results('', true, true));
  session.send({ type: 'UtteranceEnd', channel: [0, 1], last_word_end: 0.8 });
  await until(() => heard.some((entry) => entry.event === 'utteranceEnd'));

  expect(heard).toEqual([
    { event: 'transcript', transcript: { text: 'Bom dia', isFinal: true, speechFinal: false, fromFinalize: false, start: 0, duration: 1, words: [] } },
    { event: 'transcript', transcript: { text: '', isFinal: true, speechFinal: true, fromFinalize: false, start: 0, duration: 1, words: [] } },
    { event: 'utteranceEnd' },
  ]);
});

it('refuses what is not a message of Deepgram’s (null, a number, an array, a string, fields of another type) without throwing, and the stream goes on', async () => {
  const { events, heard, until } = sttListener();
  open(PT, events);
  const session = await fake.session();
  const junk: unknown[] = [
    null,
    5,
    [],
    'Results',
    { type: 5 },
    { type: 'Results', start: 'x', duration: null, is_final: true, speech_final: 'yes', channel: { alternatives: [{ transcript: 5, words: 'many' }] } },
    { type: 'Results', is_final: true, channel: 'x' },
    { type: 'Results', is_final: true, channel: { alternatives: 'abc' } },
    { type: 'Metadata', duration: 'lots' },
  ];
  for (const message of junk) session.send(message as never);
  session.send({ type: 'Results', start: 1, duration: 0.5, is_final: true, speech_final: false, channel: { alternatives: [{ transcript: 'Bom dia', words: [] }] } } as never);
  await until(() => heard.length > 0);
  expect(heard).toEqual([{ event: 'transcript', transcript: { text: 'Bom dia', isFinal: true, speechFinal: false, fromFinalize: false, start: 1, duration: 0.5, words: [] } }]);
});

it('finalize() sends Finalize and Deepgram gives the words now, in a final marked from_finalize', async () => {
  fake.transcripts.push('Sim, pode ser.');
  const { events, until, transcripts } = sttListener();
  // An endpointing longer than the test: only Finalize can end this utterance.
  const stream = open({ language: 'pt-BR', endpointingMs: 5000 }, events);
  const session = await fake.session();
  await feed(stream, session, [...silence(500), ...sentence()]);
  expect(transcripts().filter((transcript) => transcript.isFinal)).toEqual([]);

  stream.finalize();
  await until(() => transcripts().some((transcript) => transcript.isFinal));
  expect(session.controls).toContainEqual({ type: 'Finalize' });
  expect(transcripts().at(-1)).toMatchObject({ text: 'Sim, pode ser.', isFinal: true, speechFinal: false, fromFinalize: true });
  expect(session.sent.filter((message) => message.is_final)).toMatchObject([{ from_finalize: true }]);

  // Nothing left to finalize: Deepgram's answer is empty, and still says "all is final".
  stream.finalize();
  await until(() => transcripts().filter((transcript) => transcript.isFinal).length === 2);
  expect(transcripts().at(-1)).toMatchObject({ text: '', isFinal: true, speechFinal: false, fromFinalize: true });
});

it('close() sends CloseStream and resolves the seconds of audio Deepgram reports; nothing is heard after it', async () => {
  fake.transcripts.push(SENTENCE);
  const { events, heard, until } = sttListener();
  const stream = open(PT, events);
  const session = await fake.session();
  // The close comes in the middle of the sentence.
  const audio = [...silence(1000), ...sentence().slice(0, 75)];
  await feed(stream, session, audio);
  await until(() => heard.some((entry) => entry.event === 'speechStarted'));

  await expect(stream.close()).resolves.toEqual({ seconds: bytes(audio) / 8000 });
  expect(session.controls.at(-1)).toEqual({ type: 'CloseStream' });
  // Deepgram gave the open utterance's words before its Metadata, but the caller had closed.
  expect(session.sent.slice(-2)).toMatchObject([{ type: 'Results', is_final: true }, { type: 'Metadata', duration: 2.5 }]);
  expect(session.sent.at(-2)?.channel.alternatives[0].transcript).toBe(SENTENCE);
  expect(heard.some((entry) => entry.event === 'transcript' && entry.transcript.isFinal)).toBe(false);
  await session.until(() => session.closedWith !== null);
  expect(session.closedWith?.code).toBe(1000);
});

it('close() resolves the seconds of audio sent when Deepgram’s Metadata never comes, and when the stream was lost first', async () => {
  fake.metadata = false;
  const quiet = open(PT, sttListener().events);
  const first = await fake.session();
  const audio = [...silence(1000), ...sentence().slice(0, 30)];
  await feed(quiet, first, audio);
  await expect(quiet.close()).resolves.toEqual({ seconds: bytes(audio) / 8000 });
  expect(first.controls.at(-1)).toEqual({ type: 'CloseStream' });
  expect(first.sent.some((message) => message.type === 'Metadata')).toBe(false);

  // Deepgram heard (and bills) the audio of a stream that dropped before its close.
  const { events, until, heard } = sttListener();
  const lost = open(PT, events);
  const second = await fake.session();
  const before = silence(1500);
  await feed(lost, second, before);
  second.drop();
  await until(() => heard.some((entry) => entry.event === 'failed'));
  await expect(lost.close()).resolves.toEqual({ seconds: bytes(before) / 8000 });
});

it('does not let a stalled Deepgram hold close() past its bound', async () => {
  const stream = open(PT, sttListener().events, { closeMs: 200 });
  const session = await fake.session();
  await feed(stream, session, silence(1000));
  session.stall();
  // No Metadata came: the audio sent.
  await expect(stream.close()).resolves.toEqual({ seconds: 1 });
  expect(session.controls.at(-1)).toEqual({ type: 'CloseStream' });
  await session.until(() => session.closedWith !== null);
});

it('sends KeepAlive on its interval, which keeps the stream past Deepgram’s idle close (NET-0001); without it the stream drops', async () => {
  fake.idleCloseMs = 500;
  const kept = sttListener();
  const stream = open(PT, kept.events, { keepAliveMs: 100 });
  const session = await fake.session();
  await feed(stream, session, silence(100));
  await session.until(() => session.controls.filter((control) => control.type === 'KeepAlive').length >= 8);
  expect(session.controls.every((control) => control.type === 'KeepAlive')).toBe(true);
  expect(session.closedWith).toBeNull();
  expect(kept.heard).toEqual([]);

  const lost = sttListener();
  const quiet = open(PT, lost.events, { keepAliveMs: 60_000 });
  await feed(quiet, await fake.session(), silence(100));
  await lost.until(() => lost.heard.length > 0);
  expect(lost.failures()).toMatchObject([{ part: 'stt', kind: 'dropped' }]);
  expect(lost.failures()[0].message).toMatch(/1011 .*net0001/);
});

it('fails once as refused on a wrong key (HTTP 401), with no key in the message, and then says nothing more', async () => {
  const { events, heard, until, failures } = sttListener();
  const sessions = fake.sessions.length;
  const stream = open(PT, events, undefined, 'dg-wrong-key-7777');
  await until(() => heard.length > 0);
  stream.send(silence(20)[0]);
  stream.finalize();
  await expect(stream.close()).resolves.toEqual({ seconds: 0 });
  expect(heard).toHaveLength(1);
  const [error] = failures();
  expect(error).toBeInstanceOf(ServiceError);
  expect(error).toMatchObject({ part: 'stt', kind: 'refused' });
  expect(error.message).toMatch(/HTTP 401 \(request [0-9a-f-]{36}\)/);
  expect(error.message).not.toContain('dg-wrong-key-7777');
  expect(error.message).not.toContain(KEY);
  expect(fake.sessions).toHaveLength(sessions);

  // A revoked key: the right key, refused all the same.
  fake.refuse = true;
  const revoked = sttListener();
  open(PT, revoked.events);
  await revoked.until(() => revoked.heard.length > 0);
  expect(revoked.failures()).toMatchObject([{ part: 'stt', kind: 'refused' }]);
  expect(revoked.failures()[0].message).not.toContain(KEY);
});

it.each<[string, string, (session: DeepgramSession) => void, RegExp]>([
  ['the connection breaks', 'dropped', (session) => session.drop(), /1006/],
  ['Deepgram closes with 1011 NET-0000', 'dropped', (session) => session.close(1011, 'NET-0000'), /1011 NET-0000/],
  ['Deepgram cannot decode the audio (1008 DATA-0000)', 'refused', (session) => session.close(1008, 'DATA-0000'), /1008 DATA-0000/],
])('fails once when %s (%s), and then says nothing more', async (_what, kind, end, message) => {
  const { events, heard, until, failures } = sttListener();
  const stream = open(PT, events);
  const session = await fake.session();
  await feed(stream, session, silence(1000));
  end(session);
  await until(() => failures().length > 0);
  stream.send(silence(20)[0]);
  stream.finalize();
  // The audio sent before the stream was lost; none after.
  await expect(stream.close()).resolves.toEqual({ seconds: 1 });
  expect(heard).toHaveLength(1);
  expect(failures()).toMatchObject([{ part: 'stt', kind }]);
  expect(failures()[0].message).toMatch(message);
});

it('fails once as stalled when Deepgram stops answering the audio, and never while it answers', async () => {
  const { events, heard, until, failures } = sttListener();
  const stream = open(PT, events, { stallMs: 600 });
  const session = await fake.session();
  // Wall-clock time must pass here to show the bound is not a deadline for the whole stream:
  // 4 × 250 ms, longer than the bound, each second of audio answered.
  for (let second = 0; second < 4; second++) {
    const answered = session.sent.length;
    await feed(stream, session, silence(1000));
    await session.until(() => session.sent.length > answered);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  expect(heard).toEqual([]);

  session.stall();
  await feed(stream, session, silence(2000));
  await until(() => heard.length > 0);
  expect(failures()).toMatchObject([{ part: 'stt', kind: 'stalled' }]);
  expect(failures()[0].message).toMatch(/600 ms/);
  await expect(stream.close()).resolves.toEqual({ seconds: 6 });
  expect(heard).toHaveLength(1);
});

it('fails once as stalled when the handshake never completes', async () => {
  const sockets: Socket[] = [];
  const mute = createServer((socket) => sockets.push(socket));
  await new Promise<void>((resolve) => mute.listen(0, '127.0.0.1', resolve));
  try {
    const { events, heard, until, failures } = sttListener();
    const url = `ws://127.0.0.1:${(mute.address() as AddressInfo).port}/v1/listen`;
    const stream = new DeepgramStt({ apiKey: KEY, url, bounds: { connectMs: 300 } }).open(PT, events);
    await until(() => heard.length > 0);
    await expect(stream.close()).resolves.toEqual({ seconds: 0 });
    expect(heard).toHaveLength(1);
    expect(failures()).toMatchObject([{ part: 'stt', kind: 'stalled' }]);
    expect(failures()[0].message).toMatch(/300 ms/);
  } finally {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => mute.close(resolve));
  }
});

it('keeps the last 2 s of audio sent before the socket opens and sends it first, in order', async () => {
  const stream = open(PT, sttListener().events);
  // Three seconds of frames, each unlike the others, sent before the handshake can complete.
  const early = Array.from({ length: 3 * FRAMES_PER_SECOND }, (_, i) => Uint8Array.from({ length: FRAME_BYTES }, (_, j) => (i * 31 + j) & 0xff));
  for (const frame of early) stream.send(frame);
  const session = await fake.session();
  await session.until(() => session.received >= 2 * FRAMES_PER_SECOND * FRAME_BYTES);
  const late = silence(200);
  for (const frame of late) stream.send(frame);
  await session.until(() => session.received >= bytes([...early.slice(FRAMES_PER_SECOND), ...late]));
  expect(session.audio.equals(Buffer.concat([...early.slice(FRAMES_PER_SECOND), ...late]))).toBe(true);
});

describe('a web call’s 16 kHz linear16', () => {
  const WIDE: SttOptions = { ...PT, audio: { encoding: 'linear16', sampleRate: 16000 } };
  /** 20 ms at 16 kHz, two bytes a sample. */
  const WIDE_FRAME_BYTES = 640;

  /** 16 kHz PCM as Deepgram's linear16 takes it: little-endian bytes, in 20 ms frames. */
  function wideFrames(pcm: Int16Array): Uint8Array[] {
    const out: Uint8Array[] = [];
    for (let at = 0; at < pcm.length; at += WIDE_FRAME_BYTES / 2) {
      const frame = Buffer.alloc(WIDE_FRAME_BYTES);
      pcm.subarray(at, at + WIDE_FRAME_BYTES / 2).forEach((sample, i) => frame.writeInt16LE(sample, i * 2));
      out.push(new Uint8Array(frame.buffer, frame.byteOffset, frame.length));
    }
    return out;
  }

  function wideSentence(): Uint8Array[] {
    const wav = readFileSync(path.join(__dirname, '..', 'fixtures', 'speech-pt-br-16k.wav'));
    return wideFrames(new Int16Array(wav.buffer.slice(wav.byteOffset + 44, wav.byteOffset + wav.length - ((wav.length - 44) % 2))));
  }

  const wideSilence = (ms: number) => wideFrames(new Int16Array((ms / 1000) * 16000));

  async function wideFeed(stream: SttStream, session: DeepgramSession, audio: Uint8Array[]): Promise<void> {
    for (let at = 0; at < audio.length; at += FRAMES_PER_SECOND) {
      const second = audio.slice(at, at + FRAMES_PER_SECOND);
      const expected = session.received + second.length * WIDE_FRAME_BYTES;
      for (const frame of second) stream.send(frame);
      await session.until(() => session.received >= expected);
    }
  }

  it('asks for encoding=linear16&sample_rate=16000, the rest of the query as for a phone call', async () => {
    open(WIDE, sttListener().events);
    const session = await fake.session();
    expect(Object.fromEntries(session.query)).toMatchObject({ model: 'nova-3', encoding: 'linear16', sample_rate: '16000', channels: '1', endpointing: '300', language: 'pt-BR' });
  });

  it('hears the sentence sent as 16 kHz little-endian PCM, at the times it was said', async () => {
    fake.transcripts.push(SENTENCE);
    const { events, heard, until, transcripts } = sttListener();
    const stream = open(WIDE, events);
    const session = await fake.session();
    const speech = wideSentence();
    await wideFeed(stream, session, [...wideSilence(1000), ...speech, ...wideSilence(1500)]);
    await until(() => heard.some((entry) => entry.event === 'utteranceEnd'));

    const finals = transcripts().filter((transcript) => transcript.isFinal);
    expect(finals).toMatchObject([{ text: SENTENCE, isFinal: true, speechFinal: true }]);
    const sentenceEnd = 1 + speech.length / FRAMES_PER_SECOND;
    expect(finals[0].start + finals[0].duration).toBeGreaterThan(sentenceEnd - 0.3);
    expect(finals[0].start + finals[0].duration).toBeLessThan(sentenceEnd + 0.4);
    expect(session.sent.find((message) => message.type === 'SpeechStarted')?.timestamp).toBeCloseTo(1, 1);
    // What Deepgram got is the sentence itself, sample for sample.
    const sent = Buffer.concat([...wideSilence(1000), ...speech, ...wideSilence(1500)]);
    expect(session.audio.equals(sent)).toBe(true);
  });

  it('counts two bytes a sample: the seconds Deepgram reports, and those of the audio sent when its Metadata never comes', async () => {
    const reported = open(WIDE, sttListener().events);
    const first = await fake.session();
    const audio = [...wideSilence(1000), ...wideSentence().slice(0, 30)];
    await wideFeed(reported, first, audio);
    await expect(reported.close()).resolves.toEqual({ seconds: 1.6 });
    expect(first.sent.at(-1)).toMatchObject({ type: 'Metadata', duration: 1.6 });

    fake.metadata = false;
    const quiet = open(WIDE, sttListener().events);
    const second = await fake.session();
    await wideFeed(quiet, second, audio);
    await expect(quiet.close()).resolves.toEqual({ seconds: 1.6 });
  });

  it('keeps the last 2 s of 16 kHz audio sent before the socket opens', async () => {
    const stream = open(WIDE, sttListener().events);
    const early = Array.from({ length: 3 * FRAMES_PER_SECOND }, (_, i) => Uint8Array.from({ length: WIDE_FRAME_BYTES }, (_, j) => (i * 31 + j) & 0xff));
    for (const frame of early) stream.send(frame);
    const session = await fake.session();
    await session.until(() => session.received >= 2 * FRAMES_PER_SECOND * WIDE_FRAME_BYTES);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(session.audio.equals(Buffer.concat(early.slice(FRAMES_PER_SECOND)))).toBe(true);
  });
});
