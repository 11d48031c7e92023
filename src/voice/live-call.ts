import { transcriptText, type Turn } from '../modules/calls/call.conversation';
import { Call, type CallUsage, type ToolCallRecord } from '../modules/calls/call.entity';
import type { HangupReason } from '../modules/calls/call.events';
import { providerOf } from '../modules/calls/call.web-provider';
import type { Runtime } from '../runtime';

/** The parts of the runtime a live call writes through. */
export type LiveCallDeps = Pick<Runtime, 'orm' | 'lifecycle' | 'telephony' | 'logger'>;

/** What a transport is told of a live call as it happens. */
export interface LiveCallHooks {
  /** Each turn as it is recorded (a transport that shows the transcript). */
  turn?(turn: Turn): void;
  /** vozgate asked the call's provider to end it (or found it ended): a transport that holds the call's media ends it. */
  hungUp?(): void;
}

/** What an engine outside vozgate may add to a call (the engine API's bounds). */
export interface TurnLimits {
  /** Turns the call may hold. */
  maxTurns: number;
  /** Characters (code points) of all its turns' text together. */
  maxChars: number;
  /** A call that finished before this takes no more turns. */
  finishedSince: Date;
}

/**
 * Appends a turn; given when it began (ms since the epoch), with its `at_ms` from the call's
 * answer (from its media, when the answer is not recorded yet), as the call's clock says.
 */
const APPEND_TURN = `update calls set
     turns = turns || jsonb_build_array(?::jsonb || case when ?::float8 is null or coalesce(answered_at, media_started_at) is null then '{}'::jsonb
       else jsonb_build_object('at_ms', greatest(0, round(1000 * extract(epoch from (to_timestamp(?::float8 / 1000) - coalesce(answered_at, media_started_at)))))::int) end),
     transcript = case when finished_at is null then transcript else concat_ws(E'\\n', nullif(transcript, ''), ?::text) end
   where id = ?`;

/** The longest `hangup_detail` kept. */
const DETAIL_CHARS = 300;

/**
 * What a voice engine writes about the call it runs, as it happens: one statement each, so a
 * call's turns and tool calls survive the process that heard them.
 */
export class LiveCall {
  /** The writes in the order they were made (a turn never overtakes the one before). */
  private writes: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly runtime: LiveCallDeps,
    readonly id: number,
    private readonly hooks: LiveCallHooks = {},
  ) {}

  /**
   * A turn heard or said, and when it began (ms since the epoch) where the engine knows it;
   * after the call has ended (a late transcription) it joins the transcript too.
   */
  turn(turn: Turn, startedAt: number | null = null): void {
    this.write(APPEND_TURN, [JSON.stringify(turn), startedAt, startedAt, transcriptText([turn]), this.id]);
    this.hooks.turn?.(turn);
  }

  /**
   * A turn, as `turn` writes it, only within `limits`: the statement that appends it checks
   * them, so concurrent requests cannot pass them together. Answers whether it was written;
   * a failure is the caller's to report.
   */
  async turnWithin(turn: Turn, limits: TurnLimits): Promise<boolean> {
    const written = this.writes.then(() =>
      this.runtime.orm.em.fork().execute(
        `${APPEND_TURN}
           and (finished_at is null or finished_at >= ?)
           and jsonb_array_length(turns) < ?
           and length(?::text) + (select coalesce(sum(length(t ->> 'text')), 0) from jsonb_array_elements(turns) t) <= ?
         returning id`,
        [JSON.stringify(turn), null, null, transcriptText([turn]), this.id, limits.finishedSince, limits.maxTurns, turn.text, limits.maxChars],
      ),
    );
    this.writes = written.catch(() => undefined);
    return (await written).length > 0;
  }

  /** What the pipeline engine's vendors report the call used. */
  usage(usage: CallUsage): void {
    this.write('update calls set usage = ?::jsonb where id = ?', [JSON.stringify(usage), this.id]);
  }

  toolCall(record: ToolCallRecord): void {
    this.write('update calls set tool_calls = tool_calls || ?::jsonb where id = ?', [JSON.stringify([record]), this.id]);
  }

  /**
   * The call ended at the provider without vozgate asking (Twilio's `stop`): the caller hung
   * up (ended_by_customer), unless it had lasted max_call_duration (Twilio's TimeLimit).
   */
  endedAtProvider(): void {
    this.write(
      `update calls c set hangup_reason = coalesce(c.hangup_reason,
         case when c.answered_at is not null and now() - c.answered_at >= make_interval(secs => a.max_call_duration - 1) then 'time-limit' else 'customer' end)
       from assistants a where c.id = ? and a.id = c.assistant_id`,
      [this.id],
    );
  }

  /**
   * Why the engine could not go on, in the server's words (a vendor's refusal, a missing key):
   * kept beside the hang-up reason for the console, /talk and the API. The first one is kept;
   * it is a sentence this code composed (never a secret or a stack), cut at DETAIL_CHARS.
   */
  failed(detail: string): void {
    this.write(`update calls set hangup_detail = left(?, ${DETAIL_CHARS}) where id = ? and finished_at is null and hangup_detail is null`, [detail, this.id]);
  }

  /** Ends the call through its provider, unless it is over. */
  async hangup(reason: HangupReason): Promise<void> {
    try {
      await this.writes;
      const em = this.runtime.orm.em.fork();
      const call = await em.findOne(Call, { id: this.id });
      if (!call || call.finished_at) return;
      await providerOf(call, this.runtime.telephony, this.runtime.lifecycle.config).hangup(em, this.runtime.lifecycle, call, reason);
    } finally {
      this.hooks.hungUp?.();
    }
  }

  /** Waits for the writes under way. */
  settled(): Promise<unknown> {
    return this.writes;
  }

  private write(sql: string, params: unknown[]): void {
    this.writes = this.writes
      .then(() => this.runtime.orm.em.fork().execute(sql, params))
      .catch((error: unknown) => this.runtime.logger.error('voice: could not record a call’s progress', error, { call_id: this.id }));
  }
}
