import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config, PipelineVendors, VendorAccess } from '../../config';
import { Messages, ValidationError } from '../../errors';
import type { Assistant } from './assistant.entity';
import { TTS_PROVIDERS, type TtsProvider } from '../catalog/voice.entity';

/**
 * What an assistant's built-in engine needs from this server's configuration, and which vendor
 * serves each part: the one rule that both a call's start (src/voice/engines) and the API's
 * `voice_ready` / `voice_missing` read, so that the console and /talk say exactly what a call
 * would find missing.
 */

/** What of an assistant the rule reads: its engine, its model's provider and its voice's TTS vendor (catalogue). */
export interface VoiceNeedsOf {
  engine_type: string;
  /** The provider of the assistant's model in the catalogue; null when the model is not listed. */
  modelProvider: string | null;
  /** The voice's TTS vendor; null: spoken by the first configured vendor's default voice. */
  voiceProvider: string | null;
}

/** The pipeline's vendors for an assistant, and the variables lacking for the ones not configured. */
export interface PipelinePlan {
  llm: VendorAccess | null;
  tts: TtsProvider | null;
  /** Whether the TTS vendor is the voice's own (its provider_voice_id applies). */
  ownVoice: boolean;
  /** Environment variables lacking, in the order of the parts (STT, LLM, TTS); empty when every part is served. */
  missing: string[];
}

const TTS_KEYS: Record<TtsProvider, string> = { elevenlabs: 'ELEVENLABS_API_KEY', cartesia: 'CARTESIA_API_KEY', openai: 'OPENAI_API_KEY' };

/** A model's provider listed in LLM_PROVIDERS is served there; any other model, by OpenAI (design.md). */
export function llmAccess(vendors: PipelineVendors, provider: string | null): VendorAccess | null {
  const wanted = provider?.toLowerCase();
  const listed = Object.entries(vendors.llmProviders).find(([name]) => name.toLowerCase() === wanted);
  return listed ? listed[1] : vendors.openai;
}

/**
 * Deepgram, the model's provider (else OpenAI), and the voice's TTS vendor; a voice without one
 * (or whose vendor is not configured here) is spoken by the first configured vendor's default
 * voice. When no TTS vendor is configured, the key named is the voice's own vendor's, else
 * OpenAI's (which also serves the model: one key is the shortest way to a voice).
 */
export function pipelinePlan(vendors: PipelineVendors, of: Pick<VoiceNeedsOf, 'modelProvider' | 'voiceProvider'>): PipelinePlan {
  const llm = llmAccess(vendors, of.modelProvider);
  const own = TTS_PROVIDERS.find((provider) => provider === of.voiceProvider && vendors[provider]) ?? null;
  const tts = own ?? TTS_PROVIDERS.find((provider) => vendors[provider]) ?? null;
  const voiceVendor = TTS_PROVIDERS.find((provider) => provider === of.voiceProvider);
  const missing = [vendors.deepgram ? null : 'DEEPGRAM_API_KEY', llm ? null : 'OPENAI_API_KEY', tts ? null : TTS_KEYS[voiceVendor ?? 'openai']];
  return { llm, tts, ownVoice: own !== null, missing: [...new Set(missing.filter((name): name is string => name !== null))] };
}

/**
 * The environment variables this server lacks to run the assistant's built-in engine (which
 * runs its web calls, and its phone calls unless PIPELINE_ENGINE_URL sends them elsewhere);
 * empty when it can speak.
 */
export function voiceMissing(voice: Config['voice'], of: VoiceNeedsOf): string[] {
  if (of.engine_type === 'multimodal') return voice.openai ? [] : ['OPENAI_API_KEY'];
  return pipelinePlan(voice.pipeline, of).missing;
}

/** The catalogue's part of the rule for one assistant: its voice's TTS vendor and its model's provider. */
async function needsOf(em: EntityManager, assistant: Pick<Assistant, 'engine_type' | 'llm_model' | 'voice'>): Promise<VoiceNeedsOf> {
  const [row] = await em.execute<{ voice_provider: string | null; model_provider: string | null }[]>(
    'select (select provider from voices where id = ?) as voice_provider, (select provider from models where name = ?) as model_provider',
    [assistant.voice.id, assistant.llm_model],
  );
  return { engine_type: assistant.engine_type, voiceProvider: row?.voice_provider ?? null, modelProvider: row?.model_provider ?? null };
}

/**
 * Refuses to start a call that could only fail at once, its engine lacking its vendors here:
 * 422 naming the variables to set, instead of a call answered and hung up with engine-failed.
 */
export async function requireVoiceReady(em: EntityManager, config: Config, assistant: Pick<Assistant, 'engine_type' | 'llm_model' | 'voice'>): Promise<void> {
  const missing = voiceMissing(config.voice, await needsOf(em, assistant));
  if (missing.length) throw new ValidationError({ assistant_id: [Messages.voiceNotReady(missing)] }, Messages.voiceNotReady(missing));
}

/** A TTS vendor and the voice it speaks with there (null: its default voice). */
export interface TtsVoiceChoice {
  vendor: string;
  voiceId: string | null;
}

/**
 * The order in which TTS vendors speak a call when the one before fails (design.md, "Vendors
 * that never end a call by themselves"): the call's voice; then the assistant's fallback voice
 * when its vendor is configured; then every other configured vendor with its default voice, in
 * the order of `configured` (elevenlabs, cartesia, openai, then the hosted providers). A vendor
 * is in the chain once: one that failed is not asked again.
 */
export function ttsChain(configured: readonly string[], first: TtsVoiceChoice, fallbackVoice: TtsVoiceChoice | null): TtsVoiceChoice[] {
  const chain = [first];
  if (fallbackVoice && configured.includes(fallbackVoice.vendor) && fallbackVoice.vendor !== first.vendor) chain.push(fallbackVoice);
  for (const vendor of configured) if (!chain.some((choice) => choice.vendor === vendor)) chain.push({ vendor, voiceId: null });
  return chain;
}
