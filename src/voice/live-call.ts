import type { EntityManager } from '@mikro-orm/postgresql';
import { answeredByNow, recordAnsweredBy, type AnsweredByVerdict } from '../modules/calls/call.answered-by';
import type { Turn, TurnRetrieval } from '../modules/calls/call.conversation';
import type { KnowledgeBaseMode } from '../modules/assistants/assistant.entity';
import type { KnowledgeSearchHit } from '../modules/knowledge/knowledge.search';
import { assistantSearch, type CallKnowledgeBase } from './assistant-search';
import { Call, type AnsweredBy, type CallUsage, type ToolCallRecord } from '../modules/calls/call.entity';
import type { HangupReason } from '../modules/calls/call.events';
import { reserveTransfer, type TransferRefusal } from '../modules/calls/call.transfer';
import { appendTurn, turnsOfCall, type TurnLimits } from '../modules/calls/call.turns';
import { recordVendorEvent, type VendorEvent } from '../modules/calls/call.vendor-events';
import { providerOf } from '../modules/calls/call.web-provider';
import { voiceVendorEvents } from '../metrics';
import type { Runtime } from '../runtime';
import { briefing } from './briefing';

/** The parts of the runtime a live call writes through (and searches its assistant's knowledge base with). */
export type LiveCallDeps = Pick<Runtime, 'orm' | 'lifecycle' | 'telephony' | 'logger' | 'embedder'>;

/** The turn left for searches no answer of the assistant's followed (the call ended first). */
const UNANSWERED_SEARCH = 'Busca na base de conhecimento sem resposta antes do fim da chamada.';

/** What a transport is told of a live call as it happens. */
export interface LiveCallHooks {
  /** Each turn as it is recorded (a transport that shows the transcript). */
  turn?(turn: Turn): void;
  /** vozgate asked the call's provider to end it (or found it ended): a transport that holds the call's media ends it. */
  hungUp?(): void;
}

export type { TurnLimits };

/** The longest `hangup_detail` kept. */
const DETAIL_CHARS = 300;

/**
 * What a voice engine writes about the call it runs, as it happens: one statement each, so a
 * call's turns and tool calls survive the process that heard them.
 */
export class LiveCall {
  /** The writes in the order they were made (a turn never overtakes the one before). */
  private writes: Promise<unknown> = Promise.resolve();
  /** Knowledge-base searches not yet on a turn: the assistant's next turn carries them. */
  private retrievals: TurnRetrieval[] = [];

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
    if (turn.speaker === 'assistant' && this.retrievals.length) {
      turn = { ...turn, retrievals: [...(turn.retrievals ?? []), ...this.retrievals] };
      this.retrievals = [];
    }
    this.writes = this.writes
      .then(() => appendTurn(this.runtime.orm.em.fork(), this.id, turn, startedAt))
      .catch((error: unknown) => this.runtime.logger.error('voice: could not record a call’s progress', error, { call_id: this.id }));
    this.hooks.turn?.(turn);
  }

  /**
   * A turn, as `turn` writes it, only within `limits`: the statement that appends it checks
   * them, so concurrent requests cannot pass them together. Answers whether it was written;
   * a failure is the caller's to report.
   */
  async turnWithin(turn: Turn, limits: TurnLimits): Promise<boolean> {
    const written = this.writes.then(() => appendTurn(this.runtime.orm.em.fork(), this.id, turn, null, limits));
    this.writes = written.catch(() => undefined);
    return written;
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

  /** A vendor retried or replaced (kept on the call up to its cap, and counted). */
  vendorEvent(event: VendorEvent): void {
    const vendor = event.type === 'vendor_retried' ? event.vendor : event.from;
    voiceVendorEvents.inc({ part: event.part, vendor, kind: event.type === 'vendor_retried' ? 'retried' : 'switched' });
    this.writes = this.writes
      .then(() => recordVendorEvent(this.runtime.orm.em.fork(), this.id, event))
      .catch((error: unknown) => this.runtime.logger.error('voice: could not record a call’s progress', error, { call_id: this.id }));
  }

  /** The engine's verdict on who answered (kept once, before what is written after it). */
  answeredBy(verdict: AnsweredByVerdict): void {
    this.writes = this.writes
      .then(() => recordAnsweredBy(this.runtime.orm.em.fork(), this.id, verdict))
      .catch((error: unknown) => this.runtime.logger.error('voice: could not record a call’s progress', error, { call_id: this.id }));
  }

  /** Who answered, as the call keeps it now (Twilio's AMD when it has come). */
  providerAnsweredBy(): Promise<AnsweredBy | null> {
    return answeredByNow(this.runtime.orm.em.fork(), this.id);
  }

  /**
   * Checks a transfer to `to` and reserves its leg (call.transfer.ts); answers why it was
   * refused, or null. The transfer is made by `hangup('transferred')`.
   */
  reserveTransfer(to: string): Promise<TransferRefusal | null> {
    return reserveTransfer(this.runtime.orm.em.fork(), this.runtime.lifecycle.config, this.id, to);
  }

  /**
   * Ends the call through its provider, unless it is over: `transferred` hands it to the number
   * its transfer reserved (the call then ends when that leg does).
   */
  async hangup(reason: HangupReason): Promise<void> {
    try {
      await this.writes;
      const em = this.runtime.orm.em.fork();
      const call = await em.findOne(Call, { id: this.id });
      if (!call || call.finished_at) return;
      const provider = providerOf(call, this.runtime.telephony, this.runtime.lifecycle.config);
      if (reason !== 'transferred') return await provider.hangup(em, this.runtime.lifecycle, call, reason);
      if (!provider.transfer) throw new Error(`the ${provider.name} provider cannot transfer a call`);
      await provider.transfer(em, this.runtime.lifecycle, call, await this.briefing(em, call));
    } finally {
      this.hooks.hungUp?.();
    }
  }

  /** A warm transfer's briefing, from the call so far; none for a cold one. */
  private async briefing(em: EntityManager, call: Call): Promise<string | null> {
    const [assistant] = call.assistant_id
      ? await em.execute('select a.transfer_mode, l.iso_2 as language from assistants a left join languages l on l.name = a.language where a.id = ?', [call.assistant_id])
      : [];
    if (assistant?.transfer_mode !== 'warm') return null;
    return briefing(this.runtime.lifecycle.config.voice.openai, await turnsOfCall(em, call.id), assistant.language ?? null);
  }

  /**
   * Searches the assistant's knowledge base (the model's query, or the caller's turn in `prompt`
   * mode): the best CALL_SEARCH_RESULTS chunks. The search is kept with the assistant's next turn.
   */
  async searchKnowledge(base: CallKnowledgeBase, query: string, mode: KnowledgeBaseMode): Promise<KnowledgeSearchHit[]> {
    const { text, hits } = await assistantSearch(this.runtime, base, query);
    const chunks = hits.map(({ chunk_id, document_id, score }) => ({ chunk_id, document_id, score }));
    this.retrievals.push({ knowledgebase_id: base.id, mode, query: text, chunks });
    return hits;
  }

  /** Waits for the writes under way; searches no answer followed are kept on a turn of their own. */
  settled(): Promise<unknown> {
    if (this.retrievals.length) this.turn({ speaker: 'system', text: UNANSWERED_SEARCH, retrievals: this.retrievals.splice(0) });
    return this.writes;
  }

  private write(sql: string, params: unknown[]): void {
    this.writes = this.writes
      .then(() => this.runtime.orm.em.fork().execute(sql, params))
      .catch((error: unknown) => this.runtime.logger.error('voice: could not record a call’s progress', error, { call_id: this.id }));
  }
}
