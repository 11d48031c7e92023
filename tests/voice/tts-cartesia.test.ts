import { CartesiaTts, cartesiaSpeed, type CartesiaBounds } from '../../src/voice/services/cartesia.tts';
import type { ServiceError, TtsEvents, TtsOptions, TtsSession } from '../../src/voice/services/service';
import { fakeSpeech, pcmBase64, speechSamples, startFakeCartesia, type FakeCartesia } from '../helpers/fakes/cartesia';

const KEY = 'sk_car_test_7f3a9c2e4b1d8a6f';
const OPTIONS: TtsOptions = { voiceId: null, language: 'pt', speed: 1, stability: 0.5, similarity: 0.75, sampleRate: 8000 };
/** Short bounds, so that a stall shows in a test's time. */
const QUICK: CartesiaBounds = { connectMs: 300, stallMs: 300 };

/** What an utterance told its listener. */
interface Heard {
  events: TtsEvents;
  audio: Int16Array[];
  done: number;
  failures: ServiceError[];
  /** The first `done` or failure. */
  end: Promise<'done' | ServiceError>;
}

function listen(onAudio: (pcm: Int16Array) => void = () => undefined): Heard {
  let finish!: (result: 'done' | ServiceError) => void;
  const heard: Heard = {
    audio: [],
    done: 0,
    failures: [],
    end: new Promise((resolve) => (finish = resolve)),
    events: {
      audio: (pcm) => {
        heard.audio.push(pcm);
        onAudio(pcm);
      },
      done: () => {
        heard.done++;
        finish('done');
      },
      failed: (error) => {
        heard.failures.push(error);
        finish(error);
      },
    },
  };
  return heard;
}

const joined = (heard: Heard) => Int16Array.from(heard.audio.flatMap((pcm) => Array.from(pcm)));

/** Long enough for anything late to arrive: a socket's close, and the stall watchdog's bound. */
const quiet = () => new Promise((resolve) => setTimeout(resolve, QUICK.stallMs + 100));

let fake: FakeCartesia;
const sessions: TtsSession[] = [];

function open(options: Partial<TtsOptions> = {}, tts = new CartesiaTts({ apiKey: KEY, url: fake.url })): TtsSession {
  const session = tts.open({ ...OPTIONS, ...options });
  sessions.push(session);
  return session;
}

beforeEach(async () => {
  fake = await startFakeCartesia(KEY);
});

afterEach(async () => {
  for (const session of sessions.splice(0)) session.close();
  await fake.close();
});

