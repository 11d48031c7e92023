import { Field, Float, Int, ObjectType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { CONVERSATION_TYPES, MESSAGE_ROLES } from './conversation.rules';

@ObjectType('ConversationMessage', { simpleResolvers: true })
export class ConversationMessage {
  @Field(() => String, { description: `One of: ${MESSAGE_ROLES.join(', ')} (human: a person of the business, while the AI is off).` })
  role!: string;

  @Field(() => String)
  content!: string;

  @Field(() => String, { description: 'ISO 8601, UTC.' })
  created_at!: string;
}

@ObjectType('ConversationUsage', { simpleResolvers: true, description: 'The tokens the assistant’s model used on the conversation.' })
export class ConversationUsage {
  @Field(() => Int)
  llm_input_tokens!: number;

  @Field(() => Int)
  llm_output_tokens!: number;
}

@ObjectType('Conversation', { description: 'An assistant’s conversation over text.' })
export class Conversation {
  /** The row's key, never shown: clients know a conversation by its uuid. */
  id!: string;

  @Field(() => String)
  uuid!: string;

  @Field(() => String, { description: `One of: ${CONVERSATION_TYPES.join(', ')}.` })
  type!: string;

  @Field(() => Int, { nullable: true, description: 'Null once the assistant was deleted.' })
  assistant_id!: number | null;

  @Field(() => String, { nullable: true, description: 'E.164; sms and whatsapp conversations.' })
  customer_phone!: string | null;

  @Field(() => String, { nullable: true, description: 'The customer_identifier of POST /ai/generate-reply (api conversations).' })
  external_identifier!: string | null;

  @Field(() => GraphQLJSONObject, { description: 'Filled into the assistant’s prompt ({{name}}).' })
  variables!: Record<string, unknown>;

  @Field(() => Boolean, { description: 'False while a person has taken the conversation over: the assistant answers nothing.' })
  ai_enabled!: boolean;

  @Field(() => ConversationUsage)
  usage!: ConversationUsage;

  @Field(() => Float, { description: 'What the conversation was charged (test conversations are free).' })
  total_cost!: string;

  @Field(() => String, { description: 'ISO 8601, UTC.' })
  created_at!: string;

  @Field(() => String, { description: 'ISO 8601, UTC: the last message.' })
  updated_at!: string;

  @Field(() => String, { nullable: true, description: 'ISO 8601, UTC; null while open. A closed conversation takes no more messages.' })
  closed_at!: string | null;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'The assistant’s post_call_schema values from the transcript, once the closed conversation’s post-call work is done.' })
  extracted_variables!: Record<string, unknown> | null;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'With the assistant’s post_call_evaluation: sentiment, outcome, score (0-10).' })
  evaluation!: Record<string, unknown> | null;
}

@ObjectType('ConversationPage', { description: 'Newest first; `next_cursor` (null on the last page) asks for the next page.' })
export class ConversationPage {
  @Field(() => [Conversation])
  data!: Conversation[];

  @Field(() => Int)
  per_page!: number;

  @Field(() => String, { nullable: true })
  next_cursor!: string | null;
}

@ObjectType('ConversationExchange', { description: 'A message sent, and the assistant’s reply to it (null: the AI is off, or the message was a person’s).' })
export class ConversationExchange {
  @Field(() => String)
  uuid!: string;

  @Field(() => ConversationMessage)
  message!: ConversationMessage;

  @Field(() => ConversationMessage, { nullable: true })
  reply!: ConversationMessage | null;

  @Field(() => Boolean)
  ai_enabled!: boolean;

  @Field(() => ConversationUsage, { description: 'The conversation’s, this reply included.' })
  usage!: ConversationUsage;

  @Field(() => Float)
  total_cost!: string;
}

@ObjectType('ConversationUpdate', {
  simpleResolvers: true,
  description: 'A piece of the assistant’s reply as it is written (`delta`), or a message stored (`message`: the customer’s, a person’s, or the whole reply after its pieces).',
})
export class ConversationUpdate {
  @Field(() => String)
  uuid!: string;

  @Field(() => String, { nullable: true, description: 'Text of the reply being written, in order; null on a stored message.' })
  delta!: string | null;

  @Field(() => ConversationMessage, { nullable: true })
  message!: ConversationMessage | null;
}
