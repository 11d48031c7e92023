import { AttemptFailure, type TestToolCall, type TokenCount, type VoiceLine } from '../../modules/assistant-tests/test.ports';
import type { ChatMessage } from '../../modules/assistant-tests/test.rules';
import { testToolName } from '../../modules/assistant-tests/test.rules';
import type { ToolCallRecord } from '../../modules/calls/call.entity';
import type { MediaOut, VoiceEngine } from '../engine';
import { synthesise } from '../engines/pipeline/fillers';
import type { TtsSession } from '../services/service';
import type { SimulatedCall } from './simulated-call';

/** The line's rate: a web call's (the engines hear and speak those at 16 kHz). */
export const LINE_RATE = 16_000 as const;
/** The caller's audio goes in frames of 20 ms, one every 20 ms, speech or the line's silence, as a phone's does. */
const FRAME_MS = 20;
const FRAME_SAMPLES = (LINE_RATE * FRAME_MS) / 1000;
/** The assistant has had its say once this long has passed with none of its audio playing after its turn. */
const QUIET_MS = 700;
/** How long the caller waits for an assistant that speaks first to open, or for an answer to begin. */
const ANSWER_WAIT_MS = 20_000;
/** How long a caller of an assistant that does not speak first waits before speaking. */
const CALLER_FIRST_MS = 500;
/** The most one listen lasts (an answer that goes on and on is cut here: the caller speaks again). */
const LISTEN_MAX_MS = 120_000;
/** The caller's last words are given this long to be heard (their turn recorded) before the caller hangs up. */
const LAST_WORDS_MS = 3_000;
/** How long the caller's words may take to be synthesised. */
const SYNTHESIS_MS = 30_000;
const POLL_MS = 40;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The in-process transport of a voice simulation (design.md, "Assistant tests"): the simulated
 * caller's end of a call. Its words are spoken by the assistant's TTS vendor and go to the
 * engine as the caller's audio, 20 ms every 20 ms with the line's silence between, so the
 * engine's VAD, STT and endpointing hear them as a phone's; the assistant's audio comes back
 * through `MediaOut` and is played out at real time, each mark reported once the audio before it
 * has played (as Twilio does), so a caller's speech over it could interrupt it. Each answer's
 * latency is the caller's: from the last of its speech to the assistant's first audio back.
 */
export class SimulatedLine implements VoiceLine {
  readonly latencies: number[] = [];
  private engine: VoiceEngine | null = null;
  /** The caller's speech going out, and where in it; resolved once it has all gone. */
  private speech: { pcm: Int16Array; at: number; sent: () => void } | null = null;
  private tick: NodeJS.Timeout | null = null;
  private nextFrameAt = 0;
  /** When the caller's last words ended, until the assistant's first audio after them. */
  private awaitingSince: number | null = null;
  /** When the assistant's audio last came, and when what came will have played. */
  private lastAudioAt = 0;
  private playedAt = 0;
  private readonly marks = new Set<NodeJS.Timeout>();
  private over = false;
  /** The caller is hanging up (its last words said). */
  private leaving = false;
  private stopped: Promise<void> | null = null;
  /** The caller has spoken; and its turns recorded when it last began to. */
  private spoke = false;
  private turnsAtWords = 0;

  constructor(
    private readonly call: SimulatedCall,
    private readonly voice: TtsSession,
    /** The records of tools a mock answered. */
    private readonly mocked: WeakSet<ToolCallRecord>,
    private readonly assistantFirst: boolean,
  ) {}

  /** The engine is on the line: the caller's audio (the line's silence, for now) flows from here on. */
  connect(engine: VoiceEngine): void {
    this.engine = engine;
    this.nextFrameAt = Date.now();
    this.feed();
  }

  /** The engine hung up: the media ends. */
  hungUp(): void {
    this.over = true;
  }

  get ended(): boolean {
    return this.over;
  }

  get failure(): string | null {
    return this.call.failure;
  }

  get transcript(): ChatMessage[] {
    return this.call.turns.map((turn) => ({ role: turn.speaker === 'customer' ? 'user' : 'assistant', content: turn.text }));
  }

  get toolCalls(): TestToolCall[] {
    const calls = this.call.tools.map((record) => ({ name: record.name, arguments: record.parameters, mocked: this.mocked.has(record) }));
    return this.call.hangupReason === 'end-call-tool' ? [...calls, { name: testToolName('endCall'), arguments: {}, mocked: false }] : calls;
  }

