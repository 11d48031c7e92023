import type { EntityManager } from '@mikro-orm/postgresql';
import { Assistant } from '../modules/assistants/assistant.entity';
import type { Call } from '../modules/calls/call.entity';
import { Tool } from '../modules/tools/tool.entity';

/** What an engine needs to run a call: its assistant (with its voice), tools, language and variables. */
export interface EngineSetup {
  assistant: Assistant;
  /** The voice's name (for the Realtime engine, the model's voice). */
  voice: string;
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
  const [language] = await em.execute('select iso_2 from languages where name = ?', [assistant.language]);
  return { assistant, voice: assistant.voice.name, language: language?.iso_2 ?? null, tools, variables: { ...assistant.variables, ...call.input_variables } };
}