describe('Cartesia TTS', () => {
  it('opens its socket at once, with the key and version as headers, and sends each piece of text in the documented request', async () => {
    const session = open({ speed: 1.5 });
    const socket = await fake.socket();
    expect(socket.url).toBe('/tts/websocket');
    expect(socket.headers['x-api-key']).toBe(KEY);
    expect(socket.headers['cartesia-version']).toBe('2026-03-01');

    const heard = listen();
    const utterance = session.utterance(heard.events);
    utterance.push('Olá, ');
    utterance.push('tudo bem?');
    utterance.end();
    expect(await heard.end).toBe('done');

    const contextId = socket.messages[0].context_id;
    expect(contextId).toMatch(/^[0-9a-f-]{36}$/);
    const request = {
      model_id: 'sonic-3',
      voice: { mode: 'id', id: '71a7ad14-091c-4e8e-a314-022ece01c121' },
      language: 'pt',
      output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: 8000 },
      generation_config: { speed: 1.25 },
      context_id: contextId,
    };
    expect(socket.messages).toEqual([
      { ...request, transcript: 'Olá, ', continue: true },
      { ...request, transcript: 'tudo bem?', continue: true },
      { ...request, transcript: '', continue: false },
    ]);
  });

  it('keeps a space between the sentences of an utterance, as Cartesia reads its continuations joined as they are', async () => {
    const session = open();
    const socket = await fake.socket();
    const spoken = async (pieces: string[]) => {
      const heard = listen();
      const utterance = session.utterance(heard.events);
      for (const piece of pieces) utterance.push(piece);
      utterance.end();
      expect(await heard.end).toBe('done');
      return socket.transcript(socket.messages.at(-1)!.context_id);
    };
    // Sentences as the engine gives them: trimmed.
    expect(await spoken(['Olá.', 'Tudo bem?', 'Posso ajudar?'])).toBe('Olá. Tudo bem? Posso ajudar?');
    // Pieces that carry their own space are sent as they are.
    expect(await spoken(['Olá, ', 'tudo bem?', ' Até já.'])).toBe('Olá, tudo bem? Até já.');
    // Scripts written without spaces get none.
    expect(await spoken(['こんにちは。', '元気ですか？'])).toBe('こんにちは。元気ですか？');
    expect(session.characters).toBe('Olá. Tudo bem? Posso ajudar?Olá, tudo bem? Até já.こんにちは。元気ですか？'.length);
  });

  it('refuses what is not a message of Cartesia’s (null, a number, an array, a string, a chunk whose data is no text) without throwing, and speaks on', async () => {
    const session = open();
    const socket = await fake.socket();
    const heard = listen();
    const utterance = session.utterance(heard.events);
    utterance.push('Bom dia!');
    const { context_id: id } = await socket.message(() => true);
    for (const message of [null, 5, [], 'chunk', { type: 7, context_id: id }, { type: 'chunk', data: 5, context_id: id }, { type: 'chunk', data: { length: 2 }, context_id: id }]) {
      socket.send(message as never);
    }
    utterance.end();
    expect(await heard.end).toBe('done');
    expect(joined(heard)).toEqual(fakeSpeech(0, speechSamples('Bom dia!'.length, 8000), 8000));
  });

  it('maps the assistant’s speed onto Cartesia’s range, keeping normal normal', () => {
    expect([0.5, 0.75, 1, 1.5, 2].map(cartesiaSpeed)).toEqual([0.6, 0.8, 1, 1.25, 1.5]);
    expect([0.1, 3].map(cartesiaSpeed)).toEqual([0.6, 1.5]);
  });

  it.each([8000, 16000])('gives audio as long as the text at %i Hz, decoded sample for sample', async (sampleRate) => {
    const voiceId = 'a0e99841-438c-4a64-b679-ae501e7d6091';
    const session = open({ sampleRate, voiceId, language: null });
    const heard = listen();
    const utterance = session.utterance(heard.events);
    utterance.push('Bom dia! ');
    utterance.push('Em que posso ajudar?');
    utterance.end();
    expect(await heard.end).toBe('done');

    const socket = fake.sockets[0];
    expect(socket.messages[0]).toMatchObject({ voice: { mode: 'id', id: voiceId }, output_format: { sample_rate: sampleRate } });
    expect(socket.messages[0]).not.toHaveProperty('language');
    const samples = speechSamples('Bom dia! Em que posso ajudar?'.length, sampleRate);
    expect(joined(heard)).toEqual(fakeSpeech(0, samples, sampleRate));
  });

  it('speaks utterances on one socket, each in its own context, one after another and at once', async () => {
    const session = open();
    const first = listen();
    const one = session.utterance(first.events);
    one.push('Primeira.');
    one.end();
    expect(await first.end).toBe('done');

    const second = listen();
    const third = listen();
    const two = session.utterance(second.events);
    const three = session.utterance(third.events);
    two.push('Segunda, ');
    three.push('Um momento.');
    two.push('mais longa.');
    three.end();
    two.end();
    expect(await Promise.all([second.end, third.end])).toEqual(['done', 'done']);

    expect(fake.sockets).toHaveLength(1);
    const contexts = new Set(fake.sockets[0].messages.map((message) => message.context_id));
    expect(contexts.size).toBe(3);
    expect(joined(first)).toHaveLength(speechSamples('Primeira.'.length, 8000));
    expect(joined(second)).toHaveLength(speechSamples('Segunda, mais longa.'.length, 8000));
    expect(joined(third)).toHaveLength(speechSamples('Um momento.'.length, 8000));
  });

  it('a cancelled utterance goes quiet at once and Cartesia is told to cancel its context; the next utterance is spoken whole', async () => {
    const session = open();
    const socket = await fake.socket();
    const interrupted = listen(() => utterance.cancel());
    const utterance = session.utterance(interrupted.events);
    utterance.push('Uma frase bem longa, que o chamador interrompe logo no começo dela.');

    const contextId = (await socket.message((message) => message.transcript !== undefined)).context_id;
    expect(await socket.message((message) => message.cancel === true)).toEqual({ context_id: contextId, cancel: true });
    // What Cartesia had in flight when the cancel reached it.
    socket.send({ type: 'chunk', data: pcmBase64(new Int16Array(160)), done: false, status_code: 206, step_time: 5, context_id: contextId });
    socket.send({ type: 'done', done: true, status_code: 206, context_id: contextId });
    utterance.end();

    const next = listen();
    const after = session.utterance(next.events);
    after.push('Pois não?');
    after.end();
    expect(await next.end).toBe('done');
    expect(joined(next)).toEqual(fakeSpeech(0, speechSamples('Pois não?'.length, 8000), 8000));
    expect(interrupted.audio).toHaveLength(1);
    expect([interrupted.done, interrupted.failures.length]).toEqual([0, 0]);
    expect(socket.messages.filter((message) => message.context_id === contextId)).toHaveLength(2);
  });

  it('counts the characters sent, and not those of text cancelled before it was sent', async () => {
    const session = open();
    const dropped = session.utterance(listen().events);
    dropped.push('Nunca dito.');
    dropped.cancel();
    expect(session.characters).toBe(0);

    for (const pieces of [['Olá, ', 'tudo bem?'], ['Até logo!']]) {
      const heard = listen();
      const utterance = session.utterance(heard.events);
      for (const piece of pieces) utterance.push(piece);
      utterance.end();
      expect(await heard.end).toBe('done');
    }
    expect(session.characters).toBe('Olá, tudo bem?Até logo!'.length);
    expect(fake.sockets[0].messages.map((message) => message.transcript)).not.toContain('Nunca dito.');
  });

  it('an utterance ended with no text is done, and Cartesia hears nothing of it', async () => {
    const session = open();
    const heard = listen();
    session.utterance(heard.events).end();
    expect(await heard.end).toBe('done');
    expect((await fake.socket()).messages).toEqual([]);
  });

  it('joins a sample split between two chunks', async () => {
    const session = open();
    const socket = await fake.socket();
    socket.stall(); // the test speaks for Cartesia
    const heard = listen();
    const utterance = session.utterance(heard.events);
    utterance.push('Oi.');
    utterance.end();
    const contextId = (await socket.message((message) => message.continue === false)).context_id;
    const bytes = Buffer.alloc(6);
    [1000, -2000, 3000].forEach((sample, i) => bytes.writeInt16LE(sample, i * 2));
    for (const part of [bytes.subarray(0, 3), bytes.subarray(3)]) {
      socket.send({ type: 'chunk', data: part.toString('base64'), done: false, status_code: 206, step_time: 5, context_id: contextId });
    }
    socket.send({ type: 'done', done: true, status_code: 206, context_id: contextId });
    expect(await heard.end).toBe('done');
    expect(heard.audio.map((pcm) => Array.from(pcm))).toEqual([[1000], [-2000, 3000]]);
  });

  it('a wrong key fails the utterance as refused, once, and no message carries a key', async () => {
    const wrong = 'sk_car_wrong_0000000000000000';
    const session = open({}, new CartesiaTts({ apiKey: wrong, url: fake.url }, QUICK));
    const heard = listen();
    const utterance = session.utterance(heard.events);
    utterance.push('Alô?');
    utterance.end();
    const error = (await heard.end) as ServiceError;
    expect([error.part, error.kind]).toEqual(['tts', 'refused']);
    expect(error.message).toContain('401');
    expect(error.message).not.toContain(wrong);
    expect(error.message).not.toContain(KEY);
    await quiet();
    expect([heard.failures.length, heard.done, heard.audio.length]).toEqual([1, 0, 0]);
    expect(fake.sockets).toHaveLength(0);
  });

  it('an error message for the context fails the utterance as refused, once, and nothing more is sent for it', async () => {
    const session = open({ voiceId: 'not-a-voice' }, new CartesiaTts({ apiKey: KEY, url: fake.url }, QUICK));
    const heard = listen();
    const utterance = session.utterance(heard.events);
    utterance.push('Alô?');
    const error = (await heard.end) as ServiceError;
    expect([error.part, error.kind]).toEqual(['tts', 'refused']);
    expect(error.message).toContain('400');
    utterance.push(' Alguém aí?');
    utterance.end();
    await quiet();
    expect([heard.failures.length, heard.done]).toEqual([1, 0]);
    expect(fake.sockets[0].messages).toHaveLength(1);
  });

  it('a socket dropped mid-utterance fails it as dropped, once', async () => {
    const session = open({}, new CartesiaTts({ apiKey: KEY, url: fake.url }, QUICK));
    const socket = await fake.socket();
    socket.stall(); // so that the utterance is still under way when the socket goes
    const heard = listen();
    const utterance = session.utterance(heard.events);
    utterance.push('Uma frase que não chega ao fim.');
    await socket.message((message) => message.transcript !== undefined);
    socket.drop();
    const error = (await heard.end) as ServiceError;
    expect([error.part, error.kind]).toEqual(['tts', 'dropped']);
    await quiet();
    expect([heard.failures.length, heard.done]).toEqual([1, 0]);
  });

  it('no first audio within the bound fails the utterance as stalled, once, and cancels its context', async () => {
    fake.firstByteMs = 3 * QUICK.stallMs;
    const session = open({}, new CartesiaTts({ apiKey: KEY, url: fake.url }, QUICK));
    const socket = await fake.socket();
    const heard = listen();
    const utterance = session.utterance(heard.events);
    utterance.push('Alô?');
    const error = (await heard.end) as ServiceError;
    expect([error.part, error.kind]).toEqual(['tts', 'stalled']);
    expect(error.message).not.toContain(KEY);
    const contextId = socket.messages[0].context_id;
    expect(await socket.message((message) => message.cancel === true)).toEqual({ context_id: contextId, cancel: true });
    utterance.end();
    await quiet();
    expect([heard.failures.length, heard.done]).toEqual([1, 0]);
    expect(socket.messages).toHaveLength(2); // the text and the cancel: not the end of a context given up
  });

  it('an error message of no context fails every utterance on the socket as refused', async () => {
    const session = open({}, new CartesiaTts({ apiKey: KEY, url: fake.url }, QUICK));
    const socket = await fake.socket();
    socket.stall();
    const heard = [listen(), listen()];
    for (const each of heard) session.utterance(each.events).push('Alô?');
    await socket.message((message) => message.transcript === 'Alô?' && message.context_id !== socket.messages[0].context_id);
    socket.send({ type: 'error', done: true, status_code: 429, error_code: 'concurrency_limited', title: 'Too many concurrent requests', message: 'You have exceeded your plan’s concurrency limit.', request_id: 'c0ffee00-0000-4000-8000-000000000000' });
    const errors = (await Promise.all(heard.map((each) => each.end))) as ServiceError[];
    expect(errors.map((error) => [error.kind, error.message])).toEqual([
      ['refused', 'Cartesia refused the request (429, concurrency_limited)'],
      ['refused', 'Cartesia refused the request (429, concurrency_limited)'],
    ]);
  });

  it('audio that stops after the utterance ended fails it as stalled, once', async () => {
    const session = open({}, new CartesiaTts({ apiKey: KEY, url: fake.url }, QUICK));
    const socket = await fake.socket();
    socket.stall(); // the test speaks for Cartesia: one chunk, then nothing
    const heard = listen();
    const utterance = session.utterance(heard.events);
    utterance.push('Uma frase que para no meio.');
    utterance.end();
    const contextId = (await socket.message((message) => message.continue === false)).context_id;
    socket.send({ type: 'chunk', data: pcmBase64(fakeSpeech(0, 160, 8000)), done: false, status_code: 206, step_time: 5, context_id: contextId });
    const error = (await heard.end) as ServiceError;
    expect([error.part, error.kind]).toEqual(['tts', 'stalled']);
    await quiet();
    expect([heard.failures.length, heard.done, heard.audio.length]).toEqual([1, 0, 1]);
  });

  it('a Cartesia that cannot be reached fails the utterance as dropped', async () => {
    const url = fake.url;
    await fake.close();
    fake = await startFakeCartesia(KEY); // for afterEach; the first one's port is closed
    const session = open({}, new CartesiaTts({ apiKey: KEY, url }, QUICK));
    const heard = listen();
    session.utterance(heard.events).push('Alô?');
    const error = (await heard.end) as ServiceError;
    expect([error.part, error.kind, error.message]).toEqual(['tts', 'dropped', 'Cartesia could not be reached']);
  });

  it('a handshake left unanswered fails the utterance as stalled', async () => {
    fake.holdHandshakes = true;
    const session = open({}, new CartesiaTts({ apiKey: KEY, url: fake.url }, { connectMs: QUICK.connectMs, stallMs: 10_000 }));
    const heard = listen();
    const utterance = session.utterance(heard.events);
    utterance.push('Alô?');
    utterance.end();
    const error = (await heard.end) as ServiceError;
    expect([error.part, error.kind]).toEqual(['tts', 'stalled']);
    await quiet();
    expect(heard.failures).toHaveLength(1);
    expect(fake.sockets).toHaveLength(0);
  });

  it('after Cartesia closes an idle socket the next utterance opens another, even while the close is under way; a refused reconnect fails as refused', async () => {
    const session = open({}, new CartesiaTts({ apiKey: KEY, url: fake.url }, QUICK));
    const first = await fake.socket();
    const before = listen();
    const one = session.utterance(before.events);
    one.push('Antes.');
    one.end();
    expect(await before.end).toBe('done');
    await first.closeHeld();

    const after = listen();
    const two = session.utterance(after.events);
    two.push('Depois.');
    two.end();
    expect(await after.end).toBe('done');
    const second = await fake.socket();
    expect(second.messages.map((message) => message.transcript)).toEqual(['Depois.', '']);
    expect(first.messages.map((message) => message.transcript)).toEqual(['Antes.', '']);

    second.close();
    await second.closed;
    fake.refuse = true;
    const refused = listen();
    const three = session.utterance(refused.events);
    three.push('Alô?');
    three.end();
    const error = (await refused.end) as ServiceError;
    expect([error.part, error.kind]).toEqual(['tts', 'refused']);
    expect(fake.sockets).toHaveLength(2);
  });
});
