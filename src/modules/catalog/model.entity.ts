import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { Field, Int, ObjectType } from 'type-graphql';
import { SpecTimestampType } from '../../db/types';
import { nowSpecTimestamp } from '../../lib/time';
import { DEFAULT_MODEL_PARAMS, ModelParams } from './model.params';

export const MODEL_TYPES = ['llm', 'multimodal'] as const;
export type ModelType = (typeof MODEL_TYPES)[number];

@ObjectType('Model', {
  simpleResolvers: true,
  description: "A language model an assistant can run on: its name is an assistant's `llm_model` (the REST body may send its id as `llm_model_id`).",
})
@Entity({ tableName: 'models' })
export class Model {
  [OptionalProps]?: 'created_at' | 'params';

  @Field(() => Int)
  @PrimaryKey()
  id!: number;

  @Field(() => String, { description: 'The name the provider’s API takes.' })
  @Property({ length: 100, unique: true })
  name!: string;

  @Field(() => String, { description: 'openai, anthropic, google, mistral, meta, ...' })
  @Property({ length: 32 })
  provider!: string;

  @Field(() => String, { description: `${MODEL_TYPES.join(' or ')}: a text model for pipeline assistants, or a speech-to-speech model for multimodal ones.` })
  @Property({ length: 16 })
  type!: ModelType;

  @Field(() => ModelParams, { description: 'What a request to the model carries beside its messages: a temperature or not, a reasoning effort.' })
  @Property({ type: 'json' })
  params: ModelParams = { ...DEFAULT_MODEL_PARAMS };

  @Property({ type: SpecTimestampType, onCreate: () => nowSpecTimestamp() })
  created_at!: string;
}
