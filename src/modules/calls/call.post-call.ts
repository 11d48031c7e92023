import type { EntityManager } from '@mikro-orm/postgresql';
import { findForUpdate } from '../../db/locks';
import { enqueue } from '../../jobs/queue';
import { Assistant, type PostCallSchemaItem } from '../assistants/assistant.entity';
import { wakeIfRunning } from '../campaigns/dialer.wake';
import { Call } from './call.entity';
import { settleCall } from './call.lifecycle';
import type { LifecycleDeps, PostCallAnalysis } from './call.ports';

/**
 * Post-call work of the calls a voice engine ran (design.md, "Voice engines"): the values of
 * the assistant's `post_call_schema` extracted from the transcript, and its evaluation when
 * `post_call_evaluation`, by the lifecycle's analyst (voice/post-call.ts: a model); then what
 * waited for them: the campaign lead's attempt (its goal variable) and the post-call webhook.
 * On the job queue, out of the transaction that ended the call: a failure of the model is
 * retried, and after the last attempt the call is settled without the extracted values, so
 * nothing else of it is lost.
 */

/** The JSON type of each kind of `post_call_schema` item. */
export const JSON_TYPES: Record<PostCallSchemaItem['type'], string> = { string: 'string', number: 'number', bool: 'boolean' };

/**
 * Whether a call that just ended has post-call work for the model: a real call a person
 * answered, with something to extract or evaluate, and a model to ask. (The simulator's
 * conversations have theirs at once.)
 */
export function needsPostCall(deps: LifecycleDeps, call: Pick<Call, 'provider' | 'answered_at' | 'answered_by'>, assistant: Assistant | null): boolean {
  if (!deps.analyst || !assistant || call.provider === 'simulator') return false;
  if (call.answered_at === null || call.answered_by === 'machine' || call.answered_by === 'unavailable') return false;
  return assistant.post_call_schema.length > 0 || assistant.post_call_evaluation;
}

/** In the transaction that ends the call. */
export async function schedulePostCall(em: EntityManager, call: Call): Promise<void> {
  call.post_call_pending = true;
  await enqueue(em, 'calls:post-call', { call_id: call.id });
}

/** Keeps each extracted value of the type its schema item says; drops the rest. */
function typedVariables(schema: PostCallSchemaItem[], given: Record<string, unknown> | undefined): Record<string, unknown> {
  const variables: Record<string, unknown> = {};
  for (const item of schema) {
    const value = given?.[item.name];
    if (value !== null && value !== undefined && typeof value === JSON_TYPES[item.type]) variables[item.name] = value;
  }
  return variables;
}

/**
 * The job of `calls:post-call`. The model is asked outside any transaction; its answer, the
 * lead's attempt and the webhook are then committed together, once (the call's row lock and
 * `post_call_pending` make a repeated job do nothing).
 */
export async function runPostCall(em: EntityManager, deps: LifecycleDeps, callId: number, lastAttempt: boolean): Promise<void> {
  const call = await em.findOne(Call, { id: callId });
  if (!call?.post_call_pending) return;
  const assistant = call.assistant_id ? await em.findOne(Assistant, { id: call.assistant_id }) : null;
  let analysis: PostCallAnalysis = {};
  if (assistant && deps.analyst) {
    try {
      analysis = await deps.analyst.analyse(assistant, call);
    } catch (error) {
      if (!lastAttempt) throw error;
      deps.logger?.error('post-call: the model API failed on every attempt; the call is settled without extraction', error, { call_id: callId });
    }
  }
  await em.fork().transactional(async (tx) => {
    const current = await findForUpdate(tx, Call, callId);
    if (!current?.post_call_pending) return;
    current.post_call_pending = false;
    if (assistant && analysis.variables) current.variables = typedVariables(assistant.post_call_schema, analysis.variables);
    const evaluation = analysis.evaluation;
    if (assistant?.post_call_evaluation && typeof evaluation?.sentiment === 'string' && typeof evaluation.outcome === 'string' && typeof evaluation.score === 'number') {
      current.evaluation = { sentiment: evaluation.sentiment, outcome: evaluation.outcome, score: Math.min(10, Math.max(0, evaluation.score)) };
    }
    await tx.flush();
    await settleCall(tx, deps, current, assistant);
    // The slot this call held was freed when it ended; its lead may be dialable only now.
    if (current.campaign_id !== null && current.attempt !== null) await wakeIfRunning(tx, current.campaign_id);
  });
}
