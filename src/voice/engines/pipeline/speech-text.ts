/**
 * What TTS is given (design.md, "The pipeline engine, round 2"): the model's streamed text as
 * sentences.
 */

/**
 * Cuts the model's streamed text into sentences for TTS: a voice sounds right when it knows
 * where a sentence ends, and the first sentence can be spoken while the model writes the
 * rest. A sentence ends at `.`, `!`, `?`, `…` followed by a space, at `。`, `！`, `？`, `।`, or
 * at a line break; one that runs long is cut at its last comma or space, so speech never
 * waits on a run-on.
 */

const MAX_SENTENCE = 200;
/**
 * The end of a sentence: its closing punctuation (with closing quotes or brackets), then a
 * space; the full-width stops of Chinese and Japanese and the Devanagari danda need none.
 */
const END = /[.!?…]+["'”’)\]]*(?=\s)|[。！？।]+["'”’」』)\]]*|\n/g;

export class SentenceSplitter {
  private pending = '';

  /** The sentences `text` completes, in order. */
  push(text: string): string[] {
    this.pending += text;
    const sentences: string[] = [];
    let from = 0;
    END.lastIndex = 0;
    for (let match = END.exec(this.pending); match; match = END.exec(this.pending)) {
      const to = match.index + match[0].length;
      const sentence = this.pending.slice(from, to).trim();
      if (sentence) sentences.push(sentence);
      from = to;
    }
    this.pending = this.pending.slice(from);
    while (this.pending.length > MAX_SENTENCE) {
      const cut = Math.max(this.pending.lastIndexOf(', ', MAX_SENTENCE), this.pending.lastIndexOf(' ', MAX_SENTENCE));
      const at = cut > 0 ? cut + 1 : MAX_SENTENCE;
      sentences.push(this.pending.slice(0, at).trim());
      this.pending = this.pending.slice(at);
    }
    return sentences;
  }

  /** What is left once the text has ended. */
  flush(): string | null {
    const rest = this.pending.trim();
    this.pending = '';
    return rest || null;
  }
}
