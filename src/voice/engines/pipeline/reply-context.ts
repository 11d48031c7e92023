import type { CallUsage } from '../../../modules/calls/call.entity';
import type { LlmService, ServiceError, TtsSession } from '../../services/service';
import type { CallFunction } from '../../tools';
import type { Conversation } from './context';
import type { Speaker } from './speaker';
import type { Pronunciation } from './speech-text';

/** What a reply (`R`: reply.ts's Reply, which names this ReplyContext) needs of its call. */
export interface ReplyContextOf<R> {
  readonly llm: { service: LlmService; model: string; temperature: number };
  readonly tts: TtsSession;
  readonly speaker: Speaker;
  readonly conversation: Conversation;
  readonly systemPrompt: string;
  /** How text is said (speech-text.ts): the call's language (ISO 639-1) and the assistant's `pronunciations`. */
  readonly speech: { language: string | null; pronunciations: readonly Pronunciation[] };
  /** What the vendors report the call used (the model's tokens are added here). */
  readonly usage: CallUsage;
  /**
   * `prompt` mode: the assistant's knowledge base searched for the caller's words, its best
   * chunks as a note for the model (null: nothing found); rejects when the search fails. Null
   * when the assistant has no knowledge base in that mode.
   */
  readonly lookup: ((callerText: string) => Promise<string | null>) | null;
  /** The functions offered to the model (none once the call is ending). */
  functions(): CallFunction[];
  /** Runs a function the model called; never rejects. */
  runFunction(name: string, args: string): Promise<string>;
  /** Tool runs in progress: the call's end waits for their records. */
  track(run: Promise<unknown>): void;
  /**
   * Whether a function the model called ends the call (it hung up, or transferred it), and what
   * the model is then asked to say if its answer had no words (null: nothing; the engine says
   * the assistant's own line).
   */
  ending(): { instructions: string | null } | null;
  /** `filler_audios`: the filler's audio, or null when the assistant has none. */
  readonly filler: (() => Promise<Int16Array | null>) | null;
  /** The `speak_during` of the tool a function of `functions()` runs (null: none). */
  speakDuring(name: string): string | null;
  /** What the assistant is saying so far, for a transport that shows it. */
  showWords(text: string): void;
  /** A vendor failed (the engine apologises and hangs up). */
  failed(error: ServiceError): void;
  /** A bug, not a vendor: logged. */
  logError(message: string, error: unknown): void;
  /** The reply is over: written and heard to its end, or cut (`cut`). */
  finished(reply: R, cut: boolean): void;
}
