import type { ToolCallRecord } from '../../modules/calls/call.entity';
import type { ToolDeps } from '../../modules/calls/call.tools';
import type { Tool } from '../../modules/tools/tool.entity';
import type { Logger } from '../../log';
import type { CallKnowledgeBase } from '../assistant-search';
import type { LiveCall } from '../live-call';

/** A function the model may call: its name, what it is for, and its JSON-schema parameters. */
export interface CallFunction {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/**
 * What a built-in function may do to the call. Each engine implements it its own way (the
 * pipeline says goodbye through its TTS; the Realtime engine asks its session for one).
 */
export interface CallActions {
  /** The model asked to end the call: the goodbye is said, and the call is hung up once it is heard. */
  endCall(): void;
  /**
   * Plays the DTMF tone pairs of `keys` (each valid by codecs/dtmf.ts DTMF_KEY) in-band, after
   * what the assistant has said so far. Resolves true once they were played to the caller, false
   * when the caller interrupted them or the call ended first.
   */
  pressDigits(keys: string): Promise<boolean>;
  /**
   * The model transferred the call (its number reserved: `LiveCall.reserveTransfer`): the
   * assistant's `transfer_message` (or a line of the model's) is said, and the call is handed
   * over once it is heard.
   */
  transfer(): void;
}

/**
 * What the functions write to and search through: a live call's (a chat reply keeps the
 * same records of its own, src/chat/).
 */
export type FunctionCall = Pick<LiveCall, 'id' | 'toolCall' | 'searchKnowledge' | 'reserveTransfer'>;

/**
 * What answers one of the assistant's tools instead of its HTTP call (an assistant test's mock,
 * src/voice/simulation/): the call's record of it, or null to call the tool.
 */
export type ToolStandIn = (tool: Tool, parameters: Record<string, unknown>) => ToolCallRecord | null;

/** What a function of the call runs with. */
export interface FunctionContext {
  /** `toolStandIn`: present on the deps a call's engine was given, it answers the tools it stands in for. */
  deps: ToolDeps & { logger: Logger; toolStandIn?: ToolStandIn };
  call: FunctionCall;
  actions: CallActions;
}

/**
 * A function the engines offer the model on every call of a voice assistant, besides the
 * assistant's own tools: its name, how it is offered, and what it does (one file each in
 * src/voice/tools/).
 */
export interface BuiltInFunction {
  readonly name: string;
  /** The function as the model sees it on this call (its description may be the assistant's); null: not offered on it. */
  offer(setup: FunctionSetup): CallFunction | null;
  /** Does it; answers the output the model is given (JSON text). */
  run(args: string, context: FunctionContext & { setup: FunctionSetup }): Promise<string> | string;
}

/** The parts of a call's setup the functions are offered by. */
export type FunctionSetup = {
  assistant: { end_call_tool_description: string | null; transfer_numbers: readonly { number: string; description: string }[] };
  /** The call is on a phone line (a web call has no number to hand over nor menu to navigate). */
  phoneLine: boolean;
  /** The assistant's knowledge base and how it is used on the call; null: none. */
  knowledgeBase: CallKnowledgeBase | null;
  /** The assistant is back from a warm transfer nobody answered (engine.setup.ts): the call is not transferred again. */
  resumed?: object | null;
};
