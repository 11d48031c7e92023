import { IsolationLevel, type EntityManager } from '@mikro-orm/postgresql';
import type { BusEvent } from './event.bus';

/**
 * A subscription's optional first event, the resource's current state (`initial: true`),
 * without a gap or a repeat against the changes that follow. The stream listens first; then
 * the state is read in a snapshot of the database, and the snapshot tells which changes the
 * state already holds: an event is written in its cause's transaction (the outbox), so the
 * state holds a change exactly when the snapshot sees its event's transaction as committed.
 * Those events are dropped; every other one, committed after the snapshot or still running
 * when it was taken, follows the state.
 */

/**
 * PostgreSQL's pg_snapshot: transactions below `xmin` had ended; from `xmax` (one past the
 * last one ended) on, none had; in between, all had but those `running`.
 */
export interface Snapshot {
  xmin: bigint;
  xmax: bigint;
  running: Set<bigint>;
}

/** Parses pg_current_snapshot()'s text, `xmin:xmax:xip,xip,...`. */
export function parseSnapshot(text: string): Snapshot {
  const [xmin, xmax, running] = text.split(':');
  return { xmin: BigInt(xmin), xmax: BigInt(xmax), running: new Set(running ? running.split(',').map(BigInt) : []) };
}

const EPOCH = 2n ** 32n;

/**
 * Whether the transaction `xid` had committed in the snapshot. A row's xmin is the 32-bit id,
 * without the epoch the snapshot's 64-bit ids carry: it is placed at the 64-bit id nearest the
 * snapshot's xmax (within 2^31 of it), as PostgreSQL itself compares them; the events compared
 * are seconds apart, billions of transactions closer than that. An aborted transaction's
 * event does not exist, so "ended before the snapshot" means committed.
 */
export function committedIn(snapshot: Snapshot, xid: string): boolean {
  let distance = (BigInt(xid) - (snapshot.xmax % EPOCH)) % EPOCH;
  if (distance >= EPOCH / 2n) distance -= EPOCH;
  else if (distance < -EPOCH / 2n) distance += EPOCH;
  const full = snapshot.xmax + distance;
  return full < snapshot.xmin || (full < snapshot.xmax && !snapshot.running.has(full));
}

/**
 * Runs `read` in one snapshot (a read-only REPEATABLE READ transaction, whose first statement
 * takes it) and answers what it read with that snapshot.
 */
export function readInSnapshot<T>(root: EntityManager, read: (tx: EntityManager) => Promise<T>): Promise<{ state: T; snapshot: Snapshot }> {
  return root.fork().transactional(
    async (tx) => {
      const [{ snapshot }] = await tx.execute<{ snapshot: string }[]>('select pg_current_snapshot()::text as snapshot');
      return { state: await read(tx), snapshot: parseSnapshot(snapshot) };
    },
    { isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true },
  );
}

/**
 * `stream`, already listening, preceded by the current state (`first`, or nothing when it is
 * null, e.g. the resource is not one the filters follow) and rid of the events of changes the
 * state holds. When the read fails, the stream is closed and the failure is the subscription's.
 */
export async function startingWith(
  stream: AsyncIterableIterator<BusEvent>,
  read: () => Promise<{ state: BusEvent | null; snapshot: Snapshot }>,
): Promise<AsyncIterableIterator<BusEvent>> {
  let current: { state: BusEvent | null; snapshot: Snapshot };
  try {
    current = await read();
  } catch (error) {
    await stream.return?.();
    throw error;
  }
  let first = current.state;
  const events: AsyncIterableIterator<BusEvent> = {
    async next() {
      if (first) {
        const value = first;
        first = null;
        return { value, done: false };
      }
      for (;;) {
        const next = await stream.next();
        if (next.done || !committedIn(current.snapshot, next.value.xid)) return next;
      }
    },
    async return() {
      first = null;
      return (await stream.return?.()) ?? { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return events;
    },
  };
  return events;
}
