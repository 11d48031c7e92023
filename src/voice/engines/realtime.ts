import WebSocket from 'ws';
import type { ToolDeps } from '../../modules/calls/call.tools';
import type { Runtime } from '../../runtime';
import { jsonMessage } from '../../lib/json-message';
import { dtmfTones } from '../codecs/dtmf';
import { BASE64, MULAW_RATE } from '../codecs/mulaw';
import { Resampler } from '../codecs/resample';
import type { MediaEnd, MediaOut, VoiceEngine } from '../engine';
import { fillVariables, TRANSFER_UNANSWERED, type EngineSetup } from '../engine.setup';
import type { LiveCall } from '../live-call';
import { realtimeModel, realtimeSession, responseId, type RealtimeEvent } from '../services/openai.realtime';
import type { AmdDecision } from '../amd/detector';
import { Screening, screeningPorts, verdictAction } from '../amd/screening';
import { runFunction, type CallActions } from '../tools';
import { closingLine, TRANSFER_FAILED, type Ending } from '../tools/closing';
import { CallHangup } from './hangup';
import { KeypadGather, keypadTurn } from './keypad';
import { RealtimeBarge } from './realtime-barge';
import { RealtimeInput } from './realtime-input';
import { RealtimeItems } from './realtime-items';
import { RealtimePlayback } from './realtime-playback';
import { REENGAGE_INSTRUCTIONS, SilenceClock } from './silence';

/** The parts of the runtime the Realtime engine uses: its settings, the log, and what mid-call tools need. */
export type RealtimeDeps = Pick<Runtime, 'config' | 'logger'> & ToolDeps;

/**
 * The built-in voice engine of `multimodal` assistants: a bridge between the call's media
 * and an OpenAI Realtime session (design.md, "Voice engines"). The session's audio is 8 kHz
 * mu-law both ways (`g711_ulaw`): a phone call's PCM is encoded back to what Twilio sent, a web
 * call's 16 kHz is taken down to 8 kHz, and the answer up again.
 */


/**
 * One call's Realtime session. The caller's audio goes to `input_audio_buffer.append` once the
 * session is set up; the model's audio goes to Twilio with a mark after each chunk, so that
 * the engine knows what has been heard: an interruption clears Twilio's buffer and truncates
 * the model's item where the caller stopped hearing it, and a goodbye is heard before the
 * call is hung up.
 */
export class RealtimeEngine implements VoiceEngine {
  private readonly ws: WebSocket;
  private ready = false;
  private ended = false;
  /** The caller's audio to the session. */
  private readonly input: RealtimeInput;
  /** What was sent the caller and what they heard of it. */
  private readonly playback: RealtimePlayback;
  /** The caller's keys, gathered into turns. */
  private readonly keypad = new KeypadGather((keys, startedAt) => this.onKeypad(keys, startedAt));
  /** A turn of the caller (speech, keys) came while a response was under way: one is asked for once it is done. */
  private respondAfter = false;
  private responding = false;
  private responseAudio = false;
  private toolRuns: Promise<void>[] = [];
  /** A function ended the call (the end-call tool, a transfer): it closes once its last words are heard. */
  private ending: Ending | null = null;
  private goodbyeAsked = false;
  /** The call's hang-up: at once, or once the audio sent so far has been played (a goodbye). */
  private readonly hangup: CallHangup;
  private readonly silence: SilenceClock;
  /** Whether the caller's speech interrupts the assistant. */
  private readonly barge: RealtimeBarge;
  /** When each item's turn began, and its words so far, until its transcript is done. */
  private readonly items = new RealtimeItems();
  /** Outbound calls: who answered, found in the first seconds (src/voice/amd/), from the callee's audio and the session's transcripts. */
  private readonly screening: Screening | null;
  private opened = false;
  /** A mailbox answered: the session's own answers are cancelled until the voicemail message is asked for. */
  private voicemail = false;
  private messageAsked = false;
  /** The session's response that says the voicemail message. */
  private messageResponse: string | null = null;

