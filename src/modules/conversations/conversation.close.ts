import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, Messages } from '../../errors';
import { enqueue } from '../../jobs/queue';
import { OutboundError, type OutboundResponse } from '../../lib/outbound';
import { Assistant } from '../assistants/assistant.entity';
import type { LifecycleDeps, PostCallAnalysis } from '../calls/call.ports';
import { JSON_TYPES } from '../calls/call.post-call';
import { classify, postSigned, retryDelaySeconds, webhookSecret } from '../webhooks/webhook.service';

/**
 * A conversation's close (design.md, "Conversations"): by `POST /conversations/{uuid}/close`
 * or after CONVERSATION_IDLE_MINUTES without a message. It takes no more messages; then, on
 * the job queue, the assistant's `post_call_schema` is extracted (and the conversation
 * evaluated) from the transcript by the calls' post-call analyst, and the assistant's
 * conversation-ended webhook is posted, signed as its post-call webhook is, with the
 * post-call webhooks' retries.
 */

export const closedError = () => new DomainError('CONFLICT', Messages.conversationClosed);

/**
 * Closes the conversation `id` in the caller's transaction, once: answers false when it was
 * already closed. Its post-call job commits with the close.
 */
export async function closeRow(tx: EntityManager, id: string): Promise<boolean> {
  const [row] = await tx.execute<{ id: string; replying_until: Date | null }[]>(
    `update conversations set closed_at = now(), post_call_pending = true where id = ? and closed_at is null
     returning id::text, case when reply_lease_until > now() then reply_lease_until end as replying_until`,
    [id],
  );
  if (!row) return false;
  // A reply being written is stored after the close (its message came before): the post-call
  // work reads the transcript once the reply's lease is over.
  await enqueue(tx, 'conversations:ended', { conversation_id: row.id }, row.replying_until ? new Date(row.replying_until) : undefined);
  return true;
}

/** A reply stored after its conversation closed: the post-call work, waiting for it, runs now. */
export async function repliedAfterClose(tx: EntityManager, id: string): Promise<void> {
  await enqueue(tx, 'conversations:ended', { conversation_id: id });
}

/**
 * The sweeper's idle close: every open conversation whose last message is older than
 * `idleMinutes`. Concurrent sweeps (several workers) skip each other's rows, and the
 * `closed_at is null` of the update closes each one once whatever they race.
 *
 * It reads the conversations whose `idle_checked_at` is that old (its index's; never after
 * `updated_at`, so every idle one is among them): each idle one is closed, and each active one
 * is checked again once `idleMinutes` have passed since its last message. A message does not
 * touch that column, so its update of the row stays in place (the migration
 * Migration20261219000000_conversation_hot_updates says why).
 */
export async function closeIdleConversations(em: EntityManager, idleMinutes: number, batch = 500): Promise<number> {
  let total = 0;
  for (;;) {
    const closed = await em.fork().transactional(async (tx) => {
      // The rows due, locked; the active ones among them checked again once they could be idle.
      const rows = await tx.execute<{ id: string; idle: boolean }[]>(
        `with due as (
           select id, updated_at < now() - make_interval(mins => ?) as idle
           from conversations where closed_at is null and idle_checked_at < now() - make_interval(mins => ?)
           order by idle_checked_at limit ? for update skip locked),
         rearmed as (update conversations c set idle_checked_at = c.updated_at from due where c.id = due.id and not due.idle)
         select id::text, idle from due`,
        [idleMinutes, idleMinutes, batch],
      );
      let count = 0;
      for (const row of rows) if (row.idle && (await closeRow(tx, row.id))) count++;
      return { count, full: rows.length === batch };
    });
    total += closed.count;
    if (!closed.full) return total;
  }
}

interface ClosedRow {
  id: string;
  uuid: string;
  account_id: number;
  assistant_id: number | null;
  type: string;
  customer_phone: string | null;
  external_identifier: string | null;
  variables: Record<string, unknown>;
  post_call_pending: boolean;
  extracted_variables: Record<string, unknown> | null;
  evaluation: Record<string, unknown> | null;
  webhook_attempts: number;
  created_at: Date;
  closed_at: Date;
}

const CLOSED_COLUMNS = `id::text, uuid::text, account_id, assistant_id, type, customer_phone, external_identifier, variables, post_call_pending,
  extracted_variables, evaluation, webhook_attempts, created_at, closed_at`;

async function messagesOf(em: EntityManager, id: string) {
  return em.execute<{ role: string; content: string; created_at: Date }[]>(
    'select role, content, created_at from conversation_messages where conversation_id = ? order by id',
    [id],
  );
}

/** The transcript as calls write theirs: a line per message, `role: text`. */
const transcriptOf = (messages: { role: string; content: string }[]) => messages.map((m) => `${m.role}: ${m.content}`).join('\n');

function typedVariables(assistant: Assistant, given: Record<string, unknown> | undefined): Record<string, unknown> {
  const variables: Record<string, unknown> = {};
  for (const item of assistant.post_call_schema) {
    const value = given?.[item.name];
    if (value !== null && value !== undefined && typeof value === JSON_TYPES[item.type]) variables[item.name] = value;
  }
  return variables;
}

/**
 * The job of `conversations:ended`: the analyst asked outside any transaction (a failure is
 * retried; after the last attempt the conversation goes on without extraction), then the
 * values and the webhook's first attempt committed together, once (`post_call_pending`).
 */
