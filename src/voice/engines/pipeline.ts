import { voiceTurnLatency } from '../../metrics';
import type { TurnLatency } from '../../modules/calls/call.conversation';
import type { CallUsage } from '../../modules/calls/call.entity';
import type { HangupReason } from '../../modules/calls/call.events';
import { runTool, type ToolDeps } from '../../modules/calls/call.tools';
import type { Runtime } from '../../runtime';
import { Framer } from '../codecs/mix';
import { decode, encode } from '../codecs/mulaw';
import { Resampler } from '../codecs/resample';
import { BASE64, MEDIA_SAMPLE_RATE, type MediaEnd, type MediaOut, type VoiceEngine } from '../engine';
import { callFunctions, END_CALL_FUNCTION, fillVariables, toolArguments, type EngineSetup } from '../engine.setup';
import type { LiveCall } from '../live-call';
import {
  ServiceError,
  type LlmMessage,
  type LlmService,
  type LlmToolCall,
  type SttService,
  type SttStream,
  type Transcript,
  type TtsService,
  type TtsSession,
  type TtsUtterance,
} from '../services/service';
import { SileroVad, VAD_FRAME_SAMPLES, VAD_SAMPLE_RATE } from '../vad/silero';
import { phrases } from './phrases';
import { SentenceSplitter } from './sentences';
import { Speaker, Spoken, type Ambience } from './speaker';

/**
 * The built-in engine of `pipeline` assistants (design.md, "The pipeline engine"): the
 * caller's audio -> (noise suppression) -> Silero VAD and Deepgram-style STT -> the end of the
 * caller's turn -> the language model, streamed sentence by sentence -> TTS -> the speaker,
 * paced to the transport. Every assistant setting takes effect here; the comments name each.
 *
 * Turn-taking follows Pipecat's and LiveKit Agents' designs: the VAD says when the caller
 * speaks; the end of a turn is the VAD's silence (`endpoint_type` vad) or the STT's semantic
 * end of turn (`ai`); speech over the assistant interrupts it once it has lasted long enough
 * (and said enough words), and the assistant's turn is then cut to what the caller heard.
 */

/** The parts of the runtime the pipeline engine uses. */
export type PipelineDeps = Pick<Runtime, 'logger' | 'telemetry'> & ToolDeps;

/** The vendors of one call, and the voice and model it speaks with. */
export interface PipelineServices {
  stt: SttService;
  sttLanguage: string | null;
  llm: LlmService;
  model: string;
  tts: TtsService;
  voiceId: string | null;
}

/** Optional audio stages, by the assistant's settings. */
export interface PipelineAudio {
  /** `noise_cancellation`: cleans the caller's 8 kHz PCM before VAD and STT (on the voice worker thread, hence a promise; in order). */
  denoiser: { process(pcm: Int16Array): Promise<Int16Array>; destroy(): void } | null;
  /** `ambient_sound_volume`: the bed under the whole call. */
  ambience: Ambience | null;
}

/** A VAD frame: 32 ms. */
const VAD_FRAME_MS = (VAD_FRAME_SAMPLES * 1000) / VAD_SAMPLE_RATE;
/** Silero's speech probability that starts speech, and the one under which it is silence (hysteresis, as Silero's own iterator). */
const SPEECH_ON = 0.5;
const SPEECH_OFF = 0.35;
/** Speech shorter than this is not the caller speaking (a click, a breath). */
const MIN_SPEECH_MS = 96;
/** How long the final transcript may take after the end of speech before the turn goes without it. */
const FINAL_WAIT_MS = 1500;
/** The model may call tools this many times in one reply. */
const MAX_TOOL_ROUNDS = 5;
/** `filler_audios`: a filler plays when the reply's first audio, or a tool, takes longer than this. */
export const FILLER_AFTER_MS = 1200;
/** How long a filler may take to synthesise before the reply goes on without it. */
const FILLER_SYNTHESIS_MS = 3000;
/** Attempts at hanging up a call through its provider. */
const HANGUP_ATTEMPTS = 3;
/** How long a goodbye or an apology may take to be heard before the call is hung up anyway. */
const GOODBYE_MS = 15_000;
/** Messages of the conversation kept in the model's context (the oldest leave first). */
const MAX_CONTEXT_MESSAGES = 200;

/**
 * `endpoint_sensitivity` (0 = patient .. 5 = quick) as the silence that ends the caller's turn:
 * 1.2 s at 0, 0.2 s at 5.
 */
export function endpointSilenceMs(sensitivity: number): number {
  return Math.round(1200 - 200 * clamp(sensitivity, 0, 5));
}

/** `interrupt_sensitivity` (0 .. 5) as the speech that interrupts the assistant: 1 s at 0, 0.15 s at 5. */
export function interruptSpeechMs(sensitivity: number): number {
  return Math.round(1000 - 170 * clamp(sensitivity, 0, 5));
}

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));
const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

