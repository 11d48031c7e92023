import type { ToolDeps } from '../../../modules/calls/call.tools';
import type { Runtime } from '../../../runtime';
import type { MediaRate } from '../../engine';
import { callKeyterms, type EngineSetup } from '../../engine.setup';
import type { LlmService, SttOptions, SttService, TtsOptions, TtsService } from '../../services/service';
import { endpointSilenceMs } from './endpointing';
import { sttAudio, type Denoiser, type Vad } from './hearing';
import type { Ambience } from './speaker';

/** The parts of the runtime the pipeline engine uses. */
export type PipelineDeps = Pick<Runtime, 'logger' | 'telemetry'> & ToolDeps;

/** The vendors of one call, and the voice and model it speaks with. */
export interface PipelineServices {
  stt: SttService;
  sttLanguage: string | null;
  llm: LlmService;
  model: string;
  tts: TtsService;
  voiceId: string | null;
}

/** The call's audio stages: the VAD, and the optional ones by the assistant's settings. */
export interface PipelineAudio {
  /** Silero's (a scripted one in the virtual-time tests). */
  vad: Vad;
  /** `noise_cancellation`. */
  denoiser: Denoiser | null;
  /** `ambient_sound_volume`: the bed under the whole call. */
  ambience: Ambience | null;
}

/** What the call's STT stream is opened with: the language, the endpointing, the audio of the transport (`rate`), the keyterms. */
export function sttOptions(setup: EngineSetup, services: PipelineServices, rate: MediaRate): SttOptions {
  const { assistant } = setup;
  return {
    language: services.sttLanguage,
    endpointingMs: endpointSilenceMs(assistant.endpoint_sensitivity),
    audio: sttAudio(rate),
    keyterms: callKeyterms(assistant.keyterms, setup.variables),
  };
}

/** What the call's voice speaks with, at the transport's `rate`. */
export function ttsOptions(setup: EngineSetup, services: PipelineServices, rate: MediaRate): TtsOptions {
  const { assistant } = setup;
  return {
    voiceId: services.voiceId,
    language: setup.language,
    speed: assistant.speech_speed,
    stability: assistant.voice_stability,
    similarity: assistant.voice_similarity,
    sampleRate: rate,
  };
}
