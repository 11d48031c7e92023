import { LoadMonitor, type LoadSources } from '../../src/voice/load.monitor';

/**
 * Admission control's decision (src/voice/load.monitor.ts) on scripted readings and a fake
 * clock: the load is the mean of the last few seconds' readings, so a single pause refuses
 * nothing, a sustained delay or VAD lag past the bound does, and it clears as the window moves on.
 */
function scripted(boundMs: number) {
  let now = 0;
  const next = { loop: 0, vad: 0 };
  const sources: LoadSources = { loopDelayMs: () => next.loop, vadLagMs: () => next.vad };
  const monitor = new LoadMonitor({ boundMs, sources, windowMs: 3000, now: () => now });
  /** `count` samples 250 ms apart, each reading these values. */
  const samples = (count: number, loop: number, vad = 0) => {
    for (let i = 0; i < count; i++) {
      now += 250;
      next.loop = loop;
      next.vad = vad;
      monitor.sample();
    }
  };
  return { monitor, samples, advance: (ms: number) => (now += ms) };
}

it('is not overloaded before any reading, nor under the bound', () => {
  const { monitor, samples } = scripted(100);
  expect(monitor.overloaded()).toBe(false);
  samples(12, 80, 90);
  expect(monitor.load()).toEqual({ loop_delay_ms: 80, vad_lag_ms: 90 });
  expect(monitor.overloaded()).toBe(false);
});

it('one long pause (a GC) in a calm window refuses nothing; a delay that lasts does', () => {
  const { monitor, samples } = scripted(100);
  samples(11, 5);
  samples(1, 400); // (11 x 5 + 400) / 12 = 38 ms
  expect(monitor.load().loop_delay_ms).toBe(37.9);
  expect(monitor.overloaded()).toBe(false);
  samples(6, 250);
  expect(monitor.overloaded()).toBe(true);
});

it('the VAD’s lag alone passes the bound too', () => {
  const { monitor, samples } = scripted(100);
  samples(12, 3, 150);
  expect(monitor.overloaded()).toBe(true);
});

it('clears once the window has moved past the load, and readings older than the window count for nothing', () => {
  const { monitor, samples, advance } = scripted(100);
  samples(12, 300);
  expect(monitor.overloaded()).toBe(true);
  samples(12, 10);
  expect(monitor.load().loop_delay_ms).toBe(10);
  expect(monitor.overloaded()).toBe(false);
  samples(12, 300);
  // A process whose sampler stopped (nothing read for a window): its old readings are forgotten.
  advance(3000);
  expect(monitor.load()).toEqual({ loop_delay_ms: 0, vad_lag_ms: 0 });
  expect(monitor.overloaded()).toBe(false);
});

it('a bound of 0 turns admission control off', () => {
  const { monitor, samples } = scripted(0);
  samples(12, 5000, 5000);
  expect(monitor.overloaded()).toBe(false);
});
