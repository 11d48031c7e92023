import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Args, Authorized, Ctx, FieldResolver, Info, Int, Mutation, ObjectType, Query, Resolver, Root } from 'type-graphql';
import { readScopeOf, scopeOf, type GraphQLContext } from '../../graphql/context';
import { PageType } from '../../graphql/pagination';
import type { Turn } from './call.conversation';
import { Call, CallLatency, callLatency } from './call.entity';
import { CallStatusEvent, CallTurn, eventsOfCalls, turnView } from './call.history';
import { CallFeed, CallFeedArgs, CallListArgs, CallStarted, MakeCallInput, WebCallInput, WebCallStarted } from './call.inputs';
import { callFeed, deleteCall, hangupCall, listCalls, makeCall, readCall, simulateInboundCall } from './call.service';
import { turnsOfCalls } from './call.turns';
import { startWebCall } from './call.web';

@ObjectType('CallPage', { simpleResolvers: true })
export class CallPage extends PageType(Call) {}

@Authorized()
@Resolver(() => Call)
export class CallResolver {
  @Query(() => CallPage, { description: "A page of the account's calls, newest first." })
  calls(@Args(() => CallListArgs) args: CallListArgs, @Ctx() ctx: GraphQLContext): Promise<CallPage> {
    return listCalls(readScopeOf(ctx), args);
  }

  @Query(() => CallFeed, {
    description: "The account's calls newest first, a slice at a time: pass `next_after` back as `after`. No total and no page numbers, so every slice costs the same however deep.",
  })
  callFeed(@Args(() => CallFeedArgs) args: CallFeedArgs, @Ctx() ctx: GraphQLContext): Promise<CallFeed> {
    return callFeed(readScopeOf(ctx), args);
  }

  @Query(() => Call)
  call(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<Call> {
    return readCall(readScopeOf(ctx), id);
  }

  @Mutation(() => CallStarted, { description: 'Starts an outbound call from an assistant to a number.' })
  makeCall(
    @Arg('input', () => MakeCallInput) input: MakeCallInput,
    @Arg('idempotency_key', () => String, { nullable: true, description: 'A replay with the same key and input starts nothing.' })
    idempotencyKey: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<CallStarted> {
    return makeCall({ ...scopeOf(ctx), telephony: ctx.telephony }, input, idempotencyKey);
  }

  @Mutation(() => WebCallStarted, {
    description: 'Starts a web call: a browser talks to the assistant over the returned WebSocket url (design.md, "Web calls"); it is charged the platform fee per started minute.',
  })
  startWebCall(@Arg('input', () => WebCallInput) input: WebCallInput, @Ctx() ctx: GraphQLContext): Promise<WebCallStarted> {
    return startWebCall(scopeOf(ctx), input, ctx.admission);
  }

  @Mutation(() => Call, { description: 'Ends a call in flight (answered: ended; not yet answered: failed); a finished call is a CONFLICT.' })
  hangupCall(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<Call> {
    return hangupCall({ ...scopeOf(ctx), telephony: ctx.telephony, lifecycle: ctx.lifecycle }, id);
  }

  @Mutation(() => Boolean)
  async deleteCall(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    await deleteCall(scopeOf(ctx), id);
    return true;
  }

  @Mutation(() => Call, { description: "A simulated call from `from` to one of the account's inbound assistants (simulator provider only)." })
  simulateInboundCall(
    @Arg('to', () => String, { description: 'The inbound assistant’s number.' }) to: string,
    @Arg('from', () => String, { description: 'The caller’s number.' }) from: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<Call> {
    const scope = scopeOf(ctx);
    return simulateInboundCall(scope.em, ctx.telephony, ctx.config, { to, from, accountId: scope.accountId });
  }

  @FieldResolver(() => [CallStatusEvent], { description: 'The call’s status changes, oldest first (a page of calls reads them in one statement).' })
  async events(@Root() call: Call, @Ctx() ctx: GraphQLContext, @Info() info: GraphQLResolveInfo): Promise<CallStatusEvent[]> {
    // A subscription keeps its context for every event: a loader there would answer the first event's list forever.
    if (info.operation.operation === 'subscription') {
      const { em, accountId } = readScopeOf(ctx);
      return (await eventsOfCalls(em, accountId, [call.id])).get(call.id)!;
    }
    return ctx.loaders.eventsByCall.load(call.id);
  }

  @FieldResolver(() => [CallTurn], { description: 'What was said, turn by turn, with when each turn began (for a player of the recording) and the pipeline engine’s latency.' })
  async turns(@Root() call: Call, @Ctx() ctx: GraphQLContext, @Info() info: GraphQLResolveInfo): Promise<CallTurn[]> {
    return (await turnsOf(call, ctx, info)).map(turnView);
  }

  @FieldResolver(() => CallLatency, { nullable: true, description: 'The pipeline engine’s answers, voice to voice; null before any.' })
  async latency(@Root() call: Call, @Ctx() ctx: GraphQLContext, @Info() info: GraphQLResolveInfo): Promise<CallLatency | null> {
    return callLatency(await turnsOf(call, ctx, info));
  }
}

/** The call's turns: a page of calls reads them in one statement. */
async function turnsOf(call: Call, ctx: GraphQLContext, info: GraphQLResolveInfo): Promise<Turn[]> {
  // A subscription keeps its context for every event: a loader there would answer the first event's turns forever.
  if (info.operation.operation === 'subscription') {
    const { em, accountId } = readScopeOf(ctx);
    return (await turnsOfCalls(em, accountId, [call.id])).get(call.id)!;
  }
  return ctx.loaders.turnsByCall.load(call.id);
}
