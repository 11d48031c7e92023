import type { CallUsage } from '../../../modules/calls/call.entity';
import type { HangupReason } from '../../../modules/calls/call.events';
import type { MediaEnd, MediaOut, VoiceEngine } from '../../engine';
import { fillVariables, TRANSFER_UNANSWERED, type EngineSetup } from '../../engine.setup';
import type { LiveCall } from '../../live-call';
import type { AmdDecision } from '../../amd/detector';
import { Screening, screeningPorts, verdictAction } from '../../amd/screening';
import type { ServiceError, SttStream, TtsSession } from '../../services/service';
import { closingLine, TRANSFER_FAILED, type Ending } from '../../tools/closing';
import { KeypadGather, keypadTurn } from '../keypad';
import { CallHangup } from '../hangup';
import { REENGAGE_INSTRUCTIONS, SilenceClock } from '../silence';
import { keptApology } from './apology';
import { Backchannels } from './backchannels';
import { callReplies } from './call-replies';
import type { AssistantMessage } from './context';
import { Hearing } from './hearing';
import { observe, timingFrom, turnLatency, type TurnTiming } from './latency';
import { sttOptions, ttsOptions, type PipelineAudio, type PipelineDeps, type PipelineServices } from './parts';
import { phrases } from './phrases';
import { Reply, type ReplyContext } from './reply';
import { Speaker } from './speaker';
import { Turns, type CallerTurn } from './turns';

/**
 * The built-in engine of `pipeline` assistants (design.md, "The pipeline engine" and its round
 * 2): the caller's audio -> (noise suppression) -> Silero VAD and Deepgram-style STT
 * (`hearing.ts`) -> who holds the floor (`turns.ts`) -> the assistant's answer, streamed
 * sentence by sentence to TTS (`reply.ts`) -> the speaker, paced to the transport. This file
 * wires the parts, and owns what spans turns: the caller's turns held while the assistant
 * cannot be interrupted, the silence clock, a vendor's failure and the call's end.
 */

export type { PipelineAudio, PipelineDeps, PipelineServices } from './parts';

export class PipelineEngine implements VoiceEngine {
  private readonly stt: SttStream;
  private readonly tts: TtsSession;
  private readonly speaker: Speaker;
  private readonly hearing: Hearing;
  private readonly turns: Turns;
  private readonly replies: ReplyContext;
  /** The caller's keys, gathered into turns. */
  private readonly keypad = new KeypadGather((keys, startedAt) => this.onKeypad(keys, startedAt));

  /** The reply under way: the assistant holds the floor. */
  private reply: Reply | null = null;
  /** What the caller said while the assistant could not be interrupted, answered once it is done; when it began. */
  private heldTurn = '';
  private heldStartedAt: number | null = null;
  /** Mid-call tools running (the call's end waits for their records). */
  private readonly toolRuns = new Set<Promise<unknown>>();
  /** A function the model called ends the call (a goodbye, a transfer), once its words are heard. */
  private ending: Ending | null = null;
  /** The call's hang-up: at once, or once what was sent is heard (a goodbye, an apology). */
  private readonly hangup: CallHangup;
  private failing = false;
  private ended = false;
  private readonly silence: SilenceClock;
  /** Outbound calls: who answered, found in the first seconds (src/voice/amd/); null for the others. */
  private screening: Screening | null = null;
  /** The assistant's opening, once given (at once when nothing is screened): when, and the `initial_message` it said. */
  private opening: { at: number; said: AssistantMessage | null } | null = null;
  /** The callee spoke before the opening: the opening follows their words. */
  private greetedBy = false;
  /** A mailbox answered: the voicemail message is left (or the call hung up); what it says is no turn of the model's. */
  private voicemail = false;
  /** What the vendors report the call used, recorded when it ends. */
  private readonly usage: CallUsage = { stt_seconds: 0, llm_input_tokens: 0, llm_output_tokens: 0, tts_characters: 0 };
  /** The apology's audio, kept from the call's start for when TTS is dead (apology.ts). */
  private readonly apology: Promise<Int16Array | null>;

