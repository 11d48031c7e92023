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

/** The columns of a turn the statements write, and how a row is read back as the turn. */
const TURN_COLUMNS = 'call_id, seq, account_id, speaker, text, at_ms, timing';
const TURN_OF_ROW = 'speaker, text, at_ms, timing';

interface TurnRow {
  speaker: Turn['speaker'];
  text: string;
  at_ms: number | null;
  timing: Pick<Turn, 'duration_ms' | 'latency' | 'retrievals'> | null;
}

function turnOf(row: TurnRow): Turn {
  return { speaker: row.speaker, text: row.text, ...(row.at_ms === null ? {} : { at_ms: row.at_ms }), ...row.timing };
}

/** What a turn carries beside its words and start (the `timing` column): JSON, or null when nothing. */
function timingOf(turn: Turn): string | null {
  const timing = {
    ...(turn.duration_ms === undefined ? {} : { duration_ms: turn.duration_ms }),
    ...(turn.latency ? { latency: turn.latency } : {}),
    ...(turn.retrievals?.length ? { retrievals: turn.retrievals } : {}),
  };
  return Object.keys(timing).length ? JSON.stringify(timing) : null;
}

/**
 * The appended row, its `at_ms` (when not given) from when it began (ms since the epoch) and the
 * call's answer (its media's start, when the answer is not recorded yet), as the call's clock says. Of
 * `head` (the call and its `seq`) and `calls` as `c`.
 */
const NEW_ROW = `added as (
    insert into call_turns (${TURN_COLUMNS})
    select c.id, head.seq, c.account_id, ?, ?,
           coalesce(?::int, case when ?::float8 is not null and coalesce(c.answered_at, c.media_started_at) is not null
             then greatest(0, round(1000 * extract(epoch from (to_timestamp(?::float8 / 1000) - coalesce(c.answered_at, c.media_started_at)))))::int end),
           ?::json
      from head join calls c on c.id = head.call_id
    returning seq
  ),
  late as (
    update calls c set transcript = concat_ws(E'\\n', nullif(c.transcript, ''), ?::text)
      from head where c.id = head.call_id and head.finished
  )`;

/** The call's grace and the caps, of `calls` as `c` and the count as `h` (each null: none). */
const WITHIN = {
  call: '(?::timestamptz is null or c.finished_at is null or c.finished_at >= ?::timestamptz)',
  count: '(?::int is null or h.turns < ?::int) and (?::int is null or h.chars + ? <= ?::int)',
};

/**
 * A turn of a call that has its count (every turn but its first): the count's row, updated,
 * orders the appends (an update waits for the one before and checks the caps on what it left).
 * `headed` says the count was there (a turn not written with it was refused).
 */
const APPEND_TURN = `with head as (
    update call_turn_counts h set turns = h.turns + 1, chars = h.chars + ?
      from calls c
     where h.call_id = ? and c.id = h.call_id and ${WITHIN.call} and ${WITHIN.count}
    returning h.call_id, h.turns as seq, h.finished
  ),
  ${NEW_ROW}
  select (select seq from added) as seq, exists (select 1 from call_turn_counts where call_id = ?) as headed`;

/** A call's first turn: its count is made (or, made meanwhile by another, updated as above). */
const APPEND_FIRST_TURN = `with head as (
    insert into call_turn_counts as h (call_id, turns, chars, finished)
    select c.id, 1, ?, c.finished_at is not null from calls c
     where c.id = ? and ${WITHIN.call} and (?::int is null or ? <= ?::int)
    on conflict (call_id) do update set turns = h.turns + 1, chars = h.chars + excluded.chars
     where (?::int is null or h.turns < ?::int) and (?::int is null or h.chars + excluded.chars <= ?::int)
    returning h.call_id, h.turns as seq, h.finished
  ),
  ${NEW_ROW}
  select seq from added`;

/**
 * Appends `turn` to the call, given when it began (ms since the epoch), within `limits` when
 * given; answers whether it was written.
 */
export async function appendTurn(em: EntityManager, callId: number, turn: Turn, startedAt: number | null, limits: TurnLimits | null = null): Promise<boolean> {
  const since = limits?.finishedSince.toISOString() ?? null;
  const maxTurns = limits?.maxTurns ?? null;
  const maxChars = limits?.maxChars ?? null;
  const chars = [...turn.text].length;
  const atMs = turn.at_ms === undefined ? null : Math.round(turn.at_ms);
  const row = [turn.speaker, turn.text, atMs, startedAt, startedAt, timingOf(turn), transcriptText([turn])];
  const [next] = await em.execute<{ seq: number | null; headed: boolean }[]>(APPEND_TURN, [
    chars,
    callId,
    since,
    since,
    maxTurns,
    maxTurns,
    maxChars,
    chars,
    maxChars,
    ...row,
    callId,
  ]);
  if (next.seq !== null) return true;
  if (next.headed) return false;
  const first = await em.execute(APPEND_FIRST_TURN, [chars, callId, since, since, maxChars, chars, maxChars, maxTurns, maxTurns, maxChars, maxChars, ...row]);
  return first.length > 0;
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
  insert into call_turns (${TURN_COLUMNS})
  select ?, head.turns - ?::int + t.n::int, ?, t.turn ->> 'speaker', t.turn ->> 'text', (t.turn ->> 'at_ms')::int,
           case when json_typeof(t.turn -> 'timing') = 'object' then t.turn -> 'timing' end
    from head, json_array_elements(?::json) with ordinality as t(turn, n)`;

/** Appends the end's `turns` and answers all the call's turns, in order (for its transcript). */
export async function endTurns(em: EntityManager, call: { id: number; account_id: number }, turns: Turn[]): Promise<Turn[]> {
  const chars = turns.reduce((sum, turn) => sum + [...turn.text].length, 0);
  const rows = turns.map((turn) => {
    const timing = timingOf(turn);
    return { speaker: turn.speaker, text: turn.text, at_ms: turn.at_ms === undefined ? null : Math.round(turn.at_ms), timing: timing === null ? null : JSON.parse(timing) };
  });
  await em.execute(END_TURNS, [call.id, turns.length, chars, call.id, turns.length, call.account_id, JSON.stringify(rows)]);
  return turnsOfCall(em, call.id);
}

/** The call's turns, in order. */
export async function turnsOfCall(em: EntityManager, callId: number): Promise<Turn[]> {
  const rows: TurnRow[] = await em.execute(`select ${TURN_OF_ROW} from call_turns where call_id = ? order by seq`, [callId]);
  return rows.map(turnOf);
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
  const rows: (TurnRow & { call_id: number })[] = await em.execute(
    `select call_id, ${TURN_OF_ROW} from call_turns where call_id = any(?::int[]) and account_id = ? order by call_id, seq`,
    [`{${callIds.join(',')}}`, accountId],
  );
  for (const row of rows) byCall.get(row.call_id)?.push(turnOf(row));
  return byCall;
}