/** When each step of a turn happened (ms since the epoch): the caller's end of speech to the first audio sent. */
export interface TurnTiming {
  speechEndedAt: number | null;
  sttFinalAt: number | null;
  llmFirstTokenAt: number | null;
  ttsFirstByteAt: number | null;
  firstAudioAt: number | null;
}

/** A turn's steps as the call's record keeps them: ms after the caller's end of speech. */
function turnLatency(timing: TurnTiming): TurnLatency | undefined {
  const { speechEndedAt } = timing;
  if (speechEndedAt === null) return undefined;
  const after = (at: number | null) => (at === null ? null : Math.max(0, at - speechEndedAt));
  return {
    stt_final_ms: after(timing.sttFinalAt),
    llm_first_token_ms: after(timing.llmFirstTokenAt),
    tts_first_byte_ms: after(timing.ttsFirstByteAt),
    first_audio_ms: after(timing.firstAudioAt),
  };
}

/** Each step of an answer in /metrics, in seconds after the caller's end of speech. */
function observe(latency: TurnLatency): void {
  const stages = { stt_final: latency.stt_final_ms, llm_first_token: latency.llm_first_token_ms, tts_first_byte: latency.tts_first_byte_ms, first_audio: latency.first_audio_ms };
  for (const [stage, ms] of Object.entries(stages)) if (ms !== null) voiceTurnLatency.observe({ stage }, ms / 1000);
}

/** Fillers synthesised once per voice, language and text, shared by every call of the process. */
const fillers = new Map<string, Promise<Int16Array | null>>();

type AssistantMessage = Extract<LlmMessage, { role: 'assistant' }>;

/** One stretch of the assistant's speech: a round of the model, a filler, the opening or an apology. */
class Segment {
  readonly spoken = new Spoken();
  /** Audio that came before the segments ahead of it finished. */
  pending: Int16Array[] = [];
  ttsDone = false;
  constructor(
    /** The text given to TTS (empty for a filler: it is not part of the conversation). */
    public text: string,
    readonly utterance: TtsUtterance | null,
    /** The model's message this segment says, cut with it. */
    readonly message: Extract<LlmMessage, { role: 'assistant' }> | null,
  ) {}
}

/** One turn of the assistant: its segments, in order, and the model's stream. */
class Reply {
  readonly controller = new AbortController();
  /** `filler_audios`: the filler's timer, and whether one played (one a reply). */
  fillerTimer: NodeJS.Timeout | null = null;
  fillerPlayed = false;
  /** The message whose tool calls are running. */
  toolsAsked: AssistantMessage | null = null;
  readonly segments: Segment[] = [];
  /** The segment whose audio goes to the speaker now. */
  playing = 0;
  cancelled = false;
  /** The model has finished: no more segments come. */
  written = false;
  constructor(readonly timing: TurnTiming | null) {}
}

export class PipelineEngine implements VoiceEngine {
  private readonly stt: SttStream;
  private readonly tts: TtsSession;
  private readonly speaker: Speaker;
  private readonly vad = new SileroVad();
  private readonly toVad = new Resampler(MEDIA_SAMPLE_RATE, VAD_SAMPLE_RATE);
  private readonly vadFrames = new Framer(VAD_FRAME_SAMPLES);
  /** VAD runs in order, frame after frame. */
  private vadRuns: Promise<void> = Promise.resolve();
  private vadFailed = false;
  private readonly context: LlmMessage[] = [];
  private readonly systemPrompt: string;
  private readonly language: string | null;

  // The caller.
  private speaking = false;
  private speechMs = 0;
  private silenceMs = 0;
  /** The final transcripts of the caller's turn so far, and the latest interim one after them. */
  private heard: string[] = [];
  private interim = '';
  /** The STT has said the caller's turn is over (`speech_final`) and no words came since. */
  private sttTurnOver = false;
  /** The turn ended by the VAD, waiting for its final transcript. */
  private awaitingFinal: NodeJS.Timeout | null = null;
  /** When the VAD last heard the caller speak (ms since the epoch): the end of speech of a turn. */
  private lastSpeechAt: number | null = null;
  /** The caller's speech in the turn so far (VAD time). */
  private turnSpeechMs = 0;
  /** The end (STT stream seconds) of the words heard so far, and of those a turn took. */
  private heardUntil = 0;
  private committedUntil = 0;
  /** What the caller said while the assistant could not be interrupted, answered once it is done. */
  private heldTurn = '';
  /** When the caller's turn under way, and the held one, began (ms since the epoch): when their speech started. */
  private turnStartedAt: number | null = null;
  private heldStartedAt: number | null = null;

  // The assistant.
  private reply: Reply | null = null;
  /** Mid-call tools running (the call's end waits for their records). */
  private readonly toolRuns = new Set<Promise<unknown>>();
  private endRequested = false;
  private hangingUp: HangupReason | null = null;
  private afterHeard: HangupReason | null = null;
  private failing = false;
  private ended = false;
  private silentSince: number | null = null;
  private reengaged = false;
  private readonly silenceTimer: NodeJS.Timeout;

  /** What the vendors report the call used, recorded when it ends. */
  private readonly usage: CallUsage = { stt_seconds: 0, llm_input_tokens: 0, llm_output_tokens: 0, tts_characters: 0 };

