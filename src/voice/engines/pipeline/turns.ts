import type { Assistant } from '../../../modules/assistants/assistant.entity';
import type { Transcript } from '../../services/service';
import { VAD_FRAME_SAMPLES, VAD_SAMPLE_RATE } from '../../vad/silero';
import type { Backchannels } from './backchannels';
import { clamp, endpointSilenceMs, extraWaitMs, FINAL_WAIT_MS, MAX_TURN_SILENCE_MS, turnSilenceMs } from './endpointing';

/**
 * The caller's side of the floor (design.md, "The pipeline engine, round 2"): a state machine
 * fed by the VAD's speech probabilities and the STT's transcripts, which says when the caller
 * starts speaking, when their turn is over and with which words, and when their speech over
 * the assistant interrupts it. It follows Pipecat's and LiveKit Agents' designs: the VAD says
 * when the caller speaks; the end of a turn is the VAD's silence (`endpoint_type` vad) or the
 * STT's end of turn (`ai`, or when the VAD fails); speech over the assistant interrupts it once
 * it has lasted long enough (and said enough words).
 *
 * Time is `Date.now()` and timers, so that tests drive it on fake timers.
 */

/** The assistant's settings that decide turn-taking. */
export type TurnSettings = Pick<
  Assistant,
  'endpoint_type' | 'endpoint_sensitivity' | 'allow_interruptions' | 'interrupt_sensitivity' | 'use_min_interrupt_words' | 'min_interrupt_words'
>;

/** How the caller's speech over the assistant is taken (design.md, "Turn-taking that survives real callers"). */
export interface OverlapSettings {
  /** Acknowledgements ("aham", "okay"): never an interruption, never a model turn. */
  backchannels: Backchannels;
  /** How long a paused reply waits for a word that interrupts, from the end of the speech that paused it; 0: speech that would pause it cancels it. */
  falseInterruptionTimeoutMs: number;
  /** How long an ended turn waits for its final words after `finalize`; FINAL_WAIT_MS when absent (a transcriber of whole turns needs its request's time). */
  finalWaitMs?: number;
}

/** A caller's turn, as it ended. */
export interface CallerTurn {
  /** What they said (empty: a noise without words). */
  text: string;
  /** Only acknowledgements, said while the assistant held the floor: kept in the transcript, not a turn of the model. */
  backchannel: boolean;
  /** When their speech began, and when the VAD last heard it (ms since the epoch; null: it heard none of this turn). */
  startedAt: number | null;
  speechEndedAt: number | null;
}

/** What the turn-taking tells the engine, and asks it. */
export interface TurnEvents {
  /** The caller began to speak. */
  speechStarted(): void;
  /** The caller's speech stopped without a word heard (the engine's silence clock goes on). */
  noise(): void;
  /** The words so far of the caller's turn (for a transport that shows them). */
  words(text: string): void;
  /** Whether the assistant holds the floor now and could be interrupted. */
  interruptible(): boolean;
  /** The caller's speech interrupts the assistant: its reply is cut to what was heard. */
  interrupt(): void;
  /** Speech over the assistant, with no word that interrupts yet: the reply stops speaking and waits. */
  pause(): void;
  /** The speech that paused the reply was no interruption (a cough, an acknowledgement): it speaks again from the sentence that was cut. */
  resume(): void;
  /** The caller's turn is over. */
  turn(turn: CallerTurn): void;
  /** Asks the STT for its final words of the audio so far. */
  finalize(): void;
}

/** A VAD frame: 32 ms. */
const VAD_FRAME_MS = (VAD_FRAME_SAMPLES * 1000) / VAD_SAMPLE_RATE;
/** Silero's speech probability that starts speech, and the one under which it is silence (hysteresis, as Silero's own iterator). */
const SPEECH_ON = 0.5;
const SPEECH_OFF = 0.35;
/** Speech shorter than this is not the caller speaking (a click, a breath). */
const MIN_SPEECH_MS = 96;
/** A pause longer than this starts the speech that may interrupt the assistant afresh (three coughs are not a sentence). */
const INTERRUPT_PAUSE_MS = 200;
/** For so long after the VAD skipped a frame (late: a worker behind, audio ahead of real time), the STT's end of turn ends turns too. */
const VAD_LATE_MS = 1000;

/** `interrupt_sensitivity` (0 .. 5) as the speech that interrupts the assistant: 1 s at 0, 0.15 s at 5. */
export function interruptSpeechMs(sensitivity: number): number {
  return Math.round(1000 - 170 * clamp(sensitivity, 0, 5));
}


