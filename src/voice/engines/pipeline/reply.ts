import { ServiceError, type LlmToolCall, type TtsUtterance } from '../../services/service';
import type { AssistantMessage } from './context';
import { FILLER_TIMES, FillerClock, toolFiller, type FillerPhrase } from './filler-clock';
import type { TurnTiming } from './latency';
import type { ReplyContextOf } from './reply-context';
import { heardText, resumePoint, Segment } from './segment';
import { Spoken } from './speaker';
import { SentenceSplitter, speechText } from './speech-text';

/** What a reply needs of its call (reply-context.ts). */
export type ReplyContext = ReplyContextOf<Reply>;

/**
 * One answer of the assistant (design.md, "The pipeline engine, round 2"): the model's stream
 * cut into sentences, each spoken by TTS as it comes; the model's tool calls run between its
 * rounds; a filler when the answer or a tool is slow; and, when the caller interrupts, the
 * answer cut to what the caller heard.
 *
 * An answer is made of segments, played in order: a round of the model, a filler, the opening
 * or an apology. Each has its own TTS utterance, whose audio waits while a segment ahead of it
 * still plays.
 */

/** The model may call tools this many times in one reply. */
export const MAX_TOOL_ROUNDS = 5;
/** What the model is told of tools still running when the caller spoke (their real results replace it when they come). */
export const TOOL_INTERRUPTED = '{"error":"the caller spoke before the tool answered"}';

export class Reply {
  private readonly controller = new AbortController();
  /** When a filler is due: while the answer's first audio is slow (once), and while tools run. */
  private readonly fillers = new FillerClock((phrase) => this.playFiller(phrase));
  /** The message whose tool calls are running. */
  private toolsAsked: AssistantMessage | null = null;
  readonly segments: Segment[] = [];
  /** The segment whose audio goes to the speaker now. */
  private playing = 0;
  private cancelledNow = false;
  /** The caller's speech paused it (a false interruption, perhaps): its audio waits. */
  private pausedNow = false;
  /** The model has finished: no more segments come. */
  private written = false;
  private over = false;

  constructor(
    private readonly ctx: ReplyContext,
    /** When each step of the turn it answers happened (none for the opening, an apology or a re-engagement). */
    readonly timing: TurnTiming | null,
  ) {}

  /** Says a text as it is (the opening, also in the model's context; an apology). */
  say(text: string, inContext: boolean): AssistantMessage {
    const message: AssistantMessage = { role: 'assistant', content: text };
    if (inContext) this.ctx.conversation.remember(message);
    const segment = this.segment(message);
    // Sentence by sentence, as the model's text is: a pause says its cut sentence again, not the whole text.
    for (const sentence of SentenceSplitter.sentences(text)) this.speak(segment, sentence);
    this.endSegment(segment);
    this.written = true;
    return message;
  }

