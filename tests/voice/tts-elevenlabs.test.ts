import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { DEFAULT_VOICE_ID, ElevenLabsTts, type ElevenLabsBounds } from '../../src/voice/services/elevenlabs.tts';
import type { ServiceError, TtsEvents, TtsOptions, TtsSession, TtsUtterance } from '../../src/voice/services/service';
import { fakeSpeech, MS_PER_CHARACTER, spokenCharacters, startFakeElevenLabs, type FakeElevenLabs } from '../helpers/fakes/elevenlabs';

/**
 * The ElevenLabs stream-input service against a local fake of the vendor's socket: what goes on
 * the wire, the audio that comes back, and each way the vendor can fail.
 */

const KEY = 'xi-test-key-7f3a9c';
const OPTIONS: TtsOptions = { voiceId: 'voice-abc', language: 'pt', speed: 1, stability: 0.5, similarity: 0.75, sampleRate: 16000 };
const SHORT: ElevenLabsBounds = { openMs: 300, answerMs: 300 };

let fake: FakeElevenLabs;
beforeEach(async () => {
  fake = await startFakeElevenLabs(KEY);
});
afterEach(() => fake.close());

/** What an utterance reported, in order, and when it settles. */
function listen() {
  const log: string[] = [];
  const audio: Int16Array[] = [];
  const errors: ServiceError[] = [];
  let settle: () => void;
  const settled = new Promise<void>((resolve) => (settle = resolve));
  return {
    log,
    audio,
    errors,
    settled,
    events: {
      audio: (pcm) => void (log.push('audio'), audio.push(pcm)),
      done: () => (log.push('done'), settle()),
      failed: (error) => (log.push('failed'), errors.push(error), settle()),
    } as TtsEvents,
    pcm: () => Int16Array.from(audio.flatMap((chunk) => Array.from(chunk))),
  };
}

/** Speaks `pieces` as one utterance and waits for it to settle. */
async function speak(session: TtsSession, pieces: string[]) {
  const heard = listen();
  const utterance = session.utterance(heard.events);
  for (const piece of pieces) utterance.push(piece);
  utterance.end();
  await heard.settled;
  return heard;
}

/** The texts the client sent after the first message. */
const texts = (messages: Record<string, any>[]) => messages.slice(1).map((message) => message.text);

it('opens stream-input with the key in the header and the assistant voice settings in the first message', async () => {
  const session = new ElevenLabsTts({ apiKey: KEY, url: fake.url }).open({ ...OPTIONS, speed: 1.5, stability: 0.3, similarity: 0.9 });
  const heard = await speak(session, ['Olá, tudo bem?']);
  const socket = await fake.socket();

  expect(heard.log.at(-1)).toBe('done');
  expect(socket.voiceId).toBe('voice-abc');
  expect(socket.query).toEqual({ model_id: 'eleven_flash_v2_5', output_format: 'pcm_16000', auto_mode: 'true', inactivity_timeout: '180', language_code: 'pt' });
  expect(socket.headers['xi-api-key']).toBe(KEY);
  expect(socket.messages[0]).toEqual({ text: ' ', voice_settings: { stability: 0.3, similarity_boost: 0.9, speed: 1.2 } });
  expect(socket.messages.slice(1)).toEqual([{ text: 'Olá, tudo bem? ' }, { text: ' ', flush: true }, { text: '' }]);
});

it('speaks with the default voice, slows no further than ElevenLabs allows, and leaves a language flash v2.5 lacks to the model', async () => {
  const session = new ElevenLabsTts({ apiKey: KEY, url: fake.url }).open({ ...OPTIONS, voiceId: null, language: 'ca', speed: 0.5 });
  await speak(session, ['Bon dia.']);
  const socket = await fake.socket();

  expect(socket.voiceId).toBe(DEFAULT_VOICE_ID);
  expect(socket.query.language_code).toBeUndefined();
  expect(socket.messages[0].voice_settings.speed).toBe(0.7);
});