export async function runConversationEnded(em: EntityManager, deps: LifecycleDeps, id: string, lastAttempt: boolean): Promise<void> {
  const [conversation] = await em.execute<ClosedRow[]>(`select ${CLOSED_COLUMNS} from conversations where id = ?`, [id]);
  if (!conversation?.post_call_pending) return;
  const assistant = conversation.assistant_id ? await em.fork().findOne(Assistant, { id: conversation.assistant_id }) : null;
  let analysis: PostCallAnalysis = {};
  if (assistant && deps.analyst && (assistant.post_call_schema.length > 0 || assistant.post_call_evaluation)) {
    const transcript = transcriptOf(await messagesOf(em, id));
    try {
      // The analyst reads a call's variables and transcript: a conversation gives it its own.
      analysis = await deps.analyst.analyse(assistant, { input_variables: conversation.variables, transcript });
    } catch (error) {
      if (!lastAttempt) throw error;
      deps.logger?.error('conversations: the post-call model failed on every attempt; closed without extraction', error, { conversation_id: id });
    }
  }
  await em.fork().transactional(async (tx) => {
    const [pending] = await tx.execute<{ id: string }[]>('select id::text from conversations where id = ? and post_call_pending for update', [id]);
    if (!pending) return;
    const variables = assistant && analysis.variables ? typedVariables(assistant, analysis.variables) : null;
    const given = analysis.evaluation;
    const evaluation =
      assistant?.post_call_evaluation && typeof given?.sentiment === 'string' && typeof given.outcome === 'string' && typeof given.score === 'number'
        ? { sentiment: given.sentiment, outcome: given.outcome, score: Math.min(10, Math.max(0, given.score)) }
        : null;
    await tx.execute('update conversations set post_call_pending = false, extracted_variables = ?::jsonb, evaluation = ?::jsonb where id = ?', [
      variables ? JSON.stringify(variables) : null,
      evaluation ? JSON.stringify(evaluation) : null,
      id,
    ]);
    if (assistant && (await endedWebhookUrl(tx, assistant.id))) await enqueue(tx, 'conversations:webhook', { conversation_id: id });
  });
}

async function endedWebhookUrl(em: EntityManager, assistantId: number): Promise<string | null> {
  const [row] = await em.execute<{ url: string | null }[]>('select conversation_ended_webhook_url as url from assistants where id = ?', [assistantId]);
  return row?.url ?? null;
}

/** What the conversation-ended webhook carries. */
export async function endedPayload(em: EntityManager, conversation: ClosedRow): Promise<Record<string, unknown>> {
  const messages = await messagesOf(em, conversation.id);
  return {
    event: 'conversation.ended',
    uuid: conversation.uuid,
    type: conversation.type,
    assistant_id: conversation.assistant_id,
    customer_phone: conversation.customer_phone,
    external_identifier: conversation.external_identifier,
    input_variables: conversation.variables,
    extracted_variables: conversation.extracted_variables ?? {},
    evaluation: conversation.evaluation,
    messages: messages.map((m) => ({ role: m.role, content: m.content, created_at: new Date(m.created_at).toISOString() })),
    transcript: transcriptOf(messages),
    created_at: new Date(conversation.created_at).toISOString(),
    closed_at: new Date(conversation.closed_at).toISOString(),
  };
}

const STORED_BODY_CHARS = 4096;

/**
 * One attempt of the conversation-ended webhook (the job of `conversations:webhook`): signed
 * with the account's secret as the post-call webhook is (Standard Webhooks, and
 * x-famulor-signature), its webhook-id the same on every retry; through the guarded client;
 * 2xx delivered, timeouts, connection errors, 429 and 5xx retried on WEBHOOK_RETRY_SCHEDULE,
 * anything else given up. The receiver's last answer is kept on the conversation.
 */
export async function deliverEndedWebhook(em: EntityManager, deps: LifecycleDeps, id: string): Promise<void> {
  const [conversation] = await em.execute<ClosedRow[]>(`select ${CLOSED_COLUMNS} from conversations where id = ?`, [id]);
  if (!conversation?.assistant_id) return;
  const url = await endedWebhookUrl(em, conversation.assistant_id);
  if (!url) {
    await em.execute('update conversations set webhook_response = ?::jsonb where id = ?', [JSON.stringify({ error: 'webhook disabled' }), id]);
    return;
  }
  const body = JSON.stringify(await endedPayload(em, conversation));
  const webhookId = `msg_conv_${conversation.uuid.replaceAll('-', '')}`;
  const secret = await webhookSecret(em.fork(), deps.secrets, conversation.account_id);
  const result = await postSigned(deps.config, { url, secret }, webhookId, body);
  const attempt = conversation.webhook_attempts + 1;
  const outcome = classify(result);
  const response = result instanceof OutboundError ? null : result;
  const stored = response ? storedResponse(response) : { error: `${(result as OutboundError).kind}: ${(result as OutboundError).message}`.slice(0, 255) };
  await em.fork().transactional(async (tx) => {
    await tx.execute('update conversations set webhook_attempts = ?, webhook_response = ?::jsonb where id = ?', [
      attempt,
      JSON.stringify({ ...stored, attempt, webhook_id: webhookId }),
      id,
    ]);
    if (outcome.kind === 'retry' && attempt <= deps.config.webhooks.retrySchedule.length) {
      const next = new Date(Date.now() + retryDelaySeconds(deps.config, attempt, outcome.retryAfterSeconds) * 1000);
      // A job of its own, not this one's retry: the schedule is the webhooks', not the queue's backoff.
      await enqueue(tx, 'conversations:webhook', { conversation_id: id }, next);
    }
  });
  deps.logger?.info('conversation-ended webhook attempt', { conversation_id: id, attempt, status: response?.status ?? null, retry: outcome.kind === 'retry' });
}

function storedResponse(response: OutboundResponse): Record<string, unknown> {
  return { status: response.status, body: response.body.slice(0, STORED_BODY_CHARS) };
}
