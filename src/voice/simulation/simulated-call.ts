import type { AnsweredByVerdict } from '../../modules/calls/call.answered-by';
import type { Turn } from '../../modules/calls/call.conversation';
import type { AnsweredBy, CallUsage, ToolCallRecord } from '../../modules/calls/call.entity';
import type { HangupReason } from '../../modules/calls/call.events';
import type { TransferRefusal } from '../../modules/calls/call.transfer';
import type { VendorEvent } from '../../modules/calls/call.vendor-events';
import { LiveCall, type LiveCallDeps, type TurnLimits } from '../live-call';

/** What the simulated call tells its line as it happens. */
export interface SimulatedCallHooks {
  /** The engine hung up (end_call, a vendor's failure, the silence): the line's media ends. */
  hungUp(reason: HangupReason): void;
}

/**
 * A voice simulation's call record (an assistant test, src/voice/simulation/line.ts): what the
 * engine writes of a real call, kept in memory instead. A simulation is no call: it has no row,
 * no provider to hang up through, no bill; its turns, tool calls and usage are the test
 * result's. The engine runs it as any call, with id 0 in its log lines.
 */
export class SimulatedCall extends LiveCall {
  readonly turns: Turn[] = [];
  readonly tools: ToolCallRecord[] = [];
  /** What the vendors reported the call used (the engine reports it once, at the end). */
  used: CallUsage | null = null;
  /** Why the engine could not go on, in the server's words; null when it did not fail. */
  failure: string | null = null;
  /** Why the engine hung up; null while the call goes on. */
  hangupReason: HangupReason | null = null;

  constructor(
    runtime: LiveCallDeps,
    private readonly on: SimulatedCallHooks,
  ) {
    super(runtime, 0);
  }

  override turn(turn: Turn): void {
    if (turn.speaker !== 'system') this.turns.push(turn);
  }

  override async turnWithin(turn: Turn, _limits: TurnLimits): Promise<boolean> {
    this.turn(turn);
    return true;
  }

  override usage(usage: CallUsage): void {
    this.used = usage;
  }

  override toolCall(record: ToolCallRecord): void {
    this.tools.push(record);
  }

  override endedAtProvider(): void {}

  override failed(detail: string): void {
    this.failure ??= detail;
  }

  override vendorEvent(_event: VendorEvent): void {}

  override answeredBy(_verdict: AnsweredByVerdict): void {}

  override async providerAnsweredBy(): Promise<AnsweredBy | null> {
    return null;
  }

  /** A simulation is a web call's setup: no number to transfer to (the function is not offered). */
  override async reserveTransfer(_to: string): Promise<TransferRefusal | null> {
    return 'not-in-progress';
  }

  override async hangup(reason: HangupReason): Promise<void> {
    if (this.hangupReason) return;
    this.hangupReason = reason;
    this.on.hungUp(reason);
  }
}