it.each([
  [8000, 'pcm_8000'],
  [16000, 'pcm_16000'],
])('gives the speech of the text at %i Hz, asked as %s', async (sampleRate, format) => {
  const session = new ElevenLabsTts({ apiKey: KEY, url: fake.url }).open({ ...OPTIONS, sampleRate });
  const pieces = ['Bom dia, aqui é a Ana da clínica.', 'Posso confirmar a sua consulta de amanhã às dez horas?'];
  const heard = await speak(session, pieces);
  const socket = await fake.socket();

  const samples = (spokenCharacters(pieces.join('')) * MS_PER_CHARACTER * sampleRate) / 1000;
  expect(socket.query.output_format).toBe(format);
  expect(heard.log.filter((event) => event === 'audio').length).toBeGreaterThan(2);
  const pcm = heard.pcm();
  expect(pcm.length).toBe(samples);
  // Sample for sample the fake's tone, though its chunks split samples in two.
  expect(Buffer.from(pcm.buffer).equals(Buffer.from(fakeSpeech(0, samples, sampleRate).buffer))).toBe(true);
});

it('asks 48 kHz speech at 24 kHz and doubles its rate', async () => {
  const session = new ElevenLabsTts({ apiKey: KEY, url: fake.url }).open({ ...OPTIONS, sampleRate: 48000 });
  const heard = await speak(session, ['Um momento, por favor.']);
  const socket = await fake.socket();

  expect(socket.query.output_format).toBe('pcm_24000');
  expect(heard.pcm().length).toBe((spokenCharacters('Um momento, por favor.') * MS_PER_CHARACTER * 48000) / 1000);
});

it('sends the pieces pushed before the socket opened, in order, once it opens', async () => {
  const session = new ElevenLabsTts({ apiKey: KEY, url: fake.url }).open(OPTIONS);
  const heard = listen();
  const utterance = session.utterance(heard.events);
  utterance.push('Primeiro.');
  utterance.push('  Segundo,  ');
  utterance.push('terceiro.');
  utterance.end();
  await heard.settled;
  const socket = await fake.socket();

  expect(texts(socket.messages)).toEqual(['Primeiro. ', 'Segundo, ', 'terceiro. ', ' ', '']);
  expect(heard.pcm().length).toBe((spokenCharacters('Primeiro.Segundo,terceiro.') * MS_PER_CHARACTER * 16000) / 1000);
});

it('goes silent when cancelled mid-utterance: no more audio, done or failure', async () => {
  const session = new ElevenLabsTts({ apiKey: KEY, url: fake.url }).open(OPTIONS);
  const heard = listen();
  let utterance: TtsUtterance;
  heard.events.audio = (pcm) => {
    heard.log.push('audio');
    heard.audio.push(pcm);
    utterance.cancel();
  };
  utterance = session.utterance(heard.events);
  utterance.push('Esta frase é longa o bastante para a fala chegar em muitas mensagens de áudio seguidas.');
  utterance.end();
  const socket = await fake.socket();
  await socket.closed;
  await new Promise((resolve) => setImmediate(resolve));

  expect(socket.audioSent).toBeGreaterThan(1);
  expect(heard.log).toEqual(['audio']);
  expect(() => utterance.push('Mais texto.')).not.toThrow();
});

it('counts the characters sent over a session of two utterances, one socket each', async () => {
  const session = new ElevenLabsTts({ apiKey: KEY, url: fake.url }).open(OPTIONS);
  const first = await speak(session, ['Bom dia.', 'Tudo bem?']);
  const second = await speak(session, ['Até logo.']);
  const sockets = [await fake.socket(), await fake.socket()];

  expect([first.log.at(-1), second.log.at(-1)]).toEqual(['done', 'done']);
  expect(texts(sockets[0].messages)).toEqual(['Bom dia. ', 'Tudo bem? ', ' ', '']);
  expect(texts(sockets[1].messages)).toEqual(['Até logo. ', ' ', '']);
  expect(session.characters).toBe('Bom dia.Tudo bem?Até logo.'.length);
});

it.each([
  ['a wrong key', 'wrong-key-1234', false],
  ['a revoked key', KEY, true],
])('fails once as refused for %s, without the key in the message', async (_case, apiKey, revoked) => {
  fake.refuse = revoked;
  const session = new ElevenLabsTts({ apiKey, url: fake.url }).open(OPTIONS);
  const heard = listen();
  const utterance = session.utterance(heard.events);
  utterance.push('Olá.');
  utterance.end();
  await heard.settled;
  const socket = await fake.socket();
  await socket.closed;
  await new Promise((resolve) => setImmediate(resolve));

  expect(heard.log).toEqual(['failed']);
  expect(heard.errors[0]).toMatchObject({ part: 'tts', kind: 'refused' });
  expect(heard.errors[0].message).toContain('invalid_api_key');
  expect(heard.errors[0].message).not.toContain(apiKey);
});

