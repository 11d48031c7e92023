/**
 * A call's turns in tests' own SQL: read as the JSON array they were before they were rows
 * (`call_turns`), and written straight to the database as the statements that append them
 * leave them (rows and the call's count), to reach a bound without the API.
 */

/** Select-list item: the call's turns in order, as a JSON array, from `calls` (unaliased). */
export const TURNS_COLUMN = `(select coalesce(jsonb_agg(jsonb_strip_nulls(jsonb_build_object('speaker', t.speaker, 'text', t.text, 'at_ms', t.at_ms)) || coalesce(t.timing::jsonb, '{}') order by t.seq), '[]'::jsonb)
  from call_turns t where t.call_id = calls.id) as turns`;

type Sql = (text: string, params?: unknown[]) => Promise<unknown[]>;

/** Replaces the call's turns with `turns`. */
export async function setTurns(sql: Sql, callId: number, turns: unknown[]): Promise<void> {
  await sql('delete from call_turn_counts where call_id = $1', [callId]);
  await sql(
    `insert into call_turn_counts (call_id, turns, chars, finished)
     select c.id, jsonb_array_length($2::jsonb), (select coalesce(sum(length(t ->> 'text')), 0) from jsonb_array_elements($2::jsonb) t), c.finished_at is not null
       from calls c where c.id = $1`,
    [callId, JSON.stringify(turns)],
  );
  await sql(
    `insert into call_turns (call_id, seq, account_id, speaker, text, at_ms, timing)
     select c.id, t.seq, c.account_id, t.turn ->> 'speaker', t.turn ->> 'text', (t.turn ->> 'at_ms')::int, nullif(t.turn - 'speaker' - 'text' - 'at_ms', '{}'::jsonb)::json
       from calls c, jsonb_array_elements($2::jsonb) with ordinality as t(turn, seq) where c.id = $1`,
    [callId, JSON.stringify(turns)],
  );
}
