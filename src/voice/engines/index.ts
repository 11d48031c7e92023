import { TTS_PROVIDERS } from '../../modules/catalog/voice.entity';
import type { PipelineVendors, VendorAccess } from '../../config';
import { AmbientBed } from '../codecs/ambient';
import { Denoiser } from '../codecs/denoise';
import type { MediaOut, VoiceEngine } from '../engine';
import type { EngineSetup } from '../engine.setup';
import type { LiveCall } from '../live-call';
import { CartesiaTts } from '../services/cartesia.tts';
import { deepgramLanguage, DeepgramStt } from '../services/deepgram.stt';
import { ElevenLabsTts } from '../services/elevenlabs.tts';
import { llmAccess, OpenAiLlm } from '../services/openai.llm';
import { OpenAiTts } from '../services/openai.tts';
import type { TtsService } from '../services/service';
import { PipelineEngine, type PipelineDeps, type PipelineServices } from './pipeline';
import { RealtimeEngine, type RealtimeDeps } from './realtime';

/** The parts of the runtime the engines use. */
export type EngineDeps = RealtimeDeps & PipelineDeps;

const TTS: Record<(typeof TTS_PROVIDERS)[number], (access: VendorAccess) => TtsService> = {
  elevenlabs: (access) => new ElevenLabsTts(access),
  cartesia: (access) => new CartesiaTts(access),
  openai: (access) => new OpenAiTts(access),
};

/**
 * The engine of a call, by its assistant's engine_type; a string says why there is none (its
 * vendors are not configured here), for the log.
 */
export async function startEngine(deps: EngineDeps, live: LiveCall, setup: EngineSetup, out: MediaOut): Promise<VoiceEngine | string> {
  if (setup.assistant.engine_type === 'multimodal') {
    if (!deps.config.voice.openai) return 'multimodal assistants need OPENAI_API_KEY';
    return new RealtimeEngine(deps, live, setup, out);
  }
  const services = pipelineServices(deps.config.voice.pipeline, setup);
  if (typeof services === 'string') return services;
  const { assistant } = setup;
  const denoiser = assistant.noise_cancellation ? await Denoiser.create() : null;
  const ambience = assistant.ambient_sound_volume > 0 ? new AmbientBed(assistant.ambient_sound_volume) : null;
  return new PipelineEngine(deps, live, setup, services, { denoiser, ambience }, out);
}

/**
 * The pipeline's vendors for a call: Deepgram, the model's provider (else OpenAI), and the
 * voice's TTS vendor with its voice; a voice without one (or whose vendor is not configured
 * here) is spoken by the first configured vendor's default voice (design.md).
 */
export function pipelineServices(vendors: PipelineVendors, setup: EngineSetup): PipelineServices | string {
  const llm = llmAccess(vendors, setup.modelProvider);
  const own = TTS_PROVIDERS.find((provider) => provider === setup.voiceProvider && vendors[provider]);
  const tts = own ?? TTS_PROVIDERS.find((provider) => vendors[provider]);
  const missing = [
    vendors.deepgram ? null : 'DEEPGRAM_API_KEY',
    llm ? null : setup.modelProvider ? `OPENAI_API_KEY or LLM_PROVIDERS for "${setup.modelProvider}"` : 'OPENAI_API_KEY',
    tts ? null : 'ELEVENLABS_API_KEY, CARTESIA_API_KEY or OPENAI_API_KEY',
  ].filter(Boolean);
  if (missing.length || !vendors.deepgram || !llm || !tts) return `pipeline assistants need ${missing.join('; ')} (or PIPELINE_ENGINE_URL)`;
  return {
    stt: new DeepgramStt(vendors.deepgram),
    sttLanguage: deepgramLanguage(setup.language),
    llm: new OpenAiLlm(llm),
    model: setup.assistant.llm_model,
    tts: TTS[tts](vendors[tts]!),
    voiceId: own ? setup.providerVoiceId : null,
  };
}
