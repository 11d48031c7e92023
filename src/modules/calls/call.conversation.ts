import { createHash } from 'node:crypto';
import type { Assistant, PostCallSchemaItem } from '../assistants/assistant.entity';
import type { CallStatus, ToolCallRecord } from './call.entity';

export interface Turn {
  speaker: 'assistant' | 'customer' | 'system';
  text: string;
  /**
   * Milliseconds from the call's answer (the start of its recording) to when the turn began:
   * a caller's when they began to speak, an answer when its first audio was sent. Absent in
   * turns recorded before turns had times.
   */
  at_ms?: number;
  /** How long the turn lasted, where known (the simulator's, which its recording plays). */
  duration_ms?: number;
  /** An answer of the pipeline engine: when each step of it came (design.md, "The pipeline engine"). */
  latency?: TurnLatency;
  /** The knowledge-base searches the turn was answered with (design.md, "Knowledge bases"). */
  retrievals?: TurnRetrieval[];
}

/**
 * One search of the assistant's knowledge base during a call: what was asked (the model's
 * `search_knowledge_base` query, or in `prompt` mode the caller's turn), and the chunks found,
 * best first, with their scores.
 */
export interface TurnRetrieval {
  knowledgebase_id: number;
  mode: 'function_call' | 'prompt';
  query: string;
  chunks: { chunk_id: number; document_id: number; score: number }[];
}

/**
 * Milliseconds after the caller's end of speech (the VAD's) at which the steps of the
 * assistant's answer came: the STT's final words, the model's first token, TTS's first audio,
 * and the first audio sent to the caller (voice to voice, endpointing included). Null where a
 * step did not happen (a turn the STT ended, a reply cut before it spoke).
 */
export interface TurnLatency {
  stt_final_ms: number | null;
  llm_first_token_ms: number | null;
  tts_first_byte_ms: number | null;
  first_audio_ms: number | null;
}

const SPEAKER: Record<Turn['speaker'], string> = { assistant: 'Assistente', customer: 'Cliente', system: 'Sistema' };

export function transcriptText(turns: Turn[]): string {
  return turns.map((turn) => `${SPEAKER[turn.speaker]}: ${turn.text}`).join('\n');
}

/** How long saying a text takes, about (some 14 characters a second), for the simulator's turns and its recording. */
export function spokenMs(text: string): number {
  return Math.min(8000, Math.max(800, [...text].length * 70));
}

/** The simulator's first words come this long after the answer ("Alô?", or the assistant's greeting). */
const FIRST_WORDS_MS = 600;
/** The quiet left at the end of a simulated call, after its last turn. */
const LAST_QUIET_MS = 1000;

/**
 * The turns of a simulated call of `durationMs`, with when each began and how long it lasted:
 * the sides speak for as long as their words take, one after the other, with the pauses spread
 * over the call. A call cut short (max_call_duration) has its turns squeezed into it. System
 * turns (a tool's request, the end-call tool) take no time.
 */
export function timedTurns(turns: Turn[], durationMs: number): Turn[] {
  const lengths = turns.map((turn) => (turn.speaker === 'system' ? 0 : spokenMs(turn.text)));
  const speaking = lengths.reduce((sum, ms) => sum + ms, 0);
  const room = Math.max(0, durationMs - FIRST_WORDS_MS - LAST_QUIET_MS);
  const squeeze = speaking > room ? room / speaking : 1;
  const pause = turns.length > 1 && speaking < room ? (room - speaking) / (turns.length - 1) : 0;
  let at = Math.min(FIRST_WORDS_MS, durationMs);
  return turns.map((turn, index) => {
    const length = Math.floor(lengths[index] * squeeze);
    const timed = { ...turn, at_ms: Math.round(at), duration_ms: length };
    at += length + (turn.speaker === 'system' ? 0 : pause);
    return timed;
  });
}

/** A number in [0, 1) that depends only on the inputs, so a call always plays out the same way. */
export function seeded(...parts: (string | number)[]): number {
  return createHash('sha256').update(parts.join('|')).digest().readUInt32BE(0) / 2 ** 32;
}

function firstSentence(text: string): string {
  const sentence = text.split(/(?<=[.!?])\s/)[0]?.trim() ?? '';
  return sentence.length > 160 ? `${sentence.slice(0, 157)}...` : sentence;
}

/**
 * The conversation of a simulated call answered by a person: the assistant's initial
 * message, turns that follow its system prompt, the order given by `who_speaks_first`, and
 * a closing that matches how the call ends.
 */
