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
  async drain(timeoutMs: number): Promise<boolean> {
    if (this.running.size === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    const ended = await Promise.race([Promise.allSettled([...this.running]).then(() => true as const), timedOut]);
    clearTimeout(timer);
    return ended;
  }
}
