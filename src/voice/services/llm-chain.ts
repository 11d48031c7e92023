import type { PipelineVendors } from '../../config';
import { llmAccess } from '../../modules/assistants/assistant.voice';
import type { VendorEvent } from '../../modules/calls/call.vendor-events';
import type { EngineSetup } from '../engine.setup';
import { FallbackLlm } from './fallback.llm';
import { OpenAiLlm } from './openai.llm';

/**
 * The assistant's model at its provider's endpoint (assistant.voice.ts's rule), then its
 * `fallback_models` (each at its provider's endpoint, one whose provider is not configured here
 * left out), as one LLM: the pipeline engine's, and a conversation's (src/chat/). Null when no
 * endpoint serves the assistant's own model here.
 */
export function assistantLlm(
  vendors: PipelineVendors,
  setup: Pick<EngineSetup, 'assistant' | 'modelProvider' | 'modelParams' | 'fallbackModels'>,
  report: (event: VendorEvent) => void = () => {},
): FallbackLlm | null {
  const llm = llmAccess(vendors, setup.modelProvider);
  if (!llm) return null;
  const model = setup.assistant.llm_model;
  const fallbacks = setup.fallbackModels.flatMap(({ name, provider, params }) => {
    const access = llmAccess(vendors, provider);
    return access && name !== model ? [{ model: name, service: new OpenAiLlm({ ...access, models: { [name]: params } }) }] : [];
  });
  return new FallbackLlm([{ model, service: new OpenAiLlm({ ...llm, models: { [model]: setup.modelParams } }) }, ...fallbacks], report);
}
