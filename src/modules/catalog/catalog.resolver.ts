import { Arg, Authorized, Ctx, Query, Resolver } from 'type-graphql';
import { scopeOf, type GraphQLContext } from '../../graphql/context';
import { listLanguages, listVoices } from './catalog.service';
import { Language } from './language.entity';
import { ENGINE_TYPES, Voice } from './voice.entity';

@Authorized()
@Resolver()
export class CatalogResolver {
  @Query(() => [Language], { description: 'Every language an assistant can speak.' })
  languages(@Ctx() ctx: GraphQLContext): Promise<Language[]> {
    return listLanguages(scopeOf(ctx));
  }

  @Query(() => [Voice], { description: 'Public voices and the account’s own.' })
  voices(
    @Arg('mode', () => String, { nullable: true, description: `Only voices of this engine: ${ENGINE_TYPES.join(' or ')}.` })
    mode: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<Voice[]> {
    return listVoices(scopeOf(ctx), mode);
  }
}
