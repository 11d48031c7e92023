import type { EntityManager } from '@mikro-orm/postgresql';
import type { Assistant } from '../modules/assistants/assistant.entity';
import type { Call } from '../modules/calls/call.entity';
import type { HangupReason, LifecycleDeps } from '../modules/calls/call.lifecycle';

/**
 * A telephony provider places calls and reports what happens to them. Whatever drives it
 * (the simulator's scheduled jobs, a real provider's status callbacks) reports through
 * `applyCallEvent` in modules/calls/call.lifecycle.ts, which owns the state machine.
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
   * For a call past its deadline (its provider never reported its end): settles it from what
   * the provider knows, ending it there if it still runs. Answers false when the provider
   * could not be asked; the sweeper then asks again on its next round.
   */
  reconcile?(em: EntityManager, deps: LifecycleDeps, call: Call): Promise<boolean>;
  /** Lets work it runs off the job queue (mid-call tools) finish, for at most `drainMs`. */
  stop?(drainMs: number): Promise<void>;
}