  /** The model's answer: streamed, sentence by sentence to TTS, with its tool calls. */
  async write(instructions?: string, withTools = true): Promise<void> {
    const { ctx } = this;
    if (ctx.filler) this.fillers.start(null, 1);
    try {
      const excerpts = await this.excerpts();
      if (this.cancelledNow) return;
      for (let round = 0; round < MAX_TOOL_ROUNDS && !this.cancelledNow; round++) {
        const messages = ctx.conversation.request(ctx.systemPrompt, excerpts, instructions);
        const message = ctx.conversation.remember<AssistantMessage>({ role: 'assistant', content: '' });
        const segment = this.segment(message);
        let written = '';
        const splitter = new SentenceSplitter();
        const calls: LlmToolCall[] = [];
        const tools = withTools && !ctx.ending() ? ctx.functions() : [];
        const { service, model, temperature } = ctx.llm;
        for await (const chunk of service.complete({ model, temperature, messages, tools }, this.controller.signal)) {
          if (this.cancelledNow) break;
          if (chunk.type === 'text') {
            if (this.timing && this.timing.llmFirstTokenAt === null) this.timing.llmFirstTokenAt = Date.now();
            written += chunk.text;
            message.content = written;
            for (const sentence of splitter.push(chunk.text)) this.speak(segment, sentence);
          } else if (chunk.type === 'tool_call') {
            calls.push(chunk.call);
          } else {
            ctx.usage.llm_input_tokens += chunk.inputTokens;
            ctx.usage.llm_output_tokens += chunk.outputTokens;
          }
        }
        if (this.cancelledNow) return;
        const rest = splitter.flush();
        if (rest) this.speak(segment, rest);
        this.endSegment(segment);
        if (calls.length === 0) break;
        message.tool_calls = calls;
        const spoke = segment.text.length > 0;
        await this.runTools(message, calls);
        if (this.cancelledNow) return;
        // The call ends (a goodbye, a transfer): once it is said, the model has nothing more to say.
        const ending = ctx.ending();
        if (ending) {
          if (spoke || ending.instructions === null) break;
          instructions = ending.instructions;
          withTools = false;
        }
      }
      this.written = true;
      this.checkHeard();
    } catch (error) {
      if (this.cancelledNow) return;
      if (error instanceof ServiceError) return ctx.failed(error);
      ctx.logError('voice: a reply failed', error);
      ctx.failed(new ServiceError('llm', 'dropped', 'the reply failed'));
    } finally {
      this.fillers.stop();
    }
  }

  /**
   * `prompt` mode: what the knowledge base has for the caller's turn this reply answers (an
   * opening or a re-engagement answers none). A failed search is logged and the model answers
   * without it: the caller is never kept waiting on the knowledge base.
   */
  private async excerpts(): Promise<string | null> {
    const { lookup, conversation } = this.ctx;
    const callerText = this.timing && lookup ? conversation.lastCallerText() : null;
    if (!callerText) return null;
    try {
      return await lookup!(callerText);
    } catch (error) {
      this.ctx.logError('voice: a knowledge-base search failed', error);
      return null;
    }
  }

  /**
   * DTMF tones (press_digits, while its tool runs), played after what the reply has said so
   * far. Resolves once the caller has heard them (and when they began to sound), or null when
   * the reply is cut first.
   */
  playTones(pcm: Int16Array): Promise<{ startedAt: number | null } | null> {
    if (this.over || this.cancelledNow) return Promise.resolve(null);
    const segment = new Segment('', null, null);
    this.segments.push(segment);
    return new Promise((resolve) => {
      segment.tones = { pcm, heard: resolve };
      this.segmentAudio(segment, pcm);
      this.segmentDone(segment);
    });
  }

  /** Stops the reply: the model's stream and TTS, and its turn cut to what was heard. */
  cancel(): void {
    if (this.cancelledNow) return;
    this.cancelledNow = true;
    this.controller.abort();
    this.fillers.stop();
    for (const segment of this.segments) segment.tones?.heard(null);
    // Tools still running: the model hears they were interrupted, until their real results come.
    if (this.toolsAsked) this.ctx.conversation.answerTools(this.toolsAsked, this.toolsAsked.tool_calls!.map(() => TOOL_INTERRUPTED));
    for (const segment of this.segments) segment.utterance?.cancel();
    this.finish(true);
  }

  /**
   * The caller spoke over the reply: it stops speaking (the engine clears the speaker) and
   * waits, its model and TTS going on. What the caller had not heard to its end will be said
   * again from the start of the sentence that was cut (resume), or never (cancel).
   */
  pause(): void {
    if (this.over || this.pausedNow) return;
    this.pausedNow = true;
    this.fillers.stop();
    const first = this.segments.findIndex((segment, i) => i <= this.playing && !(segment.ttsDone && segment.spoken.heardMs >= segment.spoken.queuedMs));
    if (first < 0) return; // all heard: nothing to say again
    for (let i = first; i <= this.playing && i < this.segments.length; i++) this.sayAgain(this.segments[i], i === first);
    this.playing = first;
  }

  /** It was no interruption: the reply speaks again where it was cut. */
  resume(): void {
    if (this.over || !this.pausedNow) return;
    this.pausedNow = false;
    const segment = this.segments[this.playing];
    if (segment) for (const pcm of segment.pending.splice(0)) this.ctx.speaker.play(segment.spoken, pcm);
    this.advance();
  }

