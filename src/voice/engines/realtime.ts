import WebSocket from 'ws';
import type { HangupReason } from '../../modules/calls/call.events';
import type { ToolDeps } from '../../modules/calls/call.tools';
import type { Runtime } from '../../runtime';
import { jsonMessage } from '../../lib/json-message';
import { dtmfTones } from '../codecs/dtmf';
import { BASE64, decodePayload, encode, MULAW_RATE, payloadMs } from '../codecs/mulaw';
import { Resampler } from '../codecs/resample';
import type { MediaEnd, MediaOut, VoiceEngine } from '../engine';
import { fillVariables, TRANSFER_UNANSWERED, type EngineSetup } from '../engine.setup';
import type { LiveCall } from '../live-call';
import { realtimeModel, realtimeSession } from '../services/openai.realtime';
import type { AmdDecision } from '../amd/detector';
import { Screening, screeningPorts, verdictAction } from '../amd/screening';
import { runFunction, type CallActions } from '../tools';
import { closingLine, TRANSFER_FAILED, type Ending } from '../tools/closing';
import { KeypadGather, keypadTurn } from './keypad';
import { REENGAGE_INSTRUCTIONS, SilenceClock } from './silence';
import { interruptSpeechMs } from './pipeline/turns';

/** The parts of the runtime the Realtime engine uses: its settings, the log, and what mid-call tools need. */
export type RealtimeDeps = Pick<Runtime, 'config' | 'logger'> & ToolDeps;

/**
 * The built-in voice engine of `multimodal` assistants: a bridge between the call's media
 * and an OpenAI Realtime session (design.md, "Voice engines"). The session's audio is 8 kHz
 * mu-law both ways (`g711_ulaw`): a phone call's PCM is encoded back to what Twilio sent, a web
 * call's 16 kHz is taken down to 8 kHz, and the answer up again.
 */

/** Caller audio kept while the session is being set up: 2 s of 20 ms frames. */
const PENDING_FRAMES = 100;
/** How long the goodbye may take to play before the call is hung up anyway. */
const GOODBYE_MS = 15_000;
/** Turn starts kept while their transcripts are awaited. */
const MAX_STARTS = 32;

