/**
 * Work on one conversation (keyed by its uuid), one piece at a time in the order it came,
 * within this process. The conversation's reply lease (conversation.lease.ts) orders it across
 * processes; this queue keeps a burst of messages from polling for that lease.
 */
const tails = new Map<string, Promise<void>>();

export function inTurn<T>(key: string, work: () => Promise<T>): Promise<T> {
  const before = tails.get(key) ?? Promise.resolve();
  const run = before.then(work);
  const settled = run.then(
    () => undefined,
    () => undefined,
  );
  tails.set(key, settled);
  void settled.then(() => {
    if (tails.get(key) === settled) tails.delete(key);
  });
  return run;
}
