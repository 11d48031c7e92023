/**
 * The caller's audio that arrives while the call's engine is being set up (its assistant read,
 * its vendors' sockets opened): kept, up to the last MAX_EARLY_MS of it, and given to the engine
 * once it exists. A caller who speaks as soon as they answer ("Alô?") is heard from the first
 * word.
 */
const MAX_EARLY_MS = 2000;

export class EarlyAudio<T> {
  private chunks: { chunk: T; ms: number }[] = [];
  private keptMs = 0;

  /** Keeps a chunk of `ms` milliseconds (the oldest go past MAX_EARLY_MS). */
  keep(chunk: T, ms: number): void {
    this.chunks.push({ chunk, ms });
    this.keptMs += ms;
    while (this.keptMs > MAX_EARLY_MS && this.chunks.length > 1) this.keptMs -= this.chunks.shift()!.ms;
  }

  /** Gives the chunks kept, in order, and forgets them. */
  drain(give: (chunk: T) => void): void {
    const chunks = this.chunks;
    this.chunks = [];
    this.keptMs = 0;
    for (const { chunk } of chunks) give(chunk);
  }
}
