import type { EntityManager } from '@mikro-orm/postgresql';
import { selectPrepared } from '../db/prepared';
import { Assistant } from '../modules/assistants/assistant.entity';
import { modelParams, type ModelParams } from '../modules/catalog/model.params';
import type { Call } from '../modules/calls/call.entity';
import { transcriptText } from '../modules/calls/call.conversation';
import { turnsOfCall } from '../modules/calls/call.turns';
import { Tool } from '../modules/tools/tool.entity';
import { WEB_PROVIDER } from '../modules/calls/call.web-provider';
import type { CallKnowledgeBase } from './assistant-search';

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
  /** The assistant's `fallback_models` still in the catalogue, in order, with their providers and params. */
  fallbackModels: { name: string; provider: string | null; params: ModelParams }[];
  /** The assistant's `fallback_voice_id`: its TTS vendor and its id there; null when unset (or deleted). */
  fallbackVoice: { provider: string; providerVoiceId: string | null } | null;
  /** ISO 639-1 of the assistant's language. */
  language: string | null;
  tools: Tool[];
  /** The call's variables over the assistant's. */
  variables: Record<string, unknown>;
  /** The call is on a phone line, not a web call's socket: it can be transferred, and dial a menu. */
  phoneLine: boolean;
  /**
   * The assistant comes back to a call it tried to transfer warm, and nobody answered: the
   * conversation so far (the engine greets no one, and tells the caller).
   */
  resumed: { transcript: string } | null;
  /** An outbound call: its first seconds screen for answering machines (src/voice/amd/). */
  outbound: boolean;
  /** The assistant's knowledge base (of its account) and its `knowledgebase_mode`; null: none, or deleted. */
  knowledgeBase: CallKnowledgeBase | null;
}

export async function engineSetup(em: EntityManager, call: Pick<Call, 'id' | 'assistant_id' | 'input_variables' | 'provider' | 'type'>, resumed = false): Promise<EngineSetup | null> {
  const assistant = call.assistant_id ? await em.findOne(Assistant, { id: call.assistant_id }, { populate: ['voice'] }) : null;
  if (!assistant) return null;
  const links: { tool_id: number }[] = await em.execute('select tool_id from assistant_tools where assistant_id = ?', [assistant.id]);
  const tools = links.length ? await em.find(Tool, { id: { $in: links.map((link) => link.tool_id) } }, { orderBy: { id: 'asc' } }) : [];
  const [catalogue] = await em.execute(
    'select (select iso_2 from languages where name = ?) as language, (select provider from models where name = ?) as provider, (select params from models where name = ?) as params',
    [assistant.language, assistant.llm_model, assistant.llm_model],
  );
  const fallbacks: { name: string; provider: string | null; params: unknown }[] = assistant.fallback_models.length
    ? await em.execute(`select name, provider, params from models where type = 'llm' and name in (select jsonb_array_elements_text(?::jsonb))`, [JSON.stringify(assistant.fallback_models)])
    : [];
  const [knowledgeBase] = assistant.knowledgebase_id
    ? await em.execute<{ id: number; language: string }[]>('select id, language from knowledge_bases where id = ? and account_id = ?', [
        assistant.knowledgebase_id,
        assistant.account.id,
      ])
    : [];
  const [fallbackVoice] = assistant.fallback_voice_id
    ? await em.execute<{ provider: string | null; provider_voice_id: string | null }[]>('select provider, provider_voice_id from voices where id = ?', [assistant.fallback_voice_id])
    : [];
  return {
    assistant,
    voice: assistant.voice.name,
    voiceProvider: assistant.voice.provider,
    providerVoiceId: assistant.voice.provider_voice_id,
    modelProvider: catalogue.provider ?? null,
    modelParams: modelParams(catalogue.params),
    fallbackModels: assistant.fallback_models.flatMap((name) => {
      const model = fallbacks.find((row) => row.name === name);
      return model ? [{ name, provider: model.provider, params: modelParams(model.params) }] : [];
    }),
    fallbackVoice: fallbackVoice?.provider ? { provider: fallbackVoice.provider, providerVoiceId: fallbackVoice.provider_voice_id } : null,
    language: catalogue.language ?? null,
    tools,
    variables: { ...assistant.variables, ...call.input_variables },
    phoneLine: call.provider !== WEB_PROVIDER,
    resumed: resumed ? { transcript: transcriptText((await turnsOfCall(em, call.id)).filter((turn) => turn.speaker !== 'system')) } : null,
    outbound: call.type === 'outbound',
    knowledgeBase: knowledgeBase ? { ...knowledgeBase, mode: assistant.knowledgebase_mode } : null,
  };
}