  constructor(
    private readonly deps: PipelineDeps,
    private readonly call: LiveCall,
    private readonly setup: EngineSetup,
    private readonly services: PipelineServices,
    private readonly audioStages: PipelineAudio,
    private readonly out: MediaOut,
  ) {
    const { assistant } = setup;
    this.language = setup.language;
    this.systemPrompt = fillVariables(assistant.system_prompt, setup.variables);
    this.speaker = new Speaker(this.out, audioStages.ambience, { idle: () => this.onIdle() });
    this.stt = services.stt.open(
      { language: services.sttLanguage, endpointingMs: endpointSilenceMs(assistant.endpoint_sensitivity) },
      {
        transcript: (transcript) => this.onTranscript(transcript),
        utteranceEnd: () => this.onUtteranceEnd(),
        speechStarted: () => {},
        failed: (error) => this.fail(error),
      },
    );
    this.tts = services.tts.open({
      voiceId: services.voiceId,
      language: setup.language,
      speed: assistant.speech_speed,
      stability: assistant.voice_stability,
      similarity: assistant.voice_similarity,
      sampleRate: MEDIA_SAMPLE_RATE,
    });
    this.silenceTimer = setInterval(() => this.checkSilence(), 250);
    this.silenceTimer.unref();
    // `who_speaks_first` and `initial_message`.
    if (assistant.who_speaks_first === 'AI assistant' && assistant.initial_message.trim()) {
      this.say(fillVariables(assistant.initial_message, setup.variables), true);
    } else {
      this.silentSince = Date.now();
    }
  }

  // ------------------------------------------------------------------ the caller's audio

  audio(payload: string, wide?: Int16Array): void {
    if (this.ended || typeof payload !== 'string' || !BASE64.test(payload)) return;
    const mulaw = Buffer.from(payload, 'base64');
    if (this.audioStages.denoiser) {
      const arrivedAt = performance.now();
      void this.audioStages.denoiser.process(decode(mulaw)).then((pcm) => {
        if (this.ended) return;
        this.stt.send(encode(pcm));
        this.toVadFrames(this.toVad.process(pcm), arrivedAt);
      });
    } else {
      this.stt.send(mulaw);
      this.toVadFrames(wide ?? this.toVad.process(decode(mulaw)));
    }
  }

  /** `arrivedAt`: when the audio came in (before the denoiser's wait), for the VAD's late-frame bound. */
  private toVadFrames(vadInput: Int16Array, arrivedAt?: number): void {
    if (this.vadFailed) return;
    for (const frame of this.vadFrames.push(vadInput)) {
      // Given to the VAD as it arrives, so its queue (bounded: late frames are skipped) sees the real wait; heard in order.
      const judged = this.vad.speech(frame, arrivedAt);
      judged.catch(() => {}); // handled in hear(), which may come to it after it failed
      this.vadRuns = this.vadRuns
        .then(() => this.hear(judged))
        .catch((error: unknown) => this.deps.logger.error('voice: a frame of the caller could not be heard', error, { call_id: this.call.id }));
    }
  }

  played(mark: string): void {
    this.speaker.played(mark);
  }

  /** One VAD frame: is the caller speaking, have they stopped, do they interrupt? */
  private async hear(judged: Promise<number | null>): Promise<void> {
    if (this.ended) return;
    let probability: number | null;
    try {
      probability = await judged;
    } catch (error) {
      // A bug, not a vendor: said once; the turns then end at the STT's end of turn.
      if (!this.vadFailed) this.deps.logger.error('voice: the VAD failed', error, { call_id: this.call.id });
      this.vadFailed = true;
      return;
    }
    // A frame the VAD skipped (it came late) counts as neither speech nor silence.
    if (this.ended || probability === null) return;
    if (probability >= SPEECH_ON || (this.speaking && probability >= SPEECH_OFF)) {
      this.speechMs += VAD_FRAME_MS;
      this.turnSpeechMs += VAD_FRAME_MS;
      this.lastSpeechAt = Date.now();
      this.silenceMs = 0;
      if (!this.speaking && this.speechMs >= MIN_SPEECH_MS) this.speechStarted();
      if (this.speaking) this.maybeInterrupt();
      return;
    }
    this.silenceMs += VAD_FRAME_MS;
    if (!this.speaking) {
      this.speechMs = 0;
      return;
    }
    // `endpoint_type` vad: the VAD's silence ends the turn; `ai` waits for the STT's end of turn.
    if (this.silenceMs >= endpointSilenceMs(this.setup.assistant.endpoint_sensitivity)) {
      this.speaking = false;
      this.speechMs = 0;
      if (!this.sttEndsTurns) this.endOfTurn();
      else if (!this.reply && this.heard.length === 0) this.silentSince ??= Date.now(); // a noise, no words
      // A noise is no turn: the next words begin one.
      if (this.sttEndsTurns && this.heard.length === 0 && !this.interim) this.turnStartedAt = null;
    }
  }

