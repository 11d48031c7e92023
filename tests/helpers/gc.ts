import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * How much the old generation grows (bytes) while `run` works, counted after two young
 * collections: what `run` left reachable from old objects, promoted instead of collected.
 * A full collection first, so that what came before is not counted.
 *
 * The least of `rounds` runs: a major collection that V8 starts by itself during a run
 * (incremental marking, more often on a loaded machine) keeps what it found alive until the
 * next one, and so counts garbage as growth in that round. What a leak keeps, it keeps in
 * every round.
 */
export async function oldSpaceGrowth(run: () => Promise<void>, rounds = 3): Promise<number> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (options: { type: 'minor' | 'major'; execution: 'sync' }) => void;
  const oldSpace = () => getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')!.space_used_size;
  let least = Infinity;
  for (let round = 0; round < rounds; round++) {
    gc({ type: 'major', execution: 'sync' });
    const before = oldSpace();
    await run();
    gc({ type: 'minor', execution: 'sync' });
    gc({ type: 'minor', execution: 'sync' });
    least = Math.min(least, oldSpace() - before);
  }
  return least;
}
