import { pipelinePlan, ttsChain, voiceMissing } from '../../modules/assistants/assistant.voice';
import type { VendorEvent } from '../../modules/calls/call.vendor-events';
import { TTS_PROVIDERS } from '../../modules/catalog/voice.entity';
import type { PipelineVendors, VendorAccess } from '../../config';
import { AmbientBed } from '../codecs/ambient';
import type { MediaOut, VoiceEngine } from '../engine';
import type { EngineSetup } from '../engine.setup';
import type { LiveCall } from '../live-call';
import { CartesiaTts } from '../services/cartesia.tts';
import { deepgramLanguage, DeepgramStt } from '../services/deepgram.stt';
import { ElevenLabsTts } from '../services/elevenlabs.tts';
import { assistantLlm } from '../services/llm-chain';
import { FallbackTts } from '../services/fallback.tts';
import { OpenAiStt } from '../services/openai.stt';
import { OpenAiTts } from '../services/openai.tts';
import { ReconnectingStt } from '../services/reconnecting.stt';
import type { TtsService } from '../services/service';
import { WorkerDenoiser } from '../vad/denoiser';
import { SileroVad } from '../vad/silero';
import { PipelineEngine, type PipelineDeps, type PipelineServices } from './pipeline/engine';
import { RealtimeEngine, type RealtimeDeps } from './realtime';

/** The parts of the runtime the engines use. */
export type EngineDeps = RealtimeDeps & PipelineDeps;

const TTS: Record<(typeof TTS_PROVIDERS)[number], (access: VendorAccess) => TtsService> = {
  elevenlabs: (access) => new ElevenLabsTts(access),
  cartesia: (access) => new CartesiaTts(access),
  openai: (access) => new OpenAiTts(access),
};

/**
 * The TTS vendors configured here, by name, in the order they stand in for one another (the
 * hosted providers of TTS_PROVIDERS go after the built-in ones).
 */
function ttsVendors(vendors: PipelineVendors): Map<string, () => TtsService> {
  const configured = new Map<string, () => TtsService>();
  for (const name of TTS_PROVIDERS) {
    const access = vendors[name];
    if (access) configured.set(name, () => TTS[name](access));
  }
  for (const [name, server] of Object.entries(vendors.ttsProviders)) configured.set(name, () => new OpenAiTts(server));
  return configured;
}

/**
 * The engine of a call, by its assistant's engine_type; a string says why there is none (its
 * vendors are not configured here), for the log.
 */
export async function startEngine(deps: EngineDeps, live: LiveCall, setup: EngineSetup, out: MediaOut): Promise<VoiceEngine | string> {
  const missing = voiceMissing(deps.config.voice, { engine_type: setup.assistant.engine_type, transcriber: setup.assistant.transcriber, ...setup });
  if (missing.length) return `${setup.assistant.engine_type} assistants need ${missing.join(', ')}`;
  if (setup.assistant.engine_type === 'multimodal') return new RealtimeEngine(deps, live, setup, out);
  const services = pipelineServices(deps.config.voice.pipeline, setup, (event) => live.vendorEvent(event));
  if (typeof services === 'string') return services;
  const { assistant } = setup;
  const denoiser = assistant.noise_cancellation ? new WorkerDenoiser(out.rate) : null;
  const ambience = assistant.ambient_sound_volume > 0 ? new AmbientBed(assistant.ambient_sound_volume, out.rate) : null;
  return new PipelineEngine(deps, live, setup, services, { vad: new SileroVad(), denoiser, ambience }, out);
}

/**
 * The pipeline's vendors for a call, as assistant.voice.ts's rule chooses them (the same rule
 * that tells the API what an assistant lacks); the LLM is the assistant's model, then its
 * `fallback_models` (each at its provider's endpoint, one whose provider is not configured here
 * left out); TTS is the voice's vendor, then the chain of assistant.voice.ts's `ttsChain`; and
 * `report` hears of each retry and switch (the LLM's and TTS's, and Deepgram's reconnects).
 */
export function pipelineServices(vendors: PipelineVendors, setup: EngineSetup, report: (event: VendorEvent) => void = () => {}): PipelineServices | string {
  const { stt, llm, tts, ownVoice, missing } = pipelinePlan(vendors, { ...setup, transcriber: setup.assistant.transcriber });
  if (missing.length || !stt || !llm || !tts) return `pipeline assistants need ${missing.join(', ')}`;
  const chain = assistantLlm(vendors, setup, report);
  if (!chain) return `pipeline assistants need ${missing.join(', ')}`;
  const configured = ttsVendors(vendors);
  const voiceId = ownVoice ? setup.providerVoiceId : null;
  const fallbackVoice = setup.fallbackVoice && { vendor: setup.fallbackVoice.provider, voiceId: setup.fallbackVoice.providerVoiceId };
  return {
    // Deepgram's stream reconnects by itself; a transcriber of whole turns (one request a turn)
    // takes the language as ISO 639-1, Deepgram as its own tag.
    ...('access' in stt
      ? { stt: new ReconnectingStt(new DeepgramStt(stt.access), report), sttLanguage: deepgramLanguage(setup.language) }
      : { stt: new OpenAiStt({ ...stt.server, vendor: stt.vendor }), sttLanguage: setup.language }),
    llm: chain,
    model: setup.assistant.llm_model,
    tts: new FallbackTts(
      ttsChain([...configured.keys()], { vendor: tts.vendor, voiceId }, fallbackVoice).map((choice) => ({ service: configured.get(choice.vendor)!(), voiceId: choice.voiceId })),
      report,
    ),
    voiceId,
  };
}
