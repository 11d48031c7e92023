import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, InputType, Int } from 'type-graphql';
import { MAX_CUSTOMER_IDENTIFIER, OPEN_TYPES, SENDERS } from './conversation.rules';

const MESSAGE = '1 to CONVERSATION_MAX_MESSAGE_CHARS characters (2,000 by default, as the original platform).';

@InputType('CreateConversationInput')
export class CreateConversationInput {
  @Field(() => Int)
  assistant_id!: number;

  @Field(() => String, { nullable: true, description: `One of: ${OPEN_TYPES.join(', ')}; default test (free).` })
  type?: string | null;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Filled into the assistant’s prompt, over the assistant’s own variables.' })
  variables?: Record<string, unknown> | null;
}

@InputType('SendConversationMessageInput')
export class SendConversationMessageInput {
  @Field(() => String, { description: MESSAGE })
  message!: string;

  @Field(() => String, { nullable: true, description: `One of: ${SENDERS.join(', ')}; default user. human: a person of the business, only while the AI is off.` })
  sender?: string | null;
}

@InputType('GenerateAiReplyInput')
export class GenerateAiReplyInput {
  @Field(() => Int)
  assistant_id!: number;

  @Field(() => String, { description: `The customer (a phone, an email, a CRM id): 1 to ${MAX_CUSTOMER_IDENTIFIER} characters; their conversation goes on from one call to the next.` })
  customer_identifier!: string;

  @Field(() => String, { description: MESSAGE })
  message!: string;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Merged into the conversation’s variables.' })
  variables?: Record<string, unknown> | null;
}