interface RealtimeEvent {
  type: string;
  [key: string]: unknown;
}

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
  private pending: string[] = [];
  /** A web call's audio to the session's 8 kHz and back (none for a phone call's). */
  private readonly down: Resampler | null;
  private readonly up: Resampler | null;
  /** Marks sent to Twilio and not played yet, in order; a mark after DTMF tones (press_digits) says when they were heard. */
  private marks: { name: string; item: string; endMs: number; tones?: () => void }[] = [];
  /** Tones sent and not heard yet: told false when they are dropped (an interruption, the call's end). */
  private tonesPending = new Set<(played: boolean) => void>();
  /** The caller's keys, gathered into turns. */
  private readonly keypad = new KeypadGather((keys, startedAt) => this.onKeypad(keys, startedAt));
  /** A keypad turn came while a response was under way: one is asked for once it is done. */
  private respondAfter = false;
  private markSeq = 0;
  /** The model's audio item being played, and how much of it was sent and played. */
  private item: { id: string; sentMs: number; playedMs: number } | null = null;
  private responding = false;
  private responseAudio = false;
  private toolRuns: Promise<void>[] = [];
  /** A function ended the call (the end-call tool, a transfer): it closes once its last words are heard. */
  private ending: Ending | null = null;
  private goodbyeAsked = false;
  private hangingUp: HangupReason | null = null;
  /** Hang up for this reason once the audio sent so far has been played. */
  private afterGoodbye: HangupReason | null = null;
  private readonly silence: SilenceClock;
  /**
   * The caller's speech that may interrupt the assistant (`input_audio_buffer.speech_started`):
   * its item, whether it has lasted `interrupt_sensitivity`'s time, and the timer until then.
   */
  private barge: { item: string; long: boolean; timer: NodeJS.Timeout | null } | null = null;
  /** The words of each item being transcribed, so far (for a transport that shows them). */
  private readonly wordsSoFar = new Map<string, string>();
  /**
   * When each item's turn began (ms since the epoch), until its transcript comes: a caller's
   * when the API heard their speech start, an answer's when its first audio was sent.
   */
  private readonly startedAt = new Map<string, number>();
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
    this.down = out.rate === MULAW_RATE ? null : new Resampler(out.rate, MULAW_RATE);
    this.up = out.rate === MULAW_RATE ? null : new Resampler(MULAW_RATE, out.rate);
    this.silence = new SilenceClock(setup.assistant, {
      idle: () => !this.hangingUp && !this.ended && !this.voicemail,
      reengage: () => this.send({ type: 'response.create', response: { instructions: REENGAGE_INSTRUCTIONS } }),
      hangUp: () => void this.hangup('silence'),
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
      void this.hangup('engine-failed');
    });
    this.screening = setup.outbound && !setup.resumed ? new Screening(out.rate, screeningPorts(call), { open: () => this.open(), verdict: (decision) => this.onVerdict(decision) }) : null;
    if (!this.screening) this.opened = true;
  }

  audio(pcm: Int16Array): void {
    if (this.ended) return;
    this.screening?.audio(pcm);
    const narrow = this.down ? this.down.process(pcm) : pcm;
    if (narrow.length === 0) return;
    const payload = Buffer.from(encode(narrow)).toString('base64');
    if (!this.ready) {
      if (this.pending.push(payload) > PENDING_FRAMES) this.pending.shift();
      return;
    }
    this.ws.send(`{"type":"input_audio_buffer.append","audio":"${payload}"}`);
  }

  played(name: string): void {
    const index = this.marks.findIndex((mark) => mark.name === name);
    if (index < 0) return;
    const heard = this.marks.splice(0, index + 1);
    for (const each of heard) each.tones?.();
    const mark = heard[heard.length - 1];
    if (this.item?.id === mark.item) this.item.playedMs = mark.endMs;
    if (this.marks.length > 0) return;
    if (this.afterGoodbye) void this.hangup(this.afterGoodbye);
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
    if (this.ended || this.hangingUp || !this.ready) return;
    const text = keypadTurn(keys);
    if (this.setup.assistant.allow_interruptions) {
      this.stopBarge();
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
    this.dropTones();
    this.silence.stop();
    this.screening?.close();
    this.stopBarge();
    this.ws.close();
    if (reason === 'customer') this.call.endedAtProvider();
    else if (reason === 'media-lost' && !this.hangingUp) await this.call.hangup('media-lost');
    await Promise.allSettled(this.toolRuns);
    await this.call.settled();
  }

  private send(event: Record<string, unknown>): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(event));
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
        if (typeof event.item_id === 'string') this.began(event.item_id);
        return this.speechStarted(String(event.item_id));
      case 'input_audio_buffer.speech_stopped':
        // Too short to interrupt: the assistant speaks on.
        if (this.barge && !this.barge.long) this.stopBarge();
        return;
      case 'response.created':
        // The session answers what it hears; a mailbox gets only the voicemail message, a callee not yet judged nothing.
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
        return this.checkBarge(String(event.item_id), this.wordsSoFar.get(String(event.item_id)) ?? '');
      case 'response.output_audio_transcript.done':
        this.wordsSoFar.delete(String(event.item_id));
        if (typeof event.transcript === 'string' && event.transcript) this.call.turn({ speaker: 'assistant', text: event.transcript }, this.startOf(String(event.item_id)));
        return;
      case 'conversation.item.input_audio_transcription.completed':
        this.wordsSoFar.delete(String(event.item_id));
        if (typeof event.transcript === 'string') this.checkBarge(String(event.item_id), event.transcript);
        if (typeof event.transcript === 'string' && event.transcript.trim()) {
          this.screening?.final(event.transcript);
          this.call.turn({ speaker: 'customer', text: event.transcript.trim() }, this.startOf(String(event.item_id)));
        }
        return;
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
    for (const payload of this.pending) this.ws.send(`{"type":"input_audio_buffer.append","audio":"${payload}"}`);
    this.pending = [];
    if (this.opened) this.greet();
  }

  /** An outbound call's opening, once the callee is heard from (or not: Screening). */
  private open(): void {
    if (this.opened || this.ended || this.hangingUp) return;
    this.opened = true;
    if (this.ready) this.greet();
  }

  /**
   * Who answered (design.md, "Calls that act"), as in the pipeline engine: a carrier's
   * intercept is hung up at once; a mailbox gets `voicemail_message` once its beep has ended,
   * said by the model in the assistant's voice, else `end_call_on_voicemail` decides.
   */
  private onVerdict(decision: AmdDecision): void {
    if (this.ended || this.hangingUp) return;
    this.runtime.logger.info('voice: who answered', { call_id: this.call.id, answered_by: decision.verdict, source: decision.source, reason: decision.reason });
    const action = verdictAction(decision, this.setup);
    if (action.act === 'talk') return;
    if (action.act === 'open') return this.open();
    this.voicemail = true;
    this.stopBarge();
    if (this.responding) this.send({ type: 'response.cancel' });
    this.out.clear();
    this.marks = [];
    if (action.act === 'hang-up') return void this.hangup(action.reason);
    void this.screening!.beepEnded(action.beepTimeoutMs).then(() => {
      if (this.ended || this.hangingUp) return;
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
    const words = (this.wordsSoFar.get(itemId) ?? '') + delta;
    this.wordsSoFar.set(itemId, words);
    this.out.transcript?.(speaker, words.trim());
  }

  private speak(itemId: string, delta: string): void {
    if (this.ended || !BASE64.test(delta)) return;
    this.responseAudio = true;
    if (this.item?.id !== itemId) {
      this.item = { id: itemId, sentMs: 0, playedMs: 0 };
      this.began(itemId);
    }
    this.item.sentMs += payloadMs(delta);
    const pcm = decodePayload(delta);
    this.out.media(this.up ? this.up.process(pcm) : pcm);
    const name = `${++this.markSeq}`;
    this.marks.push({ name, item: itemId, endMs: this.item.sentMs });
    this.out.mark(name);
  }

  private began(itemId: string): void {
    if (this.startedAt.has(itemId)) return;
    // Items whose transcript never comes (a cut answer) are forgotten past a few.
    if (this.startedAt.size >= MAX_STARTS) this.startedAt.delete(this.startedAt.keys().next().value!);
    this.startedAt.set(itemId, Date.now());
  }

  private startOf(itemId: string): number | null {
    const at = this.startedAt.get(itemId) ?? null;
    this.startedAt.delete(itemId);
    return at;
  }

  /**
   * The caller started speaking. `allow_interruptions`, `interrupt_sensitivity` and
   * `use_min_interrupt_words` / `min_interrupt_words` decide, as in the pipeline engine, whether
   * it interrupts the assistant: once the speech has lasted long enough and, when asked, said
   * enough words (the session's own interruption is off: `interrupt_response` false).
   */
  private speechStarted(item: string): void {
    this.silence.callerActive();
    if (!this.setup.assistant.allow_interruptions || this.voicemail) return;
    this.stopBarge();
    const barge: NonNullable<typeof this.barge> = { item, long: false, timer: null };
    barge.timer = setTimeout(() => {
      barge.timer = null;
      barge.long = true;
      this.checkBarge(item, this.wordsSoFar.get(item) ?? '');
    }, interruptSpeechMs(this.setup.assistant.interrupt_sensitivity));
    this.barge = barge;
  }

  /** The caller's speech of `item` has lasted long enough: it interrupts once its words are enough. */
  private checkBarge(item: string, words: string): void {
    const { barge } = this;
    if (!barge || barge.item !== item || !barge.long) return;
    const { use_min_interrupt_words, min_interrupt_words } = this.setup.assistant;
    if (use_min_interrupt_words && words.split(/\s+/).filter(Boolean).length < min_interrupt_words) return;
    this.stopBarge();
    this.interrupted();
  }

  private stopBarge(): void {
    if (this.barge?.timer) clearTimeout(this.barge.timer);
    this.barge = null;
  }

  /** The caller interrupted: what they have not heard yet is dropped, and the model's answer stopped and cut where they stopped hearing it. */
  private interrupted(): void {
    if (this.marks.length === 0) return;
    if (this.responding) this.send({ type: 'response.cancel' });
    this.out.clear();
    // Only tones may be playing (a response with no audio before its press_digits): no answer to cut.
    if (this.item && this.marks.some((mark) => mark.item === this.item!.id)) {
      this.send({ type: 'conversation.item.truncate', item_id: this.item.id, content_index: 0, audio_end_ms: Math.floor(this.item.playedMs) });
    }
    this.marks = [];
    this.dropTones();
    if (this.afterGoodbye) void this.hangup(this.afterGoodbye); // talked over the goodbye: nothing is left to hear
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
  private playTones(keys: string): Promise<boolean> {
    if (this.ended || this.hangingUp) return Promise.resolve(false);
    const pcm = dtmfTones(keys, this.out.rate);
    const frame = (this.out.rate * 20) / 1000;
    for (let at = 0; at < pcm.length; at += frame) this.out.media(pcm.slice(at, at + frame));
    const startedAt = Date.now();
    return new Promise((resolve) => {
      const settle = (played: boolean) => {
        if (!this.tonesPending.delete(settle)) return;
        if (played) this.call.turn({ speaker: 'assistant', text: keypadTurn(keys) }, startedAt);
        resolve(played);
      };
      this.tonesPending.add(settle);
      const name = `${++this.markSeq}`;
      this.marks.push({ name, item: '', endMs: 0, tones: () => settle(true) });
      this.out.mark(name);
    });
  }

  private dropTones(): void {
    for (const settle of [...this.tonesPending]) settle(false);
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
      if (this.messageResponse !== null && id === this.messageResponse && !this.hangingUp) this.hangupWhenHeard('voicemail-message');
      return;
    }
    if (this.respondAfter && !this.ended && !this.hangingUp) {
      // The caller's keys came during the response: they are answered now (tools' outputs, if any, come into the same answer).
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
    if (this.ending && !this.hangingUp) {
      // The closing words: the assistant's own line, as written; else the model's, unless its answer had some.
      const line = closingLine(this.ending, this.setup);
      if (!this.goodbyeAsked && ('text' in line || !this.responseAudio)) {
        this.goodbyeAsked = true;
        const instructions = 'text' in line ? `Say exactly this to the customer, word for word, and nothing else: ${JSON.stringify(line.text)}` : line.instructions;
        return this.send({ type: 'response.create', response: { instructions } });
      }
      return this.hangupWhenHeard(this.ending);
    }
    if (this.marks.length === 0) this.silence.quiet();
  }

  /** Hangs up once Twilio has played what was sent (the goodbye: `played` sees the last mark), or after GOODBYE_MS. */
  private hangupWhenHeard(reason: HangupReason): void {
    if (this.marks.length === 0) return void this.hangup(reason);
    this.afterGoodbye = reason;
    setTimeout(() => {
      if (!this.ended) void this.hangup(reason);
    }, GOODBYE_MS).unref();
  }

  private async hangup(reason: HangupReason): Promise<void> {
    if (this.hangingUp) return;
    this.hangingUp = reason;
    if (reason !== 'transferred') this.silence.stop();
    try {
      await this.call.hangup(reason);
    } catch (error) {
      this.runtime.logger.error('voice: could not hang up a call', error, { call_id: this.call.id, reason });
      if (reason === 'transferred' && !this.ended) {
        // The provider refused the transfer: the call goes on, and the model tells the caller.
        this.hangingUp = null;
        this.afterGoodbye = null;
        this.ending = null;
        this.goodbyeAsked = false;
        this.send({ type: 'response.create', response: { instructions: TRANSFER_FAILED } });
      }
    }
  }
}

/** The id of the response an event is about (`response.created`, `response.done`). */
function responseId(event: RealtimeEvent): string | null {
  const response = event.response as { id?: unknown } | undefined;
  return typeof response?.id === 'string' ? response.id : null;
}
