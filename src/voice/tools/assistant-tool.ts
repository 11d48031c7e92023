import { runTool } from '../../modules/calls/call.tools';
import type { Tool } from '../../modules/tools/tool.entity';
import type { CallFunction, FunctionContext } from './function';

/** A mid-call tool of the assistant as a function the model may call (every parameter required). */
export function toolFunction(tool: Pick<Tool, 'name' | 'description' | 'schema'>): CallFunction {
  return {
    name: tool.name,
    description: tool.description,
    parameters: {
      type: 'object',
      properties: Object.fromEntries(tool.schema.map((item) => [item.name, { type: item.type, description: item.description }])),
      required: tool.schema.map((item) => item.name),
    },
  };
}

/**
 * The arguments a model gave a tool, kept to the tool's own parameters; arguments that are
 * not a JSON object give none.
 */
export function toolArguments(tool: Pick<Tool, 'schema'>, args: string): Record<string, unknown> {
  let given: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(args);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) given = parsed;
  } catch {
    // not JSON: the tool gets no arguments
  }
  return Object.fromEntries(tool.schema.filter((item) => item.name in given).map((item) => [item.name, given[item.name]]));
}

/** Runs one of the assistant's tools for the model: its record is kept on the call, and the model gets its answer or its error. */
export async function runAssistantTool(tool: Tool, args: string, { deps, call }: FunctionContext): Promise<string> {
  const parameters = toolArguments(tool, args);
  const record = deps.toolStandIn?.(tool, parameters) ?? (await runTool(deps, call.id, tool, parameters));
  call.toolCall(record);
  return JSON.stringify(record.error ? { error: record.error } : { status: record.status, response: record.response });
}