  constructor(
    private readonly runtime: RealtimeDeps,
    private readonly call: LiveCall,
    private readonly setup: EngineSetup,
    private readonly out: MediaOut,
  ) {
    // A web call's audio to the session's 8 kHz and back (a phone call's is the session's).
    const wide = out.rate !== MULAW_RATE;
    this.input = new RealtimeInput((event) => this.sendText(event), wide ? new Resampler(out.rate, MULAW_RATE) : null);
    this.playback = new RealtimePlayback(out, wide ? new Resampler(MULAW_RATE, out.rate) : null);
    this.hangup = new CallHangup(call, runtime.logger, {
      ended: () => this.ended,
      playing: () => this.playback.busy,
      leaving: () => this.silence.stop(),
      transferFailed: () => this.transferFailed(),
    });
    this.barge = new RealtimeBarge(setup.assistant, (item) => this.items.wordsOf(item), () => this.interrupted());
    this.silence = new SilenceClock(setup.assistant, {
      idle: () => !this.hangup.reason && !this.ended && !this.voicemail,
      reengage: () => this.send({ type: 'response.create', response: { instructions: REENGAGE_INSTRUCTIONS } }),
      hangUp: () => void this.hangup.now('silence'),
    });
    const openai = runtime.config.voice.openai!;
    const url = `${openai.realtimeUrl}?model=${encodeURIComponent(realtimeModel(setup.assistant, openai.realtimeModel))}`;
    this.ws = new WebSocket(url, { headers: { authorization: `Bearer ${openai.apiKey}` }, perMessageDeflate: false });
    this.ws.on('open', () => this.send({ type: 'session.update', session: realtimeSession(setup) }));
    this.ws.on('message', (data) => this.onEvent(data.toString()));
    let failure: string | null = null;
    this.ws.on('error', (error) => {
      failure = `OpenAI Realtime could not be reached: ${error.message}`;
      runtime.logger.warn('voice: the Realtime connection failed', { call_id: call.id, message: error.message });
    });
    this.ws.on('close', (code) => {
      if (this.ended) return;
      call.failed(failure ?? `OpenAI Realtime closed the session (code ${code})`);
      void this.hangup.now('engine-failed');
    });
    this.screening = setup.outbound && !setup.resumed ? new Screening(out.rate, screeningPorts(call), { open: () => this.open(), verdict: (decision) => this.onVerdict(decision) }) : null;
    if (!this.screening) this.opened = true;
  }

  audio(pcm: Int16Array): void {
    if (this.ended) return;
    this.screening?.audio(pcm);
    this.input.push(pcm);
  }

  played(name: string): void {
    if (!this.playback.played(name)) return;
    if (this.hangup.afterHeard) this.hangup.heard();
    else if (!this.responding) this.silence.quiet();
  }

  digit(key: string): void {
    if (this.ended) return;
    this.silence.callerActive();
    this.keypad.press(key);
  }

