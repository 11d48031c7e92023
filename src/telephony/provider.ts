import type { EntityManager } from '@mikro-orm/postgresql';
import type { Assistant } from '../modules/assistants/assistant.entity';
import type { Call } from '../modules/calls/call.entity';
import type { LifecycleDeps } from '../modules/calls/call.lifecycle';

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
   * Ends a call in flight at the client's request: an answered call as `ended`, one not yet
   * answered as `failed`, now or when the provider confirms it.
   */
  hangup(em: EntityManager, deps: LifecycleDeps, call: Call): Promise<void>;
  /** Lets work it runs off the job queue (mid-call tools) finish, for at most `drainMs`. */
  stop?(drainMs: number): Promise<void>;
}
