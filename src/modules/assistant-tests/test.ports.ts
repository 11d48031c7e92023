import type { ChatMessage, ToolMock } from './test.rules';

/** Tokens an attempt's models used, by who asked: the assistant, the simulated caller, the judge. */
export interface TestUsage {
  llm_input_tokens: number;
  llm_output_tokens: number;
  caller_input_tokens: number;
  caller_output_tokens: number;
  judge_input_tokens: number;
  judge_output_tokens: number;
}

export const NO_USAGE: TestUsage = {
  llm_input_tokens: 0,
  llm_output_tokens: 0,
  caller_input_tokens: 0,
  caller_output_tokens: 0,
  judge_input_tokens: 0,
  judge_output_tokens: 0,
};

export interface TokenCount {
  input: number;
  output: number;
}

/** A function the assistant called in a test: its name as tests say it (`end_call`), its arguments, and whether a mock answered it. */
export interface TestToolCall {
  name: string;
  arguments: Record<string, unknown>;
  mocked: boolean;
}

/** One answer of the assistant: its words, the functions it called, whether it ended the call. */
export interface AssistantTurn {
  text: string;
  toolCalls: TestToolCall[];
  ended: boolean;
  tokens: TokenCount;
}

export interface ReplyOptions {
  /** These tools answer with their mock instead of their HTTP call. */
  mocks: readonly ToolMock[];
  /** The assistant may end the call (`end_call` is offered, as on a call). */
  endCall: boolean;
  /** The reply stops at its first round that calls functions, none of them run (a tool_call test asks what is called, not what it does). */
  stopAtToolCalls: boolean;
}

/**
 * One attempt's assistant, as a real conversation has it (src/chat/ implements it with the
 * conversations' own text loop): its prompt, variables, tools, knowledge base and models; and
 * the simulated caller's and the judge's models, through the same providers.
 */
export interface AssistantSession {
  /** The assistant's language, as its settings name it (Portuguese); the simulated caller speaks it. */
  language: string;
  /** What the assistant says first when it speaks first (variables filled); null when the caller does. */
  greeting: string | null;
  /** The assistant's answer to the last user message of `history`. */
  reply(history: readonly ChatMessage[], options: ReplyOptions): Promise<AssistantTurn>;
  /** The simulated caller's next words (its instructions, then the conversation from its side). */
  caller(system: string, history: readonly ChatMessage[]): Promise<{ text: string; tokens: TokenCount }>;
  /** The judge's answer, asked with `response_format` JSON schema `schema`: its text, as the model wrote it. */
  judge(system: string, user: string, schema: { name: string; schema: Record<string, unknown> }): Promise<{ text: string; tokens: TokenCount }>;
}

/**
 * A voice simulation's call: the assistant on the pipeline engine that takes real calls, and a
 * line into it that carries the simulated caller's words as speech (src/voice/simulation/
 * implements it). What it records is the call's own record: the caller's turns as the STT heard
 * them, the assistant's as the caller heard them.
 */
export interface VoiceLine {
  /** The call's turns so far (the caller's are `user`). */
  readonly transcript: readonly ChatMessage[];
  /** Per answer of the assistant to the caller, in order: ms from the end of the caller's speech to the assistant's first audio back. */
  readonly latencies: readonly number[];
  readonly toolCalls: readonly TestToolCall[];
  /** The call is over: the assistant hung up (end_call), or a vendor failed (`failure`). */
  readonly ended: boolean;
  /** Why the engine could not go on (a vendor's failure, in the server's words); null when it did not fail. */
  readonly failure: string | null;
  /** Resolves once the assistant has had its say (its opening, or its answer to the caller's last words), or the call ended. */
  listen(): Promise<void>;
  /** Speaks the caller's words into the call; resolves once their audio has gone. */
  say(text: string): Promise<void>;
  /** The caller hangs up; resolves once the engine has stopped, with the tokens the assistant's model used. */
  hangUp(): Promise<TokenCount>;
}

export interface VoiceSimulator {
  /** Connects a simulated caller to the assistant; throws AttemptFailure when its voice cannot run here (multimodal, vendors missing). */
  call(accountId: number, assistantId: number, variables: Record<string, unknown>, mocks: readonly ToolMock[]): Promise<VoiceLine>;
}

/** Opens an attempt's session; throws AttemptFailure when the assistant cannot be run here. */
export interface TestBrain {
  open(accountId: number, assistantId: number, variables: Record<string, unknown>): Promise<AssistantSession>;
  /** Voice simulations' calls; without it they are an error (VOICE_UNAVAILABLE). */
  readonly voice?: VoiceSimulator;
}

/** Why an attempt could not be run to its verdict (a model failed, none configured): the attempt's `error`, safe to show. */
export class AttemptFailure extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'AttemptFailure';
  }
}
