import type { EntityManager } from '@mikro-orm/postgresql';
import { transcriptText, type Turn } from './call.conversation';

/**
 * A call's turns, one row each (`call_turns`, in `seq` order), and the statements that append
 * them. Every append takes the call's next `seq` from its `call_turn_counts` row in the same
 * statement: that row's lock orders concurrent appends to one call (no two take one `seq`, and
 * a cap is checked on the count the previous append left). It also says whether the call's
 * transcript was written (`finished`): the call's end sets it under that lock before it reads
 * the turns, so a turn either is in what the end read or, coming after, appends its line to
 * the transcript itself, never neither.
 */

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
 * Appends one turn; given when it began (ms since the epoch), with its `at_ms` from the call's
 * answer (from its media, when the answer is not recorded yet), as the call's clock says.
 * With limits, only within them. Answers the turn's `seq` (no row: not written).
 */
const APPEND_TURN = `with head as (
    insert into call_turn_counts as h (call_id, turns, chars, finished)
    select c.id, 1, length(?::text), c.finished_at is not null from calls c
     where c.id = ?
       and (?::timestamptz is null or c.finished_at is null or c.finished_at >= ?::timestamptz)
       and (?::int is null or length(?::text) <= ?::int)
    on conflict (call_id) do update set turns = h.turns + 1, chars = h.chars + excluded.chars
     where (?::int is null or h.turns < ?::int) and (?::int is null or h.chars + excluded.chars <= ?::int)
    returning h.call_id, h.turns as seq, h.finished
  ),
  added as (
    insert into call_turns (call_id, seq, account_id, turn)
    select c.id, head.seq, c.account_id, ?::jsonb || case when ?::float8 is null or coalesce(c.answered_at, c.media_started_at) is null then '{}'::jsonb
        else jsonb_build_object('at_ms', greatest(0, round(1000 * extract(epoch from (to_timestamp(?::float8 / 1000) - coalesce(c.answered_at, c.media_started_at)))))::int) end
      from head join calls c on c.id = head.call_id
    returning seq
  ),
  late as (
    update calls c set transcript = concat_ws(E'\\n', nullif(c.transcript, ''), ?::text)
      from head where c.id = head.call_id and head.finished
  )
  select seq from added`;

/** Appends `turn` to the call (within `limits` when given); answers whether it was written. */
export async function appendTurn(em: EntityManager, callId: number, turn: Turn, startedAt: number | null, limits: TurnLimits | null = null): Promise<boolean> {
  const since = limits?.finishedSince.toISOString() ?? null;
  const maxTurns = limits?.maxTurns ?? null;
  const maxChars = limits?.maxChars ?? null;
  const rows = await em.execute(APPEND_TURN, [
    turn.text,
    callId,
    since,
    since,
    maxChars,
    turn.text,
    maxChars,
    maxTurns,
    maxTurns,
    maxChars,
    maxChars,
    JSON.stringify(turn),
    startedAt,
    startedAt,
    transcriptText([turn]),
  ]);
  return rows.length > 0;
}

/**
 * The turns the call's end brings, after its own, and the call marked finished (see above);
 * run in the end's transaction, before it reads the turns for the transcript.
 */
const END_TURNS = `with head as (
    insert into call_turn_counts as h (call_id, turns, chars, finished) values (?, ?, ?, true)
    on conflict (call_id) do update set turns = h.turns + excluded.turns, chars = h.chars + excluded.chars, finished = true
    returning h.turns
  )
  insert into call_turns (call_id, seq, account_id, turn)
  select ?, head.turns - ?::int + t.n::int, ?, t.turn from head, jsonb_array_elements(?::jsonb) with ordinality as t(turn, n)`;

/** Appends the end's `turns` and answers all the call's turns, in order (for its transcript). */
export async function endTurns(em: EntityManager, call: { id: number; account_id: number }, turns: Turn[]): Promise<Turn[]> {
  const chars = turns.reduce((sum, turn) => sum + [...turn.text].length, 0);
  await em.execute(END_TURNS, [call.id, turns.length, chars, call.id, turns.length, call.account_id, JSON.stringify(turns)]);
  return turnsOfCall(em, call.id);
}

/** The call's turns, in order. */
export async function turnsOfCall(em: EntityManager, callId: number): Promise<Turn[]> {
  const rows: { turn: Turn }[] = await em.execute('select turn from call_turns where call_id = ? order by seq', [callId]);
  return rows.map((row) => row.turn);
}

/** How many turns the call holds. */
export async function turnCount(em: EntityManager, callId: number): Promise<number> {
  const [row] = await em.execute<{ turns: number }[]>('select turns from call_turn_counts where call_id = ?', [callId]);
  return row?.turns ?? 0;
}

/** The turns of the account's calls, each call's in order, in one statement for them all. */
export async function turnsOfCalls(em: EntityManager, accountId: number, callIds: readonly number[]): Promise<Map<number, Turn[]>> {
  const byCall = new Map<number, Turn[]>(callIds.map((id) => [id, []]));
  if (callIds.length === 0) return byCall;
  // The ids as PostgreSQL's array literal: the driver builds one from an array character by character.
  const rows: { call_id: number; turn: Turn }[] = await em.execute(
    'select call_id, turn from call_turns where call_id = any(?::int[]) and account_id = ? order by call_id, seq',
    [`{${callIds.join(',')}}`, accountId],
  );
  for (const row of rows) byCall.get(row.call_id)?.push(row.turn);
  return byCall;
}
