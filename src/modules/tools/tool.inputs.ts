import { Field, InputType, Int } from 'type-graphql';
import { MAX_SPEAK_DURING, MAX_TOOL_NAME, TOOL_METHODS, TOOL_PARAMETER_TYPES } from './tool.entity';

@InputType('ToolHeaderInput')
export class ToolHeaderInput {
  @Field(() => String)
  name!: string;

  @Field(() => String)
  value!: string;
}

@InputType('ToolParameterInput')
export class ToolParameterInput {
  @Field(() => String, { description: '2 to 32 letters and underscores, starting with a letter.' })
  name!: string;

  @Field(() => String, { description: `One of: ${TOOL_PARAMETER_TYPES.join(', ')}.` })
  type!: string;

  @Field(() => String, { description: '3 to 255 characters.' })
  description!: string;
}

@InputType('CreateToolInput')
export class CreateToolInput {
  @Field(() => String, { description: `Lowercase letters and underscores, starting with a letter; at most ${MAX_TOOL_NAME} characters.` })
  name!: string;

  @Field(() => String, { description: 'At most 255 characters.' })
  description!: string;

  @Field(() => String, { description: 'An http(s) URL.' })
  endpoint!: string;

  @Field(() => String, { description: `One of: ${TOOL_METHODS.join(', ')}.` })
  method!: string;

  @Field(() => Int, { nullable: true, description: 'Seconds, 1 to 30; default 10.' })
  timeout?: number | null;

  @Field(() => [ToolHeaderInput], { nullable: true })
  headers?: ToolHeaderInput[] | null;

  @Field(() => [ToolParameterInput], { nullable: true })
  schema?: ToolParameterInput[] | null;

  @Field(() => String, { nullable: true, description: `Said while the tool runs longer than 1.2 s; at most ${MAX_SPEAK_DURING} characters.` })
  speak_during?: string | null;
}

@InputType('UpdateToolInput', { description: 'Only the fields sent change; headers and schema, when sent, replace the old ones.' })
export class UpdateToolInput {
  @Field(() => String, { nullable: true })
  name?: string | null;

  @Field(() => String, { nullable: true })
  description?: string | null;

  @Field(() => String, { nullable: true })
  endpoint?: string | null;

  @Field(() => String, { nullable: true })
  method?: string | null;

  @Field(() => Int, { nullable: true })
  timeout?: number | null;

  @Field(() => [ToolHeaderInput], { nullable: true })
  headers?: ToolHeaderInput[] | null;

  @Field(() => [ToolParameterInput], { nullable: true })
  schema?: ToolParameterInput[] | null;

  @Field(() => String, { nullable: true, description: 'Null or empty: the generic filler.' })
  speak_during?: string | null;
}
