/**
 * The silence clock of a call, both engines' (the assistant's `re_engagement_interval` and
 * `max_silence_duration`): once nobody has spoken for the first, the assistant checks whether
 * the caller is still there; when nobody speaks for the second after that, the call ends
 * (`hangup_reason` `silence`). The engine says when the line goes quiet and when someone holds
 * the floor; the clock says when to re-engage and when to hang up.
 */

/** What the model is asked to say to a silent caller. */
export const REENGAGE_INSTRUCTIONS = 'The customer has been silent for a while. Briefly check, in the language of the conversation, whether they are still there.';

/** How often the clock is read: a quarter second is well within what a silent caller notices. */
const CHECK_MS = 250;

export interface SilenceSettings {
  re_engagement_interval: number;
  max_silence_duration: number;
}

export interface SilenceHooks {
  /** Whether the clock may act now (no reply under way, no hang-up or failure in progress). */
  idle(): boolean;
  /** Ask the model to check on the caller. */
  reengage(): void;
  hangUp(): void;
}

export class SilenceClock {
  /** When the line went quiet; null while someone holds the floor. */
  private since: number | null = null;
  private reengaged = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly settings: SilenceSettings,
    private readonly hooks: SilenceHooks,
  ) {
    this.timer = setInterval(() => this.check(), CHECK_MS);
    this.timer.unref();
  }

  /** The caller is heard (speech, a key): the clock stops, and a re-engagement may come again. */
  callerActive(): void {
    this.since = null;
    this.reengaged = false;
  }

  /** The assistant holds the floor: the clock stops, its re-engagement spent or not. */
  pause(): void {
    this.since = null;
  }

  /** Nobody speaks and nothing plays: the clock starts, unless it is running. */
  quiet(): void {
    this.since ??= Date.now();
  }

  /** The clock starts from now (the call's opening leaves the first word to the caller). */
  restart(): void {
    this.since = Date.now();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private check(): void {
    if (this.since === null || !this.hooks.idle()) return;
    const silent = Date.now() - this.since;
    if (!this.reengaged && silent >= this.settings.re_engagement_interval * 1000) {
      this.reengaged = true;
      this.since = null;
      this.hooks.reengage();
    } else if (this.reengaged && silent >= this.settings.max_silence_duration * 1000) {
      this.hooks.hangUp();
    }
  }
}
