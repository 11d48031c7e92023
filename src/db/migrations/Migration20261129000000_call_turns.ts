import { Migration } from '@mikro-orm/migrations';

/**
 * A call's turns as rows of their own (`call_turns`), instead of a JSON array in the call's row:
 * appending to that array rewrote the whole array and a new version of the wide `calls` row at
 * every turn (a write that grew with the call) under the call's row lock. `call_turn_counts`
 * holds each call's count and characters: the statement that appends a turn takes its next
 * sequence there, checks the engine API's caps on it (its row lock orders concurrent appends to
 * one call), and reads whether the call's transcript was already written (a late turn joins it).
 * The turns reference their count, not the call: the append has that row locked already, and
 * the call's row is not touched (nor locked) by a turn at all.
 * The existing turns move over in their order; `calls.transcript` stays the text written at the end.
 */
export class Migration20261129000000_call_turns extends Migration {
  override async up(): Promise<void> {
    // Rewritten at every turn: room on the page keeps the update HOT (no index entry).
    this.addSql(`
      create table call_turn_counts (
        call_id integer primary key references calls (id) on delete cascade,
        turns integer not null,
        chars integer not null,
        finished boolean not null
      ) with (fillfactor = 50);`);
    // A turn's words and times as columns (its JSON form is rebuilt on reading): written once
    // and read whole, a turn is smaller so than as jsonb, and the log that copies it too.
    this.addSql(`
      create table call_turns (
        call_id integer not null references call_turn_counts (call_id) on delete cascade,
        seq integer not null,
        account_id integer not null,
        speaker text not null,
        text text not null,
        at_ms integer null,
        timing json null,
        primary key (call_id, seq)
      );`);
    this.addSql(`
      insert into call_turn_counts (call_id, turns, chars, finished)
      select c.id, jsonb_array_length(c.turns), (select coalesce(sum(length(t ->> 'text')), 0) from jsonb_array_elements(c.turns) t), c.finished_at is not null
        from calls c
       where jsonb_array_length(c.turns) > 0;`);
    this.addSql(`
      insert into call_turns (call_id, seq, account_id, speaker, text, at_ms, timing)
      select c.id, t.seq, c.account_id, t.turn ->> 'speaker', t.turn ->> 'text', round((t.turn ->> 'at_ms')::numeric)::int, nullif(t.turn - 'speaker' - 'text' - 'at_ms', '{}'::jsonb)::json
        from calls c cross join lateral jsonb_array_elements(c.turns) with ordinality as t(turn, seq)
       where jsonb_array_length(c.turns) > 0;`);
    this.addSql(`alter table calls drop column turns;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table calls add column turns jsonb not null default '[]';`);
    this.addSql(`
      update calls c set turns = t.turns
        from (select call_id, jsonb_agg(jsonb_strip_nulls(jsonb_build_object('speaker', speaker, 'text', text, 'at_ms', at_ms)) || coalesce(timing::jsonb, '{}') order by seq) as turns
                from call_turns group by call_id) t
       where t.call_id = c.id;`);
    this.addSql(`drop table if exists call_turns;`);
    this.addSql(`drop table if exists call_turn_counts;`);
  }
}