  /** Once the reply is written and every segment heard, the assistant's turn is over. */
  checkHeard(): void {
    for (const segment of this.segments) {
      const { tones, spoken } = segment;
      if (tones && spoken.complete && spoken.heardMs >= spoken.queuedMs) {
        segment.tones = null;
        tones.heard({ startedAt: spoken.firstSentAt });
      }
    }
    if (!this.written || this.cancelledNow || this.over || this.pausedNow) return;
    if (this.playing < this.segments.length || this.ctx.speaker.busy) return;
    this.finish(false);
  }

  /** What the caller heard of the reply's answer (all of it unless `cut`); the model's context keeps only that. */
  heard(cut: boolean): { said: string[]; startedAt: number | null } {
    const said: string[] = [];
    /** The answer began when its first audio was sent (a filler before it is not the answer). */
    let startedAt: number | null = null;
    for (const segment of this.segments) {
      if (!segment.message) continue;
      startedAt ??= segment.spoken.firstSentAt;
      const text = cut ? heardText(segment) : segment.text;
      if (cut) segment.message.content = text;
      if (text) said.push(text);
      if (this.timing && segment.spoken.firstSentAt !== null) this.timing.firstAudioAt ??= segment.spoken.firstSentAt;
    }
    return { said, startedAt };
  }

  private finish(cut: boolean): void {
    if (this.over) return;
    this.over = true;
    this.ctx.finished(this, cut);
  }

  /** A new segment of the reply, spoken by its own TTS utterance. */
  private segment(message: AssistantMessage): Segment {
    const segment = new Segment('', null, message);
    segment.utterance = this.utterance(segment);
    this.segments.push(segment);
    return segment;
  }

  /** A TTS utterance whose audio is the segment's. */
  private utterance(segment: Segment): TtsUtterance {
    // An utterance replaced (the segment said again after a pause) is cancelled: anything it still sends is not the segment's.
    const utterance: TtsUtterance = this.ctx.tts.utterance({
      audio: (pcm) => {
        if (segment.utterance === utterance) this.segmentAudio(segment, pcm);
      },
      done: () => {
        if (segment.utterance === utterance) this.segmentDone(segment);
      },
      failed: (error) => this.ctx.failed(error),
    });
    return utterance;
  }

  /**
   * A segment the caller did not hear to its end, said again once the reply resumes: from the
   * start of the sentence that was cut (`cut`), or whole; a filler is not said again.
   */
  private sayAgain(segment: Segment, cut: boolean): void {
    if (segment.tones) {
      // Tones are played again whole: a menu heard half a key as none.
      segment.spoken = new Spoken();
      segment.pending = [segment.tones.pcm];
      return;
    }
    if (!segment.message) {
      // A filler is not said again.
      segment.utterance?.cancel();
      segment.pending = [];
      segment.ttsDone = true;
      return;
    }
    if (!segment.said) return; // nothing said yet: its audio, when it comes, waits for the resume
    segment.pending = [];
    const { from, index } = resumePoint(segment, cut);
    segment.utterance?.cancel();
    segment.heardBefore = heardText(segment);
    const firstSentAt = segment.spoken.firstSentAt;
    segment.spoken = new Spoken();
    segment.spoken.firstSentAt = firstSentAt; // the answer began when it first sounded
    segment.spokenFrom = from;
    segment.ttsDone = false;
    segment.utterance = this.utterance(segment);
    for (const sentence of segment.sentences.slice(index)) this.voice(segment, sentence);
    if (segment.ended) segment.utterance.end();
  }

  /** Gives TTS a sentence of the model's as a person would say it (nothing, when nothing of it is said: emoji). */
  private voice(segment: Segment, sentence: string): void {
    const { language, pronunciations } = this.ctx.speech;
    const spoken = speechText(sentence, language, pronunciations);
    if (!spoken) return;
    segment.utterance!.push(spoken);
    segment.said = true;
  }

