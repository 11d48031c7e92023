import type { MediaOut, VoiceEngine } from '../engine';
import type { EngineSetup } from '../engine.setup';
import type { LiveCall } from '../live-call';
import { RealtimeEngine, type RealtimeDeps } from './realtime';

/** The parts of the runtime the engines use. */
export type EngineDeps = RealtimeDeps;

/**
 * The engine of a call, by its assistant's engine_type; null when that engine is not
 * configured here (the reason is returned for the log).
 */
export function startEngine(deps: EngineDeps, live: LiveCall, setup: EngineSetup, out: MediaOut): VoiceEngine | string {
  if (setup.assistant.engine_type === 'multimodal') {
    if (!deps.config.voice.openai) return 'multimodal assistants need OPENAI_API_KEY';
    return new RealtimeEngine(deps, live, setup, out);
  }
  return 'pipeline assistants stream to PIPELINE_ENGINE_URL';
}
