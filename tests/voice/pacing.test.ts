import { registry, voiceAudioDropped } from '../../src/metrics';
import { AudioPacer, EngineFeed, FEED_BURST_MS, FEED_SPEED, PACING_BURST_MS, PACING_CLOSE_AFTER_MS } from '../../src/voice/pacing';

/** The pacing rule of callers' audio (src/voice/pacing.ts), on a clock the test gives. */

/** Sends `seconds` of audio in 20 ms frames at `speed` times real time from `start`; answers the verdicts and the time reached. */
function send(pacer: AudioPacer, seconds: number, speed: number, start = 0): { verdicts: string[]; end: number } {
  const verdicts: string[] = [];
  const frames = Math.round((seconds * 1000) / 20);
  for (let i = 0; i < frames; i++) verdicts.push(pacer.take(20, start + (i * 20) / speed));
  return { verdicts, end: start + (frames * 20) / speed };
}

const passedMs = (verdicts: string[]) => verdicts.filter((v) => v === 'pass').length * 20;

it('passes a caller at real time for as long as the call lasts', () => {
  const { verdicts } = send(new AudioPacer('browser'), 600, 1);
  expect(verdicts.every((v) => v === 'pass')).toBe(true);
});

it('passes a burst of twice real time over 5 s (a network stall caught up), and no more than that over any 5 s', () => {
  const pacer = new AudioPacer('browser');
  const first = send(pacer, 60, 1);
  // Nearly 10 s of audio in 5 s: the burst plus real time (less the frame a real-time caller is always ahead).
  const burst = send(pacer, 9.96, 2, first.end);
  expect(burst.verdicts.every((v) => v === 'pass')).toBe(true);
  // The credit is spent: the next 5 s at twice real time pass only real time.
  const after = send(pacer, 10, 2, burst.end);
  expect(passedMs(after.verdicts)).toBeGreaterThanOrEqual(4_960);
  expect(passedMs(after.verdicts)).toBeLessThanOrEqual(5_020);
});

it('drops what comes beyond the credit, then says close once, and drops the rest', () => {
  const pacer = new AudioPacer('twilio');
  // 36 times real time for 10 s of the wall clock: 360 s of audio.
  const { verdicts } = send(pacer, 360, 36);
  const firstDrop = verdicts.indexOf('drop');
  const close = verdicts.indexOf('close');
  // The burst passes whole, and the real time that runs while it arrives.
  expect(passedMs(verdicts.slice(0, firstDrop))).toBeGreaterThanOrEqual(PACING_BURST_MS);
  expect(passedMs(verdicts.slice(0, firstDrop))).toBeLessThan(PACING_BURST_MS + 200);
  // Closed once PACING_CLOSE_AFTER_MS of audio was dropped, well within the first second.
  const droppedBeforeClose = verdicts.slice(0, close + 1).filter((v) => v !== 'pass').length * 20;
  expect(droppedBeforeClose).toBe(PACING_CLOSE_AFTER_MS);
  expect((close * 20) / 36).toBeLessThan(1000);
  expect(verdicts.filter((v) => v === 'close')).toHaveLength(1);
  // In all, no more than the credit plus real time passed.
  expect(passedMs(verdicts)).toBeLessThanOrEqual(PACING_BURST_MS + 10_000 + 20);
});

it('refills at real time, never above the burst: a long silence does not buy a longer burst', () => {
  const pacer = new AudioPacer('browser');
  expect(pacer.take(PACING_BURST_MS, 0)).toBe('pass');
  expect(pacer.take(20, 0)).toBe('drop');
  // An hour later the credit is the burst, not an hour.
  expect(pacer.take(PACING_BURST_MS, 3_600_000)).toBe('pass');
  expect(pacer.take(20, 3_600_000)).toBe('drop');
});

it('counts the dropped audio and the closed sockets in /metrics', async () => {
  const value = async (name: string, transport: string) =>
    (await registry.getSingleMetric(name)!.get()).values.find((v) => v.labels.transport === transport)?.value ?? 0;
  const dropped = await value('vozgate_voice_audio_dropped_seconds_total', 'browser');
  const closed = await value('vozgate_voice_sockets_closed_for_pace_total', 'browser');
  const pacer = new AudioPacer('browser');
  pacer.take(PACING_BURST_MS, 0);
  for (let i = 0; i < PACING_CLOSE_AFTER_MS / 1000; i++) pacer.take(1000, 0);
  expect((await value('vozgate_voice_audio_dropped_seconds_total', 'browser')) - dropped).toBeCloseTo(PACING_CLOSE_AFTER_MS / 1000);
  expect((await value('vozgate_voice_sockets_closed_for_pace_total', 'browser')) - closed).toBe(1);
});