  private speak(segment: Segment, sentence: string): void {
    segment.text = segment.text ? `${segment.text} ${sentence}` : sentence;
    segment.sentences.push(sentence);
    this.voice(segment, sentence);
    // What the assistant is saying so far (a filler is not part of the conversation).
    if (segment.message) this.ctx.showWords(this.segments.filter((each) => each.message && each.text).map((each) => each.text).join(' '));
  }

  /** No more text for the segment: TTS speaks the rest (a segment with nothing said has nothing to wait for). */
  private endSegment(segment: Segment): void {
    segment.ended = true;
    if (segment.said) return segment.utterance!.end();
    segment.utterance?.cancel();
    this.segmentDone(segment);
  }

  private segmentAudio(segment: Segment, pcm: Int16Array): void {
    if (this.cancelledNow) return;
    if (segment.message) {
      // The answer speaks: no filler for its first audio (while tools run, their fillers go on).
      if (!this.toolsAsked) this.fillers.stop();
      if (this.timing && this.timing.ttsFirstByteAt === null) this.timing.ttsFirstByteAt = Date.now();
    }
    if (this.segments[this.playing] === segment && !this.pausedNow) this.ctx.speaker.play(segment.spoken, pcm);
    else segment.pending.push(pcm);
  }

  private segmentDone(segment: Segment): void {
    segment.ttsDone = true;
    if (this.cancelledNow || this.pausedNow) return;
    this.advance();
  }

  /** Plays the segments whose turn has come, in order. */
  private advance(): void {
    const { speaker } = this.ctx;
    for (let current = this.segments[this.playing]; current?.ttsDone; current = this.segments[this.playing]) {
      speaker.finish(current.spoken);
      this.playing++;
      const next = this.segments[this.playing];
      if (!next) break;
      for (const pcm of next.pending) speaker.play(next.spoken, pcm);
      next.pending = [];
    }
    this.checkHeard();
  }

  /**
   * The model's tool calls, run together (a slow one gets a filler: the first `speak_during`
   * of theirs, else the generic filler, repeated); their results follow the
   * message that asked for them. A reply interrupted meanwhile has answered them with a
   * placeholder, which their real results replace when they come: the model must know what
   * the tools did (a booking made is never made twice).
   */
  private async runTools(message: AssistantMessage, calls: LlmToolCall[]): Promise<void> {
    const phrase = toolFiller(calls.map((call) => call.function.name), (name) => this.ctx.speakDuring(name), this.ctx.filler !== null);
    if (phrase === undefined) this.fillers.stop();
    else this.fillers.start(phrase, FILLER_TIMES);
    this.toolsAsked = message;
    const run = Promise.all(calls.map((call) => this.ctx.runFunction(call.function.name, call.function.arguments)));
    this.ctx.track(run);
    try {
      this.ctx.conversation.answerTools(message, await run);
    } finally {
      this.toolsAsked = null;
      this.fillers.stop();
    }
  }

  /**
   * A filler, when nothing of the reply plays: a tool's `speak_during` (`phrase`), spoken by
   * TTS as the reply's own sentences are, or the generic one (`filler_audios`), whose audio is
   * the process's. It is not part of the conversation, and not said again after a pause.
   */
  private playFiller(phrase: FillerPhrase): void {
    if (this.over || this.pausedNow || this.ctx.speaker.busy) return;
    if (phrase === null && !this.ctx.filler) return;
    // Keys being pressed: a filler would sound to the menu in their midst.
    if (this.segments.some((segment) => segment.tones)) return;
    // The filler goes before the reply's segments that have not begun to play.
    const segment = new Segment('', null, null);
    this.segments.splice(this.playing, 0, segment);
    if (phrase !== null) {
      segment.utterance = this.utterance(segment);
      this.speak(segment, phrase);
      return this.endSegment(segment);
    }
    void this.ctx.filler!().then((pcm) => {
      if (pcm && !this.cancelledNow) this.segmentAudio(segment, pcm);
      this.segmentDone(segment);
    });
  }
}
