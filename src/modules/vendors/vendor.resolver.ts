import { Authorized, Ctx, Field, ObjectType, Query, Resolver } from 'type-graphql';
import { scopeOf, type GraphQLContext } from '../../graphql/context';
import { listVoiceVendors } from './vendor.service';

@ObjectType('VoiceVendor', { simpleResolvers: true, description: 'A voice vendor of this server, configured or not: the names of its variables, never their values.' })
export class VoiceVendor {
  @Field(() => String, { description: 'deepgram, openai, elevenlabs, cartesia, pipeline-engine, a hosted server’s name, or stt_providers / llm_providers / tts_providers when none of that kind is configured.' })
  code!: string;

  @Field(() => String)
  name!: string;

  @Field(() => [String], { description: 'What it does: stt (speech-to-text), llm (language model), tts (text-to-speech), realtime (multimodal engine), engine (runs pipeline calls elsewhere).' })
  parts!: string[];

  @Field(() => Boolean)
  configured!: boolean;

  @Field(() => Boolean, { description: 'An OpenAI-compatible server of STT_PROVIDERS, LLM_PROVIDERS or TTS_PROVIDERS.' })
  hosted!: boolean;

  @Field(() => [String], { description: 'The environment variables that configure it, the one that turns it on first.' })
  variables!: string[];
}

@Authorized()
@Resolver()
export class VendorResolver {
  @Query(() => [VoiceVendor], { description: 'The voice vendors of this server and whether each is configured (the configuration `voice_ready` reads).' })
  voiceVendors(@Ctx() ctx: GraphQLContext): VoiceVendor[] {
    return listVoiceVendors(scopeOf(ctx));
  }
}