  /**
   * The caller's keys make a turn, taken as speech is: it interrupts the assistant (the answer
   * cut where it was heard) when interruptions are allowed, and goes to the session as the
   * caller's message; the answer to it is asked for now, or once the response under way is done.
   */
  private onKeypad(keys: string, startedAt: number): void {
    if (this.ended || this.hangup.reason || !this.ready) return;
    const text = keypadTurn(keys);
    if (this.setup.assistant.allow_interruptions) {
      this.barge.stop();
      this.interrupted();
    }
    this.call.turn({ speaker: 'customer', text }, startedAt);
    this.send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] } });
    if (this.responding) this.respondAfter = true;
    else this.send({ type: 'response.create' });
  }

  async end(reason: MediaEnd): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    this.keypad.close();
    this.playback.dropTones();
    this.silence.stop();
    this.screening?.close();
    this.barge.stop();
    this.ws.close();
    if (reason === 'customer') this.call.endedAtProvider();
    else if (reason === 'media-lost' && !this.hangup.reason) await this.call.hangup('media-lost');
    await Promise.allSettled(this.toolRuns);
    await this.call.settled();
  }

  private send(event: Record<string, unknown>): void {
    this.sendText(JSON.stringify(event));
  }

  private sendText(event: string): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(event);
  }

  private onEvent(text: string): void {
    // Any JSON value may come (null, a number, an array): only an object naming its type is an event.
    const event: RealtimeEvent | null = jsonMessage(text, 'type');
    if (!event) return;
    switch (event.type) {
      case 'response.output_audio.delta':
        return this.speak(String(event.item_id), String(event.delta));
      case 'session.updated':
        return this.start();
      case 'input_audio_buffer.speech_started':
        if (typeof event.item_id === 'string') this.items.began(event.item_id);
        return this.speechStarted(String(event.item_id));
      case 'input_audio_buffer.speech_stopped':
        // Too short to interrupt: the assistant speaks on.
        this.barge.stopped();
        return;
      case 'input_audio_buffer.committed':
        return this.callerTurn(String(event.item_id));
      case 'response.created':
        // Whoever asked for it (the session's own answers are off): a mailbox gets only the voicemail message, a callee not yet judged nothing.
        if (this.voicemail ? !this.messageAsked : !this.opened) this.send({ type: 'response.cancel' });
        else if (this.messageAsked) this.messageResponse ??= responseId(event);
        this.responding = true;
        this.responseAudio = false;
        this.silence.pause();
        return;
      case 'response.done':
        return void this.responseDone(responseId(event));
      case 'response.output_audio_transcript.delta':
        return this.showWords('assistant', String(event.item_id), event.delta);
      case 'conversation.item.input_audio_transcription.delta':
        this.showWords('customer', String(event.item_id), event.delta);
        return this.barge.heard(String(event.item_id), this.items.wordsOf(String(event.item_id)));
      case 'response.output_audio_transcript.done': {
        const at = this.items.done(String(event.item_id));
        if (typeof event.transcript === 'string' && event.transcript) this.call.turn({ speaker: 'assistant', text: event.transcript }, at);
        return;
      }
      case 'conversation.item.input_audio_transcription.completed': {
        const at = this.items.done(String(event.item_id));
        if (typeof event.transcript === 'string') this.barge.heard(String(event.item_id), event.transcript);
        if (typeof event.transcript === 'string' && event.transcript.trim()) {
          this.screening?.final(event.transcript);
          this.call.turn({ speaker: 'customer', text: event.transcript.trim() }, at);
        }
        return;
      }
      case 'response.function_call_arguments.done':
        return this.functionCall(String(event.call_id), String(event.name), String(event.arguments ?? '{}'));
      case 'error': {
        const error = (event.error ?? {}) as Record<string, unknown>;
        this.runtime.logger.warn('voice: the Realtime API reported an error', { call_id: this.call.id, type: error.type, code: error.code, message: error.message });
        return;
      }
    }
  }

  /** The session is set up: the caller's audio flows, and the assistant opens the call if it speaks first. */
  private start(): void {
    if (this.ready) return;
    this.ready = true;
    this.input.open();
    if (this.opened) this.greet();
  }

  /** An outbound call's opening, once the callee is heard from (or not: Screening). */
  private open(): void {
    if (this.opened || this.ended || this.hangup.reason) return;
    this.opened = true;
    if (this.ready) this.greet();
  }

  /**
   * Who answered (design.md, "Calls that act"), as in the pipeline engine: a carrier's
   * intercept is hung up at once; a mailbox gets `voicemail_message` once its beep has ended,
   * said by the model in the assistant's voice, else `end_call_on_voicemail` decides.
   */
  private onVerdict(decision: AmdDecision): void {
    if (this.ended || this.hangup.reason) return;
    this.runtime.logger.info('voice: who answered', { call_id: this.call.id, answered_by: decision.verdict, source: decision.source, reason: decision.reason });
    const action = verdictAction(decision, this.setup);
    if (action.act === 'talk') return;
    if (action.act === 'open') return this.open();
    this.voicemail = true;
    this.barge.stop();
    if (this.responding) this.send({ type: 'response.cancel' });
    this.out.clear();
    this.playback.cut();
    if (action.act === 'hang-up') return void this.hangup.now(action.reason);
    void this.screening!.beepEnded(action.beepTimeoutMs).then(() => {
      if (this.ended || this.hangup.reason) return;
      this.messageAsked = true;
      this.send({ type: 'response.create', response: { instructions: `You reached a voicemail. Leave this message, saying exactly this, in its language, and nothing else: "${action.message}"` } });
    });
  }

  private greet(): void {
    const { assistant, variables } = this.setup;
    if (this.setup.resumed) {
      // Back after a warm transfer nobody answered: the model tells the caller.
      this.send({ type: 'response.create', response: { instructions: TRANSFER_UNANSWERED } });
    } else if (assistant.who_speaks_first === 'AI assistant') {
      const opening = fillVariables(assistant.initial_message, variables);
      this.send({ type: 'response.create', response: { instructions: `Open the call by saying exactly this, in its language: "${opening}"` } });
    } else {
      this.silence.restart();
    }
  }

  private showWords(speaker: 'customer' | 'assistant', itemId: string, delta: unknown): void {
    if (typeof delta !== 'string' || !delta) return;
    // Kept for a barge-in's word count too, whether or not the transport shows them.
    const words = this.items.add(itemId, delta);
    this.out.transcript?.(speaker, words.trim());
  }

  private speak(itemId: string, delta: string): void {
    if (this.ended || !BASE64.test(delta)) return;
    this.responseAudio = true;
    if (this.playback.speak(itemId, delta)) this.items.began(itemId);
  }

  /** The caller started speaking: the silence is over, and their speech may interrupt the assistant (realtime-barge.ts). */
  private speechStarted(item: string): void {
    this.silence.callerActive();
    if (this.setup.assistant.allow_interruptions && !this.voicemail) this.barge.started(item);
  }

  /**
   * The session committed the caller's speech (its VAD stop): the model answers it, now or once
   * the response under way is done. Speech over the assistant that did not interrupt it (a cough,
   * an acknowledgement) is no turn: the assistant speaks on, and the model is not asked.
   */
  private callerTurn(item: string): void {
    if (!this.ready || !this.opened || this.voicemail || this.ending || this.hangup.reason || this.ended) return;
    if (this.barge.passedOver(item) && (this.playback.busy || this.responding)) return;
    if (this.responding) this.respondAfter = true;
    else this.send({ type: 'response.create' });
  }

  /** The caller interrupted: what they have not heard yet is dropped, and the model's answer stopped and cut where they stopped hearing it. */
  private interrupted(): void {
    if (!this.playback.busy) return;
    if (this.responding) this.send({ type: 'response.cancel' });
    this.out.clear();
    // Only tones may be playing (a response with no audio before its press_digits): no answer to cut.
    const cut = this.playback.cut();
    if (cut) this.send({ type: 'conversation.item.truncate', item_id: cut.itemId, content_index: 0, audio_end_ms: cut.playedMs });
    this.hangup.heard(); // talked over the goodbye: nothing is left to hear
  }

  /** What the model's functions do to this call. */
  private readonly actions: CallActions = {
    endCall: () => {
      this.ending ??= 'end-call-tool';
    },
    transfer: () => {
      this.ending ??= 'transferred';
    },
    pressDigits: (keys) => this.playTones(keys),
  };

  /**
   * DTMF tones into the call's audio, after the model's audio sent so far (its deltas come
   * before its function call); resolves true once the caller has heard them, false when they
   * were dropped (an interruption, the call's end).
   */
  private async playTones(keys: string): Promise<boolean> {
    if (this.ended || this.hangup.reason) return false;
    const startedAt = Date.now();
    const played = await this.playback.tones(dtmfTones(keys, this.out.rate));
    if (played) this.call.turn({ speaker: 'assistant', text: keypadTurn(keys) }, startedAt);
    return played;
  }

  /** A function the model called: its output goes back to the session (response.done waits for it). */
  private functionCall(callId: string, name: string, args: string): void {
    const run = runFunction(this.setup, name, args, { deps: this.runtime, call: this.call, actions: this.actions }).then((output) =>
      this.send({ type: 'conversation.item.create', item: { type: 'function_call_output', call_id: callId, output } }),
    );
    this.toolRuns.push(run);
  }

  private async responseDone(id: string | null): Promise<void> {
    this.responding = false;
    if (this.voicemail) {
      if (this.messageResponse !== null && id === this.messageResponse && !this.hangup.reason) this.hangup.whenHeard('voicemail-message');
      return;
    }
    if (this.respondAfter && !this.ended && !this.hangup.reason) {
      // The caller's turn came during the response: it is answered now (tools' outputs, if any, come into the same answer).
      this.respondAfter = false;
      await Promise.allSettled(this.toolRuns);
      this.toolRuns = [];
      return this.send({ type: 'response.create' });
    }
    const runs = this.toolRuns;
    this.toolRuns = [];
    if (runs.length) {
      await Promise.allSettled(runs);
      if (!this.ending && !this.ended) return this.send({ type: 'response.create' });
    }
    if (this.ending && !this.hangup.reason) {
      // The closing words: the assistant's own line, as written; else the model's, unless its answer had some.
      const line = closingLine(this.ending, this.setup);
      if (!this.goodbyeAsked && ('text' in line || !this.responseAudio)) {
        this.goodbyeAsked = true;
        const instructions = 'text' in line ? `Say exactly this to the customer, word for word, and nothing else: ${JSON.stringify(line.text)}` : line.instructions;
        return this.send({ type: 'response.create', response: { instructions } });
      }
      return this.hangup.whenHeard(this.ending);
    }
    if (!this.playback.busy) this.silence.quiet();
  }

  /** The provider refused the transfer: the call goes on, and the model tells the caller. */
  private transferFailed(): void {
    this.ending = null;
    this.goodbyeAsked = false;
    this.send({ type: 'response.create', response: { instructions: TRANSFER_FAILED } });
  }
}