export class Turns {
  private vadFailed = false;
  /** When the VAD last skipped a frame (it came late): see VAD_LATE_MS. */
  private vadLateAt: number | null = null;
  private speakingNow = false;
  private speechMs = 0;
  private silenceMs = 0;
  /** The final transcripts of the caller's turn so far, and the latest interim one after them. */
  private heard: string[] = [];
  private interim = '';
  /** The STT has said the caller's turn is over (`speech_final`) and no words came since. */
  private sttTurnOver = false;
  /** The turn ended by the VAD, waiting for its final transcript. */
  private awaitingFinal: NodeJS.Timeout | null = null;
  /** `endpoint_type` ai: the bound on the silence after words while the STT has not said the turn is over. */
  private turnCap: NodeJS.Timeout | null = null;
  /** `endpoint_type` ai: the STT said the turn is over, and the words so far wait a little longer (digits, no punctuation). */
  private sttWait: NodeJS.Timeout | null = null;
  /** `endpoint_type` vad: the caller stopped speaking, and their turn ends once the silence is long enough for what they said. */
  private turnOpen = false;
  /** The interim words the last turn took (its final had not come): a late final brings the words after them. */
  private committedInterim = '';
  /** When the VAD last heard the caller speak (ms since the epoch): the end of speech of a turn. */
  private lastSpeechAt: number | null = null;
  /** When the assistant last started a reply (ms since the epoch). */
  private assistantStartedAt: number | null = null;
  /** The end (STT stream seconds) of the words heard so far, and of those a turn took. */
  private heardUntil = 0;
  private committedUntil = 0;
  /** When the caller's turn under way began (ms since the epoch): when their speech started. */
  private startedAt: number | null = null;
  /** The caller's speech paused the assistant's reply; and the wait for a word that interrupts, once that speech is over. */
  private pausedReply = false;
  private falseInterruption: NodeJS.Timeout | null = null;

  constructor(
    private readonly settings: TurnSettings,
    private readonly overlap: OverlapSettings,
    private readonly events: TurnEvents,
  ) {}

  /** Whether the caller is speaking now (by the VAD). */
  get speaking(): boolean {
    return this.speakingNow;
  }

  /** The caller's words not yet taken by a turn, and when they began (the call ends with them unanswered). */
  get unanswered(): { text: string; startedAt: number | null } {
    return { text: this.said(), startedAt: this.startedAt };
  }

  /** One VAD frame's speech probability. */
  vad(probability: number): void {
    if (probability >= SPEECH_ON || (this.speakingNow && probability >= SPEECH_OFF)) {
      this.speechMs += VAD_FRAME_MS;
      this.lastSpeechAt = Date.now();
      this.silenceMs = 0;
      this.stopFalseInterruption(); // the speech goes on
      if (!this.speakingNow && this.speechMs >= MIN_SPEECH_MS) this.speechStarted();
      if (this.speakingNow) this.maybeInterrupt();
      return;
    }
    this.silenceMs += VAD_FRAME_MS;
    if (!this.speakingNow || this.silenceMs > INTERRUPT_PAUSE_MS) this.speechMs = 0;
    // The speech that paused the reply is over: a word that interrupts may still come, for so long.
    if (this.pausedReply && !this.falseInterruption && this.silenceMs > INTERRUPT_PAUSE_MS) {
      this.falseInterruption = setTimeout(() => this.resumeReply(), Math.max(0, this.overlap.falseInterruptionTimeoutMs - this.silenceMs));
      this.resumeIfAcknowledged();
    }
    const endpointMs = endpointSilenceMs(this.settings.endpoint_sensitivity);
    if (this.speakingNow && this.silenceMs >= endpointMs) {
      // The caller stopped: `endpoint_type` vad ends the turn on the VAD's silence (below; late or not), `ai` waits for the STT's end of turn.
      const ai = this.settings.endpoint_type === 'ai';
      this.speakingNow = false;
      if (!ai) this.turnOpen = true;
      else if (this.heard.length === 0) this.events.noise();
      // A noise is no turn: the next words begin one.
      if (ai && this.heard.length === 0 && !this.interim) this.startedAt = null;
      // The STT may never say the turn is over: past MAX_TURN_SILENCE_MS the VAD ends it.
      else if (ai) this.turnCap ??= setTimeout(() => this.endOfTurn(), Math.max(0, MAX_TURN_SILENCE_MS - endpointMs));
    }
    // The configured silence, longer after digits or words without a sentence's end.
    if (this.turnOpen && this.silenceMs >= turnSilenceMs(endpointMs, this.said())) {
      this.turnOpen = false;
      this.endOfTurn();
    }
  }

