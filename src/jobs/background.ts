/**
 * Work a job hands off so as not to hold its worker slot (mid-call tools wait on other
 * people's servers). It is tracked so that a stopping process can wait for it; whatever it
 * leaves unfinished is picked up again by a job scheduled before it started.
 */
export class Background {
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly onError: (error: unknown) => void) {}

  run(work: () => Promise<void>): void {
    const promise: Promise<void> = work()
      .catch(this.onError)
      .finally(() => this.running.delete(promise));
    this.running.add(promise);
  }

  /** Waits for the work under way, for at most `timeoutMs`; answers whether it all ended. */
  drain(timeoutMs: number): Promise<boolean> {
    return this.running.size === 0 ? Promise.resolve(true) : endsWithin(Promise.allSettled([...this.running]), timeoutMs);
  }
}

/** Whether `work` settles within `ms` (it goes on either way). */
export async function endsWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const settled = work.then(
    () => true,
    () => true,
  );
  const ended = await Promise.race([settled, new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)))]);
  clearTimeout(timer);
  return ended;
}
