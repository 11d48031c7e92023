import { Arg, Authorized, Ctx, FieldResolver, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { scopeOf, type GraphQLContext } from '../../graphql/context';
import { Tool, ToolHeader } from './tool.entity';
import { CreateToolInput, UpdateToolInput } from './tool.inputs';
import { createTool, deleteTool, listTools, requireTool, toolHeaders, updateTool } from './tool.service';

@Authorized()
@Resolver(() => Tool)
export class ToolResolver {
  @Query(() => [Tool], { description: "The account's mid-call tools, oldest first." })
  tools(@Ctx() ctx: GraphQLContext): Promise<Tool[]> {
    return listTools(scopeOf(ctx));
  }

  @Query(() => Tool)
  tool(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<Tool> {
    return requireTool(scopeOf(ctx), id);
  }

  @Mutation(() => Tool, { description: 'Creates a tool, within the plan’s limit of tools per account.' })
  createTool(@Arg('input', () => CreateToolInput) input: CreateToolInput, @Ctx() ctx: GraphQLContext): Promise<Tool> {
    return createTool({ ...scopeOf(ctx), secrets: ctx.secrets }, input);
  }

  @Mutation(() => Tool)
  updateTool(
    @Arg('id', () => Int) id: number,
    @Arg('input', () => UpdateToolInput) input: UpdateToolInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<Tool> {
    return updateTool({ ...scopeOf(ctx), secrets: ctx.secrets }, id, input);
  }

  @Mutation(() => Boolean, { description: 'Deletes the tool; assistants that used it lose it.' })
  async deleteTool(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    await deleteTool(scopeOf(ctx), id);
    return true;
  }

  @FieldResolver(() => [ToolHeader])
  headers(@Root() tool: Tool, @Ctx() ctx: GraphQLContext): ToolHeader[] {
    return toolHeaders(ctx.secrets, tool);
  }
}
