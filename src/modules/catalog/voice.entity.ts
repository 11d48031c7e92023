import { Entity, ManyToOne, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { Field, Int, ObjectType } from 'type-graphql';
import { SpecTimestampType } from '../../db/types';
import { nowSpecTimestamp } from '../../lib/time';
import { Account } from '../accounts/account.entity';

export const ENGINE_TYPES = ['pipeline', 'multimodal'] as const;
export type EngineType = (typeof ENGINE_TYPES)[number];

/** The text-to-speech vendors a voice can name, in the order the engine picks a default one. */
export const TTS_PROVIDERS = ['elevenlabs', 'cartesia', 'openai'] as const;
export type TtsProvider = (typeof TTS_PROVIDERS)[number];

/** The longest vendor voice id kept (the migration's check says the same). */
export const MAX_PROVIDER_VOICE_ID = 100;

@ObjectType('Voice', { simpleResolvers: true, description: 'A voice; public, or private to the account that added it.' })
@Entity({ tableName: 'voices' })
export class Voice {
  [OptionalProps]?: 'account' | 'provider' | 'provider_voice_id' | 'created_at';

  @Field(() => Int, { description: "Use as an assistant's voice_id." })
  @PrimaryKey()
  id!: number;

  /** The owner of a private voice; null for a public one. */
  @ManyToOne(() => Account, { nullable: true, deleteRule: 'cascade' })
  account: Account | null = null;

  @Field(() => String)
  @Property({ length: 100 })
  name!: string;

  @Field(() => String, { description: `The engine the voice works with: ${ENGINE_TYPES.join(' or ')}.` })
  @Property({ length: 16 })
  mode!: EngineType;

  @Field(() => String, {
    nullable: true,
    description: `The text-to-speech vendor that speaks it: ${TTS_PROVIDERS.join(', ')}, or a hosted server of TTS_PROVIDERS; null (or a vendor not configured here): the default voice of the first configured vendor.`,
  })
  @Property({ type: 'text', nullable: true })
  provider: string | null = null;

  @Field(() => String, { nullable: true, description: "The vendor's id of the voice; set exactly when provider is." })
  @Property({ type: 'text', nullable: true })
  provider_voice_id: string | null = null;

  @Property({ type: SpecTimestampType, onCreate: () => nowSpecTimestamp() })
  created_at!: string;
}