  /** Whether the STT's end of turn ends the caller's turns: `endpoint_type` ai, or the VAD failing. */
  private get sttEndsTurns(): boolean {
    return this.setup.assistant.endpoint_type === 'ai' || this.vadFailed;
  }

  private speechStarted(): void {
    this.speaking = true;
    // The speech began the frames that made it speech ago; a pause within the turn keeps the turn's start.
    this.turnStartedAt ??= Date.now() - this.speechMs;
    this.silentSince = null;
    this.reengaged = false;
    if (this.awaitingFinal) {
      // The caller went on after a pause: the same turn.
      clearTimeout(this.awaitingFinal);
      this.awaitingFinal = null;
    }
  }

  /** The VAD ended the caller's turn: the STT gives its final words now, and the turn goes with them. */
  private endOfTurn(): void {
    if (this.awaitingFinal) return;
    // The STT's final words came already: nothing to wait for.
    if (this.sttTurnOver && this.heard.length > 0) return this.commitTurn();
    this.stt.finalize();
    this.awaitingFinal = setTimeout(() => this.commitTurn(), FINAL_WAIT_MS);
  }

  private onTranscript(transcript: Transcript): void {
    if (this.ended) return;
    // Words of audio a turn already took (a late final after the turn went on its interim words).
    if (transcript.start < this.committedUntil - 0.005) return;
    const text = transcript.text.trim();
    if (text) {
      // Words with no speech the VAD heard (it failed): the best start known is now.
      this.turnStartedAt ??= Date.now();
      this.heardUntil = Math.max(this.heardUntil, transcript.start + transcript.duration);
      if (!transcript.speechFinal) this.sttTurnOver = false; // the caller goes on
    }
    if (!transcript.isFinal) {
      this.interim = text;
      this.showCallerWords();
      if (this.speaking) this.maybeInterrupt();
      return;
    }
    this.interim = '';
    if (text) this.heard.push(text);
    this.showCallerWords();
    if (transcript.speechFinal) this.sttTurnOver = true;
    if (this.speaking) this.maybeInterrupt();
    if (this.awaitingFinal && (transcript.fromFinalize || transcript.speechFinal)) return this.commitTurn();
    // The STT's semantic end of turn (`endpoint_type` ai).
    if (this.sttEndsTurns && transcript.speechFinal && this.heard.length) this.commitTurn();
  }

  /** The caller's words so far in this turn, for a transport that shows them. */
  private showCallerWords(): void {
    const words = [...this.heard, this.interim].join(' ').trim();
    if (words) this.out.transcript?.('customer', words);
  }

  private onUtteranceEnd(): void {
    if (this.ended || !this.sttEndsTurns) return;
    if (this.heard.length) this.commitTurn();
  }

  /**
   * `allow_interruptions`, `interrupt_sensitivity`, `use_min_interrupt_words` /
   * `min_interrupt_words`: speech over the assistant interrupts it once it has lasted long
   * enough and, when asked, has said enough words (a cough says none).
   */
  private maybeInterrupt(): void {
    if (this.reply && this.interrupts(this.speechMs, [...this.heard, this.interim].join(' '))) this.interrupt(this.reply);
  }

  /** Whether this much speech, saying this, interrupts the assistant. */
  private interrupts(speechMs: number, said: string): boolean {
    const { assistant } = this.setup;
    if (this.failing || !assistant.allow_interruptions) return false;
    if (speechMs < interruptSpeechMs(assistant.interrupt_sensitivity)) return false;
    return !assistant.use_min_interrupt_words || words(said) >= assistant.min_interrupt_words;
  }

  /** The caller's turn is over: what they said goes to the model. */
  private commitTurn(): void {
    if (this.awaitingFinal) clearTimeout(this.awaitingFinal);
    this.awaitingFinal = null;
    const text = [...this.heard, this.interim].join(' ').trim();
    this.heard = [];
    this.interim = '';
    this.committedUntil = this.heardUntil;
    this.sttTurnOver = false;
    const spokeMs = this.turnSpeechMs;
    this.turnSpeechMs = 0;
    const startedAt = this.turnStartedAt;
    this.turnStartedAt = null;
    const speechEndedAt = this.lastSpeechAt;
    if (this.ended || this.hangingUp || this.failing) return;
    if (!text) {
      // A noise without words: the silence goes on.
      if (!this.reply && !this.speaking) this.silentSince ??= Date.now();
      return;
    }
    // Words too short-lived for the VAD to judge while they were said ("stop!") still interrupt.
    if (this.reply && this.interrupts(spokeMs, text)) this.interrupt(this.reply);
    if (this.reply) {
      // The assistant could not be interrupted: the caller's turn follows its own, and is answered then.
      this.heldTurn = `${this.heldTurn} ${text}`.trim();
      this.heldStartedAt ??= startedAt;
      return;
    }
    this.call.turn({ speaker: 'customer', text }, startedAt);
    this.remember({ role: 'user', content: text });
    void this.respond({ speechEndedAt, sttFinalAt: Date.now(), llmFirstTokenAt: null, ttsFirstByteAt: null, firstAudioAt: null });
  }

