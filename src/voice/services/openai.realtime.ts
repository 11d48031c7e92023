import type { Assistant } from '../../modules/assistants/assistant.entity';
import { callPrompt, type EngineSetup } from '../engine.setup';
import { callFunctions } from '../tools';

/**
 * OpenAI Realtime's wire format (GA): the session a call's assistant makes, in the shape of
 * `session.update`. The engine that runs it is engines/realtime.ts.
 */

const TRANSCRIBE_MODEL = 'gpt-4o-mini-transcribe';

/** A server event: any object that names its type (read through jsonMessage), its fields untrusted. */
export interface RealtimeEvent {
  type: string;
  [key: string]: unknown;
}

/** The id of the response an event is about (`response.created`, `response.done`). */
export function responseId(event: RealtimeEvent): string | null {
  const response = event.response as { id?: unknown } | undefined;
  return typeof response?.id === 'string' ? response.id : null;
}

/** The Realtime model: the assistant's llm_model when it is a realtime model, else OPENAI_REALTIME_MODEL. */
export function realtimeModel(assistant: Pick<Assistant, 'llm_model'>, fallback: string): string {
  return /realtime/i.test(assistant.llm_model) ? assistant.llm_model : fallback;
}

/** The `session` of session.update, from the assistant's settings. */
export function realtimeSession(setup: EngineSetup): Record<string, unknown> {
  const { assistant } = setup;
  const sensitivity = assistant.endpoint_sensitivity; // 0 (hard of hearing) to 5 (hears everything)
  const turnDetection =
    assistant.endpoint_type === 'ai'
      ? { type: 'semantic_vad', eagerness: sensitivity < 2 ? 'low' : sensitivity < 4 ? 'medium' : 'high' }
      : { type: 'server_vad', threshold: Math.round((0.8 - sensitivity * 0.1) * 100) / 100, prefix_padding_ms: 300, silence_duration_ms: 500 };
  return {
    type: 'realtime',
    output_modalities: ['audio'],
    instructions: callPrompt(setup),
    audio: {
      input: {
        format: { type: 'audio/pcmu' },
        transcription: { model: TRANSCRIBE_MODEL, ...(setup.language ? { language: setup.language } : {}) },
        // The engine interrupts the assistant itself, by the assistant's interrupt settings, and asks
        // for the answer to a turn it takes: the session's own answer at each VAD stop would answer a
        // cough or an "aham" said over the assistant (engines/realtime.ts).
        turn_detection: { ...turnDetection, create_response: false, interrupt_response: false },
        noise_reduction: assistant.noise_cancellation ? { type: 'near_field' } : null,
      },
      output: { format: { type: 'audio/pcmu' }, voice: setup.voice, speed: assistant.speech_speed },
    },
    tools: callFunctions(setup).map((fn) => ({ type: 'function', ...fn })),
    tool_choice: 'auto',
  };
}
