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

/** Opens an attempt's session; throws AttemptFailure when the assistant cannot be run here. */
export interface TestBrain {
  open(accountId: number, assistantId: number, variables: Record<string, unknown>): Promise<AssistantSession>;
}

/** Why an attempt could not be run to its verdict (a model failed, none configured): the attempt's `error`, safe to show. */
export class AttemptFailure extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'AttemptFailure';
  }
}