  // ------------------------------------------------------------------ the assistant's turns

  /** Says a text as it is, as a turn of the assistant (the opening, also in the model's context; an apology). */
  private say(text: string, inContext: boolean): void {
    const reply = this.startReply(null);
    const message: Segment['message'] = { role: 'assistant', content: text };
    if (inContext) this.remember(message);
    const segment = this.segment(reply, message);
    this.speak(segment, text);
    this.endSegment(reply, segment);
    reply.written = true;
  }

  private startReply(timing: TurnTiming | null): Reply {
    const reply = new Reply(timing);
    this.reply = reply;
    this.silentSince = null;
    // Speech that began before the reply (the tail of the turn it answers) does not interrupt it.
    this.speechMs = 0;
    return reply;
  }

  /** A new segment of the reply, spoken by its own TTS utterance. */
  private segment(reply: Reply, message: Segment['message']): Segment {
    let segment: Segment;
    const utterance = this.tts.utterance({
      audio: (pcm) => this.segmentAudio(reply, segment, pcm),
      done: () => this.segmentDone(reply, segment),
      failed: (error) => this.fail(error),
    });
    segment = new Segment('', utterance, message);
    reply.segments.push(segment);
    return segment;
  }

  /** No more text for the segment: TTS speaks the rest (a segment with no text has nothing to wait for). */
  private endSegment(reply: Reply, segment: Segment): void {
    if (segment.text) return segment.utterance!.end();
    segment.utterance?.cancel();
    this.segmentDone(reply, segment);
  }

  private segmentAudio(reply: Reply, segment: Segment, pcm: Int16Array): void {
    if (reply.cancelled || this.ended) return;
    if (segment.message) {
      // The answer speaks: no filler for its first audio.
      if (reply.fillerTimer) clearTimeout(reply.fillerTimer);
      if (reply.timing && reply.timing.ttsFirstByteAt === null) reply.timing.ttsFirstByteAt = Date.now();
    }
    if (reply.segments[reply.playing] === segment) this.speaker.play(segment.spoken, pcm);
    else segment.pending.push(pcm);
  }

  private segmentDone(reply: Reply, segment: Segment): void {
    segment.ttsDone = true;
    if (reply.cancelled || this.ended) return;
    this.advance(reply);
  }

  /** Plays the segments whose turn has come, in order. */
  private advance(reply: Reply): void {
    for (let current = reply.segments[reply.playing]; current?.ttsDone; current = reply.segments[reply.playing]) {
      this.speaker.finish(current.spoken);
      reply.playing++;
      const next = reply.segments[reply.playing];
      if (!next) break;
      for (const pcm of next.pending) this.speaker.play(next.spoken, pcm);
      next.pending = [];
    }
    this.checkReplyHeard();
  }

  /** A reply the model writes: streamed, sentence by sentence to TTS, with its tool calls. */
  private async respond(timing: TurnTiming | null, instructions?: string, withTools = true): Promise<void> {
    const reply = this.startReply(timing);
    const { assistant } = this.setup;
    if (assistant.filler_audios) reply.fillerTimer = setTimeout(() => this.playFiller(reply), FILLER_AFTER_MS);
    try {
      for (let round = 0; round < MAX_TOOL_ROUNDS && !reply.cancelled; round++) {
        const message = this.remember<Segment['message'] & object>({ role: 'assistant', content: '' });
        const segment = this.segment(reply, message);
        let written = '';
        const splitter = new SentenceSplitter();
        const calls: LlmToolCall[] = [];
        const messages: LlmMessage[] = [{ role: 'system', content: this.systemPrompt }, ...this.context.slice(0, -1)];
        if (instructions) messages.push({ role: 'system', content: instructions });
        const tools = withTools && !this.endRequested ? callFunctions(this.setup) : [];
        for await (const chunk of this.services.llm.complete(
          { model: this.services.model, temperature: assistant.llm_temperature, messages, tools },
          reply.controller.signal,
        )) {
          if (reply.cancelled) break;
          if (chunk.type === 'text') {
            if (reply.timing && reply.timing.llmFirstTokenAt === null) reply.timing.llmFirstTokenAt = Date.now();
            written += chunk.text;
            message.content = written;
            for (const sentence of splitter.push(chunk.text)) this.speak(segment, sentence);
          } else if (chunk.type === 'tool_call') {
            calls.push(chunk.call);
          } else {
            this.usage.llm_input_tokens += chunk.inputTokens;
            this.usage.llm_output_tokens += chunk.outputTokens;
          }
        }
        if (reply.cancelled) return;
        const rest = splitter.flush();
        if (rest) this.speak(segment, rest);
        this.endSegment(reply, segment);
        if (calls.length === 0) break;
        message.tool_calls = calls;
        const spoke = segment.text.length > 0;
        await this.runTools(reply, message, calls);
        if (reply.cancelled) return;
        // The end-call tool: the goodbye said, the model has nothing more to say.
        if (this.endRequested) {
          if (spoke) break;
          instructions = 'Say a short goodbye to the customer, in the language of the conversation.';
          withTools = false;
        }
      }
      reply.written = true;
      this.checkReplyHeard();
    } catch (error) {
      if (reply.cancelled) return;
      if (error instanceof ServiceError) return this.fail(error);
      this.deps.logger.error('voice: a reply failed', error, { call_id: this.call.id });
      this.fail(new ServiceError('llm', 'dropped', 'the reply failed'));
    } finally {
      if (reply.fillerTimer) clearTimeout(reply.fillerTimer);
    }
  }

