import { firstPhrase, HUMAN_OPENINGS, INTERCEPT_PHRASES, MAILBOX_PHRASES, normalise, WEAK_MAILBOX_PHRASES } from './phrases';

/**
 * Who answered an outbound call, found by the engine (design.md, "Calls that act"): Twilio's
 * AMD is tuned to US greetings and its verdict comes seconds late, so each call's detector
 * combines what it can hear at once. Pure: the engine gives it the callee's audio, their
 * finals and Twilio's `AnsweredBy` when it comes; its clock is the callee's audio (its samples),
 * so a test or the benchmark may run it faster than real time.
 *
 * The rules, first that holds:
 * 1. the finals name a mailbox or a carrier's intercept (phrases.ts): `machine` / `unavailable`;
 * 2. Twilio says machine: `machine`; Twilio says human, and the greeting was not a long one: `human`;
 * 3. the timing: a machine talks on, a person says a word and waits. A greeting that has
 *    run over 2.5 s without a pause is a machine's once its words are known (they may name an
 *    intercept) or it runs on to 8 s, unless it opened the way a person does ("Alô, aqui é a
 *    Maria, pois não?") and then stopped; a short greeting ("Alô?", "Ja?") then silence is a
 *    person's.
 */

export type AmdVerdict = 'human' | 'machine' | 'unavailable';

/** What decided the verdict. */
export type AmdSource = 'phrase' | 'twilio' | 'timing';

export interface AmdDecision {
  verdict: AmdVerdict;
  source: AmdSource;
  /** In words, for the call's events: the phrase heard, the timing seen. */
  reason: string;
  /** Ms after the answer at which it was decided. */
  atMs: number;
}

/** Audio whose 20 ms RMS is over this is someone talking (about -38 dBFS; a phone line's hiss is far below). */
const SPEECH_RMS = 400;
const FRAME_MS = 20;
/** A silence this long ends a stretch of talk (words within a sentence are closer). */
const PAUSE_MS = 400;
/** A greeting longer than this without a pause is a machine's. */
export const LONG_GREETING_MS = 2500;
/** A machine's greeting with no final yet is decided by its length alone at this point (a final usually comes sooner: Deepgram closes a stretch every few seconds). */
const LONG_GREETING_ALONE_MS = 8000;
/** After a short greeting, this much silence: the callee waits for us, a person. */
const HUMAN_SILENCE_MS = 800;
/** ... and with no final of it by then, this much. */
const HUMAN_SILENCE_NO_FINAL_MS = 1500;
/** A long greeting that opened like a person's is a person's only when it is this short. */
const HUMAN_LONG_WORDS = 12;

/** Twilio's `AnsweredBy`, as the calls table keeps it. */
export type TwilioAnsweredBy = 'human' | 'machine' | 'unknown' | 'unavailable';

export class AmdDetector {
  private decided: AmdDecision | null = null;
  private readonly finals: string[] = [];
  private twilio: TwilioAnsweredBy | null = null;
  /** Audio time heard (ms) and where talk was. */
  private heardMs = 0;
  private frame = new Int16Array(0);
  private frameFill = 0;
  private rate = 8000;
  /** The stretch of talk under way (or the last one): its start, and the last frame of talk. */
  private stretchStart: number | null = null;
  private lastTalk: number | null = null;
  /** The longest stretch so far, and whether any talk was heard. */
  private longest = 0;
  /** The number of finals when the long stretch was first seen (a later final tells its words). */
  private finalsAtLong: number | null = null;
  /** The assistant spoke first (the callee said nothing while it waited). */
  private greetedFirst = false;

  get decision(): AmdDecision | null {
    return this.decided;
  }

  /** Whether the callee has said anything yet (by the audio's energy). */
  get heardTalk(): boolean {
    return this.lastTalk !== null;
  }

  /** Whether the callee is talking now (no pause since their last word). */
  get talking(): boolean {
    return this.lastTalk !== null && this.heardMs - this.lastTalk < PAUSE_MS;
  }

  /** The callee's audio, in order, PCM at `rate`; time is the audio's own (its samples), so a test or the bench can run it faster than real time. */
  audio(pcm: Int16Array, rate: number): AmdDecision | null {
    if (this.decided) return this.decided;
    if (rate !== this.rate || this.frame.length === 0) {
      this.rate = rate;
      this.frame = new Int16Array((rate * FRAME_MS) / 1000);
      this.frameFill = 0;
    }
    for (let i = 0; i < pcm.length; i++) {
      this.frame[this.frameFill++] = pcm[i];
      if (this.frameFill === this.frame.length) {
        this.frameFill = 0;
        this.onFrame(rms(this.frame));
      }
    }
    return this.decide();
  }

