import { Arg, Authorized, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import { scopeOf, type GraphQLContext } from '../../graphql/context';
import { KnowledgeBase } from './knowledge-base.entity';
import { KnowledgeDocument } from './knowledge-document.entity';
import { CreateKnowledgeBaseInput, CreateKnowledgeDocumentInput, UpdateKnowledgeBaseInput, UpdateKnowledgeDocumentInput } from './knowledge.inputs';
import { KnowledgeSearchHit, searchKnowledgeBase } from './knowledge.search';
import {
  createKnowledgeBase,
  createKnowledgeDocument,
  deleteKnowledgeBase,
  deleteKnowledgeDocument,
  reingestKnowledgeDocument,
  getKnowledgeBase,
  listKnowledgeBases,
  listKnowledgeDocuments,
  requireKnowledgeDocument,
  updateKnowledgeBase,
  updateKnowledgeDocument,
} from './knowledge.service';

@Authorized()
@Resolver(() => KnowledgeBase)
export class KnowledgeResolver {
  @Query(() => [KnowledgeBase], { description: "The account's knowledge bases, oldest first." })
  knowledgeBases(@Ctx() ctx: GraphQLContext): Promise<KnowledgeBase[]> {
    return listKnowledgeBases(scopeOf(ctx));
  }

  @Query(() => KnowledgeBase)
  knowledgeBase(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<KnowledgeBase> {
    return getKnowledgeBase(scopeOf(ctx), id);
  }

  @Mutation(() => KnowledgeBase, { description: 'Creates a knowledge base, within the plan’s limit of bases per account (KB_MAX_BASES).' })
  createKnowledgeBase(@Arg('input', () => CreateKnowledgeBaseInput) input: CreateKnowledgeBaseInput, @Ctx() ctx: GraphQLContext): Promise<KnowledgeBase> {
    return createKnowledgeBase(scopeOf(ctx), input);
  }

  @Mutation(() => KnowledgeBase)
  updateKnowledgeBase(
    @Arg('id', () => Int) id: number,
    @Arg('input', () => UpdateKnowledgeBaseInput) input: UpdateKnowledgeBaseInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<KnowledgeBase> {
    return updateKnowledgeBase(scopeOf(ctx), id, input);
  }

  @Mutation(() => Boolean, { description: 'Deletes the base with its documents and their chunks.' })
  async deleteKnowledgeBase(@Arg('id', () => Int) id: number, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    await deleteKnowledgeBase(scopeOf(ctx), id);
    return true;
  }

  @Query(() => [KnowledgeDocument], { description: "A knowledge base's documents, oldest first." })
  knowledgeDocuments(@Arg('knowledgebase_id', () => Int) knowledgeBaseId: number, @Ctx() ctx: GraphQLContext): Promise<KnowledgeDocument[]> {
    return listKnowledgeDocuments(scopeOf(ctx), knowledgeBaseId);
  }

  @Query(() => KnowledgeDocument)
  knowledgeDocument(
    @Arg('knowledgebase_id', () => Int) knowledgeBaseId: number,
    @Arg('id', () => Int) id: number,
    @Ctx() ctx: GraphQLContext,
  ): Promise<KnowledgeDocument> {
    return requireKnowledgeDocument(scopeOf(ctx), knowledgeBaseId, id);
  }

  @Mutation(() => KnowledgeDocument, {
    description:
      'Adds a document (status processing; ingested on the job queue), within the plan’s limit of documents per base (KB_MAX_DOCUMENTS). Files (pdf, docx, txt) come through the REST route’s multipart `file`.',
  })
  createKnowledgeDocument(
    @Arg('knowledgebase_id', () => Int) knowledgeBaseId: number,
    @Arg('input', () => CreateKnowledgeDocumentInput) input: CreateKnowledgeDocumentInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<KnowledgeDocument> {
    return createKnowledgeDocument(scopeOf(ctx), knowledgeBaseId, input, ctx.upload);
  }

  @Mutation(() => KnowledgeDocument)
  updateKnowledgeDocument(
    @Arg('knowledgebase_id', () => Int) knowledgeBaseId: number,
    @Arg('id', () => Int) id: number,
    @Arg('input', () => UpdateKnowledgeDocumentInput) input: UpdateKnowledgeDocumentInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<KnowledgeDocument> {
    return updateKnowledgeDocument(scopeOf(ctx), knowledgeBaseId, id, input);
  }

  @Mutation(() => KnowledgeDocument, {
    description: 'Reads the document again (a website that changed, a document that failed): processing until its new chunks replace the old, which stay searchable meanwhile.',
  })
  reingestKnowledgeDocument(
    @Arg('knowledgebase_id', () => Int) knowledgeBaseId: number,
    @Arg('id', () => Int) id: number,
    @Ctx() ctx: GraphQLContext,
  ): Promise<KnowledgeDocument> {
    return reingestKnowledgeDocument(scopeOf(ctx), knowledgeBaseId, id);
  }

  @Mutation(() => Boolean, { description: 'Deletes the document and its chunks.' })
  async deleteKnowledgeDocument(
    @Arg('knowledgebase_id', () => Int) knowledgeBaseId: number,
    @Arg('id', () => Int) id: number,
    @Ctx() ctx: GraphQLContext,
  ): Promise<boolean> {
    await deleteKnowledgeDocument(scopeOf(ctx), knowledgeBaseId, id);
    return true;
  }

  @Query(() => [KnowledgeSearchHit], { description: 'Search of a base’s chunks, best first (full text, fused with the embeddings’ ranking when EMBEDDINGS_MODEL is set): for people testing their documents.' })
  searchKnowledgeBase(
    @Arg('id', () => Int) id: number,
    @Arg('q', () => String) q: string,
    @Arg('limit', () => Int, { nullable: true, description: '1 to 50; default 5.' }) limit: number | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<KnowledgeSearchHit[]> {
    return searchKnowledgeBase(scopeOf(ctx), id, q, limit, { embedder: ctx.embedder });
  }
}
