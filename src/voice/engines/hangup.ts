import type { HangupReason } from '../../modules/calls/call.events';
import type { Runtime } from '../../runtime';
import type { LiveCall } from '../live-call';

/** Attempts at hanging up a call through its provider. */
const HANGUP_ATTEMPTS = 3;
/** How long a goodbye, an apology or a voicemail message may take to be heard before the call is hung up anyway. */
const HEARD_WITHIN_MS = 15_000;

export interface HangupHooks {
  /** The call's media has ended: nothing is left to hang up. */
  ended(): boolean;
  /** What was sent has not all been heard yet. */
  playing(): boolean;
  /** The call is being hung up (not for a transfer, after which it may come back): clocks stop. */
  leaving(): void;
  /** The provider refused the transfer: the call goes on, and the engine tells the caller. */
  transferFailed(): void;
}

/**
 * How both engines hang a call up: at once, or once the caller has heard what was sent (a
 * goodbye, an apology, a voicemail message) and at most HEARD_WITHIN_MS later; through the
 * provider, tried again when it fails, for the line must not stay open with nobody on it. A
 * transfer the provider refuses gives the call back to the engine.
 */
export class CallHangup {
  /** Why the call is being hung up; null while it goes on. */
  reason: HangupReason | null = null;
  /** Hang up for this reason once what was sent has been heard. */
  afterHeard: HangupReason | null = null;

  constructor(
    private readonly call: LiveCall,
    private readonly logger: Runtime['logger'],
    private readonly hooks: HangupHooks,
  ) {}

  async now(reason: HangupReason, attempt = 1): Promise<void> {
    if (this.reason && attempt === 1) return;
    this.reason = reason;
    if (reason !== 'transferred') this.hooks.leaving();
    try {
      await this.call.hangup(reason);
    } catch (error) {
      this.logger.error('voice: could not hang up a call', error, { call_id: this.call.id, reason, attempt });
      if (this.hooks.ended()) return;
      if (reason === 'transferred') {
        this.reason = null;
        this.afterHeard = null;
        return this.hooks.transferFailed();
      }
      if (attempt < HANGUP_ATTEMPTS) setTimeout(() => void this.now(reason, attempt + 1), 1000).unref();
    }
  }

  /** Hangs up once the caller has heard what was sent, or HEARD_WITHIN_MS from now. */
  whenHeard(reason: HangupReason): void {
    this.afterHeard = reason;
    if (!this.hooks.playing()) return void this.now(reason);
    setTimeout(() => {
      if (!this.hooks.ended()) void this.now(reason);
    }, HEARD_WITHIN_MS).unref();
  }

  /** What was sent has been heard, or the caller talked over it: a hang-up waiting for that happens now. */
  heard(): void {
    if (this.afterHeard) void this.now(this.afterHeard);
  }
}
