import { closeIdleConversations, deliverEndedWebhook, runConversationEnded } from '../../modules/conversations/conversation.close';
import { answerInbound } from '../../modules/conversations/conversation.inbound';
import type { Task } from './task';

/** A closed conversation's post-call extraction; its last attempt goes on without it. */
export const conversationEndedTask: Task<'conversations:ended'> = {
  run: (runtime, { conversation_id }, helpers) =>
    runConversationEnded(runtime.orm.em.fork(), runtime.lifecycle, conversation_id, helpers.job.attempts >= helpers.job.max_attempts),
};

/** One attempt of a closed conversation's conversation-ended webhook; a failure schedules the next one itself. */
export const conversationWebhookTask: Task<'conversations:webhook'> = {
  run: (runtime, { conversation_id }) => deliverEndedWebhook(runtime.orm.em.fork(), runtime.lifecycle, conversation_id),
};

/** Every minute (the runner's crontab): the conversations idle for CONVERSATION_IDLE_MINUTES closed. */
export const conversationIdleTask: Task<'conversations:idle'> = {
  async run(runtime) {
    const closed = await closeIdleConversations(runtime.orm.em.fork(), runtime.config.conversationIdleMinutes);
    if (closed > 0) runtime.logger.info(`conversations: closed ${closed} idle conversation(s)`);
  },
};

/** A customer's SMS or WhatsApp message (the messaging webhook stored it): the assistant's answer, sent through the SMS provider. */
export const conversationInboundTask: Task<'conversations:inbound'> = {
  run: (runtime, { message_sid, opt_out_type }) => answerInbound(runtime.orm.em.fork(), runtime, message_sid, opt_out_type),
};
