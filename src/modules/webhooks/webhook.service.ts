import { createHmac, randomBytes } from 'node:crypto';
import { findForUpdate } from '../../db/locks';
import type { EntityManager } from '@mikro-orm/postgresql';
import { webhookDeliveries } from '../../metrics';
import type { Logger } from '../../log';
import type { Config } from '../../config';
import { FieldMessages, Messages, NotFoundError, ValidationError } from '../../errors';
import { enqueue } from '../../jobs/queue';
import { BLOCKED_TARGET_HINT, OutboundError, outboundRequest, type OutboundResponse } from '../../lib/outbound';
import type { SecretBox } from '../../lib/secrets';
import { Account } from '../accounts/account.entity';
import { Assistant } from '../assistants/assistant.entity';
import { Call } from '../calls/call.entity';
import type { Scope } from '../scope';


const SECRET_PREFIX = 'whsec_';
const STORED_BODY_BYTES = 4096;

export interface WebhookDeps {
  config: Config;
  secrets: SecretBox;
  logger?: Logger;
}

/** The account's signing secret (`whsec_` + base64), made on first use; encrypted at rest. */
export async function webhookSecret(em: EntityManager, secrets: SecretBox, accountId: number): Promise<string> {
  // Every delivery attempt signs: read without a lock, and lock the account only to make one.
  const [row] = await em.execute('select webhook_secret_sealed from accounts where id = ?', [accountId]);
  if (row?.webhook_secret_sealed) return secrets.open(row.webhook_secret_sealed);
  return em.transactional(async (tx) => {
    const account = (await findForUpdate(tx, Account, accountId))!;
    if (account.webhook_secret_sealed) return secrets.open(account.webhook_secret_sealed);
    return setSecret(account, secrets);
  });
}

/** A new secret; deliveries signed from now on use it. */
export async function rotateWebhookSecret(em: EntityManager, secrets: SecretBox, accountId: number): Promise<string> {
  return em.transactional(async (tx) => {
    const account = (await findForUpdate(tx, Account, accountId))!;
    return setSecret(account, secrets);
  });
}

function setSecret(account: Account, secrets: SecretBox): string {
  const secret = `${SECRET_PREFIX}${randomBytes(24).toString('base64')}`;
  account.webhook_secret_sealed = secrets.seal(secret);
  return secret;
}

/** Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, keyed by the secret's bytes. */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The post-call payload: the call's result, its lead and campaign. */
async function callPayload(em: EntityManager, call: Call, assistant: Assistant): Promise<Record<string, unknown>> {
  const [lead] = call.lead_id
    ? await em.execute('select id, phone_number, variables, status from leads where id = ?', [call.lead_id])
    : [];
  return {
    event: 'call.finished',
    id: call.id,
    type: call.type,
    assistant_id: call.assistant_id,
    assistant_name: call.assistant_name,
    customer_phone: call.client_phone_number,
    assistant_phone: call.assistant_phone_number,
    duration: call.duration,
    status: call.status,
    answered_by: call.answered_by,
    extracted_variables: call.variables,
    input_variables: call.input_variables,
    evaluation: call.evaluation,
    transcript: call.transcript,
    ...(assistant.include_recording_in_webhook ? { recording_url: call.recording_url } : {}),
    carrier_cost: Number(call.carrier_cost),
    total_cost: Number(call.total_cost),
    created_at: call.created_at,
    finished_at: call.finished_at,
    lead: lead ?? null,
    campaign: call.campaign_id ? { id: call.campaign_id, name: call.campaign_name } : null,
  };
}

/**
 * Called in the transaction that finishes a call: when the assistant's webhook is on (and,
 * with send_webhook_only_on_completed, only for completed calls), a delivery is recorded and
 * its first attempt enqueued, so that both commit with the call's final state.
 */
export async function scheduleCallWebhook(em: EntityManager, call: Call, assistant: Assistant | null): Promise<void> {
  if (!assistant?.is_webhook_active || !assistant.webhook_url) return;
  if (assistant.send_webhook_only_on_completed && call.status !== 'completed') return;
  const id = `msg_${randomBytes(16).toString('hex')}`;
  await em.execute(
    `insert into webhook_deliveries (id, account_id, call_id, assistant_id, status, payload) values (?, ?, ?, ?, 'pending', ?::jsonb)`,
    [id, call.account_id, call.id, assistant.id, JSON.stringify(await callPayload(em, call, assistant))],
  );
  await enqueue(em, 'webhook:deliver', { delivery_id: id });
}

interface DeliveryRow {
  id: string;
  account_id: number;
  call_id: number | null;
  assistant_id: number | null;
  /** An account webhook endpoint's delivery (else an assistant's post-call webhook). */
  endpoint_id: number | null;
  event_type: string | null;
  status: string;
  attempts: number;
  /** Attempts made before the current round (a redelivery starts a new round). */
  round_offset: number;
  payload: Record<string, unknown>;
}

