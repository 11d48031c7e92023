import { ASSISTANT_DEFAULTS, type Assistant } from '../../src/modules/assistants/assistant.entity';
import type { Turn } from '../../src/modules/calls/call.conversation';
import type { ToolCallRecord } from '../../src/modules/calls/call.entity';
import type { HangupReason } from '../../src/modules/calls/call.events';
import type { Tool } from '../../src/modules/tools/tool.entity';
import { PipelineEngine } from '../../src/voice/engines/pipeline/engine';
import type { Vad } from '../../src/voice/engines/pipeline/hearing';
import type { EngineSetup } from '../../src/voice/engine.setup';
import type { LiveCall } from '../../src/voice/live-call';
import { modelParams } from '../../src/modules/catalog/model.params';
import {
  ServiceError,
  type LlmChunk,
  type LlmRequest,
  type LlmService,
  type SttEvents,
  type SttOptions,
  type SttService,
  type Transcript,
  type TtsEvents,
  type TtsService,
} from '../../src/voice/services/service';

/**
 * The pipeline engine on virtual time (LiveKit Agents' `tests/virtual_time.py` and
 * `fake_session.py` are the model): the real engine, its turn-taking and its replies, fed by
 * scripted vendors on jest's fake timers, so that a race that takes seconds on a real call is
 * reached in milliseconds, and at the same instant every run.
 *
 * - The caller: `says(text, ms)` is `ms` of speech (the VAD hears it), with the STT's interim
 *   words halfway and its final words `finalAfterMs` after the speech (or at once when the
 *   engine asks `finalize`, unless `ignoresFinalize`).
 * - The model: each `llm.reply(...)` answers one request, after `firstTokenMs`, a chunk every
 *   `chunkMs`; tool calls come after the text.
 * - TTS: each sentence's audio comes `firstByteMs` after it is pushed, `MS_PER_CHAR` of audio a
 *   character.
 * - The transport: 20 ms frames of the caller's audio, and each mark played `playoutMs` after
 *   it is sent, as Twilio reports them.
 * - Tools: `options.tools` names the assistant's tools (or gives them with a `speak_during`);
 *   each run waits for `answerTool`.
 * - An outbound call (`options.outbound`) is screened for who answered (src/voice/amd): the
 *   caller's speech is then loud noise on the line, as the detector hears a voice.
 *
 * Every test must call `jest.useFakeTimers()` first, and `advance(ms)` moves time.
 */

/** Milliseconds of speech a character of TTS text takes. */
export const MS_PER_CHAR = 50;
const FRAME_MS = 20;
/** A frame of silence at the telephone's 8 kHz: the scripted VAD decides what is speech. */
const SILENCE = new Int16Array((8000 * FRAME_MS) / 1000);
/** A frame of noise loud as a voice (no tone a beep detector would take for a mailbox's beep), for an outbound call's screening. */
const VOICE = SILENCE.map((_, index) => (((index * 7919) % 2001) - 1000) * 4);

export interface ScriptedReply {
  text?: string;
  firstTokenMs?: number;
  chunkMs?: number;
  toolCalls?: { name: string; arguments?: string }[];
  /** Fails the request (a ServiceError of the LLM). */
  fails?: boolean;
}

export interface CallerLine {
  /** Milliseconds after the speech the STT's final words come by themselves. */
  finalAfterMs?: number;
  /** The STT answers `finalize` late, or not at all: its final comes only at `finalAfterMs`. */
  ignoresFinalize?: boolean;
  /** The STT says the turn is over with its final (Deepgram's `speech_final`); default true. */
  endsTurn?: boolean;
}

/**
 * Tools answered by the test: a test file routes the engine's tool runs here with
 * `jest.mock('../../src/modules/calls/call.tools', () => ({ runTool: (_deps: unknown, _call: unknown, tool: { name: string }) => require('../helpers/virtual-call').toolRun(tool.name) }))`.
 */
const toolRuns = new Map<string, (record: ToolCallRecord) => void>();

export function toolRun(name: string): Promise<ToolCallRecord> {
  return new Promise((resolve) => toolRuns.set(name, resolve));
}

/** The tool `name`, running, answers now. */
export function answerTool(name: string, response: string): void {
  const resolve = toolRuns.get(name);
  if (!resolve) throw new Error(`the tool ${name} is not running`);
  toolRuns.delete(name);
  resolve({ tool_id: 1, name, method: 'POST', url: 'http://tools.test/', parameters: {}, status: 200, response, error: null, latency_ms: 1 });
}