  private speak(segment: Segment, sentence: string): void {
    segment.text = segment.text ? `${segment.text} ${sentence}` : sentence;
    segment.utterance!.push(sentence);
    // What the assistant is saying so far (a filler is not part of the conversation).
    if (segment.message && this.reply) {
      const said = this.reply.segments.filter((each) => each.message && each.text).map((each) => each.text);
      this.out.transcript?.('assistant', said.join(' '));
    }
  }

  /**
   * The model's tool calls, run together (a slow one gets a filler); their results follow the
   * message that asked for them. A reply interrupted meanwhile has already answered them
   * (`answerTools`), and their late results are left out.
   */
  private async runTools(reply: Reply, message: AssistantMessage, calls: LlmToolCall[]): Promise<void> {
    if (reply.fillerTimer) clearTimeout(reply.fillerTimer);
    if (this.setup.assistant.filler_audios) reply.fillerTimer = setTimeout(() => this.playFiller(reply), FILLER_AFTER_MS);
    reply.toolsAsked = message;
    const run = Promise.all(calls.map((call) => this.runTool(call)));
    this.toolRuns.add(run);
    try {
      const outputs = await run;
      if (reply.cancelled) return;
      this.answerTools(message, outputs);
    } finally {
      this.toolRuns.delete(run);
      reply.toolsAsked = null;
      if (reply.fillerTimer) clearTimeout(reply.fillerTimer);
    }
  }

  /** The results of a message's tool calls, right after it in the context (the model's API wants them there). */
  private answerTools(message: AssistantMessage, outputs: string[]): void {
    const at = this.context.indexOf(message);
    if (at < 0) return; // the context has since dropped it
    const results = message.tool_calls!.map((call, index): LlmMessage => ({ role: 'tool', tool_call_id: call.id, content: outputs[index] }));
    this.context.splice(at + 1, 0, ...results);
  }

  private async runTool(call: LlmToolCall): Promise<string> {
    if (call.function.name === END_CALL_FUNCTION) {
      this.endRequested = true;
      return '{"ok":true}';
    }
    const tool = this.setup.tools.find((candidate) => candidate.name === call.function.name);
    if (!tool) return JSON.stringify({ error: 'unknown tool' });
    try {
      const record = await runTool(this.deps, this.call.id, tool, toolArguments(tool, call.function.arguments));
      this.call.toolCall(record);
      return JSON.stringify(record.error ? { error: record.error } : { status: record.status, response: record.response });
    } catch (error) {
      // Not the model's failure: the model hears the tool failed, and the call goes on.
      this.deps.logger.error('voice: a mid-call tool could not run', error, { call_id: this.call.id, tool_id: tool.id });
      return JSON.stringify({ error: 'the tool failed' });
    }
  }

  /** `filler_audios`: a short filler in the assistant's voice (once a reply), when nothing of it plays yet. */
  private playFiller(reply: Reply): void {
    if (this.reply !== reply || reply.cancelled || reply.fillerPlayed || this.ended || this.speaker.busy) return;
    reply.fillerPlayed = true;
    const text = phrases(this.language).filler;
    const key = `${this.services.tts.vendor}|${this.services.voiceId}|${this.language}|${this.setup.assistant.speech_speed}|${text}`;
    let audio = fillers.get(key);
    if (!audio) {
      audio = this.synthesise(text);
      fillers.set(key, audio);
      void audio.then((pcm) => pcm ?? fillers.delete(key));
    }
    // The filler goes before the reply's segments that have not begun to play.
    const segment = new Segment('', null, null);
    reply.segments.splice(reply.playing, 0, segment);
    void audio.then((pcm) => {
      if (pcm && !reply.cancelled && !this.ended) this.segmentAudio(reply, segment, pcm);
      this.segmentDone(reply, segment);
    });
  }

  /**
   * The whole audio of a text, from this call's TTS session (for the process's filler cache);
   * null when TTS fails, says nothing, or takes longer than FILLER_SYNTHESIS_MS (the call may
   * end meanwhile, and its session with it).
   */
  private synthesise(text: string): Promise<Int16Array | null> {
    return new Promise((resolve) => {
      const chunks: Int16Array[] = [];
      const timer = setTimeout(() => {
        utterance.cancel();
        resolve(null);
      }, FILLER_SYNTHESIS_MS);
      timer.unref();
      const utterance = this.tts.utterance({
        audio: (pcm) => chunks.push(pcm),
        done: () => {
          clearTimeout(timer);
          const all = new Int16Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
          let at = 0;
          for (const chunk of chunks) all.set(chunk, (at += chunk.length) - chunk.length);
          resolve(all.length > 0 ? all : null);
        },
        failed: () => {
          clearTimeout(timer);
          resolve(null);
        },
      });
      utterance.push(text);
      utterance.end();
    });
  }