  // ------------------------------------------------------------------ the engine's side

  /** The line as the engine sees it. */
  readonly out: MediaOut = {
    rate: LINE_RATE,
    media: (pcm) => this.media(pcm),
    mark: (name) => this.mark(name),
    clear: () => this.clear(),
  };

  private media(pcm: Int16Array): void {
    const now = Date.now();
    // An answer begun while the caller hangs up is one nobody stays to hear: no latency of a turn.
    if (this.awaitingSince !== null && !this.leaving) {
      this.latencies.push(Math.max(1, now - this.awaitingSince));
      this.awaitingSince = null;
    }
    this.lastAudioAt = now;
    this.playedAt = Math.max(this.playedAt, now) + (pcm.length * 1000) / LINE_RATE;
  }

  private mark(name: string): void {
    const timer = setTimeout(() => {
      this.marks.delete(timer);
      if (!this.stopped) this.engine?.played(name);
    }, Math.max(0, this.playedAt - Date.now()));
    this.marks.add(timer);
  }

  private clear(): void {
    for (const timer of this.marks) clearTimeout(timer);
    this.marks.clear();
    this.playedAt = Date.now();
  }

  // ------------------------------------------------------------------ the caller's side (VoiceLine)

  async listen(): Promise<void> {
    const from = this.assistantTurns();
    const start = Date.now();
    const wait = this.assistantFirst || this.spoke ? ANSWER_WAIT_MS : CALLER_FIRST_MS;
    while (!this.over && Date.now() - start < LISTEN_MAX_MS) {
      const now = Date.now();
      const answered = this.assistantTurns() > from;
      if (answered && now - Math.max(this.lastAudioAt, this.playedAt) >= QUIET_MS) return;
      // Nothing came: the caller speaks (again), as one would on the phone.
      if (!answered && this.lastAudioAt < start && now - start >= wait) return;
      await sleep(POLL_MS);
    }
  }

  async say(text: string): Promise<void> {
    if (this.over) return;
    const pcm = await synthesise(this.voice, text, SYNTHESIS_MS);
    if (!pcm) throw new AttemptFailure('the assistant’s TTS vendor could not speak the simulated caller’s words');
    if (this.over) return;
    this.spoke = true;
    this.turnsAtWords = this.callerTurns();
    await new Promise<void>((sent) => (this.speech = { pcm, at: 0, sent }));
  }

  async hangUp(): Promise<TokenCount> {
    // The caller's last words are heard before it hangs up (their turn recorded), as a person's are.
    this.leaving = true;
    const start = Date.now();
    while (!this.over && this.spoke && this.callerTurns() === this.turnsAtWords && Date.now() - start < LAST_WORDS_MS) await sleep(POLL_MS);
    this.over = true;
    this.stopped ??= this.stop();
    await this.stopped;
    const used = this.call.used;
    return { input: used?.llm_input_tokens ?? 0, output: used?.llm_output_tokens ?? 0 };
  }

  private async stop(): Promise<void> {
    if (this.tick) clearTimeout(this.tick);
    this.clear();
    this.speech?.sent();
    this.speech = null;
    await this.engine?.end('customer');
    this.voice.close();
  }

  private assistantTurns(): number {
    return this.call.turns.filter((turn) => turn.speaker === 'assistant').length;
  }

  private callerTurns(): number {
    return this.call.turns.filter((turn) => turn.speaker === 'customer').length;
  }

  /** Sends the frames due by now (the caller's speech, else silence), then waits for the next. */
  private feed(): void {
    if (this.stopped || !this.engine) return;
    const now = Date.now();
    while (this.nextFrameAt <= now) {
      this.engine.audio(this.frame());
      this.nextFrameAt += FRAME_MS;
    }
    this.tick = setTimeout(() => this.feed(), Math.max(1, this.nextFrameAt - Date.now()));
  }

  private frame(): Int16Array {
    const frame = new Int16Array(FRAME_SAMPLES);
    const speech = this.speech;
    if (!speech) return frame;
    frame.set(speech.pcm.subarray(speech.at, speech.at + FRAME_SAMPLES));
    speech.at += FRAME_SAMPLES;
    if (speech.at >= speech.pcm.length) {
      // The caller's speech ends here: the assistant's answer is timed from now.
      this.speech = null;
      this.awaitingSince = Date.now();
      speech.sent();
    }
    return frame;
  }
}