/**
 * A fingerprint of every row engineSetup reads for the assistant (the assistant, its voices,
 * tools, models, language and knowledge base): equal fingerprints, equal setups but for the
 * call's own fields. Null when there is no such assistant. A change here goes with a change to
 * what engineSetup reads.
 */
export async function setupFingerprint(em: EntityManager, assistantId: number): Promise<string | null> {
  const [row] = await selectPrepared<{ fingerprint: string | null }>(em, FINGERPRINT, [assistantId]);
  return row?.fingerprint ?? null;
}

/**
 * The fingerprint of the assistant whose id is the SQL expression `assistantIdSql`, as an SQL
 * expression (null when there is no such assistant): a statement that reads a row with the
 * assistant's id can select it too.
 *
 * It is the rows' versions, not their contents: each row's `xmin`, the transaction that wrote
 * the version read, which every update of the row replaces (and a row deleted and made again
 * is a new one), with the ids of the rows that come as a set. A conversation's every message
 * reads it: hashing the rows' text (the prompt and all) cost PostgreSQL about as much as the
 * rest of that read. A row saved unchanged gets a new version, and the setup is read once more.
 */
export function setupFingerprintSql(assistantIdSql: string): string {
  // concat, not concat_ws: an absent row leaves its place empty, so no two setups read alike.
  return `(select concat('setup|', a.xmin, '|', v.xmin,
    '|', (select string_agg(concat(t.id, ':', x.xmin, ':', t.xmin), ',' order by t.id) from assistant_tools x join tools t on t.id = x.tool_id where x.assistant_id = a.id),
    '|', (select string_agg(concat(m.name, ':', m.xmin), ',' order by m.name) from models m
          where m.name = a.llm_model or m.name in (select jsonb_array_elements_text(a.fallback_models::jsonb))),
    '|', (select l.xmin from languages l where l.name = a.language),
    '|', (select k.xmin from knowledge_bases k where k.id = a.knowledgebase_id),
    '|', (select f.xmin from voices f where f.id = a.fallback_voice_id))
  from assistants a join voices v on v.id = a.voice_id where a.id = ${assistantIdSql})`;
}

const FINGERPRINT = `select ${setupFingerprintSql('?')} as fingerprint`;

/**
 * The model's instructions on this call: the assistant's prompt with the call's variables and,
 * back on a call whose warm transfer nobody answered, the conversation so far, and that there is
 * no second transfer (`transfer_call` is not offered again: a call is transferred once).
 */
export function callPrompt(setup: Pick<EngineSetup, 'assistant' | 'variables' | 'resumed'>): string {
  const prompt = fillVariables(setup.assistant.system_prompt, setup.variables);
  if (!setup.resumed) return prompt;
  return `${prompt}\n\nThe conversation so far:\n${setup.resumed.transcript}\n\nYou tried to transfer the customer to a person, and nobody answered. The call cannot be transferred again.`;
}

/** What the model is asked to say when it comes back. */
export const TRANSFER_UNANSWERED = 'Tell the customer, in the language of the conversation, that nobody could answer the transfer right now, and offer to help or to take a message.';

/** `{{name}}` placeholders filled from the variables; an unknown one is left empty. */
export function fillVariables(text: string, variables: Record<string, unknown>): string {
  return text.replace(/\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g, (_, name: string) => {
    const value = variables[name];
    return value === undefined || value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  });
}

/**
 * `keyterms` for one call: variables filled, and those left empty (a variable the call does
 * not have) or said twice dropped, so the STT is never asked to listen for nothing.
 */
export function callKeyterms(keyterms: readonly string[], variables: Record<string, unknown>): string[] {
  const filled = keyterms.map((term) => fillVariables(term, variables).replace(/\s+/g, ' ').trim()).filter(Boolean);
  return [...new Set(filled)];
}
