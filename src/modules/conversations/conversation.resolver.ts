import DataLoader from 'dataloader';
import { Arg, Authorized, Ctx, FieldResolver, Int, Mutation, Query, Resolver, Root, Subscription } from 'type-graphql';
import { Messages, NotFoundError, UnauthenticatedError } from '../../errors';
import { Assistant } from '../assistants/assistant.entity';
import { disableConversationEndedWebhook, enableConversationEndedWebhook } from '../assistants/assistant.service';
import type { ConversationPiece } from '../events/event.bus';
import { readScopeOf, scopeOf, type GraphQLContext } from '../../graphql/context';
import { CreateConversationInput, GenerateAiReplyInput, SendConversationMessageInput } from './conversation.inputs';
import {
  closeConversation,
  createConversation,
  generateAiReply,
  listConversations,
  messagesOf,
  requireConversation,
  sendConversationMessage,
  setConversationAi,
  storedMessage,
} from './conversation.service';
import { UUID } from './conversation.rows';
import { conversationPieces, watchConversation } from './conversation.stream';
import { Conversation, ConversationExchange, ConversationMessage, ConversationPage, ConversationUpdate } from './conversation.types';

/** A request's loader of conversations' messages: a page of conversations reads them in one statement. */
const loaders = new WeakMap<GraphQLContext['loaders'], DataLoader<string, ConversationMessage[]>>();
function messagesLoader(ctx: GraphQLContext): DataLoader<string, ConversationMessage[]> {
  // Keyed by the context's loaders, which a subscription renews with its EntityManager.
  let loader = loaders.get(ctx.loaders);
  if (!loader) {
    loader = new DataLoader((ids: readonly string[]) => messagesOf(ctx.em, ids));
    loaders.set(ctx.loaders, loader);
  }
  return loader;
}

@Authorized()
@Resolver(() => Conversation)
export class ConversationResolver {
  @Query(() => ConversationPage, { description: 'The account’s conversations, newest first, by cursor (`next_cursor`).' })
  conversations(
    @Ctx() ctx: GraphQLContext,
    @Arg('type', () => String, { nullable: true }) type?: string | null,
    @Arg('assistant_id', () => Int, { nullable: true }) assistantId?: number | null,
    @Arg('customer_phone', () => String, { nullable: true }) customerPhone?: string | null,
    @Arg('external_identifier', () => String, { nullable: true }) externalIdentifier?: string | null,
    @Arg('per_page', () => Int, { nullable: true, description: '1 to 100; default 15.' }) perPage?: number | null,
    @Arg('cursor', () => String, { nullable: true, description: 'The previous page’s next_cursor.' }) cursor?: string | null,
  ): Promise<ConversationPage> {
    return listConversations(scopeOf(ctx), {
      type,
      assistant_id: assistantId,
      customer_phone: customerPhone,
      external_identifier: externalIdentifier,
      per_page: perPage,
      cursor,
    });
  }

  @Query(() => Conversation)
  conversation(@Arg('uuid', () => String) uuid: string, @Ctx() ctx: GraphQLContext): Promise<Conversation> {
    return requireConversation(scopeOf(ctx), uuid);
  }

  @FieldResolver(() => [ConversationMessage], { description: 'Oldest first.' })
  messages(@Root() conversation: Conversation, @Ctx() ctx: GraphQLContext): Promise<ConversationMessage[]> {
    return messagesLoader(ctx).load(conversation.id);
  }

  @Mutation(() => Conversation, { description: 'Opens a conversation with one of the account’s assistants (test: free).' })
  createConversation(@Arg('input', () => CreateConversationInput) input: CreateConversationInput, @Ctx() ctx: GraphQLContext): Promise<Conversation> {
    return createConversation(scopeOf(ctx), input);
  }

