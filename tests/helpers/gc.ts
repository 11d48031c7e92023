import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * How much the old generation grows (bytes) while `run` works, counted after two young
 * collections: what `run` left reachable from old objects, promoted instead of collected.
 * A full collection first, so that what came before is not counted.
 */
export async function oldSpaceGrowth(run: () => Promise<void>): Promise<number> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (options: { type: 'minor' | 'major'; execution: 'sync' }) => void;
  const oldSpace = () => getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')!.space_used_size;
  gc({ type: 'major', execution: 'sync' });
  const before = oldSpace();
  await run();
  gc({ type: 'minor', execution: 'sync' });
  gc({ type: 'minor', execution: 'sync' });
  return oldSpace() - before;
}
