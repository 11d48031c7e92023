import type { Tool } from '../../modules/tools/tool.entity';
import { runAssistantTool, toolFunction } from './assistant-tool';
import { endCall } from './end-call';
import { pressDigits } from './press-digits';
import type { BuiltInFunction, CallFunction, FunctionContext, FunctionSetup } from './function';
import { searchKnowledgeBase } from './search-knowledge-base';
import { transferCall } from './transfer-call';

export type { CallActions, CallFunction, FunctionCall, FunctionContext } from './function';
export { toolArguments, toolFunction } from './assistant-tool';

/** The built-in functions, offered after the assistant's tools (one file each; the next act is one more line). */
const BUILT_IN: readonly BuiltInFunction[] = [endCall, transferCall, pressDigits, searchKnowledgeBase];

type CallTools = FunctionSetup & { tools: Tool[] };

/** The built-in functions this call offers, as the model sees them (a web call has no number to transfer to nor menu to press keys in). */
const builtIns = (setup: FunctionSetup) =>
  BUILT_IN.flatMap((fn) => {
    const offered = fn.offer(setup);
    return offered ? [{ fn, offered }] : [];
  });

/**
 * Every function of a call: the assistant's tools, then the built-in ones the call offers. A
 * tool named like one of those (`transfer_call`, `press_digits` are snake case, as tools'
 * names are) is not offered: the built-in takes precedence, as the model may be given each
 * name once.
 */
export function callFunctions(setup: CallTools): CallFunction[] {
  const builtIn = builtIns(setup);
  const tools = setup.tools.filter((tool) => !builtIn.some(({ fn }) => fn.name === tool.name));
  return [...tools.map(toolFunction), ...builtIn.map(({ offered }) => offered)];
}

/** The end-call function as the model sees it on this assistant's calls (the engine API gives it apart). */
export const endCallFunction = (assistant: FunctionSetup['assistant']): CallFunction => endCall.offer({ assistant, phoneLine: true, knowledgeBase: null })!;

/** What is said while the function `name` runs long: its tool's `speak_during` (none for a built-in). */
export function speakDuring(setup: CallTools, name: string): string | null {
  if (builtIns(setup).some(({ fn }) => fn.name === name)) return null;
  return setup.tools.find((candidate) => candidate.name === name)?.speak_during ?? null;
}

/**
 * Runs a function the model called, by its name; answers its output (JSON text). Never
 * rejects: a function that throws (a tool the server cannot call, its record not kept) is
 * answered as a tool error so that the model's turn goes on, and logged; the error's text
 * stays in the log, as it may name the server's internals.
 */
export async function runFunction(setup: CallTools, name: string, args: string, context: FunctionContext): Promise<string> {
  const builtIn = builtIns(setup).find(({ fn }) => fn.name === name)?.fn;
  const tool = builtIn ? null : setup.tools.find((candidate) => candidate.name === name);
  if (!builtIn && !tool) return JSON.stringify({ error: 'unknown tool' });
  try {
    return builtIn ? await builtIn.run(args, { ...context, setup }) : await runAssistantTool(tool!, args, context);
  } catch (error) {
    context.deps.logger.error('voice: a tool run failed', error, { call_id: context.call.id, tool: name, ...(tool ? { tool_id: tool.id } : {}) });
    return JSON.stringify({ error: 'the tool could not be run' });
  }
}