  @Mutation(() => ConversationExchange, {
    description:
      'Sends a message: the customer’s, answered by the assistant (its prompt, tools and knowledge base) while the AI is on; or, with sender human while it is off, a person’s (in an SMS or WhatsApp conversation sent to the customer, charged like an SMS). Messages to one conversation are answered one at a time, in order.',
  })
  sendConversationMessage(
    @Arg('uuid', () => String) uuid: string,
    @Arg('input', () => SendConversationMessageInput) input: SendConversationMessageInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<ConversationExchange> {
    // Its statements keep nothing in an EntityManager (conversation.exchange.ts): the ORM's own serves them.
    return sendConversationMessage(readScopeOf(ctx), uuid, input, ctx.replier, ctx.sms);
  }

  @Mutation(() => Conversation, {
    description: 'Closes the conversation: no more messages; then the assistant’s post_call_schema is extracted from the transcript and its conversation-ended webhook posted.',
  })
  closeConversation(@Arg('uuid', () => String) uuid: string, @Ctx() ctx: GraphQLContext): Promise<Conversation> {
    return closeConversation(scopeOf(ctx), uuid);
  }

  @Mutation(() => Conversation, { description: 'Human takeover ends: the assistant answers the customer’s messages again.' })
  enableConversationAi(@Arg('uuid', () => String) uuid: string, @Ctx() ctx: GraphQLContext): Promise<Conversation> {
    return setConversationAi(scopeOf(ctx), uuid, true);
  }

  @Mutation(() => Conversation, { description: 'Human takeover: the assistant stays silent; a person answers with sender human.' })
  disableConversationAi(@Arg('uuid', () => String) uuid: string, @Ctx() ctx: GraphQLContext): Promise<Conversation> {
    return setConversationAi(scopeOf(ctx), uuid, false);
  }

  @Mutation(() => ConversationExchange, {
    description: 'The assistant’s reply to a customer known by customer_identifier: their api conversation with the assistant goes on from one request to the next.',
  })
  generateAiReply(@Arg('input', () => GenerateAiReplyInput) input: GenerateAiReplyInput, @Ctx() ctx: GraphQLContext): Promise<ConversationExchange> {
    return generateAiReply(scopeOf(ctx), input, ctx.replier);
  }

  @Mutation(() => Assistant, { description: 'The assistant’s conversation-ended webhook on: each closed conversation is posted to webhook_url, signed as the post-call webhook is.' })
  enableConversationEndedWebhook(
    @Arg('assistant_id', () => Int) assistantId: number,
    @Arg('webhook_url', () => String) webhookUrl: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<Assistant> {
    return enableConversationEndedWebhook(scopeOf(ctx), assistantId, webhookUrl);
  }

  @Mutation(() => Assistant, { description: 'The assistant’s conversation-ended webhook off.' })
  disableConversationEndedWebhook(@Arg('assistant_id', () => Int) assistantId: number, @Ctx() ctx: GraphQLContext): Promise<Assistant> {
    return disableConversationEndedWebhook(scopeOf(ctx), assistantId);
  }

  @Subscription(() => ConversationUpdate, {
    description:
      'A conversation as it goes on: the assistant’s reply piece by piece as the model writes it (`delta`; a reply begun before the subscription comes whole, as its message), then each message as stored (`message`). Another account’s uuid is not found, like a missing one.',
    subscribe: async ({ args, context }) => {
      const ctx = context as GraphQLContext;
      if (ctx.accountId === null || !ctx.events) throw new UnauthenticatedError();
      // Listening first: nothing written between the check and the listening is missed.
      const uuid = String(args.uuid);
      const pieces = conversationPieces(ctx.events, ctx.em, ctx.accountId, uuid);
      // Followed from now on, when it is the account's: its replies are streamed piece by piece.
      let found = false;
      try {
        found = UUID.test(uuid) && (await watchConversation(ctx.em, ctx.accountId, uuid));
      } finally {
        if (!found) await pieces.return!();
      }
      if (!found) throw new NotFoundError(Messages.conversationNotFound);
      return pieces;
    },
  })
  async conversationUpdated(@Root() piece: ConversationPiece, @Ctx() ctx: GraphQLContext, @Arg('uuid', () => String) uuid: string): Promise<ConversationUpdate> {
    // A fresh ORM context for each piece, so that a long subscription keeps nothing.
    ctx.renew();
    const message = piece.m ? await storedMessage(scopeOf(ctx), uuid, piece.m) : null;
    return Object.assign(new ConversationUpdate(), { uuid, delta: piece.d ?? null, message });
  }
}