  /** The caller spoke over the assistant: it stops, and its turn is what the caller heard. */
  private interrupt(reply: Reply): void {
    this.cancel(reply);
    this.speaker.clear();
    if (this.afterHeard) void this.hangup(this.afterHeard); // talked over the goodbye: nothing is left to hear
  }

  /** Stops a reply: the model's stream and TTS, and its turn cut to what was heard. */
  private cancel(reply: Reply): void {
    if (reply.cancelled) return;
    reply.cancelled = true;
    reply.controller.abort();
    if (reply.fillerTimer) clearTimeout(reply.fillerTimer);
    // Tools still running: the model hears they were interrupted (their results come too late).
    if (reply.toolsAsked) this.answerTools(reply.toolsAsked, reply.toolsAsked.tool_calls!.map(() => '{"error":"the caller spoke before the tool answered"}'));
    for (const segment of reply.segments) segment.utterance?.cancel();
    this.finishReply(reply, true);
  }

  /** Once the reply is written and every segment heard, the assistant's turn is over. */
  private checkReplyHeard(): void {
    const reply = this.reply;
    if (!reply || !reply.written || reply.cancelled) return;
    if (reply.playing < reply.segments.length || this.speaker.busy) return;
    this.finishReply(reply, false);
  }

  /** Records the assistant's turn (cut to what was heard when `cut`), and moves on. */
  private finishReply(reply: Reply, cut: boolean): void {
    if (this.reply !== reply) return;
    this.reply = null;
    const said: string[] = [];
    /** The answer began when its first audio was sent (a filler before it is not the answer). */
    let startedAt: number | null = null;
    for (const segment of reply.segments) {
      if (!segment.message) continue;
      startedAt ??= segment.spoken.firstSentAt;
      const text = cut ? heardText(segment) : segment.text;
      // The model's context keeps only what the caller heard of its turn.
      if (cut) segment.message.content = text;
      if (text) said.push(text);
      if (reply.timing && segment.spoken.firstSentAt !== null) reply.timing.firstAudioAt ??= segment.spoken.firstSentAt;
    }
    this.forgetUnsaid();
    const { timing } = reply;
    const latency = timing ? turnLatency(timing) : undefined;
    if (latency) observe(latency);
    // OTEL_EXPORTER_OTLP_ENDPOINT: the answer's span, from the caller's end of speech to the first audio sent.
    if (latency && timing?.speechEndedAt) {
      this.deps.telemetry?.turn({ callId: this.call.id, startedAt: timing.speechEndedAt, endedAt: timing.firstAudioAt ?? Date.now(), latency });
    }
    if (said.length) this.call.turn({ speaker: 'assistant', text: said.join(' '), ...(latency ? { latency } : {}) }, startedAt);
    if (this.failing || this.ended) return;
    if (cut && this.heldTurn) {
      // Interrupted: what the caller said before belongs with what they are saying now.
      this.call.turn({ speaker: 'customer', text: this.heldTurn }, this.takeHeldStart());
      this.remember({ role: 'user', content: this.heldTurn });
      this.heldTurn = '';
    }
    if (this.endRequested && !this.afterHeard) return this.hangupWhenHeard('end-call-tool');
    if (this.heldTurn) {
      const text = this.heldTurn;
      this.heldTurn = '';
      this.call.turn({ speaker: 'customer', text }, this.takeHeldStart());
      this.remember({ role: 'user', content: text });
      void this.respond({ speechEndedAt: null, sttFinalAt: Date.now(), llmFirstTokenAt: null, ttsFirstByteAt: null, firstAudioAt: null });
      return;
    }
    if (!this.speaking) this.silentSince ??= Date.now();
  }

  /** When the held turn began; it is then said. */
  private takeHeldStart(): number | null {
    const startedAt = this.heldStartedAt;
    this.heldStartedAt = null;
    return startedAt;
  }

  private onIdle(): void {
    if (this.ended) return;
    this.checkReplyHeard();
    // A goodbye or an apology heard to its end (not a pause while TTS catches up).
    if (this.afterHeard && !this.reply) void this.hangup(this.afterHeard);
  }

  /** Adds a message to the model's context (bounded); answers it, to be cut later. */
  private remember<M extends LlmMessage>(message: M): M {
    this.context.push(message);
    if (this.context.length > MAX_CONTEXT_MESSAGES) {
      // Drop the oldest, never leaving a tool result without the call it answers.
      let drop = this.context.length - MAX_CONTEXT_MESSAGES;
      while (this.context[drop]?.role === 'tool') drop++;
      this.context.splice(0, drop);
    }
    return message;
  }

