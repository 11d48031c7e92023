import type { EntityManager } from '@mikro-orm/postgresql';
import type { Assistant } from '../assistants/assistant.entity';
import type { Call } from './call.entity';
import type { Config } from '../../config';
import type { SecretBox } from '../../lib/secrets';
import type { Logger } from '../../log';
import type { HangupReason } from './call.events';

/**
 * A telephony provider places calls and reports what happens to them. Whatever drives it
 * (the simulator's scheduled jobs, a real provider's status callbacks) reports through
 * `applyCallEvent` in call.lifecycle.ts, which owns the state machine. The adapters live in
 * src/telephony/; boot.ts chooses one.
 */
export interface TelephonyProvider {
  readonly name: string;
  /**
   * Starts a call that was just created, in the transaction that created it: whatever the
   * provider schedules is committed with the call or not at all.
   */
  startCall(em: EntityManager, call: Call, assistant: Assistant): Promise<void>;
  /** Wall-clock seconds a call may last at most, ringing included, before the sweeper ends it. */
  longestCallSeconds(assistant: Pick<Assistant, 'max_call_duration'>): number;
  /**
   * Ends a call in flight (the API, the end-call tool, max_call_duration): an answered call as
   * its reason says (HANGUPS), one not yet answered as `failed`, now or when the provider
   * confirms it.
   */
  hangup(em: EntityManager, deps: LifecycleDeps, call: Call, reason: HangupReason): Promise<void>;
  /**
   * Hands an answered call to the number its transfer reserved (`transferred_to`: call.transfer.ts)
   * as its assistant's `transfer_mode` says: cold, the caller is connected to it and the
   * assistant leaves the call; warm, the caller waits while the person is dialled and told
   * `briefing` (what the call was about), then both are joined, and when nobody answers the
   * assistant comes back to the caller. The call ends as `transferred` when the person's leg
   * does. Absent: the provider cannot transfer (its calls are not offered it).
   */
  transfer?(em: EntityManager, deps: LifecycleDeps, call: Call, briefing: string | null): Promise<void>;
  /** A warm transfer's leg ended before anyone joined (`status`, as the provider says it): the assistant comes back to the caller. */
  resumeAfterTransfer?(em: EntityManager, deps: LifecycleDeps, call: Call, status: string): Promise<void>;
  /**
   * The call is over while its warm transfer's leg has not reported its end (the person's phone
   * still ringing, or the person answered and is being briefed or held): that leg is ended at
   * the provider, so that nobody is rung or held for a caller who is gone.
   */
  endTransferLeg?(em: EntityManager, deps: LifecycleDeps, callId: number): Promise<void>;
  /**
   * For a call past its deadline (its provider never reported its end): settles it from what
   * the provider knows, ending it there if it still runs. Answers false when the provider
   * could not be asked; the sweeper then asks again on its next round.
   */
  reconcile?(em: EntityManager, deps: LifecycleDeps, call: Call): Promise<boolean>;
  /** Lets work it runs off the job queue (mid-call tools) finish, for at most `drainMs`. */
  stop?(drainMs: number): Promise<void>;
}

/** What the post-call model reads: the variables a call (or a conversation) was given, and its transcript. */
export type PostCallInput = Pick<Call, 'input_variables' | 'transcript'>;

/** What a model made of a call's transcript: the values of the assistant's `post_call_schema`, and its evaluation. */
export interface PostCallAnalysis {
  variables?: Record<string, unknown>;
  evaluation?: { sentiment: string; outcome: string; score: number };
}

/**
 * Post-call extraction and evaluation by a model (voice/post-call.ts, on OpenAI's chat
 * completions); throws on anything but a usable answer, and the job is tried again.
 */
export interface PostCallAnalyst {
  analyse(assistant: Assistant, said: PostCallInput): Promise<PostCallAnalysis>;
}

/** What the call state machine (call.lifecycle.ts) needs from outside: boot.ts plugs it in. */
export interface LifecycleDeps {
  config: Config;
  secrets: SecretBox;
  /** Called in the transaction that settles a call (post-call webhooks hook in here). */
  onFinished?: (em: EntityManager, call: Call, assistant: Assistant | null) => Promise<void>;
  /** Extracts and evaluates real calls after they end; none: only the simulator's calls have results. */
  analyst?: PostCallAnalyst | null;
  logger?: Logger;
}

/** The kinds of new calls admission control may turn away. */
export type AdmittedCall = 'web' | 'inbound';

/**
 * Admission control of the process that takes a call's media (voice/admission.ts, plugged in by
 * app.ts): whether it takes one more call now. Calls already under way are never asked about.
 */
export interface CallAdmission {
  /** Null: the call may start. Else it is refused (and counted), and the caller may come back in `retryAfterSeconds`. */
  refusal(kind: AdmittedCall): { retryAfterSeconds: number } | null;
}
