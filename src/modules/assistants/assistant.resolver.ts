import { Arg, Authorized, Ctx, FieldResolver, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { scopeOf, type GraphQLContext } from '../../graphql/context';
import { Voice } from '../catalog/voice.entity';
import { Folder } from '../organize/folder.entity';
import { Label } from '../organize/label.entity';
import { Tool } from '../tools/tool.entity';
import { Assistant } from './assistant.entity';
import { voiceMissing } from './assistant.voice';
import { CreateAssistantInput, UpdateAssistantInput } from './assistant.inputs';
import {
  createAssistant,
  deleteAssistant,
  disableWebhook,
  enableWebhook,
  listAssistants,
  requireAssistant,
  updateAssistant,
} from './assistant.service';

@Authorized()
@Resolver(() => Assistant)
export class AssistantResolver {
  @Query(() => [Assistant], { description: "The account's assistants, oldest first." })
  assistants(
    @Arg('calls_direction', () => String, { nullable: true, description: 'Only `make` (outbound) or `receive` (inbound) assistants.' })
    callsDirection: string | null,
    @Arg('folder_id', () => Int, { nullable: true, description: 'Only the assistants in this folder.' }) folderId: number | null,
    @Arg('label_id', () => Int, { nullable: true, description: 'Only the assistants with this label.' }) labelId: number | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<Assistant[]> {
    return listAssistants(scopeOf(ctx), { calls_direction: callsDirection, folder_id: folderId, label_id: labelId });
  }

  @Query(() => Assistant)
  assistant(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<Assistant> {
    return requireAssistant(scopeOf(ctx), id);
  }

  @Mutation(() => Assistant, { description: 'Optional fields left out take the documented defaults.' })
  createAssistant(@Arg('input', () => CreateAssistantInput) input: CreateAssistantInput, @Ctx() ctx: GraphQLContext): Promise<Assistant> {
    return createAssistant(scopeOf(ctx), input);
  }

  @Mutation(() => Assistant)
  updateAssistant(
    @Arg('id', () => Int) id: number,
    @Arg('input', () => UpdateAssistantInput) input: UpdateAssistantInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<Assistant> {
    return updateAssistant(scopeOf(ctx), id, input);
  }

  @Mutation(() => Boolean)
  async deleteAssistant(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    await deleteAssistant(scopeOf(ctx), id);
    return true;
  }

  @Mutation(() => Assistant, { description: "Turns the assistant's webhook on, sending call results to webhook_url." })
  enableInboundWebhook(
    @Arg('assistant_id', () => Int) assistantId: number,
    @Arg('webhook_url', () => String) webhookUrl: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<Assistant> {
    return enableWebhook(scopeOf(ctx), assistantId, webhookUrl);
  }

  @Mutation(() => Assistant, { description: "Turns the assistant's webhook off and forgets its URL." })
  disableWebhook(@Arg('assistant_id', () => Int) assistantId: number, @Ctx() ctx: GraphQLContext): Promise<Assistant> {
    return disableWebhook(scopeOf(ctx), assistantId);
  }

  @FieldResolver(() => Int)
  voice_id(@Root() assistant: Assistant): number {
    return assistant.voice.id;
  }

  @FieldResolver(() => Voice)
  async voice(@Root() assistant: Assistant, @Ctx() ctx: GraphQLContext): Promise<Voice> {
    return (await ctx.loaders.voice.load(assistant.voice.id))!;
  }

  @FieldResolver(() => Int, { nullable: true })
  phone_number_id(@Root() assistant: Assistant): number | null {
    return assistant.phone_number?.id ?? null;
  }

  @FieldResolver(() => String, { nullable: true, description: 'The E.164 number of phone_number_id.' })
  async phone_number(@Root() assistant: Assistant, @Ctx() ctx: GraphQLContext): Promise<string | null> {
    if (!assistant.phone_number) return null;
    return (await ctx.loaders.phoneNumber.load(assistant.phone_number.id))?.number ?? null;
  }

  @FieldResolver(() => [Int])
  async tool_ids(@Root() assistant: Assistant, @Ctx() ctx: GraphQLContext): Promise<number[]> {
    return (await ctx.loaders.toolsByAssistant.load(assistant.id)).map((tool) => tool.id);
  }

  @FieldResolver(() => Folder, { nullable: true, description: 'The folder of folder_id.' })
  async folder(@Root() assistant: Assistant, @Ctx() ctx: GraphQLContext): Promise<Folder | null> {
    return assistant.folder_id === null ? null : ((await ctx.loaders.folder.load(assistant.folder_id)) ?? null);
  }

  @FieldResolver(() => [Int], { description: 'Its labels’ ids, in id order.' })
  async label_ids(@Root() assistant: Assistant, @Ctx() ctx: GraphQLContext): Promise<number[]> {
    return (await ctx.loaders.labelsByAssistant.load(assistant.id)).map((label) => label.id);
  }

  @FieldResolver(() => [Label], { description: 'Its labels, in id order.' })
  labels(@Root() assistant: Assistant, @Ctx() ctx: GraphQLContext): Promise<Label[]> {
    return ctx.loaders.labelsByAssistant.load(assistant.id);
  }

  @FieldResolver(() => Boolean, {
    description:
      'Whether this server has what the assistant’s engine needs to speak (multimodal: OPENAI_API_KEY; pipeline: its speech-to-text, model and voice vendors’ keys). Web calls always run on this server’s engines; phone calls of pipeline assistants go to PIPELINE_ENGINE_URL when it is set.',
  })
  async voice_ready(@Root() assistant: Assistant, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    return (await this.missing(assistant, ctx)).length === 0;
  }

  @FieldResolver(() => [String], { description: 'The environment variables this server lacks for the assistant’s engine to speak; empty when voice_ready.' })
  voice_missing(@Root() assistant: Assistant, @Ctx() ctx: GraphQLContext): Promise<string[]> {
    return this.missing(assistant, ctx);
  }

  private async missing(assistant: Assistant, ctx: GraphQLContext): Promise<string[]> {
    const [voice, modelProvider] = await Promise.all([ctx.loaders.voice.load(assistant.voice.id), ctx.loaders.modelProvider.load(assistant.llm_model)]);
    return voiceMissing(ctx.config.voice, { engine_type: assistant.engine_type, modelProvider, voiceProvider: voice?.provider ?? null, transcriber: assistant.transcriber });
  }

  @FieldResolver(() => [Tool])
  tools(@Root() assistant: Assistant, @Ctx() ctx: GraphQLContext): Promise<Tool[]> {
    return ctx.loaders.toolsByAssistant.load(assistant.id);
  }
}
