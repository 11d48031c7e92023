import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, InputType, Int } from 'type-graphql';
import { TEST_RULES, TEST_TYPES } from './test.rules';

@InputType()
export class CreateAssistantTestInput {
  @Field(() => String, { description: `1 to ${TEST_RULES.nameChars} characters.` })
  name!: string;

  @Field(() => String, { description: `One of: ${TEST_TYPES.join(', ')}.` })
  type!: string;

  @Field(() => GraphQLJSONObject, { description: 'The test as its type says (design.md, "Assistant tests").' })
  config!: Record<string, unknown>;
}

@InputType()
export class UpdateAssistantTestInput {
  @Field(() => String, { nullable: true })
  name?: string | null;

  @Field(() => String, { nullable: true, description: 'A new type needs its config.' })
  type?: string | null;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Replaces the config whole.' })
  config?: Record<string, unknown> | null;
}

@InputType()
export class StartTestRunInput {
  @Field(() => [Int], { nullable: true, description: 'The tests to run (of this assistant); default: all of them.' })
  test_ids?: number[] | null;

  @Field(() => Int, { nullable: true, description: `Each test's attempts, ${TEST_RULES.attempts.min} to ${TEST_RULES.attempts.max}; default ${TEST_RULES.attempts.default}.` })
  attempts?: number | null;
}