  /** Assistant messages the caller heard nothing of, and no tool call hangs on, leave the context. */
  private forgetUnsaid(): void {
    for (let i = this.context.length - 1; i >= 0; i--) {
      const message = this.context[i];
      if (message.role === 'assistant' && !message.content && !message.tool_calls?.length) this.context.splice(i, 1);
    }
  }

  // ------------------------------------------------------------------ silence, failures, the end

  /** `re_engagement_interval` of silence: the assistant re-engages; then `max_silence_duration` more: the call ends. */
  private checkSilence(): void {
    if (this.silentSince === null || this.hangingUp || this.ended || this.failing || this.reply) return;
    const silent = Date.now() - this.silentSince;
    const { re_engagement_interval, max_silence_duration } = this.setup.assistant;
    if (!this.reengaged && silent >= re_engagement_interval * 1000) {
      this.reengaged = true;
      void this.respond(null, 'The customer has been silent for a while. Briefly check, in the language of the conversation, whether they are still there.');
    } else if (this.reengaged && silent >= max_silence_duration * 1000) {
      void this.hangup('silence');
    }
  }

  /**
   * A vendor failed: the assistant apologises in its language where TTS still works, then the
   * call is hung up with `hangup_reason` naming the part. Never a silent line.
   */
  private fail(error: ServiceError): void {
    if (this.ended) return;
    const reason: HangupReason = `${error.part}-failed`;
    if (this.failing) {
      // The apology could not be spoken either.
      if (error.part === 'tts') void this.hangup(this.afterHeard ?? reason);
      return;
    }
    this.failing = true;
    this.deps.logger.warn('voice: a vendor of the pipeline failed', { call_id: this.call.id, part: error.part, kind: error.kind, message: error.message });
    this.call.failed(error.message);
    if (this.reply) this.cancel(this.reply);
    this.speaker.clear();
    if (error.part === 'tts') return void this.hangup(reason);
    this.afterHeard = reason;
    this.say(phrases(this.language).apology, false);
    this.hangupWhenHeard(reason);
  }

  /** Hangs up once the caller has heard what was sent (a goodbye, an apology), or after GOODBYE_MS. */
  private hangupWhenHeard(reason: HangupReason): void {
    this.afterHeard = reason;
    if (!this.reply && !this.speaker.busy) return void this.hangup(reason);
    setTimeout(() => {
      if (!this.ended) void this.hangup(reason);
    }, GOODBYE_MS).unref();
  }

  private async hangup(reason: HangupReason, attempt = 1): Promise<void> {
    if (this.hangingUp && attempt === 1) return;
    this.hangingUp = reason;
    clearInterval(this.silenceTimer);
    try {
      await this.call.hangup(reason);
    } catch (error) {
      this.deps.logger.error('voice: could not hang up a call', error, { call_id: this.call.id, reason, attempt });
      // The provider may answer a second time; the line must not stay open with nobody on it.
      if (attempt < HANGUP_ATTEMPTS && !this.ended) setTimeout(() => void this.hangup(reason, attempt + 1), 1000).unref();
    }
  }

  async end(reason: MediaEnd): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    // What the caller heard of a reply under way is the assistant's last turn, and what the caller said after it theirs.
    if (this.reply) this.cancel(this.reply);
    const unanswered = [this.heldTurn, ...this.heard, this.interim].join(' ').trim();
    if (unanswered) this.call.turn({ speaker: 'customer', text: unanswered }, this.heldStartedAt ?? this.turnStartedAt);
    clearInterval(this.silenceTimer);
    if (this.awaitingFinal) clearTimeout(this.awaitingFinal);
    this.speaker.close();
    this.vad.close();
    this.audioStages.denoiser?.destroy();
    try {
      if (reason === 'customer') this.call.endedAtProvider();
      else if (reason === 'media-lost' && !this.hangingUp) await this.call.hangup('media-lost');
    } catch (error) {
      this.deps.logger.error('voice: could not hang up a call whose media was lost', error, { call_id: this.call.id });
    } finally {
      const stt = await this.stt.close().catch(() => ({ seconds: 0 }));
      this.tts.close();
      this.usage.stt_seconds = stt.seconds;
      this.usage.tts_characters = this.tts.characters;
      this.call.usage(this.usage);
      await Promise.allSettled([this.vadRuns, ...this.toolRuns]);
      await this.call.settled();
    }
  }
}

/** The words of a segment the caller heard: its text in proportion to the audio played, cut at a word. */
function heardText(segment: Segment): string {
  const { heardMs, queuedMs } = segment.spoken;
  if (heardMs <= 0 || !segment.text) return '';
  if (heardMs >= queuedMs && segment.ttsDone) return segment.text;
  const share = queuedMs > 0 ? Math.min(1, heardMs / queuedMs) : 0;
  const at = Math.round(segment.text.length * share);
  const cut = segment.text.lastIndexOf(' ', at);
  if (cut > 0) return segment.text.slice(0, cut).trim();
  // Chinese and Japanese are written without spaces: cut at the character.
  return CJK.test(segment.text) ? segment.text.slice(0, at).trim() : '';
}

const CJK = /[\u3040-\u30ff\u3400-\u9fff]/;