export type Outcome =
  | { kind: 'delivered'; response: OutboundResponse }
  | { kind: 'retry'; response?: OutboundResponse; error?: string; retryAfterSeconds: number | null }
  | { kind: 'failed'; response?: OutboundResponse; error?: string }
  | { kind: 'gone'; response: OutboundResponse };

/** What an attempt's answer means: delivered, worth a retry (a timeout, a lost connection, 429, 5xx), failed for good, or gone (410). */
export function classify(result: OutboundResponse | OutboundError): Outcome {
  if (result instanceof OutboundError) {
    const retryable = result.kind === 'timeout' || result.kind === 'connection' || result.kind === 'dns';
    // A blocked address says how to allow it in the attempt itself: its reader may not see the server's log.
    const error = `${result.kind}: ${result.message}${result.kind === 'blocked' ? `; ${BLOCKED_TARGET_HINT}` : ''}`;
    return retryable ? { kind: 'retry', error, retryAfterSeconds: null } : { kind: 'failed', error };
  }
  const { status } = result;
  if (status >= 200 && status < 300) return { kind: 'delivered', response: result };
  if (status === 410) return { kind: 'gone', response: result };
  if (status === 429 || status >= 500) return { kind: 'retry', response: result, retryAfterSeconds: retryAfter(result.headers['retry-after']) };
  // 3xx are not followed; they and the other 4xx say the receiver will not take it.
  return { kind: 'failed', response: result };
}

function retryAfter(value: string | string[] | undefined): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return null;
  if (/^\d+$/.test(text.trim())) return Number(text.trim());
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, (date - Date.now()) / 1000);
}

/** The wait before retry `n` (1-based): the schedule's, ±20% jitter, or a longer Retry-After. */
export function retryDelaySeconds(config: Config, retry: number, retryAfterSeconds: number | null): number {
  const base = config.webhooks.retrySchedule[retry - 1];
  const jittered = base * (0.8 + Math.random() * 0.4);
  const honoured = retryAfterSeconds === null ? 0 : Math.min(retryAfterSeconds, config.webhooks.maxRetryAfterSeconds);
  return Math.max(jittered, honoured);
}

function storedResponse(response: OutboundResponse): Record<string, unknown> {
  return {
    status: response.status,
    headers: response.headers,
    body: response.body.length > STORED_BODY_BYTES ? response.body.slice(0, STORED_BODY_BYTES) : response.body,
  };
}

/**
 * One signed POST of a webhook's body through the guarded outbound client: the Standard
 * Webhooks headers (`webhook-id`, the same on every retry of it, `webhook-timestamp`,
 * `webhook-signature`) and the original platform's `x-famulor-signature`. A failure of the
 * exchange (a timeout, a refused address) is answered as the OutboundError, not thrown.
 */
export async function postSigned(config: Config, target: { url: string; secret: string }, webhookId: string, body: string): Promise<OutboundResponse | OutboundError> {
  const timestamp = Math.floor(Date.now() / 1000);
  return outboundRequest({
    url: target.url,
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'user-agent': 'vozgate-webhooks/1',
      'webhook-id': webhookId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': sign(target.secret, webhookId, timestamp, body),
      'x-famulor-signature': famulorSignature(target.secret, body),
    },
    body,
    timeoutMs: config.webhooks.timeoutMs,
    connectTimeoutMs: config.webhooks.connectTimeoutMs,
    allowPrivate: config.allowPrivateNetworkTargets,
  }).catch((error: unknown) => {
    if (error instanceof OutboundError) return error;
    throw error;
  });
}

/** `sha256=` + hex HMAC-SHA256 of the body, keyed by the secret as given: what the original platform's clients verify. */
export function famulorSignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Where a delivery goes and what signs it; null when its webhook was turned off or removed. */
interface Target {
  url: string;
  secret: string;
  /** What a 410 turns off. */
  gone: (tx: EntityManager) => Promise<void>;
}

async function targetOf(em: EntityManager, deps: WebhookDeps, delivery: DeliveryRow): Promise<Target | null> {
  if (delivery.endpoint_id !== null) {
    const [endpoint] = await em.execute('select url, secret_sealed, disabled_at from webhook_endpoints where id = ?', [delivery.endpoint_id]);
    if (!endpoint || endpoint.disabled_at) return null;
    return {
      url: endpoint.url,
      secret: deps.secrets.open(endpoint.secret_sealed),
      gone: (tx) => tx.execute('update webhook_endpoints set disabled_at = now() where id = ?', [delivery.endpoint_id]).then(() => {}),
    };
  }
  const assistant = delivery.assistant_id ? await em.fork().findOne(Assistant, { id: delivery.assistant_id }) : null;
  if (!assistant?.is_webhook_active || !assistant.webhook_url) return null;
  return {
    url: assistant.webhook_url,
    secret: await webhookSecret(em.fork(), deps.secrets, delivery.account_id),
    gone: (tx) => tx.execute('update assistants set is_webhook_active = false, webhook_url = null, updated_at = now() where id = ?', [assistant.id]).then(() => {}),
  };
}

/**
 * One delivery attempt; the job handler of `webhook:deliver`. The HTTP exchange happens outside
 * any transaction; its outcome, the call's `webhook_response` (a post-call webhook's) and the
 * next attempt (if any) are then written together. A webhook that was turned off or removed
 * gets nothing more.
 */
