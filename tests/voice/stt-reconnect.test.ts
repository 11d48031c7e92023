import type { VendorEvent } from '../../src/modules/calls/call.vendor-events';
import { encode } from '../../src/voice/codecs/mulaw';
import { DeepgramStt, type DeepgramBounds } from '../../src/voice/services/deepgram.stt';
import { ReconnectingStt, type ReconnectRule } from '../../src/voice/services/reconnecting.stt';
import type { SttEvents, SttOptions, SttStream, Transcript } from '../../src/voice/services/service';
import { startFakeDeepgram, type DeepgramSession, type FakeDeepgram } from '../helpers/fakes/deepgram';
import { sttListener } from '../helpers/stt-listener';

/**
 * Deepgram that does not end a call by itself (design.md, "Vendors that never end a call by
 * themselves"): DeepgramStt inside ReconnectingStt, against the local fake on real sockets. The
 * fake hears speech by energy on the audio's clock; the caller's audio here is a tone for speech
 * and zero for silence, so each utterance begins and ends at a known second of the stream.
 */
const KEY = 'dg-key-7c3e1b90aa';
const PT: SttOptions = { language: 'pt-BR', endpointingMs: 300 };
const RATE = 8000;
const FRAME_BYTES = 160;

function frames(mulaw: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at < mulaw.length; at += FRAME_BYTES) out.push(mulaw.slice(at, at + FRAME_BYTES));
  return out;
}
const tone = (seconds: number) => frames(encode(Int16Array.from({ length: seconds * RATE }, (_, i) => Math.round(6000 * Math.sin((2 * Math.PI * 300 * i) / RATE)))));
const silence = (seconds: number) => frames(new Uint8Array(seconds * RATE).fill(0xff));
const bytesOf = (audio: Uint8Array[]) => Buffer.concat(audio);


let fake: FakeDeepgram;
let streams: SttStream[] = [];
let reports: VendorEvent[] = [];

beforeEach(async () => {
  fake = await startFakeDeepgram(KEY);
  reports = [];
});

afterEach(async () => {
  await Promise.all(streams.splice(0).map((stream) => stream.close()));
  await fake.close();
});

function open(events: SttEvents, options: { bounds?: Partial<DeepgramBounds>; rule?: Partial<ReconnectRule>; apiKey?: string; onReport?: () => void } = {}): SttStream {
  const report = (event: VendorEvent) => {
    reports.push(event);
    options.onReport?.();
  };
  const stt = new ReconnectingStt(new DeepgramStt({ apiKey: options.apiKey ?? KEY, url: fake.url, bounds: options.bounds }), report, options.rule);
  const stream = stt.open(PT, events);
  streams.push(stream);
  return stream;
}

/** Sends the audio and waits until the session has it all. */
async function feed(stream: SttStream, session: DeepgramSession, audio: Uint8Array[]): Promise<void> {
  const expected = session.received + bytesOf(audio).length;
  for (const frame of audio) stream.send(frame);
  await session.until(() => session.received >= expected);
}

/** Each result begins where the one before it ended or later: the engine's times never go back. */
function expectMonotonic(transcripts: Transcript[]): void {
  let finalUntil = 0;
  for (const transcript of transcripts) {
    expect(transcript.start).toBeGreaterThanOrEqual(finalUntil - 0.005);
    if (transcript.isFinal) finalUntil = transcript.start + transcript.duration;
  }
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 300));

it('reconnects a socket dropped mid-utterance: the last 2 s replayed first, the words after the drop heard, times monotonic, no final twice', async () => {
  const { events, until, transcripts, finals, failures } = sttListener();
  const stream = open(events);
  const first = await fake.session();
  // The old socket hears A and the start of B; the new one hears the replay (A's tail, then B's start) and the rest of B.
  fake.transcripts.push('um dois três', 'quatro cinco', 'três', 'quatro cinco seis sete');
  const audio = [...silence(1), ...tone(2), ...silence(0.5), ...tone(3.5), ...silence(1)];
  const beforeDrop = audio.slice(0, 4.5 * 50);
  await feed(stream, first, beforeDrop);
  await until(() => transcripts().some((t) => !t.isFinal && t.text.startsWith('quatro')));
  expect(finals().map((t) => t.text)).toEqual(['um dois três']);

  first.drop();
  const second = await fake.session();
  await second.until(() => second.received >= 2 * RATE);
  expect(Buffer.compare(second.audio, bytesOf(beforeDrop).subarray(2.5 * RATE))).toBe(0);
  expect(Object.fromEntries(second.query)).toEqual(Object.fromEntries(first.query));
  expect(reports).toEqual([{ type: 'vendor_retried', part: 'stt', vendor: 'deepgram', reason: expect.stringContaining('1006') }]);

  await feed(stream, second, audio.slice(4.5 * 50));
  await until(() => finals().some((t) => t.text.includes('sete')));
  expect(failures()).toEqual([]);
  // The replayed tail of A ("três") was final already; B is heard whole, at the stream's seconds.
  expect(finals().map((t) => t.text)).toEqual(['um dois três', 'quatro cinco seis sete']);
  const b = finals()[1];
  expect(b.start).toBeCloseTo(3.3, 2);
  expect(b.start + b.duration).toBeCloseTo(7.3, 2);
  expect(b.words?.[0].start).toBeCloseTo(3.5, 2);
  expectMonotonic(transcripts());
  // Every socket's seconds: 4.5 on the first (its Metadata lost with it), 2 replayed and 3.5 on the second.
  await expect(stream.close()).resolves.toEqual({ seconds: 10 });
});

