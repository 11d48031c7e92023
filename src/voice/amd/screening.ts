import type { AnsweredBy } from '../../modules/calls/call.entity';
import { fillVariables } from '../engine.setup';
import type { LiveCall } from '../live-call';
import { BeepDetector } from './beep';
import { AmdDetector, type AmdDecision } from './detector';

/**
 * An outbound call's first seconds, for either engine (design.md, "Calls that act"): the
 * opening waits up to OPENING_WAIT_MS for the callee (and, once they speak, for the detector
 * to judge their greeting); the detector's verdict, helped by Twilio's AnsweredBy when it comes
 * (read from the call, where the AMD callback keeps it), decides what the engine does; a
 * mailbox's beep is listened for from the start, so its end is known however late the verdict.
 */

/** How long the opening waits for the callee to say something. */
export const OPENING_WAIT_MS = 1500;
/** A callee who talks on without a verdict (a person's long, paused greeting) is greeted after this anyway. */
const OPENING_MAX_MS = 10_000;
/** After this, the call is what it seemed: no verdict comes any more. */
const DETECTION_MS = 30_000;
/** How often Twilio's AnsweredBy is looked for while the verdict is open. */
const TWILIO_POLL_MS = 500;

/** What an engine does about who answered (design.md, "Calls that act"): the same on both engines. */
export type VerdictAction =
  /** A person: the call goes on (the opening is Screening's to give). */
  | { act: 'talk' }
  /** A mailbox the assistant talks to anyway (no `voicemail_message`, `end_call_on_voicemail` off): it opens. */
  | { act: 'open' }
  /** A carrier's intercept, or a mailbox with no message to leave. */
  | { act: 'hang-up'; reason: 'unavailable' | 'voicemail' }
  /** A mailbox: `voicemail_message` (the call's variables filled) once its beep has ended, or after `beepTimeoutMs`. */
  | { act: 'leave-message'; message: string; beepTimeoutMs: number };

export function verdictAction(
  decision: AmdDecision,
  setup: { assistant: { voicemail_message: string | null; end_call_on_voicemail: boolean; voicemail_beep_timeout_seconds: number }; variables: Record<string, unknown> },
): VerdictAction {
  const { voicemail_message, end_call_on_voicemail, voicemail_beep_timeout_seconds } = setup.assistant;
  if (decision.verdict === 'human') return { act: 'talk' };
  if (decision.verdict === 'unavailable') return { act: 'hang-up', reason: 'unavailable' };
  if (voicemail_message) return { act: 'leave-message', message: fillVariables(voicemail_message, setup.variables), beepTimeoutMs: voicemail_beep_timeout_seconds * 1000 };
  return end_call_on_voicemail ? { act: 'hang-up', reason: 'voicemail' } : { act: 'open' };
}

export interface ScreeningEvents {
  /** Time for the assistant's opening: the callee is a person, or said nothing for OPENING_WAIT_MS. */
  open(): void;
  /** The verdict (once): the engine acts on it; it is on the call already (`record`). */
  verdict(decision: AmdDecision): void;
}

export interface ScreeningPorts {
  /** Twilio's AnsweredBy as the call keeps it now (null: not known). */
  answeredBy(): Promise<AnsweredBy | null>;
  /** Keeps the verdict on the call (answered_by, its event). */
  record(decision: AmdDecision): void;
}

/** The ports of a live call. */
export function screeningPorts(call: LiveCall): ScreeningPorts {
  return {
    answeredBy: () => call.providerAnsweredBy(),
    record: (decision) => call.answeredBy({ answered_by: decision.verdict, source: decision.source, reason: decision.reason, at_ms: decision.atMs }),
  };
}

export class Screening {
  private readonly detector = new AmdDetector();
  private readonly beeps: BeepDetector;
  private opened = false;
  private closed = false;
  /** DETECTION_MS passed without a verdict: none comes. */
  private over = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private polling = false;
  /** Whoever waits for the beep's end (the voicemail message). */
  private beepWaiter: (() => void) | null = null;

  constructor(
    rate: number,
    private readonly ports: ScreeningPorts,
    private readonly events: ScreeningEvents,
  ) {
    this.beeps = new BeepDetector(rate);
    this.later(OPENING_WAIT_MS, () => this.checkOpening());
    this.later(OPENING_MAX_MS, () => this.openNow());
    const poll = setInterval(() => void this.pollTwilio(), TWILIO_POLL_MS);
    poll.unref();
    this.timers.push(poll);
    this.later(DETECTION_MS, () => this.stopDetecting());
  }

  get decision(): AmdDecision | null {
    return this.detector.decision;
  }

  /** The callee's audio, PCM at the call's rate. */
  audio(pcm: Int16Array): void {
    if (this.closed) return;
    // The beep matters for a mailbox only: it is listened for until a person answers or the window is over.
    if (!this.beeps.ended && !this.over && this.detector.decision?.verdict !== 'human') {
      this.beeps.audio(pcm);
      if (this.beeps.ended) this.beepWaiter?.();
    }
    if (this.detector.decision || this.over) return;
    this.decided(this.detector.audio(pcm, this.beeps.rate));
  }

  /** A final of the callee's speech. */
  final(text: string): void {
    if (this.closed || this.over || this.detector.decision) return;
    this.decided(this.detector.final(text));
  }

  /** Resolves once the mailbox's beep has ended, or after `timeoutMs`. */
  beepEnded(timeoutMs: number): Promise<'beep' | 'timeout'> {
    if (this.beeps.ended) return Promise.resolve('beep');
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.beepWaiter = null;
        resolve('timeout');
      }, timeoutMs);
      timer.unref();
      this.timers.push(timer);
      this.beepWaiter = () => {
        clearTimeout(timer);
        this.beepWaiter = null;
        resolve('beep');
      };
    });
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.beepWaiter = null;
  }

  private decided(decision: AmdDecision | null): void {
    if (!decision || this.closed) return;
    this.ports.record(decision);
    if (decision.verdict === 'human') this.openNow();
    this.events.verdict(decision);
  }

  /** The wait is over: greet unless the callee is in the middle of their greeting (the verdict will come). */
  private checkOpening(): void {
    if (this.closed || this.opened || this.detector.decision) return;
    if (this.detector.heardTalk) return;
    this.openNow();
  }

  private openNow(): void {
    if (this.closed || this.opened) return;
    if (this.detector.decision && this.detector.decision.verdict !== 'human') return;
    this.opened = true;
    if (!this.detector.decision) this.detector.greeted();
    this.events.open();
  }

  private async pollTwilio(): Promise<void> {
    if (this.closed || this.detector.decision || this.polling) return;
    this.polling = true;
    try {
      const answeredBy = await this.ports.answeredBy();
      if (answeredBy && !this.closed && !this.over && !this.detector.decision) this.decided(this.detector.answeredBy(answeredBy));
    } catch {
      // A read that failed: the next one, or the detector alone, decides.
    } finally {
      this.polling = false;
    }
  }

  private stopDetecting(): void {
    if (this.detector.decision) return;
    this.over = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.openNow();
  }

  private later(ms: number, run: () => void): void {
    const timer = setTimeout(run, ms);
    timer.unref();
    this.timers.push(timer);
  }
}
