import { Readable } from 'node:stream';
import { parseByteRange } from '../../src/web/byte-range';
import * as recordings from '../../src/telephony/recording';
import { RecordingCache, simulatedRecording } from '../../src/telephony/recording';
import type { Turn } from '../../src/modules/calls/call.conversation';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';

/**
 * The simulator's recording: each turn's tone at its time, and seeking (Range requests) as
 * browsers' audio elements do it.
 */
const SAMPLE_RATE = 8000;
const HEADER = 44;

async function read(stream: NodeJS.ReadableStream): Promise<{ bytes: Buffer; largestChunk: number }> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return { bytes: Buffer.concat(chunks), largestChunk: Math.max(0, ...chunks.map((chunk) => chunk.length)) };
}

/** Who 8-bit samples are: silence, or the side whose pitch (220 Hz, 330 Hz) they cross the middle at. */
function pitchOf(samples: Buffer): 0 | 220 | 330 {
  if (samples.every((sample) => sample === 128)) return 0;
  let crossings = 0;
  for (let i = 1; i < samples.length; i++) if ((samples[i - 1] < 128) !== (samples[i] < 128)) crossings++;
  const hz = crossings / 2 / (samples.length / SAMPLE_RATE);
  if (Math.abs(hz - 220) < 15) return 220;
  if (Math.abs(hz - 330) < 15) return 330;
  throw new Error(`neither side's pitch: ${hz} Hz`);
}

/** The samples of a recording from `ms` for 100 ms. */
const at = (wav: Buffer, ms: number) => wav.subarray(HEADER + (ms * SAMPLE_RATE) / 1000, HEADER + ((ms + 100) * SAMPLE_RATE) / 1000);

describe('parseByteRange', () => {
  it.each([
    [undefined, { kind: 'whole' }],
    ['bytes=0-99', { kind: 'range', start: 0, end: 99 }],
    ['bytes=100-', { kind: 'range', start: 100, end: 999 }],
    ['bytes=900-5000', { kind: 'range', start: 900, end: 999 }],
    ['bytes=-100', { kind: 'range', start: 900, end: 999 }],
    ['bytes=-5000', { kind: 'range', start: 0, end: 999 }],
    ['BYTES = 5 - 6', { kind: 'range', start: 5, end: 6 }],
    ['bytes=999-999', { kind: 'range', start: 999, end: 999 }],
    ['bytes=1000-', { kind: 'unsatisfiable' }],
    ['bytes=1000-2000', { kind: 'unsatisfiable' }],
    ['bytes=-0', { kind: 'unsatisfiable' }],
    // Ranges the RFC lets a server ignore: the whole file.
    ['bytes=0-1,5-6', { kind: 'whole' }],
    ['bytes=10-5', { kind: 'whole' }],
    ['bytes=-', { kind: 'whole' }],
    ['bytes=a-b', { kind: 'whole' }],
    ['items=0-1', { kind: 'whole' }],
    ['bytes=99999999999999999999-', { kind: 'whole' }],
  ])('%p of 1000 bytes is %p', (header, expected) => {
    expect(parseByteRange(header, 1000)).toEqual(expected);
  });
});

