/**
 * The vendor's silence, bounded: armed while its next bytes are awaited, not while the consumer
 * holds a chunk. One timer for the stream, refreshed for each chunk: a timer made per chunk
 * cost every token of every reply an allocation and the process's async hooks.
 */
export class VendorSilence {
  private timer: NodeJS.Timeout | null = null;
  private ms = 0;
  private awaiting = false;

  constructor(private readonly expired: (ms: number) => void) {}

  /** The vendor must send its next bytes within `ms` from now. */
  await(ms: number): void {
    this.awaiting = true;
    if (this.timer && this.ms === ms) {
      // Also brings back a timer that fired while the consumer held a chunk.
      this.timer.refresh();
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.ms = ms;
    this.timer = setTimeout(() => {
      if (this.awaiting) this.expired(this.ms);
    }, ms);
  }

  /** Bytes came: the consumer holds them, and the clock waits. */
  hold(): void {
    this.awaiting = false;
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.awaiting = false;
  }
}
