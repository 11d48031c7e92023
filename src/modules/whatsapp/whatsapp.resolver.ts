import { GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Authorized, Ctx, Field, Float, InputType, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { scopeOf, type GraphQLContext } from '../../graphql/context';
import {
  listSenders,
  listTemplates,
  MAX_FREEFORM,
  SENDER_STATUSES,
  sendFreeform,
  sendTemplate,
  sessionStatus,
  TEMPLATE_STATUSES,
  type SenderRecord,
  type SessionStatusRecord,
  type TemplateRecord,
  type WhatsappSendRecord,
} from './whatsapp.service';

@ObjectType('WhatsappSender', { simpleResolvers: true, description: 'One of the account’s numbers marked whatsapp.' })
export class WhatsappSender implements SenderRecord {
  @Field(() => Int, { description: 'The number’s id (GET /user/phone-numbers).' })
  id!: number;

  @Field(() => String, { description: 'E.164.' })
  phone_number!: string;

  @Field(() => String, { description: 'online: it sends; offline: its subscription expired.' })
  status!: string;

  @Field(() => Int, { nullable: true, description: 'The inbound assistant that answers its messages (their conversations are its).' })
  assistant_id!: number | null;

  @Field(() => String, { nullable: true, description: 'The last day of its subscription (YYYY-MM-DD).' })
  expires_at!: string | null;
}

@ObjectType('WhatsappTemplate', { simpleResolvers: true, description: 'A WhatsApp message template (Twilio’s Content API).' })
export class WhatsappTemplate implements TemplateRecord {
  @Field(() => Int, { description: 'The template_id a send takes.' })
  id!: number;

  @Field(() => String, { description: 'Twilio’s Content SID (HX...).' })
  sid!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true })
  language!: string | null;

  @Field(() => String, { nullable: true, description: 'WhatsApp’s category: UTILITY, MARKETING, AUTHENTICATION.' })
  category!: string | null;

  @Field(() => String, { description: 'WhatsApp’s approval: approved, pending, rejected, unsubmitted...' })
  status!: string;

  @Field(() => String, { nullable: true, description: 'Its text, with {{name}} where a variable goes.' })
  body!: string | null;

  @Field(() => GraphQLJSONObject, { description: 'Each variable’s sample value, by name: a send gives every one.' })
  variables!: Record<string, string>;
}

@ObjectType('WhatsappMessage', { simpleResolvers: true, description: 'A WhatsApp message sent, charged like an SMS.' })
export class WhatsappMessage implements WhatsappSendRecord {
  @Field(() => Int, { description: 'The message’s id among the account’s SMS (GET /user/sms).' })
  id!: number;

  @Field(() => Int)
  sender_id!: number;

  @Field(() => String, { description: 'E.164.' })
  recipient_phone!: string;

  @Field(() => String, { description: 'The text sent (a template’s, with its variables).' })
  body!: string;

  @Field(() => Int, { nullable: true })
  template_id!: number | null;

  @Field(() => String, { description: 'sent, or sending while the provider’s answer is unknown.' })
  status!: string;

  @Field(() => Int)
  segments!: number;

  @Field(() => Float)
  total_cost!: string;

  @Field(() => String, { nullable: true, description: 'The provider’s message id.' })
  message_sid!: string | null;

  @Field(() => String, { description: 'The customer’s whatsapp conversation, where the message is written.' })
  conversation_uuid!: string;
}

@ObjectType('WhatsappSessionStatus', { simpleResolvers: true, description: 'The 24-hour customer service window of a recipient with a sender.' })
export class WhatsappSessionStatus implements SessionStatusRecord {
  @Field(() => Int)
  sender_id!: number;

  @Field(() => String)
  recipient_phone!: string;

  @Field(() => Boolean, { description: 'A free-form message can be sent.' })
  session_open!: boolean;

  @Field(() => String, { nullable: true, description: 'The recipient’s last message to the sender (ISO 8601, UTC).' })
  last_inbound_at!: string | null;

  @Field(() => String, { nullable: true, description: '24 hours after it.' })
  expires_at!: string | null;
}

@InputType('SendWhatsappTemplateInput')
export class SendWhatsappTemplateInput {
  @Field(() => Int)
  sender_id!: number;

  @Field(() => Int)
  template_id!: number;

  @Field(() => String, { description: 'E.164.' })
  recipient_phone!: string;

  @Field(() => String, { nullable: true })
  recipient_name?: string | null;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'The template’s variables by name, each a text or a number.' })
  variables?: Record<string, unknown> | null;
}

@InputType('SendWhatsappFreeformInput')
export class SendWhatsappFreeformInput {
  @Field(() => Int)
  sender_id!: number;

  @Field(() => String, { description: 'E.164.' })
  recipient_phone!: string;

  @Field(() => String, { description: `At most ${MAX_FREEFORM} characters.` })
  message!: string;
}

@Authorized()
@Resolver()
export class WhatsappResolver {
  @Query(() => [WhatsappSender], { description: 'The account’s WhatsApp senders.' })
  whatsappSenders(
    @Arg('status', () => String, { nullable: true, description: `${SENDER_STATUSES.join(', ')}; default online.` }) status: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<SenderRecord[]> {
    return listSenders(scopeOf(ctx), status);
  }

  @Query(() => [WhatsappTemplate], { description: 'A sender’s WhatsApp templates, from the provider.' })
  whatsappTemplates(
    @Arg('sender_id', () => Int) senderId: number,
    @Arg('status', () => String, { nullable: true, description: `${TEMPLATE_STATUSES.join(', ')}; default approved.` }) status: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<TemplateRecord[]> {
    return listTemplates(scopeOf(ctx), ctx.sms, senderId, status);
  }

  @Query(() => WhatsappSessionStatus, { description: 'Whether a free-form message to the recipient can be sent from the sender.' })
  whatsappSessionStatus(
    @Arg('sender_id', () => Int) senderId: number,
    @Arg('recipient_phone', () => String) recipientPhone: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<SessionStatusRecord> {
    return sessionStatus(scopeOf(ctx), senderId, recipientPhone);
  }

  @Mutation(() => WhatsappMessage, { description: 'Sends an approved template, charged like an SMS.' })
  sendWhatsappTemplate(@Arg('input', () => SendWhatsappTemplateInput) input: SendWhatsappTemplateInput, @Ctx() ctx: GraphQLContext): Promise<WhatsappSendRecord> {
    return sendTemplate(scopeOf(ctx), ctx.sms, input);
  }

  @Mutation(() => WhatsappMessage, { description: 'Sends a free-form message inside the recipient’s 24-hour window, charged like an SMS.' })
  sendWhatsappFreeform(@Arg('input', () => SendWhatsappFreeformInput) input: SendWhatsappFreeformInput, @Ctx() ctx: GraphQLContext): Promise<WhatsappSendRecord> {
    return sendFreeform(scopeOf(ctx), ctx.sms, input);
  }
}