  /**
   * The VAD failed: turns end at the STT's end of turn from now on (vadLate). What it last said
   * goes with it: nobody speaks by its word, and a reply its speech paused waits as after it.
   */
  vadLost(): void {
    if (this.vadFailed) return;
    this.vadFailed = true;
    this.speakingNow = false;
    if (this.pausedReply && !this.falseInterruption) this.falseInterruption = setTimeout(() => this.resumeReply(), this.overlap.falseInterruptionTimeoutMs);
    this.vadLate();
  }

  /** The VAD skipped a frame (late): for VAD_LATE_MS the STT's end of turn ends turns too, one it said meanwhile at once. */
  vadLate(): void {
    this.vadLateAt = Date.now();
    if (!this.awaitingFinal && this.sttTurnOver && this.heard.length) this.sttTurnEnd();
  }

  /** The assistant starts a reply: speech that began before it (the tail of the turn it answers) does not interrupt it. */
  assistantStarts(): void {
    this.assistantStartedAt = Date.now();
    this.speechMs = 0;
    this.pausedReply = false;
    this.stopFalseInterruption();
  }

  transcript(transcript: Transcript): void {
    let text = transcript.text.trim();
    if (transcript.start < this.committedUntil - 0.005) {
      // Words of audio a turn already took. A final that comes after its turn went on the interim
      // words brings the words the interim had not yet: they begin the next turn.
      if (!transcript.isFinal || !this.committedInterim) return;
      text = wordsAfter(text, this.committedInterim);
      this.committedInterim = '';
      if (!text) return;
    }
    if (text) {
      // Words with no speech the VAD heard (it failed): the best start known is now.
      this.startedAt ??= Date.now();
      this.heardUntil = Math.max(this.heardUntil, transcript.start + transcript.duration);
      if (!transcript.speechFinal) {
        // The caller goes on.
        this.sttTurnOver = false;
        this.stopSttWait();
      }
    }
    if (!transcript.isFinal) {
      this.interim = text;
      this.showWords();
      if (this.speakingNow) this.maybeInterrupt();
      return;
    }
    this.interim = '';
    if (text) this.heard.push(text);
    this.showWords();
    if (transcript.speechFinal) this.sttTurnOver = true;
    if (this.speakingNow) this.maybeInterrupt();
    this.resumeIfAcknowledged();
    if (this.awaitingFinal && (transcript.fromFinalize || transcript.speechFinal)) return this.commit();
    // The STT's end of turn (`endpoint_type` ai).
    if (this.sttEndsTurns && transcript.speechFinal && this.heard.length) this.sttTurnEnd();
  }

  /** The STT's end of an utterance (Deepgram's `UtteranceEnd`). */
  utteranceEnd(): void {
    if (this.sttEndsTurns && this.heard.length) this.sttTurnEnd();
  }

  /** Stops every timer (the call ended). */
  close(): void {
    this.stopTurnTimers();
    this.stopFalseInterruption();
  }

  /** Stops the timers of the turn's end (the turn ended, or the caller went on). */
  private stopTurnTimers(): void {
    if (this.awaitingFinal) clearTimeout(this.awaitingFinal);
    if (this.turnCap) clearTimeout(this.turnCap);
    this.awaitingFinal = null;
    this.turnCap = null;
    this.turnOpen = false;
    this.stopSttWait();
  }

  private stopSttWait(): void {
    if (this.sttWait) clearTimeout(this.sttWait);
    this.sttWait = null;
  }

  /**
   * The STT says the caller's turn is over (`ai`): it is, unless the words so far ask for a
   * longer wait (digits, no punctuation): the STT heard the configured silence already, so the
   * turn waits for the rest, within MAX_TURN_SILENCE_MS.
   */
  private sttTurnEnd(): void {
    const said = this.said();
    if (extraWaitMs(said) === 0) return this.commit();
    if (this.sttWait) return;
    const endpointMs = endpointSilenceMs(this.settings.endpoint_sensitivity);
    this.sttWait = setTimeout(() => {
      this.sttWait = null;
      if (this.heard.length) this.commit();
    }, turnSilenceMs(endpointMs, said) - endpointMs);
  }

  /** Whether the STT's end of turn ends the caller's turns: `endpoint_type` ai, or the VAD failing or late (vadLate). */
  private get sttEndsTurns(): boolean {
    return this.settings.endpoint_type === 'ai' || this.vadFailed || (this.vadLateAt !== null && Date.now() - this.vadLateAt < VAD_LATE_MS);
  }

  private said(): string {
    return [...this.heard, this.interim].join(' ').trim();
  }

  private speechStarted(): void {
    this.speakingNow = true;
    // The speech began the frames that made it speech ago; a pause within the turn keeps the turn's start.
    this.startedAt ??= Date.now() - this.speechMs;
    // The caller went on after a pause: the same turn.
    this.stopTurnTimers();
    this.events.speechStarted();
  }

