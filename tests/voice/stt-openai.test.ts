import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { OpenAiStt } from '../../src/voice/services/openai.stt';
import type { ServiceError, SttEvents, SttStream, Transcript } from '../../src/voice/services/service';
import { speech } from '../helpers/caller';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fakes/openai';

/**
 * Speech to text by turns (src/voice/services/openai.stt.ts) against a local server that speaks
 * `POST /v1/audio/transcriptions` and reads the WAV it is sent (tests/helpers/fakes/openai.ts),
 * over real HTTP.
 */
jest.setTimeout(20_000);

const KEY = 'sk-test-stt-0123456789abcdef';
let fake: FakeOpenAi;

beforeAll(async () => {
  fake = await startFakeOpenAi(KEY);
});
afterAll(() => fake?.close());
beforeEach(() => {
  fake.transcriptions.length = 0;
  fake.transcriptionRequests.length = 0;
  fake.transcriptionMs = 0;
});

const stt = (options: Partial<ConstructorParameters<typeof OpenAiStt>[0]> = {}) =>
  new OpenAiStt({ apiKey: KEY, url: fake.url, model: 'Systran/faster-whisper-small', vendor: 'whisper', requestMs: 3000, ...options });

/** What a stream emits, in order. */
function listen() {
  const heard: (Transcript | ServiceError)[] = [];
  const waiters: (() => void)[] = [];
  const push = (event: Transcript | ServiceError) => {
    heard.push(event);
    waiters.splice(0).forEach((wake) => wake());
  };
  const events: SttEvents = { transcript: push, failed: push, utteranceEnd: () => {}, speechStarted: () => {} };
  const count = async (n: number) => {
    while (heard.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
    return heard;
  };
  return { events, heard, count };
}

/** A phone call's frames (8 kHz mu-law, 20 ms each). */
const phone = (frames: string[], stream: SttStream) => frames.forEach((frame) => stream.send(Buffer.from(frame, 'base64')));
const silence = (ms: number) => Array.from({ length: ms / 20 }, () => Buffer.alloc(160, 0xff).toString('base64'));

it('posts a phone turn from the VAD’s start as a 16 kHz mono WAV (with a short lead), with the model, the language and json, and gives its text as a final', async () => {
  fake.transcriptions.push('Olá, quero saber do meu pedido.');
  const { events, count } = listen();
  const stream = stt().open({ language: 'pt', endpointingMs: 400 }, events);
  phone(silence(3000), stream); // the assistant's turn: not sent
  stream.speechStarted!();
  phone(speech(), stream);
  stream.finalize();
  const [final] = await count(1);
  const seconds = speech().length * 0.02;
  expect(final).toEqual({ text: 'Olá, quero saber do meu pedido.', isFinal: true, speechFinal: true, fromFinalize: true, start: expect.any(Number), duration: expect.any(Number) });
  const sent = fake.transcriptionRequests[0];
  expect(sent).toMatchObject({ model: 'Systran/faster-whisper-small', language: 'pt', responseFormat: 'json' });
  expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
  // The speech and at most half a second before it; the resampled speech is loud.
  expect(sent.seconds).toBeGreaterThanOrEqual(seconds);
  expect(sent.seconds).toBeLessThanOrEqual(seconds + 0.5 + 0.02);
  expect(sent.rms).toBeGreaterThan(500);
  // The stream's clock: the turn began 3 s in, less the lead.
  expect((final as Transcript).start).toBeCloseTo(3 - (sent.seconds - seconds), 1);
  expect(await stream.close()).toEqual({ seconds: sent.seconds });
});

it('takes a web call’s 16 kHz PCM as it is, and leaves the language out when the assistant has none', async () => {
  fake.transcriptions.push('Hello.');
  const { events, count } = listen();
  const stream = stt().open({ language: null, endpointingMs: 400, audio: { encoding: 'linear16', sampleRate: 16000 } }, events);
  stream.speechStarted!();
  const pcm = new Int16Array(16000).map((_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 16000)));
  stream.send(new Uint8Array(pcm.buffer));
  stream.finalize();
  expect((await count(1))[0]).toMatchObject({ text: 'Hello.', fromFinalize: true, start: 0, duration: 1 });
  expect(fake.transcriptionRequests[0]).toMatchObject({ language: null, seconds: 1 });
  expect(fake.transcriptionRequests[0].rms).toBeCloseTo(8000 / Math.SQRT2, -2);
});

it('gives the turns’ words in the order the turns ended, though a later one is transcribed first', async () => {
  fake.transcriptions.push({ text: 'primeira', latencyMs: 400 }, 'segunda');
  const { events, count } = listen();
  const stream = stt().open({ language: 'pt', endpointingMs: 400 }, events);
  for (let turn = 0; turn < 2; turn++) {
    stream.speechStarted!();
    phone(speech().slice(0, 40), stream);
    stream.finalize();
    phone(silence(500), stream);
  }
  const heard = (await count(2)) as Transcript[];
  expect(heard.map((t) => t.text)).toEqual(['primeira', 'segunda']);
  expect(heard[1].start).toBeGreaterThanOrEqual(heard[0].start + heard[0].duration);
});

it('answers a turn too short to hold a word with no words, and asks nothing', async () => {
  const { events, count } = listen();
  const stream = stt().open({ language: 'pt', endpointingMs: 400 }, events);
  stream.finalize();
  expect((await count(1))[0]).toMatchObject({ text: '', fromFinalize: true });
  expect(fake.transcriptionRequests).toEqual([]);
});

describe('failures are ServiceErrors of the stt, transient when a second attempt may do', () => {
  const turn = async (service: OpenAiStt) => {
    const { events, count } = listen();
    const stream = service.open({ language: 'pt', endpointingMs: 400 }, events);
    stream.speechStarted!();
    phone(speech().slice(0, 40), stream);
    stream.finalize();
    return (await count(1))[0] as ServiceError;
  };

  it.each([
    [429, { retryAfterMs: null }],
    [500, { retryAfterMs: null }],
    [400, null],
  ])('HTTP %i', async (status, transient) => {
    fake.transcriptions.push({ status });
    const error = await turn(stt());
    expect(error).toMatchObject({ name: 'ServiceError', part: 'stt', kind: 'refused', transient, message: expect.stringContaining(`HTTP ${status}`) });
  });

  it('a wrong key: refused, the key never in the message', async () => {
    const error = await turn(stt({ apiKey: 'sk-wrong-key-123456789' }));
    expect(error).toMatchObject({ part: 'stt', kind: 'refused', transient: null });
    expect(error.message).not.toContain('sk-wrong');
  });

  it('a server that never answers: stalled within the bound', async () => {
    fake.transcriptions.push({ stall: true });
    const started = Date.now();
    const error = await turn(stt({ requestMs: 300 }));
    expect(error).toMatchObject({ part: 'stt', kind: 'stalled', transient: { retryAfterMs: null } });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('no server at all: dropped', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await turn(stt({ url: `http://127.0.0.1:${port}/v1` }));
    expect(error).toMatchObject({ part: 'stt', kind: 'dropped', transient: { retryAfterMs: null } });
  });
});
