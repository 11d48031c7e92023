import { findForUpdate } from '../db/locks';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Background } from '../jobs/background';
import { enqueue, type TaskPayloads } from '../jobs/queue';
import { Assistant } from '../modules/assistants/assistant.entity';
import { seeded, simulatedConversation, timedTurns, type Turn } from '../modules/calls/call.conversation';
import { Call } from '../modules/calls/call.entity';
import { hangupEvent, type CallEvent, type HangupReason } from '../modules/calls/call.events';
import { applyCallEvent } from '../modules/calls/call.lifecycle';
import { runTools } from '../modules/calls/call.tools';
import type { LifecycleDeps, TelephonyProvider } from '../modules/calls/call.ports';

/**
 * The default provider: no telephone network, but every outcome a real one has, chosen by
 * the last four digits of the dialled number, on a clock sped up by SIMULATOR_SPEED. Each
 * step is a durable job scheduled in the transaction of the step before it, so a call goes
 * on whichever worker process picks it up.
 */
export type Outcome = 'busy' | 'no-answer' | 'failed' | 'machine' | 'human-completed' | 'human-hangs-up' | 'assistant-hangs-up';

export function outcomeFor(dialled: string): Outcome {
  switch (dialled.slice(-4)) {
    case '0001':
      return 'busy';
    case '0002':
      return 'no-answer';
    case '0003':
      return 'failed';
    case '0004':
      return 'machine';
    case '0005':
      return 'human-hangs-up';
    case '0006':
      return 'assistant-hangs-up';
    default:
      return 'human-completed';
  }
}

/** Simulated seconds: how long the phone rings before each outcome. */
const RING_SECONDS: Record<Outcome, number> = {
  busy: 2,
  'no-answer': 30,
  failed: 0,
  machine: 5,
  'human-completed': 4,
  'human-hangs-up': 4,
  'assistant-hangs-up': 4,
};
const DIAL_SECONDS = 1;
const LONGEST_RING_SECONDS = 30;

export type SimulatorStep = TaskPayloads['simulator:step']['step'];
/** Simulated seconds from pickup to the assistant's first use of its tools. */
const SECONDS_TO_TOOLS = 2;
/** Wall-clock seconds past a call's tool budget before another process may run its tools. */
const TOOLS_LEASE_MARGIN_SECONDS = 15;

type ScriptAssistant = Pick<
  Assistant,
  'initial_message' | 'system_prompt' | 'who_speaks_first' | 'end_call_tool_description' | 'max_call_duration' | 'end_call_on_voicemail'
>;

type EndStatus = Extract<CallEvent, { type: 'ended' }>['status'];

/** How the call ends and how long it lasts, the same every time it is asked. */
export function plannedEnding(
  call: Pick<Call, 'id' | 'client_phone_number' | 'type' | 'input_variables' | 'tool_calls'>,
  assistant: ScriptAssistant | null,
): { status: EndStatus; duration: number; turns: Turn[] } {
  const outcome = call.type === 'inbound' ? 'human-completed' : outcomeFor(call.client_phone_number);
  const maxDuration = assistant?.max_call_duration ?? 600;
  if (outcome === 'machine') {
    const voicemail = !assistant || assistant.end_call_on_voicemail;
    const turns: Turn[] = voicemail
      ? [{ speaker: 'system', text: 'Caixa postal detectada: chamada encerrada (end_call_on_voicemail).' }]
      : [{ speaker: 'assistant', text: assistant.initial_message }];
    const duration = Math.min(maxDuration, voicemail ? 3 : 15);
    return { status: voicemail ? 'ended' : 'completed', duration, turns: timedTurns(turns, duration * 1000) };
  }
  const status: EndStatus =
    outcome === 'human-hangs-up' ? 'ended_by_customer' : outcome === 'assistant-hangs-up' ? 'ended_by_assistant' : 'completed';
  const turns = assistant ? simulatedConversation(assistant, call.input_variables, status, call.tool_calls) : [];
  const duration = Math.min(maxDuration, 20 + turns.length * 8 + Math.round(seeded(call.id, 'duration') * 40));
  return { status, duration, turns: timedTurns(turns, duration * 1000) };
}

export class SimulatorProvider implements TelephonyProvider {
  readonly name = 'simulator';

  private readonly background: Background;

  constructor(
    private readonly speed: number,
    onError: (error: unknown) => void = () => {},
  ) {
    this.background = new Background(onError);
  }

  async startCall(em: EntityManager, call: Call): Promise<void> {
    await this.schedule(em, call.id, 'ring', DIAL_SECONDS);
  }

  longestCallSeconds(assistant: Pick<Assistant, 'max_call_duration'>): number {
    return (DIAL_SECONDS + LONGEST_RING_SECONDS + assistant.max_call_duration) / this.speed;
  }