export function simulatedConversation(
  assistant: Pick<Assistant, 'initial_message' | 'system_prompt' | 'who_speaks_first' | 'end_call_tool_description'>,
  input: Record<string, unknown>,
  ending: CallStatus,
  toolCalls: ToolCallRecord[] = [],
): Turn[] {
  const name = typeof input.customer_name === 'string' && input.customer_name.trim() ? input.customer_name.trim() : null;
  const turns: Turn[] = [];
  if (assistant.who_speaks_first === 'Customer') turns.push({ speaker: 'customer', text: 'Alô?' });
  turns.push({ speaker: 'assistant', text: assistant.initial_message });
  turns.push({ speaker: 'customer', text: name ? `Sim, é ${name}. Pode falar.` : 'Oi, pode falar.' });
  const goal = firstSentence(assistant.system_prompt);
  turns.push({ speaker: 'assistant', text: goal ? `Certo! ${goal}` : 'Certo! Em que posso ajudar?' });
  turns.push({ speaker: 'customer', text: 'Entendi, me conte mais.' });
  for (const call of toolCalls) {
    turns.push({ speaker: 'assistant', text: `Um momento, vou consultar (${call.name}).` });
    turns.push({ speaker: 'system', text: describeToolCall(call) });
  }
  turns.push({ speaker: 'assistant', text: 'Claro. Vou registrar as informações desta conversa.' });
  if (ending === 'ended_by_customer') {
    turns.push({ speaker: 'customer', text: 'Agora não posso, tchau.' });
  } else if (ending === 'ended_by_assistant') {
    turns.push({ speaker: 'assistant', text: 'Obrigado pelo seu tempo. Vou encerrar a ligação agora.' });
    turns.push({ speaker: 'system', text: `end_call: ${assistant.end_call_tool_description ?? 'conversa concluída'}` });
  } else {
    turns.push({ speaker: 'customer', text: 'Perfeito, obrigado.' });
    turns.push({ speaker: 'assistant', text: 'Eu que agradeço. Tenha um ótimo dia!' });
  }
  return turns;
}

function describeToolCall(call: ToolCallRecord): string {
  const request = `ferramenta ${call.name}: ${call.method} ${call.url} ${JSON.stringify(call.parameters)}`;
  if (call.error) return `${request} -> falhou após ${call.latency_ms} ms (${call.error})`;
  const body = call.response === null ? '' : `: ${call.response.length > 300 ? `${call.response.slice(0, 300)}...` : call.response}`;
  return `${request} -> HTTP ${call.status} em ${call.latency_ms} ms${body}`;
}

/**
 * A value of the given type: the given one when it converts, else one made up for the call
 * (`roll` in [0, 1) keeps it the same every time).
 */
export function typedValue(type: 'string' | 'number' | 'bool' | 'boolean', given: unknown, roll: number, fallbackText: string): unknown {
  if (type === 'number') {
    const number = typeof given === 'number' ? given : typeof given === 'string' && given.trim() !== '' ? Number(given) : NaN;
    return Number.isFinite(number) ? number : Math.round(roll * 100);
  }
  if (type === 'bool' || type === 'boolean') {
    return typeof given === 'boolean' ? given : given === 'true' ? true : given === 'false' ? false : roll >= 0.5;
  }
  return given !== undefined && given !== null ? String(given) : fallbackText;
}

/**
 * Post-call extraction: each item of the post-call schema takes the call's input variable of
 * the same name (converted to the item's type), or else a value of that type.
 */
export function extractVariables(callId: number, schema: PostCallSchemaItem[], input: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const item of schema) {
    result[item.name] = typedValue(item.type, input[item.name], seeded(callId, item.name), item.description.slice(0, 255));
  }
  return result;
}

/** The post-call evaluation: sentiment, outcome and a score from 0 to 10. */
export function evaluate(callId: number, status: CallStatus, durationSeconds: number): { sentiment: string; outcome: string; score: number } {
  const roll = seeded(callId, 'evaluation');
  if (status === 'completed') {
    return { sentiment: roll < 0.7 ? 'positive' : 'neutral', outcome: 'successful', score: Math.round((7 + roll * 3) * 10) / 10 };
  }
  if (status === 'ended_by_customer') return { sentiment: 'negative', outcome: 'customer_hung_up', score: Math.round((2 + roll * 3) * 10) / 10 };
  if (status === 'ended_by_assistant') return { sentiment: 'neutral', outcome: 'ended_by_assistant', score: Math.round((5 + roll * 3) * 10) / 10 };
  return { sentiment: 'neutral', outcome: durationSeconds > 0 ? 'voicemail' : 'not_reached', score: 0 };
}
