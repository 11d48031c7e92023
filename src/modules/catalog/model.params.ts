import { Field, ObjectType } from 'type-graphql';

/** The efforts OpenAI's reasoning models take (`reasoning_effort`); `minimal` answers soonest, which a caller on the line needs. */
export const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high'] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

/**
 * What a request to a model of the catalogue may carry, beside its messages. OpenAI's
 * reasoning models (gpt-5 and its minis) refuse a `temperature` other than their default with
 * HTTP 400 `unsupported_value`, and the others refuse `reasoning_effort` (`unsupported_parameter`):
 * the catalogue says which is which, so that no call of an assistant fails on its first turn.
 */
@ObjectType('ModelParams', { simpleResolvers: true, description: 'What a request to the model carries beside its messages.' })
export class ModelParams {
  @Field(() => Boolean, { description: 'Whether the assistant’s `llm_temperature` is sent; reasoning models (gpt-5) refuse any but their own.' })
  supports_temperature!: boolean;

  @Field(() => String, { nullable: true, description: `The reasoning effort sent with each request (${REASONING_EFFORTS.join(', ')}); null: none is sent.` })
  reasoning_effort!: ReasoningEffort | null;
}

/** A model's params when the catalogue says nothing else, and a model the catalogue does not list: a temperature, no reasoning effort. */
export const DEFAULT_MODEL_PARAMS: Readonly<ModelParams> = { supports_temperature: true, reasoning_effort: null };

/** A row's `params` (jsonb) as the rule reads it: anything it does not know is the default. */
export function modelParams(stored: unknown): ModelParams {
  const given = stored && typeof stored === 'object' && !Array.isArray(stored) ? (stored as Record<string, unknown>) : {};
  const effort = REASONING_EFFORTS.find((value) => value === given.reasoning_effort) ?? null;
  return { supports_temperature: given.supports_temperature !== false, reasoning_effort: effort };
}

/** The sampling fields of a chat request to a model with these params, at the assistant's temperature. */
export function samplingFields(params: ModelParams | null | undefined, temperature: number): { temperature?: number; reasoning_effort?: ReasoningEffort } {
  const { supports_temperature, reasoning_effort } = params ?? DEFAULT_MODEL_PARAMS;
  return { ...(supports_temperature ? { temperature } : {}), ...(reasoning_effort ? { reasoning_effort } : {}) };
}