export async function deliver(em: EntityManager, deps: WebhookDeps, deliveryId: string): Promise<void> {
  const [delivery]: DeliveryRow[] = await em.execute('select * from webhook_deliveries where id = ?', [deliveryId]);
  if (!delivery || delivery.status !== 'pending') return;
  const target = await targetOf(em, deps, delivery);
  if (!target) {
    await em.execute(`update webhook_deliveries set status = 'cancelled', last_error = 'webhook disabled', updated_at = now() where id = ?`, [deliveryId]);
    webhookDeliveries.inc({ outcome: 'cancelled' });
    return;
  }
  const { url, secret } = target;
  const attempt = delivery.attempts + 1;
  const body = JSON.stringify(delivery.payload);
  const result = await postSigned(deps.config, { url, secret }, delivery.id, body);

  let outcome = classify(result);
  const retry = attempt - delivery.round_offset;
  if (outcome.kind === 'retry' && retry > deps.config.webhooks.retrySchedule.length) {
    outcome = { kind: 'failed', response: outcome.response, error: outcome.error ?? 'no more retries' };
  }
  const response = 'response' in outcome ? outcome.response : undefined;
  const error = 'error' in outcome ? (outcome.error ?? null) : null;

  await em.fork().transactional(async (tx) => {
    await tx.execute(
      `insert into webhook_attempts (delivery_id, attempt, url, status_code, error, latency_ms, response_headers, response_body)
       values (?, ?, ?, ?, ?, ?, ?::jsonb, ?)`,
      [
        delivery.id,
        attempt,
        url,
        response?.status ?? null,
        error?.slice(0, 255) ?? null,
        result.latencyMs,
        response ? JSON.stringify(response.headers) : null,
        response ? response.body.slice(0, STORED_BODY_BYTES) : null,
      ],
    );
    const status = outcome.kind === 'delivered' ? 'delivered' : outcome.kind === 'retry' ? 'pending' : 'failed';
    let next: Date | null = null;
    if (outcome.kind === 'retry') {
      next = new Date(Date.now() + retryDelaySeconds(deps.config, retry, outcome.retryAfterSeconds) * 1000);
      await enqueue(tx, 'webhook:deliver', { delivery_id: delivery.id }, next);
    }
    await tx.execute(
      'update webhook_deliveries set status = ?, attempts = ?, next_attempt_at = ?, last_error = ?, updated_at = now() where id = ?',
      [status, attempt, next?.toISOString() ?? null, error?.slice(0, 255) ?? (response ? `HTTP ${response.status}` : null), delivery.id],
    );
    if (delivery.endpoint_id === null) {
      const stored = response ? storedResponse(response) : { error };
      await tx.execute('update calls set webhook_response = ?::jsonb where id = ?', [JSON.stringify({ ...stored, attempt, delivery_id: delivery.id }), delivery.call_id]);
    }
    // 410 Gone: the receiver says it is not coming back.
    if (outcome.kind === 'gone') await target.gone(tx);
  });
  webhookDeliveries.inc({ outcome: outcome.kind });
  const blocked = result instanceof OutboundError && result.kind === 'blocked';
  deps.logger?.info('webhook attempt', {
    delivery_id: delivery.id,
    ...(delivery.endpoint_id !== null ? { endpoint_id: delivery.endpoint_id, event: delivery.event_type } : { call_id: delivery.call_id }),
    attempt,
    outcome: outcome.kind,
    status: response?.status ?? null,
    ...(error ? { error } : {}),
    ...(blocked ? { hint: BLOCKED_TARGET_HINT } : {}),
  });
}

/** Sends a delivery again now, with the same webhook-id and a fresh retry schedule; past attempts stay recorded. */
export async function redeliver(scope: Scope, deliveryId: string): Promise<void> {
  await scope.em.transactional(async (tx) => {
    const [delivery] = await tx.execute('select id, assistant_id, endpoint_id from webhook_deliveries where id = ? and account_id = ? for no key update', [
      deliveryId,
      scope.accountId,
    ]);
    if (!delivery) throw new NotFoundError(Messages.deliveryNotFound);
    if (delivery.endpoint_id !== null) {
      const [endpoint] = await tx.execute('select disabled_at from webhook_endpoints where id = ?', [delivery.endpoint_id]);
      if (!endpoint || endpoint.disabled_at) throw new ValidationError({ delivery_id: [FieldMessages.endpointDisabled] });
    } else {
      const assistant = delivery.assistant_id ? await tx.findOne(Assistant, { id: delivery.assistant_id }) : null;
      if (!assistant?.is_webhook_active) throw new ValidationError({ delivery_id: [FieldMessages.webhookInactive] });
    }
    await tx.execute(
      `update webhook_deliveries set status = 'pending', round_offset = attempts, next_attempt_at = null, updated_at = now() where id = ?`,
      [deliveryId],
    );
    await enqueue(tx, 'webhook:deliver', { delivery_id: deliveryId });
  });
}