describe('simulatedRecording', () => {
  const turns: Turn[] = [
    { speaker: 'assistant', text: 'Olá!', at_ms: 600, duration_ms: 1500 },
    { speaker: 'customer', text: 'Oi.', at_ms: 3000, duration_ms: 1000 },
    { speaker: 'system', text: 'ferramenta x', at_ms: 4500, duration_ms: 0 },
    { speaker: 'assistant', text: 'Tchau.', at_ms: 5000, duration_ms: 2000 },
  ];

  it("plays each turn's tone from its time for its length, the sides apart, silence between", async () => {
    const recording = simulatedRecording(8, turns);
    const { bytes } = await read(recording.stream());
    expect(bytes).toHaveLength(recording.length);
    expect(recording.length).toBe(HEADER + 8 * SAMPLE_RATE);
    expect(bytes.subarray(0, 4).toString()).toBe('RIFF');
    expect(pitchOf(at(bytes, 0))).toBe(0);
    expect(pitchOf(at(bytes, 700))).toBe(220);
    expect(pitchOf(at(bytes, 2000))).toBe(220);
    expect(pitchOf(at(bytes, 2300))).toBe(0);
    expect(pitchOf(at(bytes, 3000))).toBe(330);
    expect(pitchOf(at(bytes, 4200))).toBe(0);
    expect(pitchOf(at(bytes, 5000))).toBe(220);
    expect(pitchOf(at(bytes, 7500))).toBe(0);
  });

  it('makes any range alone, equal to those bytes of the whole, a second of audio at a time', async () => {
    const recording = simulatedRecording(8, turns);
    const whole = (await read(recording.stream())).bytes;
    for (const [start, end] of [[0, 43], [0, 99], [10, 50], [44, 44], [3000, 20_000], [HEADER + 24_000, recording.length - 1], [recording.length - 1, recording.length - 1]]) {
      const part = await read(recording.stream(start, end));
      expect(part.bytes.equals(whole.subarray(start, end + 1))).toBe(true);
      expect(part.largestChunk).toBeLessThanOrEqual(SAMPLE_RATE);
    }
  });

  it('plays four-second turns of alternating sides for a call recorded before turns had times', async () => {
    const { bytes } = await read(simulatedRecording(9, [{ speaker: 'assistant', text: 'Olá' }]).stream());
    expect([500, 3500, 4500, 7500, 8500].map((ms) => pitchOf(at(bytes, ms)))).toEqual([220, 0, 330, 0, 220]);
  });
});

describe('RecordingCache', () => {
  const turns: Turn[] = [{ speaker: 'assistant', text: 'Olá!', at_ms: 0, duration_ms: 1000 }];
  const counted = (seconds: number) => jest.fn(() => simulatedRecording(seconds, turns));

  it('makes a file once for downloads that come together, and serves every range of it', async () => {
    const cache = new RecordingCache();
    const make = counted(3);
    const whole = (await read(simulatedRecording(3, turns).stream())).bytes;
    const all = await Promise.all(Array.from({ length: 10 }, () => cache.recording('7', 'v1', make)));
    expect(make).toHaveBeenCalledTimes(1);
    for (const [i, recording] of all.entries()) {
      expect(recording.length).toBe(whole.length);
      const [start, end] = [i * 100, i * 100 + 2000];
      expect((await read(recording.stream(start, end))).bytes.equals(whole.subarray(start, end + 1))).toBe(true);
    }
    expect((await read(all[0].stream(whole.length - 10, whole.length + 50))).bytes.equals(whole.subarray(whole.length - 10))).toBe(true);
    // What it is made from changed: made again.
    await cache.recording('7', 'v2', make);
    expect(make).toHaveBeenCalledTimes(2);
  });

  it('keeps at most its bytes, the least recently used going first, and never a file over its largest', async () => {
    const size = 44 + 2 * SAMPLE_RATE;
    const cache = new RecordingCache(3 * size, size);
    const makes = ['a', 'b', 'c', 'd'].map(() => counted(2));
    const get = (i: number) => cache.recording(String(i), 'v', makes[i]);
    for (let i = 0; i < 4; i++) await get(i); // the fourth pushes the first out
    await get(1); // used: 2 is now the least recently used
    await get(0); // made again, pushing 2 out
    await get(1);
    await get(2);
    expect(makes.map((make) => make.mock.calls.length)).toEqual([2, 1, 2, 1]);
    const big = counted(1);
    const small = new RecordingCache(1_000_000, 44 + SAMPLE_RATE - 1);
    for (let i = 0; i < 3; i++) expect((await small.recording('x', 'v', big)).length).toBe(44 + SAMPLE_RATE);
    expect(big).toHaveBeenCalledTimes(3);
  });

  it('forgets a file whose making failed, so the next download makes it again', async () => {
    const cache = new RecordingCache();
    const broken = jest.fn(() => ({ length: 10, stream: () => Readable.from((function* () { throw new Error('disk'); })()) }));
    await expect(cache.recording('9', 'v', broken)).rejects.toThrow('disk');
    await expect(cache.recording('9', 'v', broken)).rejects.toThrow('disk');
    expect(broken).toHaveBeenCalledTimes(2);
  });
});