  constructor(
    private readonly deps: PipelineDeps,
    private readonly call: LiveCall,
    private readonly setup: EngineSetup,
    services: PipelineServices,
    audioStages: PipelineAudio,
    out: MediaOut,
  ) {
    const { assistant, language } = setup;
    this.speaker = new Speaker(out, audioStages.ambience, { idle: () => this.onIdle() });
    this.hangup = new CallHangup(call, deps.logger, {
      ended: () => this.ended,
      playing: () => this.reply !== null || this.speaker.busy,
      leaving: () => this.silence.stop(),
      // The provider refused the transfer: the call goes on, and the model tells the caller.
      transferFailed: () => {
        this.ending = null;
        this.respond(null, TRANSFER_FAILED);
      },
    });
    this.silence = new SilenceClock(assistant, {
      idle: () => !this.hangup.reason && !this.ended && !this.failing && !this.reply && !this.voicemail,
      reengage: () => this.respond(null, REENGAGE_INSTRUCTIONS),
      hangUp: () => void this.hangup.now('silence'),
    });
    const backchannels = new Backchannels(language, assistant.backchannel_words);
    this.turns = new Turns(assistant, { backchannels, falseInterruptionTimeoutMs: assistant.false_interruption_timeout_ms, finalWaitMs: services.stt.finalWaitMs }, {
      speechStarted: () => {
        this.stt.speechStarted?.();
        this.silence.callerActive();
      },
      noise: () => {
        if (!this.reply) this.silence.quiet();
      },
      words: (text) => out.transcript?.('customer', text),
      interruptible: () => this.reply !== null && !this.failing && !this.hangup.reason && !this.ended && !this.voicemail,
      interrupt: () => this.interrupt(),
      pause: () => {
        this.reply?.pause();
        this.speaker.clear();
      },
      resume: () => this.reply?.resume(),
      turn: (turn) => this.onCallerTurn(turn),
      finalize: () => this.stt.finalize(),
    });
    this.stt = services.stt.open(sttOptions(setup, services, out.rate), {
      transcript: (transcript) => {
        if (this.ended) return;
        if (transcript.isFinal && transcript.text.trim()) this.screening?.final(transcript.text);
        this.turns.transcript(transcript);
      },
      utteranceEnd: () => {
        if (!this.ended) this.turns.utteranceEnd();
      },
      speechStarted: () => {},
      failed: (error) => this.fail(error),
    });
    const voice = ttsOptions(setup, services, out.rate);
    this.tts = services.tts.open(voice);
    this.hearing = new Hearing(this.stt, audioStages.vad, audioStages.denoiser, this.turns, { logger: deps.logger, callId: call.id }, out.rate);
    this.replies = callReplies(deps, call, setup, services, { tts: this.tts, speaker: this.speaker, usage: this.usage, out }, {
      current: () => this.reply,
      ending: () => this.ending,
      end: (ending) => void (this.ending ??= ending),
      track: (run) => {
        this.toolRuns.add(run);
        void run.finally(() => this.toolRuns.delete(run)).catch(() => {});
      },
      failed: (error) => this.fail(error),
      finished: (reply, cut) => this.replyFinished(reply, cut),
    });
    // A call the assistant comes back to (a warm transfer nobody answered) was screened when it began.
    if (setup.outbound && !setup.resumed) this.screening = new Screening(out.rate, screeningPorts(call), { open: () => this.open(), verdict: (decision) => this.onVerdict(decision) });
    else this.open();
    // After the opening was asked for, on a session of its own: it never keeps the opening waiting.
    this.apology = keptApology(services.tts, voice, phrases(language).apology);
  }

  /** `who_speaks_first` and `initial_message`: the call's opening (an outbound call's once the callee is heard from, or not). */
  private open(): void {
    if (this.opening || this.ended || this.hangup.reason) return;
    this.opening = { at: Date.now(), said: null };
    const { assistant, variables } = this.setup;
    // Back after a warm transfer nobody answered, the model tells the caller.
    if (this.setup.resumed) {
      this.respond(null, TRANSFER_UNANSWERED);
    } else if (assistant.who_speaks_first === 'AI assistant' && assistant.initial_message.trim()) {
      this.opening.said = this.say(fillVariables(assistant.initial_message, variables), true);
    } else if (this.greetedBy) {
      this.respond(timingFrom(null));
    } else {
      this.silence.restart();
    }
  }

  /**
   * Who answered (design.md, "Calls that act"): a person is talked to; a carrier's intercept
   * is hung up at once; a mailbox gets `voicemail_message` once its beep has ended (at most
   * `voicemail_beep_timeout_seconds`), else `end_call_on_voicemail` decides, as before.
   */
  private onVerdict(decision: AmdDecision): void {
    if (this.ended || this.hangup.reason) return;
    this.deps.logger.info('voice: who answered', { call_id: this.call.id, answered_by: decision.verdict, source: decision.source, reason: decision.reason });
    const action = verdictAction(decision, this.setup);
    if (action.act === 'talk') return;
    if (action.act === 'open') return this.open();
    this.voicemail = true;
    this.reply?.cancel();
    this.speaker.clear();
    if (action.act === 'hang-up') return void this.hangup.now(action.reason);
    void this.screening!.beepEnded(action.beepTimeoutMs).then(() => {
      if (this.ended || this.hangup.reason) return;
      this.say(action.message, false);
      this.hangup.whenHeard('voicemail-message');
    });
  }