  /**
   * One step of a call; the job handler of `simulator:step`. Each step's state change and the
   * job of the next step commit together; the mid-call tools' HTTP requests run between two
   * transactions, never inside one.
   */
  async step(em: EntityManager, deps: LifecycleDeps, callId: number, step: SimulatorStep): Promise<void> {
    if (step === 'converse') return this.converse(em, deps, callId);
    await em.transactional(async (tx) => {
      const call = await tx.findOne(Call, { id: callId });
      if (!call) return;
      const assistant = call.assistant_id ? await tx.findOne(Assistant, { id: call.assistant_id }) : null;
      const outcome: Outcome = call.type === 'inbound' ? 'human-completed' : outcomeFor(call.client_phone_number);
      const apply = (event: CallEvent) => applyCallEvent(tx, deps, callId, event);

      if (step === 'ring') {
        if (outcome === 'failed') {
          await apply({ type: 'not-answered', status: 'failed', reason: 'the network refused the number' });
        } else if (await apply({ type: 'ringing' })) {
          await this.schedule(tx, callId, 'pickup', call.type === 'inbound' ? 1 : RING_SECONDS[outcome]);
        }
      } else if (step === 'pickup') {
        if (outcome === 'busy' || outcome === 'no-answer') {
          await apply({ type: 'not-answered', status: outcome });
        } else if (outcome === 'machine') {
          if (await apply({ type: 'answered', answeredBy: 'machine' })) {
            await this.schedule(tx, callId, 'hangup', plannedEnding(call, assistant).duration);
          }
        } else if (await apply({ type: 'answered', answeredBy: 'human' })) {
          await this.schedule(tx, callId, 'converse', SECONDS_TO_TOOLS);
        }
      } else {
        await apply({ type: 'ended', ...plannedEnding(call, assistant) });
      }
    });
  }

  /**
   * The conversation: the assistant uses its tools, then the call runs to its planned end.
   * The tools are requests to the account's own servers and may be slow, so they run off
   * the job queue's worker slots: one account's slow tools never hold another's calls. A
   * lease on the call says that a process is running them, and this step is scheduled again
   * for the lease's end: it then finds the tools done, or runs them again if that process
   * died (tools are called at least once).
   */
  private async converse(em: EntityManager, deps: LifecycleDeps, callId: number): Promise<void> {
    const claimed = await em.fork().transactional(async (tx) => {
      const call = await findForUpdate(tx, Call, callId);
      if (!call || call.status !== 'in-progress' || call.tool_calls.length > 0) return null;
      if (call.tools_lease_until !== null && Date.parse(call.tools_lease_until) > Date.now()) return null;
      const assistant = call.assistant_id ? await tx.findOne(Assistant, { id: call.assistant_id }) : null;
      const [{ tools }] = assistant
        ? await tx.execute('select count(*)::int as tools from assistant_tools where assistant_id = ?', [assistant.id])
        : [{ tools: 0 }];
      if (tools === 0) {
        await this.scheduleHangup(tx, call, assistant);
        return null;
      }
      const leaseMs = (deps.config.callToolsBudgetSeconds + TOOLS_LEASE_MARGIN_SECONDS) * 1000;
      call.tools_lease_until = new Date(Date.now() + leaseMs).toISOString();
      await this.schedule(tx, callId, 'converse', (leaseMs * this.speed) / 1000);
      return { call: { id: call.id, input_variables: call.input_variables }, assistant: assistant! };
    });
    if (claimed) this.background.run(() => this.useTools(em, deps, claimed.call, claimed.assistant));
  }

  private async useTools(em: EntityManager, deps: LifecycleDeps, call: Pick<Call, 'id' | 'input_variables'>, assistant: Assistant): Promise<void> {
    const toolCalls = await runTools(em.fork(), deps, call, assistant);
    await em.fork().transactional(async (tx) => {
      const current = await findForUpdate(tx, Call, call.id);
      // Another run (after a lost lease) may have got here first.
      if (!current || current.status !== 'in-progress' || current.tool_calls.length > 0) return;
      current.tool_calls = toolCalls;
      current.tools_lease_until = null;
      await this.scheduleHangup(tx, current, assistant);
    });
  }

  /** The hangup at the call's planned end, counted from when it was answered. */
  private async scheduleHangup(tx: EntityManager, call: Call, assistant: Assistant | null): Promise<void> {
    const answeredAt = Date.parse(call.answered_at ?? new Date().toISOString());
    const endAt = answeredAt + (plannedEnding(call, assistant).duration * 1000) / this.speed;
    await this.schedule(tx, call.id, 'hangup', Math.max(0, ((endAt - Date.now()) * this.speed) / 1000));
  }

  /** The simulated call ends at once: its pending steps then find it over and do nothing. */
  async hangup(em: EntityManager, deps: LifecycleDeps, call: Call, reason: HangupReason): Promise<void> {
    const answered = call.status === 'in-progress';
    const duration = answered ? ((Date.now() - Date.parse(call.answered_at ?? new Date().toISOString())) * this.speed) / 1000 : 0;
    await em.fork().transactional((tx) => applyCallEvent(tx, deps, call.id, hangupEvent(reason, answered, duration)));
  }

  /** Waits for the tools under way, for at most `drainMs`. */
  async stop(drainMs: number): Promise<void> {
    await this.background.drain(drainMs);
  }

  private schedule(em: EntityManager, callId: number, step: SimulatorStep, simulatedSeconds: number): Promise<void> {
    return enqueue(em, 'simulator:step', { call_id: callId, step }, new Date(Date.now() + (simulatedSeconds * 1000) / this.speed));
  }
}
