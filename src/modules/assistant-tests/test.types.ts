import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, Float, Int, ObjectType } from 'type-graphql';
import { PageType } from '../../graphql/pagination';
import { TEST_TYPES } from './test.rules';

export const RUN_STATUSES = ['queued', 'running', 'passed', 'failed', 'error'] as const;
export const RESULT_STATUSES = ['passed', 'failed', 'error'] as const;

@ObjectType('AssistantTest', { simpleResolvers: true, description: 'What an assistant must do, checked by each run (design.md, "Assistant tests").' })
export class AssistantTest {
  @Field(() => Int)
  id!: number;

  @Field(() => Int)
  assistant_id!: number;

  @Field(() => String)
  name!: string;

  @Field(() => String, { description: `One of: ${TEST_TYPES.join(', ')}.` })
  type!: string;

  @Field(() => GraphQLJSONObject, { description: 'The test as its type says: reply {messages, success_criteria, ..}, tool_call {messages, expect}, simulation {persona, channel, max_turns, ..}.' })
  config!: Record<string, unknown>;

  @Field(() => String, { description: 'ISO 8601, UTC.' })
  created_at!: string;

  @Field(() => String, { description: 'ISO 8601, UTC.' })
  updated_at!: string;
}

@ObjectType('TestMessage', { simpleResolvers: true })
export class TestMessage {
  @Field(() => String, { description: 'user (the customer, or the simulated caller) or assistant.' })
  role!: string;

  @Field(() => String)
  content!: string;
}

@ObjectType('TestCriterionVerdict', { simpleResolvers: true })
export class TestCriterionVerdict {
  @Field(() => String)
  criterion!: string;

  @Field(() => Boolean)
  passed!: boolean;

  @Field(() => String)
  reason!: string;
}

@ObjectType('TestToolCall', { simpleResolvers: true })
export class TestToolCallType {
  @Field(() => String, { description: 'The tool’s name; end_call for the built-in end of the call.' })
  name!: string;

  @Field(() => GraphQLJSONObject)
  arguments!: Record<string, unknown>;

  @Field(() => Boolean, { description: 'A tool_mocks entry answered it: no HTTP request was made.' })
  mocked!: boolean;
}

@ObjectType('TestUsage', { simpleResolvers: true, description: 'Tokens used: the assistant’s model (llm_*), the simulated caller’s and the judge’s.' })
export class TestUsageType {
  @Field(() => Int)
  llm_input_tokens!: number;

  @Field(() => Int)
  llm_output_tokens!: number;

  @Field(() => Int)
  caller_input_tokens!: number;

  @Field(() => Int)
  caller_output_tokens!: number;

  @Field(() => Int)
  judge_input_tokens!: number;

  @Field(() => Int)
  judge_output_tokens!: number;
}

@ObjectType('TestResult', { simpleResolvers: true, description: 'One attempt of one test in a run.' })
export class TestResult {
  @Field(() => Int)
  test_id!: number;

  @Field(() => Int, { description: 'From 1.' })
  attempt!: number;

  @Field(() => String, { description: `One of: ${RESULT_STATUSES.join(', ')}. error: the attempt could not reach a verdict (see error).` })
  status!: string;

  @Field(() => [TestMessage])
  transcript!: TestMessage[];

  @Field(() => [TestCriterionVerdict], { description: 'One verdict per success criterion, in order (a tool_call test: its expectation).' })
  criteria!: TestCriterionVerdict[];

  @Field(() => [TestToolCallType])
  tool_calls!: TestToolCallType[];

  @Field(() => [Int], { description: 'Per assistant turn, voice simulations; empty otherwise.' })
  latency_ms!: number[];

  @Field(() => TestUsageType)
  usage!: TestUsageType;

  @Field(() => String, { nullable: true })
  error!: string | null;
}

@ObjectType('TestRun', { simpleResolvers: true, description: 'A run of some of an assistant’s tests, each `attempts` times.' })
export class TestRun {
  @Field(() => Int)
  id!: number;

  @Field(() => Int)
  assistant_id!: number;

  @Field(() => String, { description: `One of: ${RUN_STATUSES.join(', ')}. passed: every attempt passed; failed: one failed; error: none failed, one could not reach a verdict.` })
  status!: string;

  @Field(() => Int)
  attempts!: number;

  @Field(() => String, { description: 'SHA-256 of the assistant’s settings that make its answers (prompt, model, voice, tools, knowledge base..) when the run started: two runs with the same hash tested the same assistant.' })
  assistant_snapshot_hash!: string;

  @Field(() => String, { nullable: true, description: 'ISO 8601, UTC: when its first attempt started.' })
  started_at!: string | null;

  @Field(() => String, { nullable: true, description: 'ISO 8601, UTC.' })
  finished_at!: string | null;

  @Field(() => [TestResult], { description: 'The attempts finished so far, in order of test and attempt.' })
  results!: TestResult[];

  @Field(() => Float, { nullable: true, description: 'Attempts passed over attempts run, 0 to 1, once the run is over.' })
  pass_rate!: number | null;

  @Field(() => TestUsageType, { description: 'The attempts’ usage summed. Runs are free of the platform fee.' })
  usage!: TestUsageType;

  @Field(() => String, { description: 'ISO 8601, UTC.' })
  created_at!: string;
}

@ObjectType('TestRunPage')
export class TestRunPage extends PageType(TestRun) {}

@ObjectType('TestRunUpdate', { simpleResolvers: true, description: 'A run as it stands, and the result that just landed (null for a change of status).' })
export class TestRunUpdate {
  @Field(() => TestRun)
  run!: TestRun;

  @Field(() => TestResult, { nullable: true })
  result!: TestResult | null;
}

@ObjectType('TestRunQueued', { simpleResolvers: true })
export class TestRunQueued {
  @Field(() => Int)
  id!: number;

  @Field(() => String)
  status!: string;
}
