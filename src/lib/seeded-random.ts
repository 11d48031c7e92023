/**
 * A small seeded generator (mulberry32), uniform in [0, 1): the same sequence for the same
 * seed on every run and machine (the ambient bed's noise, the benchmarks' made-up text).
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}