it('keeps the interim words said before the replay as final, so a drop deep in a long utterance loses none', async () => {
  const { events, until, transcripts, finals } = sttListener();
  const stream = open(events);
  const first = await fake.session();
  fake.transcripts.push('um dois três quatro cinco seis sete oito', 'cinco seis sete oito nove');
  await feed(stream, first, [...silence(1), ...tone(5)]);
  // The last interim (at 6 s) spreads its words over 1-6 s: those ending by 4 s are before the replay.
  await until(() => transcripts().some((t) => !t.isFinal && t.start + t.duration > 5.99));
  first.drop();
  const second = await fake.session();
  await feed(stream, second, [...tone(1), ...silence(1)]);
  await until(() => finals().some((t) => t.text.includes('nove')));
  expect(finals().map((t) => t.text)).toEqual(['um dois três quatro', 'cinco seis sete oito nove']);
  expect(finals()[0].start + finals()[0].duration).toBeCloseTo(3.5, 2);
  expect(finals()[1].start).toBeCloseTo(4, 2);
  expectMonotonic(transcripts());
});

it('reconnects a stalled socket and hears the words said after it', async () => {
  const { events, until, finals, failures } = sttListener();
  const stream = open(events, { bounds: { stallMs: 600 } });
  const first = await fake.session();
  await feed(stream, first, silence(1));
  first.stall();
  // The line goes on as a phone's: a frame every 20 ms.
  const line = setInterval(() => stream.send(silence(0.02)[0]), 20);
  const second = await fake.session().finally(() => clearInterval(line));
  expect(reports).toEqual([{ type: 'vendor_retried', part: 'stt', vendor: 'deepgram', reason: expect.stringContaining('sent nothing for 600 ms') }]);
  fake.transcripts.push('alô');
  await feed(stream, second, [...tone(1), ...silence(1)]);
  await until(() => finals().length === 1);
  expect(finals()[0].text).toBe('alô');
  expect(failures()).toEqual([]);
});

it('fails the stream at the third failure within 30 s, and not when 30 s passed since the first two', async () => {
  let now = 0;
  const failing = sttListener();
  open(failing.events, { rule: { now: () => now } });
  for (const at of [0, 10_000, 20_000]) {
    now = at;
    (await fake.session()).drop();
  }
  await failing.until(() => failing.failures().length === 1);
  expect(failing.failures()[0]).toMatchObject({ part: 'stt', kind: 'dropped' });
  expect(reports.map((r) => r.type)).toEqual(['vendor_retried', 'vendor_retried']);
  await flush();
  expect(fake.sessions).toHaveLength(3);

  reports = [];
  now = 100_000;
  const lasting = sttListener();
  const stream = open(lasting.events, { rule: { now: () => now } });
  for (const at of [100_000, 101_000, 131_000]) {
    now = at;
    (await fake.session()).drop();
  }
  const fourth = await fake.session();
  fake.transcripts.push('ainda aqui');
  await feed(stream, fourth, [...tone(1), ...silence(1)]);
  await lasting.until(() => lasting.finals().length === 1);
  expect(lasting.failures()).toEqual([]);
  expect(reports).toHaveLength(3);
});

it('counts a reconnect that Deepgram does not take (HTTP 503) as a failure', async () => {
  const { events, until, failures } = sttListener();
  open(events);
  const first = await fake.session();
  Object.assign(fake, { refuse: true, refuseStatus: 503 });
  first.drop();
  await until(() => failures().length === 1);
  expect(failures()[0].message).toMatch(/HTTP 503/);
  expect(reports.map((r) => r.reason)).toEqual([expect.stringContaining('1006'), expect.stringContaining('HTTP 503')]);
  expect(fake.sessions).toHaveLength(1);
});

