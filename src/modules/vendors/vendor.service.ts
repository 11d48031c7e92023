import type { Scope } from '../scope';

/** What a vendor does for the voice engines. */
export type VendorPart = 'stt' | 'llm' | 'tts' | 'realtime' | 'engine';

/** A voice vendor this server may use, and whether it is configured here: names of variables, never their values. */
export interface VendorStatus {
  code: string;
  name: string;
  parts: VendorPart[];
  configured: boolean;
  /** One of the hosted (OpenAI-compatible) servers of TTS_PROVIDERS, STT_PROVIDERS or LLM_PROVIDERS. */
  hosted: boolean;
  /** The environment variables that configure it (the first is the one that turns it on). */
  variables: string[];
}

const HOSTED_KINDS = [
  { variable: 'STT_PROVIDERS', part: 'stt', name: 'Hosted speech-to-text servers' },
  { variable: 'LLM_PROVIDERS', part: 'llm', name: 'Hosted language-model servers' },
  { variable: 'TTS_PROVIDERS', part: 'tts', name: 'Hosted text-to-speech servers' },
] as const;

/**
 * The voice vendors of this server, as the configuration read at start has them (the same
 * `config.voice` that `voice_ready` reads): the built-in ones, configured or not, then each
 * hosted server by name, or one line per kind of hosted server when there is none. Only
 * names: a key, and a URL (which may carry credentials), never leave the server.
 */
export function listVoiceVendors(scope: Pick<Scope, 'config'>): VendorStatus[] {
  const voice = scope.config.voice;
  const vendors = voice.pipeline;
  const builtIn = (code: string, name: string, parts: VendorPart[], configured: boolean, variables: string[]): VendorStatus => ({
    code,
    name,
    parts,
    configured,
    hosted: false,
    variables,
  });
  const list: VendorStatus[] = [
    builtIn('openai', 'OpenAI', ['realtime', 'stt', 'llm', 'tts'], voice.openai !== null, ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'OPENAI_REALTIME_URL']),
    builtIn('deepgram', 'Deepgram', ['stt'], vendors.deepgram !== null, ['DEEPGRAM_API_KEY', 'DEEPGRAM_URL']),
    builtIn('elevenlabs', 'ElevenLabs', ['tts'], vendors.elevenlabs !== null, ['ELEVENLABS_API_KEY', 'ELEVENLABS_URL']),
    builtIn('cartesia', 'Cartesia', ['tts'], vendors.cartesia !== null, ['CARTESIA_API_KEY', 'CARTESIA_URL']),
  ];
  const hosted = { STT_PROVIDERS: vendors.sttProviders, LLM_PROVIDERS: vendors.llmProviders, TTS_PROVIDERS: vendors.ttsProviders };
  for (const kind of HOSTED_KINDS) {
    const names = Object.keys(hosted[kind.variable]);
    if (!names.length) list.push({ code: kind.variable.toLowerCase(), name: kind.name, parts: [kind.part], configured: false, hosted: true, variables: [kind.variable] });
    for (const name of names) list.push({ code: name, name, parts: [kind.part], configured: true, hosted: true, variables: [kind.variable] });
  }
  list.push(builtIn('pipeline-engine', 'External pipeline engine (phone calls of pipeline assistants)', ['engine'], voice.pipelineEngineUrl !== null, ['PIPELINE_ENGINE_URL']));
  return list;
}
