import { interruptSpeechMs } from './pipeline/turns';

/** The assistant's interruption settings, as both engines read them. */
export interface BargeSettings {
  interrupt_sensitivity: number;
  use_min_interrupt_words: boolean;
  min_interrupt_words: number;
}

/**
 * Whether the caller's speech interrupts the Realtime assistant (the session's own interruption
 * is off: `interrupt_response` false), as in the pipeline engine: once the speech has lasted
 * `interrupt_sensitivity`'s time and, with `use_min_interrupt_words`, said `min_interrupt_words`
 * words. The API names each stretch of speech by its item.
 */
export class RealtimeBarge {
  /** The caller's speech that may interrupt: its item, whether it has lasted long enough, and the timer until then. */
  private barge: { item: string; long: boolean; timer: NodeJS.Timeout | null } | null = null;
  /** The caller's latest speech, while it has not interrupted the assistant. */
  private unheeded: string | null = null;

  constructor(
    private readonly settings: BargeSettings,
    /** The words of an item heard so far. */
    private readonly wordsOf: (item: string) => string,
    private readonly interrupt: () => void,
  ) {}

  /** The caller started speaking (`input_audio_buffer.speech_started`). */
  started(item: string): void {
    this.stop();
    this.unheeded = item;
    const barge: NonNullable<typeof this.barge> = { item, long: false, timer: null };
    barge.timer = setTimeout(() => {
      barge.timer = null;
      barge.long = true;
      this.heard(item, this.wordsOf(item));
    }, interruptSpeechMs(this.settings.interrupt_sensitivity));
    this.barge = barge;
  }

  /** The caller stopped speaking: speech too short to interrupt is over, and the assistant speaks on. */
  stopped(): void {
    if (this.barge && !this.barge.long) this.stop();
  }

  /** More of `item`'s words: speech that has lasted long enough interrupts once its words are enough. */
  heard(item: string, words: string): void {
    const { barge } = this;
    if (!barge || barge.item !== item || !barge.long) return;
    const { use_min_interrupt_words, min_interrupt_words } = this.settings;
    if (use_min_interrupt_words && words.split(/\s+/).filter(Boolean).length < min_interrupt_words) return;
    this.stop();
    this.unheeded = null;
    this.interrupt();
  }

  /** Whether the caller's speech `item` ended without interrupting (a cough, an "aham", too few words). */
  passedOver(item: string): boolean {
    return this.unheeded === item;
  }

  stop(): void {
    if (this.barge?.timer) clearTimeout(this.barge.timer);
    this.barge = null;
  }
}
