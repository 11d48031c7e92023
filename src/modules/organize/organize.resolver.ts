import { Arg, Args, Authorized, Ctx, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { scopeOf, type GraphQLContext } from '../../graphql/context';
import { PageType } from '../../graphql/pagination';
import { Folder } from './folder.entity';
import { Label } from './label.entity';
import { BadgeListArgs, CreateFolderInput, CreateLabelInput, UpdateFolderInput, UpdateLabelInput } from './organize.inputs';
import { createFolder, createLabel, deleteFolder, deleteLabel, listFolders, listLabels, updateFolder, updateLabel } from './organize.service';

@ObjectType('FolderPage', { simpleResolvers: true })
export class FolderPage extends PageType(Folder) {}

@ObjectType('LabelPage', { simpleResolvers: true })
export class LabelPage extends PageType(Label) {}

@Authorized()
@Resolver(() => Folder)
export class FolderResolver {
  @Query(() => FolderPage, { description: "A page of the account's folders, oldest first, each with its assistants_count." })
  folders(@Args(() => BadgeListArgs) args: BadgeListArgs, @Ctx() ctx: GraphQLContext): Promise<FolderPage> {
    return listFolders(scopeOf(ctx), args);
  }

  @Mutation(() => Folder, { description: 'Creates a folder; assistants go in it through their folder_id.' })
  createFolder(@Arg('input', () => CreateFolderInput) input: CreateFolderInput, @Ctx() ctx: GraphQLContext): Promise<Folder> {
    return createFolder(scopeOf(ctx), input);
  }

  @Mutation(() => Folder)
  updateFolder(@Arg('id', () => Int) id: number, @Arg('input', () => UpdateFolderInput) input: UpdateFolderInput, @Ctx() ctx: GraphQLContext): Promise<Folder> {
    return updateFolder(scopeOf(ctx), id, input);
  }

  @Mutation(() => Boolean, { description: 'Deletes the folder; its assistants stay, in no folder.' })
  async deleteFolder(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    await deleteFolder(scopeOf(ctx), id);
    return true;
  }
}

@Authorized()
@Resolver(() => Label)
export class LabelResolver {
  @Query(() => LabelPage, { description: "A page of the account's labels, oldest first, each with its assistants_count." })
  labels(@Args(() => BadgeListArgs) args: BadgeListArgs, @Ctx() ctx: GraphQLContext): Promise<LabelPage> {
    return listLabels(scopeOf(ctx), args);
  }

  @Mutation(() => Label, { description: 'Creates a label; assistants carry it through their label_ids.' })
  createLabel(@Arg('input', () => CreateLabelInput) input: CreateLabelInput, @Ctx() ctx: GraphQLContext): Promise<Label> {
    return createLabel(scopeOf(ctx), input);
  }

  @Mutation(() => Label)
  updateLabel(@Arg('id', () => Int) id: number, @Arg('input', () => UpdateLabelInput) input: UpdateLabelInput, @Ctx() ctx: GraphQLContext): Promise<Label> {
    return updateLabel(scopeOf(ctx), id, input);
  }

  @Mutation(() => Boolean, { description: 'Deletes the label and takes it off its assistants.' })
  async deleteLabel(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    await deleteLabel(scopeOf(ctx), id);
    return true;
  }
}