it('fails at once on a refusal, with no retry and no key in a message: a wrong key, a key revoked at the reconnect, audio Deepgram cannot decode', async () => {
  const wrong = sttListener();
  open(wrong.events, { apiKey: 'dg-wrong-key-000' });
  await wrong.until(() => wrong.failures().length === 1);
  expect(wrong.failures()[0]).toMatchObject({ part: 'stt', kind: 'refused', message: expect.stringContaining('HTTP 401') });
  expect(wrong.failures()[0].message).not.toContain('dg-wrong-key-000');

  const revoked = sttListener();
  open(revoked.events);
  const first = await fake.session();
  fake.refuse = true;
  first.drop();
  await revoked.until(() => revoked.failures().length === 1);
  expect(revoked.failures()[0]).toMatchObject({ kind: 'refused', message: expect.stringContaining('HTTP 401') });
  expect(reports).toHaveLength(1);
  fake.refuse = false;

  const garbled = sttListener();
  open(garbled.events);
  (await fake.session()).close(1008, 'DATA-0000');
  await garbled.until(() => garbled.failures().length === 1);
  expect(garbled.failures()[0]).toMatchObject({ kind: 'refused', message: expect.stringContaining('1008 DATA-0000') });
  await flush();
  expect(reports).toHaveLength(1);
  expect(fake.sessions).toHaveLength(2);
  for (const message of [...wrong.failures(), ...revoked.failures(), ...garbled.failures(), ...reports].map((m) => ('message' in m ? m.message : (m as any).reason))) {
    expect(message).not.toContain(KEY);
  }
});

it('keeps the audio and a finalize() of the time the socket reconnects, and sends them after the replay', async () => {
  const { events, until, transcripts } = sttListener();
  let stream: SttStream | null = null;
  const meanwhile = silence(0.2);
  // The caller goes on, then stops speaking, while the new socket opens.
  stream = open(events, {
    onReport: () => {
      for (const frame of meanwhile) stream!.send(frame);
      stream!.finalize();
    },
  });
  const first = await fake.session();
  fake.transcripts.push('bom dia', 'bom dia senhora');
  const audio = [...silence(1), ...tone(1.5)];
  await feed(stream, first, audio);
  first.drop();
  const second = await fake.session();
  await until(() => transcripts().some((t) => t.fromFinalize));
  expect(Buffer.compare(second.audio, Buffer.concat([bytesOf(audio).subarray(0.5 * RATE), bytesOf(meanwhile)]))).toBe(0);
  expect(second.controls.filter((c) => c.type === 'Finalize')).toHaveLength(1);
  const answer = transcripts().find((t) => t.fromFinalize)!;
  // The answer covers the replay and what came meanwhile: Finalize went after them.
  expect(answer).toMatchObject({ text: 'bom dia senhora', isFinal: true });
  expect(answer.start).toBeCloseTo(0.5, 2);
  expect(answer.start + answer.duration).toBeCloseTo(2.7, 2);
});

it('replays the last 2 s of a web call’s 16 kHz linear PCM (two bytes a sample), at the stream’s seconds', async () => {
  const { events, until, finals } = sttListener();
  const stt = new ReconnectingStt(new DeepgramStt({ apiKey: KEY, url: fake.url }), (event) => reports.push(event));
  const stream = stt.open({ ...PT, audio: { encoding: 'linear16', sampleRate: 16000 } }, events);
  streams.push(stream);
  const first = await fake.session();
  const pcm = (seconds: number, loud: boolean) =>
    Buffer.from(Int16Array.from({ length: seconds * 16000 }, (_, i) => (loud ? Math.round(6000 * Math.sin((2 * Math.PI * 300 * i) / 16000)) : 0)).buffer);
  // 640-byte frames (20 ms), as a browser's are.
  const framed = (bytes: Buffer) => Array.from({ length: bytes.length / 640 }, (_, i) => new Uint8Array(bytes.subarray(i * 640, (i + 1) * 640)));
  const before = pcm(3, false);
  await feed(stream, first, framed(before));
  first.drop();
  const second = await fake.session();
  fake.transcripts.push('olá');
  await feed(stream, second, framed(Buffer.concat([pcm(1, true), pcm(1, false)])));
  expect(Buffer.compare(second.audio.subarray(0, 64_000), before.subarray(32_000))).toBe(0);
  await until(() => finals().length === 1);
  // The speech began 3 s into the stream; the new socket's clock began 1 s in.
  expect(finals()[0].words?.[0].start).toBeCloseTo(3, 2);
});

it('asks the new socket for a Finalize the lost one never answered', async () => {
  const { events, until, transcripts } = sttListener();
  const stream = open(events, { bounds: { stallMs: 600 } });
  const first = await fake.session();
  fake.transcripts.push('tchau', 'tchau');
  await feed(stream, first, [...silence(0.5), ...tone(1)]);
  // Deepgram freezes as the caller stops: the Finalize is read and never answered; the socket then drops.
  first.stall();
  stream.finalize();
  await first.until(() => first.controls.some((c) => c.type === 'Finalize'));
  first.drop();
  const second = await fake.session();
  await until(() => transcripts().some((t) => t.fromFinalize));
  expect(second.controls.filter((c) => c.type === 'Finalize')).toHaveLength(1);
  expect(transcripts().filter((t) => t.fromFinalize)).toMatchObject([{ text: 'tchau', isFinal: true }]);
});