  /** The VAD ended the caller's turn: the STT gives its final words now, and the turn goes with them. */
  private endOfTurn(): void {
    if (this.turnCap) clearTimeout(this.turnCap);
    this.turnCap = null;
    if (this.awaitingFinal) return;
    // The STT's final words came already: nothing to wait for.
    if (this.sttTurnOver && this.heard.length > 0) return this.commit();
    this.events.finalize();
    this.awaitingFinal = setTimeout(() => this.commit(), this.overlap.finalWaitMs ?? FINAL_WAIT_MS);
  }

  private showWords(): void {
    const words = this.said();
    if (words) this.events.words(words);
  }

  /**
   * `allow_interruptions`, `interrupt_sensitivity`, `use_min_interrupt_words` /
   * `min_interrupt_words`, and false interruptions (LiveKit's model): speech over the assistant
   * that lasts long enough pauses its reply; a word that interrupts (one that is not an
   * acknowledgement, or `min_interrupt_words` of them) then cuts it. With no such word within
   * `false_interruption_timeout_ms` of the speech's end the reply resumes (resumeReply). With
   * that timeout 0, the speech that would pause the reply cuts it, unless words are asked for.
   */
  private maybeInterrupt(): void {
    if (!this.settings.allow_interruptions || !this.events.interruptible()) return;
    // A recognised word that interrupts does, however short ("Não.", "Stop."): the STT has
    // judged it speech (LiveKit interrupts on transcripts too). Sounds are the VAD's to judge.
    if (this.interruptingWords(this.said())) return this.cut();
    const long = this.speechMs >= interruptSpeechMs(this.settings.interrupt_sensitivity);
    if (this.pausedReply || !long) return;
    if (this.overlap.falseInterruptionTimeoutMs > 0) {
      this.pausedReply = true;
      this.events.pause();
    } else if (!this.settings.use_min_interrupt_words) {
      this.cut();
    }
  }

  /** Whether `said` holds words that interrupt the assistant. */
  private interruptingWords(said: string): boolean {
    const { use_min_interrupt_words, min_interrupt_words } = this.settings;
    return this.overlap.backchannels.others(said) >= (use_min_interrupt_words ? min_interrupt_words : 1);
  }

  private cut(): void {
    this.pausedReply = false;
    this.stopFalseInterruption();
    this.events.interrupt();
  }

  /** No word interrupted the paused reply: it was no interruption. */
  private resumeReply(): void {
    this.falseInterruption = null;
    if (!this.pausedReply) return;
    this.pausedReply = false;
    this.events.resume();
  }

  /**
   * The speech that paused the reply is over and its final words are only acknowledgements
   * ("entendi", "mhm"): no word that interrupts is coming from it, so the reply speaks again at
   * once rather than after `false_interruption_timeout_ms` of silence. Words still to come
   * (an interim) or speech still going keep the wait.
   */
  private resumeIfAcknowledged(): void {
    if (!this.pausedReply || this.silenceMs <= INTERRUPT_PAUSE_MS || this.interim) return;
    if (!this.overlap.backchannels.only(this.said())) return;
    this.stopFalseInterruption();
    this.resumeReply();
  }

  private stopFalseInterruption(): void {
    if (this.falseInterruption) clearTimeout(this.falseInterruption);
    this.falseInterruption = null;
  }

  /** The caller's turn is over: what they said goes to the engine. */
  private commit(): void {
    this.stopTurnTimers();
    const text = this.said();
    this.committedInterim = this.interim;
    this.heard = [];
    this.interim = '';
    this.committedUntil = this.heardUntil;
    this.sttTurnOver = false;
    const startedAt = this.startedAt;
    this.startedAt = null;
    // The end of the speech the VAD heard in this turn; not known when it heard none (or failed).
    const speechEndedAt = !this.vadFailed && this.lastSpeechAt !== null && startedAt !== null && this.lastSpeechAt >= startedAt ? this.lastSpeechAt : null;
    // Words too short-lived for the VAD to judge while they were said ("stop!") still interrupt;
    // words whose speech was over before the assistant began (their final came late) do not.
    const overAssistant = speechEndedAt === null || this.assistantStartedAt === null || speechEndedAt >= this.assistantStartedAt;
    if (text && overAssistant && this.settings.allow_interruptions && this.events.interruptible() && this.interruptingWords(text)) this.cut();
    const backchannel = this.events.interruptible() && this.overlap.backchannels.only(text);
    this.events.turn({ text, backchannel, startedAt, speechEndedAt });
  }
}

/** The words of `final` after as many words as `taken` has (what an interim already gave a turn). */
function wordsAfter(final: string, taken: string): string {
  return final.split(/\s+/).slice(taken.split(/\s+/).filter(Boolean).length).join(' ').trim();
}