/** Whether the tool `name` is running. */
export const toolRunning = (name: string) => toolRuns.has(name);

export async function advance(ms: number): Promise<void> {
  await jest.advanceTimersByTimeAsync(ms);
}

export interface VirtualOptions {
  /** The assistant's tools, by name or with their `speak_during` (each run waits for `answerTool`). */
  tools?: (string | { name: string; speak_during: string | null })[];
  /** The call's variables over the assistant's. */
  variables?: Record<string, unknown>;
  /** How long after a mark is sent the transport reports it played. */
  playoutMs?: number;
  ttsFirstByteMs?: number;
  /** The STT refuses the stream this long after it is opened (a wrong key). */
  sttRefusesAfterMs?: number;
  /** A web call (false: no phone line, so no transfer nor keypad functions offered). Default: a phone call. */
  phoneLine?: boolean;
  /** What the call's transfer check answers (call.transfer.ts's refusals); default: none, the leg is reserved. */
  transferRefusal?: string;
  /** The provider refuses the transfer itself (the call then goes on). */
  transferFails?: boolean;
  /** An outbound call: the callee is screened for who answered before the opening (Twilio's AnsweredBy never comes). */
  outbound?: boolean;
  /**
   * The assistant has a knowledge base (`prompt` mode unless said): each search answers
   * `contents` as its chunks `searchMs` after it is asked, or fails then (`fails`).
   */
  knowledge?: { mode?: 'prompt' | 'function_call'; searchMs: number; contents?: string[]; fails?: boolean };
  /**
   * The VAD stops answering this long after the call began: each frame given from then fails a
   * second later, as the voice worker's timeout fails a batch it did not answer (vad/worker.ts).
   */
  vadStallsAtMs?: number;
  /** The VAD skips every frame given in this stretch of the call (ms after it began), as it does frames that come late. */
  vadLate?: { fromMs: number; untilMs: number };
}