describe('GET /recordings/{id}.wav', () => {
  let app: TestApp;
  let me: TestAccount;
  let call: any;
  let url: string;
  let whole: Buffer;

  beforeAll(async () => {
    app = await startTestApp({}, { workers: true });
    me = await app.account({ balance: '100' });
    const assistant = await app.outboundAssistant(me, { record_call: true });
    const started = await app.request('POST', '/api/user/make_call', { token: me.token, body: { phone_number: '+5511987654444', assistant_id: assistant } });
    call = await app.finishedCall(started.body.call_id, me.token);
    url = call.recording_url.replace(app.config.publicUrl, app.url);
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    whole = Buffer.from(await res.arrayBuffer());
    expect(whole).toHaveLength(HEADER + call.duration * SAMPLE_RATE);
  });
  afterAll(() => app?.close());

  const get = (range: string, headers: Record<string, string> = {}) => fetch(url, { headers: { range, ...headers } });

  it('answers a range with 206, its Content-Range and only its bytes', async () => {
    for (const [range, start, end] of [
      ['bytes=0-99', 0, 99],
      ['bytes=8044-', 8044, whole.length - 1],
      ['bytes=-500', whole.length - 500, whole.length - 1],
      [`bytes=100-${whole.length + 100}`, 100, whole.length - 1],
    ] as const) {
      const res = await get(range);
      expect(res.status).toBe(206);
      expect(res.headers.get('content-range')).toBe(`bytes ${start}-${end}/${whole.length}`);
      expect(Number(res.headers.get('content-length'))).toBe(end - start + 1);
      expect(res.headers.get('accept-ranges')).toBe('bytes');
      expect(res.headers.get('content-type')).toBe('audio/wav');
      expect(Buffer.from(await res.arrayBuffer()).equals(whole.subarray(start, end + 1))).toBe(true);
    }
  });

  it('makes the file once for many downloads and seeks at once (the first download made it)', async () => {
    const made = jest.spyOn(recordings, 'simulatedRecording');
    const ranges = Array.from({ length: 40 }, (_, i) => (i % 4 === 0 ? null : ([i * 100, i * 100 + 999] as const)));
    const answers = await Promise.all(ranges.map((range) => (range ? get(`bytes=${range[0]}-${range[1]}`) : fetch(url))));
    for (const [i, res] of answers.entries()) {
      const range = ranges[i];
      expect(res.status).toBe(range ? 206 : 200);
      expect(Buffer.from(await res.arrayBuffer()).equals(range ? whole.subarray(range[0], range[1] + 1) : whole)).toBe(true);
    }
    expect(made).not.toHaveBeenCalled();
    made.mockRestore();
  });

  it('answers 416 with the length for a range past the end', async () => {
    for (const range of [`bytes=${whole.length}-`, 'bytes=-0']) {
      const res = await get(range);
      expect(res.status).toBe(416);
      expect(res.headers.get('content-range')).toBe(`bytes */${whole.length}`);
      expect(await res.text()).toBe('');
    }
  });

  it('sends it whole for several ranges, a bad range or an If-Range it cannot match', async () => {
    for (const [range, headers] of [['bytes=0-1,5-9', {}], ['bytes=9-5', {}], ['bytes=0-9', { 'if-range': '"x"' }]] as const) {
      const res = await get(range, headers);
      expect(res.status).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).equals(whole)).toBe(true);
    }
  });

  it("plays each turn where its at_ms says, so seeking to a turn's time hears that turn", async () => {
    const res = await app.graphql('query($id: Int!) { call(id: $id) { turns { speaker text at_ms duration_ms } } }', { id: call.id }, me.token);
    const spoken = res.body.data.call.turns.filter((turn: any) => turn.speaker !== 'system');
    expect(spoken.length).toBeGreaterThan(3);
    for (const turn of spoken) {
      const from = HEADER + Math.round((turn.at_ms * SAMPLE_RATE) / 1000);
      const seek = await get(`bytes=${from}-${from + 799}`);
      expect(seek.status).toBe(206);
      expect(pitchOf(Buffer.from(await seek.arrayBuffer()))).toBe(turn.speaker === 'assistant' ? 220 : 330);
    }
  });
});