it('fails as refused when the handshake is answered with an HTTP status', async () => {
  fake.handshakeStatus = 403;
  const session = new ElevenLabsTts({ apiKey: KEY, url: fake.url }).open(OPTIONS);
  const heard = await speak(session, ['Olá.']);

  expect(heard.log).toEqual(['failed']);
  expect(heard.errors[0]).toMatchObject({ part: 'tts', kind: 'refused', message: 'ElevenLabs refused the stream: HTTP 403' });
});

it('fails once as dropped when the connection is lost mid-utterance', async () => {
  const session = new ElevenLabsTts({ apiKey: KEY, url: fake.url }).open(OPTIONS);
  const heard = listen();
  const utterance = session.utterance(heard.events);
  const socket = await fake.socket();
  heard.events.audio = (pcm) => {
    heard.log.push('audio');
    heard.audio.push(pcm);
    socket.drop();
  };
  fake.firstByteMs = 50;
  utterance.push('Primeira frase.');
  utterance.push('Segunda frase, que nunca chega.');
  utterance.end();
  await heard.settled;
  await socket.closed;

  expect(heard.log.filter((event) => event !== 'audio')).toEqual(['failed']);
  expect(heard.errors[0]).toMatchObject({ part: 'tts', kind: 'dropped' });
});

it('fails once as dropped when ElevenLabs cannot be reached', async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const url = `ws://127.0.0.1:${(closed.address() as AddressInfo).port}`;
  await new Promise((resolve) => closed.close(resolve));
  const session = new ElevenLabsTts({ apiKey: KEY, url }).open(OPTIONS);
  const heard = await speak(session, ['Olá.']);

  expect(heard.log).toEqual(['failed']);
  expect(heard.errors[0]).toMatchObject({ part: 'tts', kind: 'dropped' });
});

it('fails once as stalled when ElevenLabs stops answering after the end of the text', async () => {
  const session = new ElevenLabsTts({ apiKey: KEY, url: fake.url }, SHORT).open(OPTIONS);
  const heard = listen();
  const utterance = session.utterance(heard.events);
  const socket = await fake.socket();
  socket.stall();
  utterance.push('Olá, tem alguém aí?');
  utterance.end();
  const started = Date.now();
  await heard.settled;
  await socket.closed;

  expect(Date.now() - started).toBeGreaterThanOrEqual(SHORT.answerMs - 5);
  expect(heard.log).toEqual(['failed']);
  expect(heard.errors[0]).toMatchObject({ part: 'tts', kind: 'stalled' });
  expect(socket.messages.at(-1)).toEqual({ text: '' });
});

it('fails once as stalled when the handshake never completes', async () => {
  const held: Socket[] = [];
  const silent: Server = createServer((connection) => held.push(connection));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  try {
    const url = `ws://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const session = new ElevenLabsTts({ apiKey: KEY, url }, SHORT).open(OPTIONS);
    const heard = await speak(session, ['Olá.']);

    expect(heard.log).toEqual(['failed']);
    expect(heard.errors[0]).toMatchObject({ part: 'tts', kind: 'stalled' });
  } finally {
    for (const connection of held) connection.destroy();
    await new Promise((resolve) => silent.close(resolve));
  }
});

it('silences the utterances still speaking when the session closes', async () => {
  const session = new ElevenLabsTts({ apiKey: KEY, url: fake.url }).open(OPTIONS);
  const heard = listen();
  const utterance = session.utterance(heard.events);
  const socket = await fake.socket();
  socket.stall();
  utterance.push('Uma frase que não chega a ser dita.');
  utterance.end();
  session.close();
  await socket.closed;
  await new Promise((resolve) => setImmediate(resolve));

  expect(heard.log).toEqual([]);
  expect(() => session.utterance(listen().events)).toThrow('closed');
});
