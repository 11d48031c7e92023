import type { EntityManager } from '@mikro-orm/postgresql';
import { Assistant } from '../modules/assistants/assistant.entity';
import { modelParams, type ModelParams } from '../modules/catalog/model.params';
import type { Call } from '../modules/calls/call.entity';
import { Tool } from '../modules/tools/tool.entity';

/** What an engine needs to run a call: its assistant (with its voice), tools, language and variables. */
export interface EngineSetup {
  assistant: Assistant;
  /** The voice's name (for the Realtime engine, the model's voice). */
  voice: string;
  /** The voice's TTS vendor and its id there (pipeline voices); null: the first configured vendor's default voice. */
  voiceProvider: string | null;
  providerVoiceId: string | null;
  /** The provider of the assistant's model in the catalogue (which endpoint serves it). */
  modelProvider: string | null;
  /** What a request to the assistant's model carries (the catalogue's; the default for a model it does not list). */
  modelParams: ModelParams;
  /** ISO 639-1 of the assistant's language. */
  language: string | null;
  tools: Tool[];
  /** The call's variables over the assistant's. */
  variables: Record<string, unknown>;
}

export async function engineSetup(em: EntityManager, call: Pick<Call, 'assistant_id' | 'input_variables'>): Promise<EngineSetup | null> {
  const assistant = call.assistant_id ? await em.findOne(Assistant, { id: call.assistant_id }, { populate: ['voice'] }) : null;
  if (!assistant) return null;
  const links: { tool_id: number }[] = await em.execute('select tool_id from assistant_tools where assistant_id = ?', [assistant.id]);
  const tools = links.length ? await em.find(Tool, { id: { $in: links.map((link) => link.tool_id) } }, { orderBy: { id: 'asc' } }) : [];
  const [catalogue] = await em.execute(
    'select (select iso_2 from languages where name = ?) as language, (select provider from models where name = ?) as provider, (select params from models where name = ?) as params',
    [assistant.language, assistant.llm_model, assistant.llm_model],
  );
  return {
    assistant,
    voice: assistant.voice.name,
    voiceProvider: assistant.voice.provider,
    providerVoiceId: assistant.voice.provider_voice_id,
    modelProvider: catalogue.provider ?? null,
    modelParams: modelParams(catalogue.params),
    language: catalogue.language ?? null,
    tools,
    variables: { ...assistant.variables, ...call.input_variables },
  };
}

/** The end-call tool's function name: user tools are lowercase, so it is never theirs. */
export const END_CALL_FUNCTION = 'endCall';
const DEFAULT_END_CALL = 'End the call when the conversation has reached its end, or the customer asks to hang up.';

/** A function the model may call: its name, what it is for, and its JSON-schema parameters. */
export interface CallFunction {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** `{{name}}` placeholders filled from the variables; an unknown one is left empty. */
export function fillVariables(text: string, variables: Record<string, unknown>): string {
  return text.replace(/\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g, (_, name: string) => {
    const value = variables[name];
    return value === undefined || value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  });
}

/** A mid-call tool as a function the model may call (every parameter required). */
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

/** The end-call tool, described by the assistant's `end_call_tool.description`. */
export function endCallFunction(assistant: Pick<Assistant, 'end_call_tool_description'>): CallFunction {
  return {
    name: END_CALL_FUNCTION,
    description: assistant.end_call_tool_description || DEFAULT_END_CALL,
    parameters: { type: 'object', properties: {}, required: [] },
  };
}

/** Every function of the call: the assistant's tools, then the end-call tool. */
export function callFunctions(setup: Pick<EngineSetup, 'assistant' | 'tools'>): CallFunction[] {
  return [...setup.tools.map(toolFunction), endCallFunction(setup.assistant)];
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