  // ------------------------------------------------------------------ the transport's side

  audio(pcm: Int16Array): void {
    if (this.ended) return;
    this.screening?.audio(pcm);
    this.hearing.audio(pcm);
  }

  played(mark: string): void {
    this.speaker.played(mark);
  }

  digit(key: string): void {
    if (this.ended) return;
    this.silence.callerActive();
    this.keypad.press(key);
  }

  // ------------------------------------------------------------------ turns

  /** The caller's turn is over: what they said goes to the model, now or once the assistant is done. */
  private onCallerTurn({ text, backchannel, startedAt, speechEndedAt }: CallerTurn): void {
    if (this.ended || this.hangup.reason || this.failing) return;
    // A mailbox's greeting, or the callee's before the opening (its final may come after the opening began): the opening (or the message) answers it.
    const greeting = !this.opening || (this.opening.said !== null && speechEndedAt !== null && speechEndedAt < this.opening.at);
    if (this.voicemail || greeting) {
      if (!text) return;
      if (this.voicemail) return this.call.turn({ speaker: 'customer', text }, startedAt);
      this.greetedBy = true;
      return this.callerSaid(text, startedAt, this.opening?.said);
    }
    // An acknowledgement over the assistant: in the transcript, not a turn of the model.
    if (backchannel && this.reply) return this.call.turn({ speaker: 'customer', text }, startedAt);
    if (!text) {
      // A noise without words: the silence goes on.
      if (!this.reply && !this.turns.speaking) this.silence.quiet();
      return;
    }
    if (this.reply) {
      // The assistant could not be interrupted: the caller's turn follows its own, and is answered then.
      this.heldTurn = `${this.heldTurn} ${text}`.trim();
      this.heldStartedAt ??= startedAt;
      return;
    }
    this.callerSaid(text, startedAt);
    this.respond(timingFrom(speechEndedAt));
  }

  /**
   * The caller's keys make a turn, taken as speech is: it interrupts the assistant (its reply
   * cut where it was heard) when interruptions are allowed, else it is answered after it.
   */
  private onKeypad(keys: string, startedAt: number): void {
    if (this.ended || this.hangup.reason || this.failing) return;
    if (this.reply && this.setup.assistant.allow_interruptions) this.interrupt();
    this.onCallerTurn({ text: keypadTurn(keys), backchannel: false, startedAt, speechEndedAt: Date.now() });
  }

  /** The caller's turn, in the call's record and the model's context (before `before`, which it came before). */
  private callerSaid(text: string, startedAt: number | null, before?: AssistantMessage | null): void {
    this.call.turn({ speaker: 'customer', text }, startedAt);
    this.replies.conversation.rememberBefore({ role: 'user', content: text }, before);
  }

  /** The held turn, said now (the assistant's turn before it is over). */
  private takeHeldTurn(): void {
    this.callerSaid(this.heldTurn, this.heldStartedAt);
    this.heldTurn = '';
    this.heldStartedAt = null;
  }

  private startReply(timing: TurnTiming | null): Reply {
    const reply = new Reply(this.replies, timing);
    this.reply = reply;
    this.silence.pause();
    this.turns.assistantStarts();
    return reply;
  }

  /** Says a text as it is, as a turn of the assistant (the opening, also in the model's context; an apology). */
  private say(text: string, inContext: boolean): AssistantMessage {
    return this.startReply(null).say(text, inContext);
  }

  /** A reply the model writes. */
  private respond(timing: TurnTiming | null, instructions?: string): void {
    void this.startReply(timing).write(instructions);
  }

  /** The caller spoke over the assistant: it stops, and its turn is what the caller heard. */
  private interrupt(): void {
    this.reply?.cancel();
    this.speaker.clear();
    this.hangup.heard(); // talked over the goodbye: nothing is left to hear
  }

