import { findForUpdate } from '../db/locks';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../config';
import { enqueue } from '../jobs/queue';
import { Assistant, type PostCallSchemaItem } from '../modules/assistants/assistant.entity';
import { Call } from '../modules/calls/call.entity';
import type { LifecycleDeps } from '../modules/calls/call.lifecycle';
import { settleAttempt, wakeIfRunning } from '../modules/campaigns/dialer.attempts';

/**
 * Post-call work of the calls a voice engine ran (design.md, "Voice engines"): the values of
 * the assistant's `post_call_schema` extracted from the transcript, and its evaluation when
 * `post_call_evaluation`, by `POST {OPENAI_BASE_URL}/chat/completions` with a JSON schema;
 * then what waited for them: the campaign lead's attempt (its goal variable) and the
 * post-call webhook. On the job queue, out of the transaction that ended the call: a failure
 * of the model API is retried, and after the last attempt the call is settled without the
 * extracted values, so nothing else of it is lost.
 */
export const POST_CALL_TASK = 'calls:post-call';
const MAX_ATTEMPTS = 6;
const REQUEST_TIMEOUT_MS = 60_000;
const JSON_TYPES: Record<PostCallSchemaItem['type'], string> = { string: 'string', number: 'number', bool: 'boolean' };

/**
 * Whether a call that just ended has post-call work for the model: a real call a person
 * answered, with something to extract or evaluate, and a model to ask. (The simulator's
 * conversations have theirs at once.)
 */
export function needsPostCall(config: Config, call: Pick<Call, 'provider' | 'answered_at' | 'answered_by'>, assistant: Assistant | null): boolean {
  if (!config.voice.openai || !assistant || call.provider === 'simulator') return false;
  if (call.answered_at === null || call.answered_by === 'machine') return false;
  return assistant.post_call_schema.length > 0 || assistant.post_call_evaluation;
}

/** In the transaction that ends the call. */
export async function schedulePostCall(em: EntityManager, call: Call): Promise<void> {
  call.post_call_pending = true;
  await enqueue(em, { task: POST_CALL_TASK, payload: { call_id: call.id }, jobKey: `post-call:${call.id}`, maxAttempts: MAX_ATTEMPTS });
}

/** The JSON schema the model answers with. */
export function postCallSchema(assistant: Pick<Assistant, 'post_call_schema' | 'post_call_evaluation'>): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  if (assistant.post_call_schema.length) {
    properties.variables = {
      type: 'object',
      properties: Object.fromEntries(assistant.post_call_schema.map((item) => [item.name, { type: [JSON_TYPES[item.type], 'null'], description: item.description }])),
      required: assistant.post_call_schema.map((item) => item.name),
      additionalProperties: false,
    };
  }
  if (assistant.post_call_evaluation) {
    properties.evaluation = {
      type: 'object',
      properties: {
        sentiment: { type: 'string', enum: ['positive', 'neutral', 'negative'], description: 'The customer’s sentiment.' },
        outcome: { type: 'string', description: 'The call’s outcome in snake_case, for example successful, not_interested, callback_requested, customer_hung_up.' },
        score: { type: 'number', description: 'How well the call reached its goal, from 0 to 10.' },
      },
      required: ['sentiment', 'outcome', 'score'],
      additionalProperties: false,
    };
  }
  return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
}

interface Analysis {
  variables?: Record<string, unknown>;
  evaluation?: { sentiment: string; outcome: string; score: number };
}

/** Asks the model; throws on anything but a usable answer (the job is tried again). */
async function analyse(config: NonNullable<Config['voice']['openai']>, assistant: Assistant, call: Call): Promise<Analysis> {
  const response = await fetch(`${config.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${config.apiKey}`, 'content-type': 'application/json' },
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    body: JSON.stringify({
      model: config.postCallModel,
      temperature: 0,
      messages: [
        {
          role: 'system',
          content:
            'You analyse the transcript of a phone call between an AI assistant and a customer. ' +
            'Extract each requested value from what was said (null when the call did not tell it) and, when asked, evaluate the call. ' +
            `The assistant's instructions were:\n${assistant.system_prompt}`,
        },
        { role: 'user', content: `Call variables: ${JSON.stringify(call.input_variables)}\n\nTranscript:\n${call.transcript || '(empty)'}` },
      ],
      response_format: { type: 'json_schema', json_schema: { name: 'post_call', strict: true, schema: postCallSchema(assistant) } },
    }),
  });
  if (!response.ok) throw new Error(`post-call: the model API answered HTTP ${response.status}`);
  const body = (await response.json()) as { choices?: { message?: { content?: string | null; refusal?: string | null } }[] };
  const content = body.choices?.[0]?.message?.content;
  if (typeof content !== 'string') throw new Error('post-call: the model gave no answer');
  const analysis = JSON.parse(content) as Analysis;
  if (typeof analysis !== 'object' || analysis === null) throw new Error('post-call: the answer is not an object');
  return analysis;
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
 * The job of POST_CALL_TASK. The model is asked outside any transaction; its answer, the
 * lead's attempt and the webhook are then committed together, once (the call's row lock and
 * `post_call_pending` make a repeated job do nothing).
 */
export async function runPostCall(em: EntityManager, deps: LifecycleDeps, callId: number, lastAttempt: boolean): Promise<void> {
  const call = await em.findOne(Call, { id: callId });
  if (!call?.post_call_pending) return;
  const assistant = call.assistant_id ? await em.findOne(Assistant, { id: call.assistant_id }) : null;
  let analysis: Analysis = {};
  if (assistant && deps.config.voice.openai) {
    try {
      analysis = await analyse(deps.config.voice.openai, assistant, call);
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
    await settleAttempt(tx, deps.config, current);
    if (current.campaign_id !== null && current.attempt !== null) await wakeIfRunning(tx, current.campaign_id);
    await deps.onFinished?.(tx, current, assistant);
  });
}
