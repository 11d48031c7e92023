import { Entity, ManyToOne, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { Field, Int, ObjectType } from 'type-graphql';
import { IsoTimestampType } from '../../db/types';
import { Account } from '../accounts/account.entity';


/**
 * A tool's name, as the model calls it and the engine API's path names it: lowercase letters
 * and underscores, starting with a letter, at most MAX_TOOL_NAME characters (the column's length).
 */
export const TOOL_NAME_PATTERN = '^[a-z][a-z_]*$';
export const MAX_TOOL_NAME = 64;
/** `speak_during`: a phrase, not a speech (the column's length). */
export const MAX_SPEAK_DURING = 200;
export const TOOL_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type ToolMethod = (typeof TOOL_METHODS)[number];
export const TOOL_PARAMETER_TYPES = ['string', 'number', 'boolean'] as const;
export type ToolParameterType = (typeof TOOL_PARAMETER_TYPES)[number];

@ObjectType('ToolHeader', { simpleResolvers: true, description: 'An HTTP header sent with every request of the tool.' })
export class ToolHeader {
  @Field(() => String)
  name!: string;

  @Field(() => String)
  value!: string;
}

@ObjectType('ToolParameter', { simpleResolvers: true, description: 'A parameter the AI extracts from the conversation and sends to the endpoint.' })
export class ToolParameter {
  @Field(() => String)
  name!: string;

  @Field(() => String, { description: `One of: ${TOOL_PARAMETER_TYPES.join(', ')}.` })
  type!: ToolParameterType;

  @Field(() => String)
  description!: string;
}

@ObjectType('Tool', { simpleResolvers: true, description: 'A mid-call tool: an HTTP endpoint an assistant calls during a call.' })
@Entity({ tableName: 'tools' })
export class Tool {
  [OptionalProps]?: 'timeout' | 'schema' | 'speak_during' | 'created_at' | 'updated_at';

  @Field(() => Int)
  @PrimaryKey()
  id!: number;

  @ManyToOne(() => Account, { deleteRule: 'cascade' })
  account!: Account;

  @Field(() => String, { description: 'Lowercase letters and underscores, starting with a letter.' })
  @Property({ length: MAX_TOOL_NAME })
  name!: string;

  @Field(() => String, { description: 'When and how the AI should use the tool; at most 255 characters.' })
  @Property({ length: 255 })
  description!: string;

  @Field(() => String, { description: 'The http(s) URL the tool calls.' })
  @Property({ length: 2048 })
  endpoint!: string;

  @Field(() => String, { description: `One of: ${TOOL_METHODS.join(', ')}.` })
  @Property({ length: 8 })
  method!: ToolMethod;

  @Field(() => Int, { description: 'Seconds, 1 to 30.' })
  @Property({ type: 'smallint' })
  timeout: number = 10;

  /** The headers, encrypted (they often carry credentials); exposed as `headers` by the resolver. */
  @Property({ type: 'text' })
  headers_sealed!: string;

  @Field(() => [ToolParameter])
  @Property({ type: 'json' })
  schema: ToolParameter[] = [];

  @Field(() => String, {
    nullable: true,
    description: `What the assistant says when the tool takes longer than 1.2 s (again every 4 s, at most 3 times), instead of the generic filler; at most ${MAX_SPEAK_DURING} characters.`,
  })
  @Property({ length: MAX_SPEAK_DURING, nullable: true })
  speak_during: string | null = null;

  @Field(() => String, { description: 'ISO 8601.' })
  @Property({ type: IsoTimestampType, onCreate: () => new Date().toISOString() })
  created_at!: string;

  @Field(() => String, { description: 'ISO 8601.' })
  @Property({ type: IsoTimestampType, onCreate: () => new Date().toISOString(), onUpdate: () => new Date().toISOString() })
  updated_at!: string;

  /** Not a column: what createTool and updateTool tell about the endpoint they took. */
  @Field(() => String, {
    nullable: true,
    description:
      'Only in the answer of createTool and updateTool, in development: the endpoint points to a private, loopback or reserved address, so every call to it fails unless ALLOW_PRIVATE_NETWORK_TARGETS=true. Null otherwise.',
  })
  warning?: string | null;
}
