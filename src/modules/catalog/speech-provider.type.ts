import { Field, Int, ObjectType } from 'type-graphql';
import type { TtsProvider } from './voice.entity';

/**
 * A speech vendor of the pipeline engine, in the shape the original platform lists its
 * providers (GET /user/assistants/synthesizer-providers in bekgroup/Famulor-docs-de,
 * api-reference/assistants/synthesizer-providers.mdx: `[{id, name, code}]`). vozgate takes the
 * vendor from the voice (`provider`), so no assistant field takes the id.
 */
@ObjectType('SpeechProvider', { simpleResolvers: true, description: 'A speech vendor the pipeline engine is configured to use.' })
export class SpeechProvider {
  @Field(() => Int, { description: 'The vendor’s number, the same on every server.' })
  id!: number;

  @Field(() => String)
  name!: string;

  @Field(() => String, { description: 'The vendor’s code; a text-to-speech vendor’s is what a voice’s `provider` names.' })
  code!: string;
}

/** Each text-to-speech vendor's number and name; a vendor keeps its number for good. */
export const SYNTHESIZERS: Record<TtsProvider, Omit<SpeechProvider, 'code'>> = {
  elevenlabs: { id: 1, name: 'ElevenLabs' },
  cartesia: { id: 2, name: 'Cartesia' },
  openai: { id: 3, name: 'OpenAI' },
};

/** The built-in speech-to-text vendors (`openai`: its `/audio/transcriptions`, served with OPENAI_API_KEY). */
export const STT_PROVIDERS = ['deepgram', 'openai'] as const;

/** Each speech-to-text vendor's number and name. */
export const TRANSCRIBERS: Record<(typeof STT_PROVIDERS)[number], Omit<SpeechProvider, 'code'>> = {
  deepgram: { id: 1, name: 'Deepgram' },
  openai: { id: 2, name: 'OpenAI' },
};

/** Hosted vendors' numbers start here, above any built-in one's. */
const HOSTED_IDS = 1000;

/**
 * A hosted vendor (TTS_PROVIDERS, STT_PROVIDERS) as listed: its number is a hash of its name
 * (32-bit FNV-1a, from 1000 up, within GraphQL's Int), so it is the same on every server and
 * whatever the configuration's order; its name is its code, as the operator wrote it.
 */
export function hostedProvider(code: string): SpeechProvider {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(code, 'utf8')) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return { id: HOSTED_IDS + (hash % (2 ** 31 - 1 - HOSTED_IDS)), name: code, code };
}
