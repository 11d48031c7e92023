/**
 * When a reply says a filler (design.md, "Turn-taking that survives real callers"): once the
 * answer's first audio, or a tool, takes longer than FILLER_AFTER_MS; while tools run, again
 * every FILLER_REPEAT_MS, at most FILLER_TIMES times a round of tools, so that a slow booking
 * is never a long silence, nor a caller told "one moment" for ever.
 */

/** A filler is said when the reply's first audio, or a tool, takes longer than this. */
export const FILLER_AFTER_MS = 1200;
/** While tools run, the filler is said again this often... */
export const FILLER_REPEAT_MS = 4000;
/** ...and at most this many times in all (1.2 s, 5.2 s and 9.2 s into a tool's run). */
export const FILLER_TIMES = 3;

/** What a filler says: a tool's `speak_during`, or null for the generic filler (`filler_audios`). */
export type FillerPhrase = string | null;

/**
 * The first tool of a round that has a `speak_during`, else the generic filler when the
 * assistant has one (`generic`), else nothing to say (undefined).
 */
export function toolFiller(names: readonly string[], speakDuring: (name: string) => string | null, generic: boolean): FillerPhrase | undefined {
  for (const name of names) {
    const phrase = speakDuring(name);
    if (phrase) return phrase;
  }
  return generic ? null : undefined;
}

/** A filler's schedule: `say` is called at each time it is due (it may find the line busy and say nothing). */
export class FillerClock {
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly say: (phrase: FillerPhrase) => void) {}

  /** Said after FILLER_AFTER_MS, then every FILLER_REPEAT_MS, `times` times at most, until stopped. */
  start(phrase: FillerPhrase, times: number): void {
    this.stop();
    let due = times;
    const tick = () => {
      this.timer = --due > 0 ? setTimeout(tick, FILLER_REPEAT_MS) : null;
      this.say(phrase);
    };
    this.timer = setTimeout(tick, FILLER_AFTER_MS);
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