  /** A final of the callee's STT. */
  final(text: string): AmdDecision | null {
    if (this.decided) return this.decided;
    if (text.trim()) this.finals.push(normalise(text));
    return this.decide();
  }

  /** Twilio's AMD answered (AnsweredBy, as answered_by keeps it). */
  answeredBy(value: TwilioAnsweredBy): AmdDecision | null {
    if (this.decided) return this.decided;
    if (value === 'human' || value === 'machine') this.twilio = value;
    return this.decide();
  }

  /**
   * The assistant has opened before the callee said anything: what the callee says now answers
   * it, and a long answer is a person's (machines talk at once), so the timing no longer says
   * machine; the phrases and Twilio still do.
   */
  greeted(): void {
    this.greetedFirst = true;
  }

  /** Ms of the callee's audio heard since the answer. */
  get elapsedMs(): number {
    return this.heardMs;
  }

  private onFrame(level: number): void {
    const at = this.heardMs;
    this.heardMs += FRAME_MS;
    if (level < SPEECH_RMS) return;
    if (this.lastTalk === null || at - this.lastTalk >= PAUSE_MS) this.stretchStart = at;
    this.lastTalk = at + FRAME_MS;
    this.longest = Math.max(this.longest, this.lastTalk - this.stretchStart!);
    if (this.longest > LONG_GREETING_MS && this.finalsAtLong === null) this.finalsAtLong = this.finals.length;
  }

  private decide(): AmdDecision | null {
    const at = this.heardMs;
    const said = this.finals.join(' ');
    const phrase =
      verdictOf(firstPhrase(said, MAILBOX_PHRASES), 'machine', 'mailbox') ??
      verdictOf(firstPhrase(said, INTERCEPT_PHRASES), 'unavailable', 'carrier intercept') ??
      verdictOf(firstPhrase(said, WEAK_MAILBOX_PHRASES), 'machine', 'mailbox');
    if (phrase) return this.decideAs(phrase.verdict, 'phrase', phrase.reason, at);

    const long = this.longest > LONG_GREETING_MS;
    if (this.twilio === 'machine') return this.decideAs('machine', 'twilio', 'Twilio AnsweredBy machine', at);
    if (this.twilio === 'human' && !long) return this.decideAs('human', 'twilio', 'Twilio AnsweredBy human', at);

    if (this.lastTalk === null) return null;
    const silence = at - this.lastTalk;
    const words = said ? said.split(' ').length : 0;
    if (long) {
      if (this.greetedFirst) return null;
      const wordsKnown = this.finalsAtLong !== null && this.finals.length > this.finalsAtLong;
      const personLike = words > 0 && words <= HUMAN_LONG_WORDS && startsWithOpening(this.finals[0]);
      if (personLike) {
        // A person's long hello ends and waits; a machine's goes on past the point a person stops.
        if (silence >= HUMAN_SILENCE_MS) return this.decideAs('human', 'timing', `a greeting of ${ms(this.longest)} that opened as a person's, then silence`, at);
        if (this.longest <= LONG_GREETING_ALONE_MS) return null;
      } else if (!wordsKnown && this.longest <= LONG_GREETING_ALONE_MS && silence < HUMAN_SILENCE_NO_FINAL_MS) {
        return null;
      }
      return this.decideAs('machine', 'timing', `a greeting of ${ms(this.longest)} without a pause`, at);
    }
    if (silence >= HUMAN_SILENCE_MS && (words > 0 || silence >= HUMAN_SILENCE_NO_FINAL_MS)) {
      return this.decideAs('human', 'timing', `a short greeting (${ms(this.longest)}) then silence`, at);
    }
    return null;
  }

  private decideAs(verdict: AmdVerdict, source: AmdSource, reason: string, atMs: number): AmdDecision {
    this.decided = { verdict, source, reason, atMs };
    return this.decided;
  }
}

function verdictOf(phrase: string | null, verdict: AmdVerdict, kind: string): { verdict: AmdVerdict; reason: string } | null {
  return phrase ? { verdict, reason: `${kind}: "${phrase}"` } : null;
}

function startsWithOpening(normalised: string): boolean {
  const first = normalised.split(' ').slice(0, 2).join(' ');
  return firstPhrase(first, HUMAN_OPENINGS) !== null;
}

function ms(value: number): string {
  return `${(value / 1000).toFixed(1)} s`;
}

function rms(frame: Int16Array): number {
  let sum = 0;
  for (let i = 0; i < frame.length; i++) sum += frame[i] * frame[i];
  return Math.sqrt(sum / frame.length);
}
