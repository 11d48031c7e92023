/**
 * What the Realtime engine keeps of each item of the conversation until its transcript is
 * done: when its turn began (a caller's when the API heard their speech start, an answer's when
 * its first audio was sent), and its words so far (shown as they come, and counted for a
 * barge-in). Items whose transcript never comes (a cut answer) are forgotten past a few, so a
 * session cannot grow them without bound.
 */

/** Items kept while their transcripts are awaited. */
const MAX_ITEMS = 32;

export class RealtimeItems {
  private readonly starts = new Map<string, number>();
  private readonly words = new Map<string, string>();

  /** The item's turn began now; the first time counts. */
  began(item: string): void {
    if (!this.starts.has(item)) keep(this.starts, item, Date.now());
  }

  /** More words of the item: all of them so far. */
  add(item: string, delta: string): string {
    const words = (this.words.get(item) ?? '') + delta;
    keep(this.words, item, words);
    return words;
  }

  wordsOf(item: string): string {
    return this.words.get(item) ?? '';
  }

  /** The item's transcript is done: when its turn began (null when unknown); the item is forgotten. */
  done(item: string): number | null {
    const at = this.starts.get(item) ?? null;
    this.starts.delete(item);
    this.words.delete(item);
    return at;
  }
}

/** Sets a key, the oldest key dropped first when the map is full. */
function keep<V>(map: Map<string, V>, key: string, value: V): void {
  if (!map.has(key) && map.size >= MAX_ITEMS) map.delete(map.keys().next().value!);
  map.set(key, value);
}
