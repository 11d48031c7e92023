import { Arg, Authorized, Ctx, Int, Mutation, Query, Resolver, Root, Subscription } from 'type-graphql';
import { UnauthenticatedError } from '../../errors';
import { scopeOf, type GraphQLContext } from '../../graphql/context';
import { DEFAULT_PER_PAGE, MAX_PER_PAGE } from '../../graphql/pagination';
import type { TestRunPiece } from '../events/event.bus';
import { CreateAssistantTestInput, StartTestRunInput, UpdateAssistantTestInput } from './test.inputs';
import { listRuns, readResult, requireRun, startRun } from './test.run.service';
import { createTest, deleteTest, listTests, requireTest, updateTest } from './test.service';
import { testRunPieces } from './test.stream';
import { AssistantTest, TestRun, TestRunPage, TestRunQueued, TestRunUpdate } from './test.types';

@Authorized()
@Resolver()
export class AssistantTestResolver {
  @Query(() => [AssistantTest], { description: 'The assistant’s tests, oldest first.' })
  assistantTests(@Arg('assistant_id', () => Int) assistantId: number, @Ctx() ctx: GraphQLContext): Promise<AssistantTest[]> {
    return listTests(scopeOf(ctx), assistantId);
  }

  @Query(() => AssistantTest)
  assistantTest(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<AssistantTest> {
    return requireTest(scopeOf(ctx), id);
  }

  @Mutation(() => AssistantTest, { description: 'A test of the assistant (at most TEST_MAX_PER_ASSISTANT): reply, tool_call or simulation.' })
  createAssistantTest(
    @Arg('assistant_id', () => Int) assistantId: number,
    @Arg('input', () => CreateAssistantTestInput) input: CreateAssistantTestInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<AssistantTest> {
    return createTest(scopeOf(ctx), assistantId, input);
  }

  @Mutation(() => AssistantTest)
  updateAssistantTest(@Arg('id', () => Int) id: number, @Arg('input', () => UpdateAssistantTestInput) input: UpdateAssistantTestInput, @Ctx() ctx: GraphQLContext): Promise<AssistantTest> {
    return updateTest(scopeOf(ctx), id, input);
  }

  @Mutation(() => Boolean, { description: 'Deletes the test; runs that ran it keep their results.' })
  async deleteAssistantTest(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    await deleteTest(scopeOf(ctx), id);
    return true;
  }

  @Mutation(() => TestRunQueued, { description: 'Runs the assistant’s tests (all, or test_ids), each `attempts` times, on the job queue; free of the platform fee.' })
  startTestRun(
    @Arg('assistant_id', () => Int) assistantId: number,
    @Arg('input', () => StartTestRunInput, { nullable: true }) input: StartTestRunInput | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<TestRunQueued> {
    return startRun(scopeOf(ctx), assistantId, input ?? {});
  }

  @Query(() => TestRun)
  testRun(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<TestRun> {
    return requireRun(scopeOf(ctx), id);
  }

  @Query(() => TestRunPage, { description: 'The assistant’s test runs, newest first.' })
  testRuns(
    @Arg('assistant_id', () => Int) assistantId: number,
    @Ctx() ctx: GraphQLContext,
    @Arg('page', () => Int, { nullable: true, description: 'From 1; default 1.' }) page?: number | null,
    @Arg('per_page', () => Int, { nullable: true, description: `1 to ${MAX_PER_PAGE}, default ${DEFAULT_PER_PAGE}.` }) perPage?: number | null,
  ): Promise<TestRunPage> {
    return listRuns(scopeOf(ctx), assistantId, page ?? 1, perPage ?? DEFAULT_PER_PAGE);
  }

  @Subscription(() => TestRunUpdate, {
    description: 'A test run as it goes on: each result as it lands (`result`), and each change of its status. Another account’s run is not found, like a missing one.',
    subscribe: async ({ args, context }) => {
      const ctx = context as GraphQLContext;
      if (ctx.accountId === null || !ctx.events) throw new UnauthenticatedError();
      // Listening first: nothing written between the check and the listening is missed.
      const pieces = testRunPieces(ctx.events, ctx.accountId, Number(args.id));
      try {
        await requireRun(scopeOf(ctx), Number(args.id));
      } catch (error) {
        await pieces.return!();
        throw error;
      }
      return pieces;
    },
  })
  async testRunUpdated(@Root() piece: TestRunPiece, @Ctx() ctx: GraphQLContext, @Arg('id', () => Int) id: number): Promise<TestRunUpdate> {
    // A fresh ORM context for each piece, so that a long subscription keeps nothing.
    ctx.renew();
    const scope = scopeOf(ctx);
    const result = piece.t ? await readResult(scope.em, scope.accountId, id, piece.t) : null;
    return Object.assign(new TestRunUpdate(), { run: await requireRun(scope, id), result });
  }
}
