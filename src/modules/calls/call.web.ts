import { createHash, randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, FieldErrorCollector, Messages } from '../../errors';
import { checkPositiveInt } from '../../lib/checks';
import type { Assistant } from '../assistants/assistant.entity';
import { requireAssistant } from '../assistants/assistant.service';
import { requireVoiceReady } from '../assistants/assistant.voice';
import type { Scope } from '../scope';
import type { Call } from './call.entity';
import type { WebCallInput, WebCallStarted } from './call.inputs';
import { applyCallEvent } from './call.lifecycle';
import type { CallAdmission, LifecycleDeps } from './call.ports';
import { endWebCall, webCallProvider } from './call.web-provider';
import { admitCall, reserveForCalls, startCall } from './call.service';

/**
 * Web calls (design.md, "Web calls"): a browser talks to an assistant over a WebSocket, with no
 * phone and no carrier. The call is created here with a single-use token; the browser's
 * connection spends the token and answers the call; the call ends when either side hangs up,
 * at max_call_duration, or when the sweeper finds it past its deadline. It holds a slot of the
 * plan's parallel calls and a reservation of the balance like any call, and costs the
 * platform's fee per started minute, no carrier cost: at least one once its engine spoke
 * (webCallSeconds).
 */

/** Where a web call's browser connects (a path of PUBLIC_URL, as a WebSocket URL). */
export const WEB_CALL_PATH = /^\/calls\/web\/(\d{1,15})$/;

/** The digest a web call's token is kept as: the token itself is never stored. */
export function webTokenDigest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * Starts a web call to one of the account's assistants: the plan's parallel cap and the
 * balance apply as to any call (the reservation is the platform's fee for a minute); the
 * do-not-call list does not, as there is no number. Answers where the browser connects and
 * with which token, which lives WEB_CALL_TOKEN_TTL_SECONDS until it is used. A process whose
 * measured load is past its bound (admission control) refuses it, UNAVAILABLE with when to
 * come back, before anything is written.
 */
export async function startWebCall(scope: Scope, input: WebCallInput, admission?: CallAdmission): Promise<WebCallStarted> {
  const errors = new FieldErrorCollector();
  checkPositiveInt(errors, 'assistant_id', input.assistant_id);
  errors.throwIfAny();
  const refused = admission?.refusal('web');
  if (refused) throw new DomainError('UNAVAILABLE', Messages.overloaded(refused.retryAfterSeconds), undefined, { retry_after: refused.retryAfterSeconds });
  const token = randomBytes(24).toString('base64url');
  const expiresAt = new Date(Date.now() + scope.config.webCallTokenTtlSeconds * 1000);
  const provider = webCallProvider(scope.config);
  const call = await scope.em.transactional(async (em) => {
    const assistant = await requireAssistant({ ...scope, em }, input.assistant_id);
    await requireVoiceReady(em, scope.config, assistant);
    const reservation = await admitCall(em, scope.config, scope.accountId, null);
    const started = await startCall(em, provider, scope.config, {
      assistant,
      type: 'web',
      from: '',
      to: '',
      variables: input.variables ?? {},
      reservation,
    });
    // The deadline is the token's end: a call nobody connected to fails, free, and frees its slot then.
    await em.execute(`update calls set web_token_hash = ?, web_token_expires_at = ?, deadline_at = ? where id = ?`, [
      webTokenDigest(token),
      expiresAt.toISOString(),
      expiresAt.toISOString(),
      started.id,
    ]);
    await reserveForCalls(em, scope.config, scope.accountId, [started]);
    return { started, unavailable: webUnavailableActions(assistant) };
  });
  const base = scope.config.publicUrl.replace(/^http/, 'ws');
  return { call_id: call.started.id, url: `${base}/calls/web/${call.started.id}?token=${token}`, token, expires_at: expiresAt.toISOString(), unavailable_actions: call.unavailable };
}

/** The call actions of the assistant's that a web call cannot take (design.md, "Calls that act"): the API's answer says so. */
function webUnavailableActions(assistant: Pick<Assistant, 'transfer_numbers' | 'voicemail_message'>): string[] {
  return [...(assistant.transfer_numbers.length ? ['transfer_call'] : []), 'press_digits', ...(assistant.voicemail_message ? ['voicemail'] : [])];
}

/**
 * A browser connects to its web call: spends the token (once: a second connection with it is
 * refused), answers the call and moves its deadline to max_call_duration from now. Null when
 * the token is wrong, used or expired, or the call is another's or over.
 */
export async function claimWebCall(em: EntityManager, deps: LifecycleDeps, callId: number, token: string): Promise<Call | null> {
  return em.fork().transactional(async (tx) => {
    const [claimed] = await tx.execute(
      `update calls c set web_token_hash = null, media_started_at = now(),
         deadline_at = now() + make_interval(secs => a.max_call_duration + ?)
       from assistants a
       where c.id = ? and c.type = 'web' and c.web_token_hash = ? and c.web_token_expires_at > now()
         and c.finished_at is null and a.id = c.assistant_id
       returning c.id`,
      [deps.config.workers.sweeperMarginSeconds, callId, webTokenDigest(token)],
    );
    if (!claimed) return null;
    return applyCallEvent(tx, deps, callId, { type: 'answered', answeredBy: 'human' });
  });
}

/**
 * The browser hung up, or its connection closed: the call is completed, ended by the caller.
 * `engineSpoke`: its engine's audio reached the browser (the call is then charged its first minute).
 */
export function webCallEndedByCaller(em: EntityManager, deps: LifecycleDeps, callId: number, engineSpoke = false): Promise<void> {
  return endWebCall(em, deps, callId, 'customer', (_answered, seconds) => ({ type: 'ended', status: 'completed', duration: seconds, turns: [] }), engineSpoke);
}