  /** Records the assistant's turn (cut to what was heard when `cut`), and moves on. */
  private replyFinished(reply: Reply, cut: boolean): void {
    if (this.reply !== reply) return;
    this.reply = null;
    const { said, startedAt } = reply.heard(cut);
    this.replies.conversation.forgetUnsaid();
    const { timing } = reply;
    const latency = timing ? turnLatency(timing) : undefined;
    if (latency) observe(latency);
    // OTEL_EXPORTER_OTLP_ENDPOINT: the answer's span, from the caller's end of speech to the first audio sent.
    if (latency && timing?.speechEndedAt) {
      this.deps.telemetry?.turn({ callId: this.call.id, startedAt: timing.speechEndedAt, endedAt: timing.firstAudioAt ?? Date.now(), latency });
    }
    if (said.length) this.call.turn({ speaker: 'assistant', text: said.join(' '), ...(latency ? { latency } : {}) }, startedAt);
    if (this.failing || this.ended) return;
    // Interrupted: what the caller said before belongs with what they are saying now.
    if (cut && this.heldTurn) this.takeHeldTurn();
    if (this.ending && !this.hangup.afterHeard) return this.close(this.ending);
    if (this.heldTurn) {
      this.takeHeldTurn();
      this.respond(timingFrom(null));
      return;
    }
    if (!this.turns.speaking) this.silence.quiet();
  }

  private onIdle(): void {
    if (this.ended) return;
    this.reply?.checkHeard();
    // A goodbye or an apology heard to its end (not a pause while TTS catches up).
    if (!this.reply) this.hangup.heard();
  }

  // ------------------------------------------------------------------ silence, failures, the end

  /**
   * A vendor failed: the assistant apologises in its language (TTS dead: with the apology kept
   * at the call's start), then the call is hung up with `hangup_reason` naming the part. Never
   * a silent line.
   */
  private fail(error: ServiceError): void {
    if (this.ended) return;
    const reason: HangupReason = `${error.part}-failed`;
    if (this.failing) {
      // The apology could not be spoken either: the kept one is played.
      if (error.part === 'tts') this.sayKeptApology(this.hangup.afterHeard ?? reason);
      return;
    }
    this.failing = true;
    this.deps.logger.warn('voice: a vendor of the pipeline failed', { call_id: this.call.id, part: error.part, kind: error.kind, message: error.message });
    this.call.failed(error.message);
    this.reply?.cancel();
    this.speaker.clear();
    // Every TTS vendor of the call failed (services/fallback.tts.ts): only the kept apology can speak.
    if (error.part === 'tts') return this.sayKeptApology(reason);
    this.hangup.afterHeard = reason;
    this.say(phrases(this.setup.language).apology, false);
    this.hangup.whenHeard(reason);
  }

  /** Plays the apology kept at the call's start, then hangs up once it is heard; at once when none could be kept. */
  private sayKeptApology(reason: HangupReason): void {
    // Nothing hangs up on an idle speaker before the apology is queued; a live apology cut short gives way to it.
    this.hangup.afterHeard = null;
    this.reply?.cancel();
    this.speaker.clear();
    void this.apology.then((pcm) => {
      if (this.ended || this.hangup.reason) return;
      if (pcm) {
        this.speaker.clip(pcm);
        this.call.turn({ speaker: 'assistant', text: phrases(this.setup.language).apology }, Date.now());
      }
      this.hangup.whenHeard(reason);
    });
  }

  /** A function ended the call: the assistant's own closing line is said (a transfer's message), then the call closes once it is heard. */
  private close(ending: Ending): void {
    const line = closingLine(ending, this.setup);
    if ('text' in line) {
      this.hangup.afterHeard = ending;
      this.say(line.text, true);
    }
    this.hangup.whenHeard(ending);
  }

  async end(reason: MediaEnd): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    // What the caller heard of a reply under way is the assistant's last turn, and what the caller said after it theirs.
    this.reply?.cancel();
    const pending = this.turns.unanswered;
    const unanswered = [this.heldTurn, pending.text].join(' ').trim();
    if (unanswered) this.call.turn({ speaker: 'customer', text: unanswered }, this.heldStartedAt ?? pending.startedAt);
    this.silence.stop();
    this.screening?.close();
    this.keypad.close();
    this.turns.close();
    this.speaker.close();
    const heard = this.hearing.close();
    try {
      if (reason === 'customer') this.call.endedAtProvider();
      else if (reason === 'media-lost' && !this.hangup.reason) await this.call.hangup('media-lost');
    } catch (error) {
      this.deps.logger.error('voice: could not hang up a call whose media was lost', error, { call_id: this.call.id });
    } finally {
      const stt = await this.stt.close().catch(() => ({ seconds: 0 }));
      this.tts.close();
      this.call.usage({ ...this.usage, stt_seconds: stt.seconds, tts_characters: this.tts.characters });
      await Promise.allSettled([heard, ...this.toolRuns]);
      await this.call.settled();
    }
  }
}
