import { Arg, Authorized, Ctx, Query, Resolver } from 'type-graphql';
import { scopeOf, type GraphQLContext } from '../../graphql/context';
import { listLanguages, listModels, listSynthesizerProviders, listTranscriberProviders, listVoices } from './catalog.service';
import { Language } from './language.entity';
import { MODEL_TYPES, Model } from './model.entity';
import { SpeechProvider } from './speech-provider.type';
import { ENGINE_TYPES, Voice } from './voice.entity';

@Authorized()
@Resolver()
export class CatalogResolver {
  @Query(() => [Language], { description: 'Every language an assistant can speak.' })
  languages(@Ctx() ctx: GraphQLContext): Promise<Language[]> {
    return listLanguages(scopeOf(ctx));
  }

  @Query(() => [Model], { description: 'The language models an assistant can run on.' })
  models(
    @Arg('type', () => String, { nullable: true, description: `Only models of this type: ${MODEL_TYPES.join(' or ')}.` })
    type: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<Model[]> {
    return listModels(scopeOf(ctx), type);
  }

  @Query(() => [Voice], { description: 'Public voices and the account’s own.' })
  voices(
    @Arg('mode', () => String, { nullable: true, description: `Only voices of this engine: ${ENGINE_TYPES.join(' or ')}.` })
    mode: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<Voice[]> {
    return listVoices(scopeOf(ctx), mode);
  }

  @Query(() => [SpeechProvider], { description: 'The text-to-speech vendors configured on this server; the first speaks the voices that name none.' })
  synthesizerProviders(@Ctx() ctx: GraphQLContext): SpeechProvider[] {
    return listSynthesizerProviders(scopeOf(ctx));
  }

  @Query(() => [SpeechProvider], { description: 'The speech-to-text vendors configured on this server.' })
  transcriberProviders(@Ctx() ctx: GraphQLContext): SpeechProvider[] {
    return listTranscriberProviders(scopeOf(ctx));
  }
}