export function virtualCall(settings: Partial<Assistant> = {}, options: VirtualOptions = {}) {
  const assistant = { ...ASSISTANT_DEFAULTS, initial_message: 'Olá!', system_prompt: 'Você atende.', noise_cancellation: false, ...settings } as unknown as Assistant;
  const playoutMs = options.playoutMs ?? 60;
  const ttsFirstByteMs = options.ttsFirstByteMs ?? 100;

  // ------------------------------------------------------------- the record of the call
  const record = {
    turns: [] as (Turn & { at: number })[],
    hungUp: null as HangupReason | null,
    hungUpAt: null as number | null,
    failed: null as string | null,
    toolCalls: [] as unknown[],
    errors: [] as string[],
    /** The numbers a transfer was asked to, in order. */
    transfers: [] as string[],
    /** Who answered, as the screening decided. */
    answeredBy: null as { answered_by: string; source: string } | null,
    /** What the knowledge base was asked, in order. */
    searches: [] as { query: string; mode: string }[],
  };
  const live = {
    id: 1,
    turn: (turn: Turn) => record.turns.push({ ...turn, at: Date.now() }),
    toolCall: (call: unknown) => record.toolCalls.push(call),
    usage: () => {},
    failed: (detail: string) => (record.failed = detail),
    hangup: async (reason: HangupReason) => {
      if (reason === 'transferred' && options.transferFails) throw new Error('twilio 21220: Call is not in-progress');
      record.hungUp ??= reason;
      record.hungUpAt ??= Date.now();
    },
    reserveTransfer: async (to: string) => {
      record.transfers.push(to);
      return options.transferRefusal ?? null;
    },
    endedAtProvider: () => {},
    answeredBy: (verdict: { answered_by: string; source: string }) => (record.answeredBy = verdict),
    providerAnsweredBy: async () => null,
    settled: async () => {},
    searchKnowledge: (_base: unknown, query: string, mode: string) => {
      record.searches.push({ query, mode });
      const { searchMs, contents = [], fails = false } = options.knowledge!;
      return new Promise((resolve, reject) =>
        setTimeout(() => (fails ? reject(new Error('the search failed')) : resolve(contents.map((content, index) => ({ chunk_id: index + 1, document_id: 1, content, score: 1 / (index + 1) })))), searchMs),
      );
    },
  } as unknown as LiveCall;

  // ------------------------------------------------------------- the caller, the VAD and the STT
  let speechUntil = 0;
  let sttEvents: SttEvents | null = null;
  let sttOptions: SttOptions | null = null;
  const finalizes: number[] = [];
  let pendingFinal: { transcript: Transcript; ignoresFinalize: boolean; timer: NodeJS.Timeout } | null = null;
  /** The STT stream's clock: seconds of audio since the call began (the transport sends it in real time). */
  const openedAt = Date.now();
  const streamSeconds = () => (Date.now() - openedAt) / 1000;
  const vadStalled = () => options.vadStallsAtMs !== undefined && Date.now() - openedAt >= options.vadStallsAtMs;
  const vadLate = () => options.vadLate !== undefined && Date.now() - openedAt >= options.vadLate.fromMs && Date.now() - openedAt < options.vadLate.untilMs;
  const vad: Vad = {
    speech: () =>
      vadStalled()
        ? new Promise((_, reject) => setTimeout(() => reject(new Error('the voice worker did not answer in 1000 ms')), 1000))
        : Promise.resolve(vadLate() ? null : Date.now() < speechUntil ? 0.95 : 0.02),
    close: () => {},
  };
  const stt: SttService = {
    vendor: 'scripted',
    open: (opened, events) => {
      sttEvents = events;
      sttOptions = opened;
      if (options.sttRefusesAfterMs !== undefined) setTimeout(() => events.failed(new ServiceError('stt', 'refused', 'Deepgram refused the stream: HTTP 401')), options.sttRefusesAfterMs);
      return {
        send: () => {},
        finalize: () => {
          finalizes.push(Date.now());
          const pending = pendingFinal;
          if (pending?.ignoresFinalize) return;
          // Deepgram answers Finalize with the final words of what it heard (none: an empty final).
          setTimeout(() => {
            if (pending && pendingFinal === pending) {
              clearTimeout(pending.timer);
              pendingFinal = null;
              events.transcript({ ...pending.transcript, fromFinalize: true, speechFinal: false });
            } else if (!pending) {
              events.transcript({ text: '', isFinal: true, speechFinal: false, fromFinalize: true, start: streamSeconds(), duration: 0 });
            }
          }, 50);
        },
        close: async () => ({ seconds: streamSeconds() }),
      };
    },
  };
  const caller = {
    /** `ms` of speech saying `text`. Resolves when the speech is over (the final may come later). */
    async says(text: string, ms: number, line: CallerLine = {}): Promise<void> {
      const start = streamSeconds();
      speechUntil = Date.now() + ms;
      const words = text.split(' ');
      setTimeout(() => {
        const interim = words.slice(0, Math.ceil(words.length / 2)).join(' ');
        sttEvents?.transcript({ text: interim, isFinal: false, speechFinal: false, fromFinalize: false, start, duration: ms / 2000 });
      }, ms / 2);
      await advance(ms);
      const transcript: Transcript = { text, isFinal: true, speechFinal: line.endsTurn ?? true, fromFinalize: false, start, duration: ms / 1000 };
      const timer = setTimeout(() => {
        if (pendingFinal?.transcript !== transcript) return;
        pendingFinal = null;
        sttEvents?.transcript(transcript);
      }, line.finalAfterMs ?? 300);
      pendingFinal = { transcript, ignoresFinalize: line.ignoresFinalize ?? false, timer };
    },
    /** A sound with no words (a cough, a door): `ms` the VAD hears as speech. */
    async noise(ms: number): Promise<void> {
      speechUntil = Date.now() + ms;
      await advance(ms);
    },
  };

  // ------------------------------------------------------------- the model
  const requests: LlmRequest[] = [];
  const replies: ScriptedReply[] = [];
  const llm: LlmService = {
    complete: (request, signal) => {
      requests.push(structuredClone(request));
      const reply = replies.shift() ?? { text: 'Certo.' };
      return (async function* (): AsyncGenerator<LlmChunk> {
        const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
        await wait(reply.firstTokenMs ?? 200);
        if (reply.fails) throw new ServiceError('llm', 'dropped', 'the scripted model failed');
        const pieces = (reply.text ?? '').match(/\S+\s*/g) ?? [];
        for (const [index, piece] of pieces.entries()) {
          if (signal.aborted) return;
          if (index > 0) await wait(reply.chunkMs ?? 30);
          if (signal.aborted) return;
          yield { type: 'text', text: piece };
        }
        for (const [index, call] of (reply.toolCalls ?? []).entries()) {
          yield { type: 'tool_call', call: { id: `call_${requests.length}_${index}`, type: 'function', function: { name: call.name, arguments: call.arguments ?? '{}' } } };
        }
      })();
    },
  };

  // ------------------------------------------------------------- TTS
  /** What the call's own session was given; the apology kept for a dead TTS is made on a session of its own (pipeline/apology.ts). */
  const spoken: string[] = [];
  let ttsFails = false;
  let sessions = 0;
  const tts: TtsService = {
    vendor: 'scripted',
    open: () => {
      const session = ++sessions;
      return {
        characters: 0,
        close: () => {},
        utterance: (events: TtsEvents) => {
          let cancelled = false;
          let ended = false;
          let pending = 0;
          const timers = new Set<NodeJS.Timeout>();
          const maybeDone = () => {
            if (ended && pending === 0 && !cancelled) events.done();
          };
          return {
            push: (text: string) => {
              if (session === 1) spoken.push(text);
              pending++;
              const timer = setTimeout(() => {
                timers.delete(timer);
                pending--;
                if (cancelled) return;
                if (ttsFails) return events.failed(new ServiceError('tts', 'dropped', 'the scripted voice failed'));
                events.audio(new Int16Array((text.length * MS_PER_CHAR * 8000) / 1000).fill(1000));
                maybeDone();
              }, ttsFirstByteMs);
              timers.add(timer);
            },
            end: () => {
              ended = true;
              maybeDone();
            },
            cancel: () => {
              cancelled = true;
              for (const timer of timers) clearTimeout(timer);
            },
          };
        },
      };
    },
  };

  // ------------------------------------------------------------- the transport
  /** What the engine sent: its length, every frame, and the clears (an interruption). */
  const media = { sentMs: 0, clears: 0, frames: [] as Int16Array[] };
  const marks = new Map<string, NodeJS.Timeout>();
  let engine: PipelineEngine;
  const out = {
    rate: 8000 as const,
    media: (pcm: Int16Array) => {
      media.sentMs += (pcm.length * 1000) / 8000;
      media.frames.push(pcm.slice());
    },
    mark: (name: string) => {
      marks.set(
        name,
        setTimeout(() => {
          marks.delete(name);
          engine.played(name);
        }, playoutMs),
      );
    },
    clear: () => {
      media.clears++;
      for (const timer of marks.values()) clearTimeout(timer);
      marks.clear();
    },
  };

  // ------------------------------------------------------------- tools
  const tools = (options.tools ?? []).map((tool, index) => {
    const { name, speak_during } = typeof tool === 'string' ? { name: tool, speak_during: null } : tool;
    return { id: index + 1, name, description: `The ${name} tool`, schema: [], speak_during } as unknown as Tool;
  });

  const setup: EngineSetup = {
    assistant,
    voice: 'scripted',
    voiceProvider: null,
    providerVoiceId: null,
    modelProvider: 'openai',
    modelParams: modelParams(null),
    fallbackModels: [],
    fallbackVoice: null,
    language: 'pt',
    tools,
    variables: { ...assistant.variables, ...options.variables },
    outbound: options.outbound ?? false,
    phoneLine: options.phoneLine ?? true,
    resumed: null,
    knowledgeBase: options.knowledge ? { id: 1, language: 'portuguese', mode: options.knowledge.mode ?? 'prompt' } : null,
  };
  const logger = { info: () => {}, debug: () => {}, warn: () => {}, error: (message: string) => record.errors.push(message) };
  engine = new PipelineEngine(
    { logger, telemetry: undefined, config: {} as never, secrets: {} as never } as never,
    live,
    setup,
    { stt, sttLanguage: 'pt-BR', llm, model: 'scripted', tts, voiceId: null },
    { vad, denoiser: null, ambience: null },
    out,
  );
  const frames = setInterval(() => engine.audio((options.outbound && Date.now() < speechUntil ? VOICE : SILENCE).slice()), FRAME_MS);

  return {
    engine,
    /** When the call began (virtual ms since the epoch). */
    startedAt: openedAt,
    record,
    caller,
    /** The model's next answers, in order. */
    llm: { reply: (...answers: ScriptedReply[]) => replies.push(...answers), requests },
    /** What TTS was given, in order. */
    spoken,
    /** What the engine opened the STT stream with. */
    sttOptions: () => sttOptions!,
    media,
    finalizes,
    ttsFails: () => (ttsFails = true),
    /** The assistant's and the caller's turns as recorded. */
    turns: () => record.turns.map((turn) => `${turn.speaker}: ${turn.text}`),
    async end(): Promise<void> {
      clearInterval(frames);
      const ended = engine.end('customer');
      await advance(100);
      await ended;
    },
  };
}
