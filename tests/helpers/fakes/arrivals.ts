/**
 * What connects to a fake (a socket, a session), in order: a test takes the next one, waiting
 * for it when it has not come yet.
 */
export class Arrivals<T> {
  readonly all: T[] = [];
  private taken = 0;
  private readonly waiting: ((item: T) => void)[] = [];

  /** `what` names it in the error of a wait that runs out. */
  constructor(private readonly what: string) {}

  add(item: T): void {
    this.all.push(item);
    this.waiting.shift()?.(item);
  }

  /** The next one not taken yet (one that already came, or the next to come). */
  next(timeoutMs = 10_000): Promise<T> {
    if (this.all.length > this.taken) return Promise.resolve(this.all[this.taken++]);
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${this.what}`)), timeoutMs);
      this.waiting.push((item) => {
        clearTimeout(timer);
        this.taken++;
        resolve(item);
      });
    });
  }
}