it('counts a pusher’s dropped frames by the second of audio, not one increment a frame, and the rest when its run of drops or its socket ends', async () => {
  const value = async () =>
    (await registry.getSingleMetric('vozgate_voice_audio_dropped_seconds_total')!.get()).values.find((v) => v.labels.transport === 'twilio')?.value ?? 0;
  const inc = jest.spyOn(voiceAudioDropped, 'inc');
  try {
    const before = await value();
    // 1.5 s dropped at once after the burst, in 75 frames of 20 ms: one increment, for the whole second.
    const pacer = new AudioPacer('twilio');
    pacer.take(PACING_BURST_MS, 0);
    for (let i = 0; i < 75; i++) expect(pacer.take(20, 0)).toBe('drop');
    expect(inc).toHaveBeenCalledTimes(1);
    expect((await value()) - before).toBeCloseTo(1);
    // The run ends (the credit refilled, a frame passes): the half second left is counted.
    expect(pacer.take(20, 1_000)).toBe('pass');
    expect((await value()) - before).toBeCloseTo(1.5);
    // 2 s more: the 980 ms of credit left pass, 1,020 ms are dropped, of which a second is counted
    // at once and the rest as the socket ends (the transports count on close).
    for (let i = 0; i < 100; i++) pacer.take(20, 1_000);
    expect((await value()) - before).toBeCloseTo(2.5);
    pacer.count();
    expect((await value()) - before).toBeCloseTo(2.52);
    // 126 frames dropped, 4 increments.
    expect(inc).toHaveBeenCalledTimes(4);
  } finally {
    inc.mockRestore();
  }
});

describe('the engine’s feed of the audio a socket passed', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());
  const feedOf = () => {
    const delivered: number[] = [];
    const kept: number[] = [];
    const feed = new EngineFeed<number>((n) => delivered.push(n), (n) => (kept.push(n), n));
    return { feed, delivered, kept };
  };

  it('hands a caller’s audio at real time to the engine as it comes, never keeping it', () => {
    const { feed, delivered, kept } = feedOf();
    for (let i = 0; i < 500; i++) {
      feed.push(i, 20);
      expect(delivered).toHaveLength(i + 1);
      jest.advanceTimersByTime(20);
    }
    expect(kept).toEqual([]);
  });

  it('hands a burst that came at once to the engine at FEED_SPEED times real time, in order', () => {
    const { feed, delivered, kept } = feedOf();
    // 5 s of audio at once, in 250 frames of 20 ms.
    const frames = Array.from({ length: 250 }, (_, i) => i);
    for (const n of frames) feed.push(n, 20);
    expect(delivered).toEqual(frames.slice(0, FEED_BURST_MS / 20));
    expect(kept).toEqual(frames.slice(FEED_BURST_MS / 20));
    // A quarter of a second later, a second of audio more.
    jest.advanceTimersByTime(250);
    expect(delivered.length * 20).toBeGreaterThanOrEqual(FEED_BURST_MS + 250 * FEED_SPEED - 20);
    expect(delivered.length * 20).toBeLessThanOrEqual(FEED_BURST_MS + 250 * FEED_SPEED + 20);
    jest.advanceTimersByTime(5_000 / FEED_SPEED);
    expect(delivered).toEqual(frames);
  });

  it('takes a frame longer than its burst whole, then waits out the debt', () => {
    const { feed, delivered } = feedOf();
    feed.push(1, 2_000);
    feed.push(2, 20);
    expect(delivered).toEqual([1]);
    jest.advanceTimersByTime((2_000 - FEED_BURST_MS) / FEED_SPEED + 20);
    expect(delivered).toEqual([1, 2]);
  });

  it('flushes what waits before a control message, and drops it when the call is over', () => {
    const { feed, delivered } = feedOf();
    for (let i = 0; i < 30; i++) feed.push(i, 20);
    feed.flush();
    expect(delivered).toHaveLength(30);
    for (let i = 0; i < 30; i++) feed.push(i, 20);
    feed.clear();
    const after = delivered.length;
    jest.advanceTimersByTime(10_000);
    expect(delivered).toHaveLength(after);
  });
});
