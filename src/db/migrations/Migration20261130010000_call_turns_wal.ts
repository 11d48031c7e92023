import { Migration } from '@mikro-orm/migrations';

/**
 * Less write-ahead log per turn (issue 50, item 7), the turns and their counts unchanged:
 *
 * - `call_turns` no longer references `call_turn_counts` by a foreign key. Its check ran at every
 *   append and locked the count's new row version (FOR KEY SHARE): one more log record a turn
 *   (54 bytes of about 400) for a row the append's own statement had just updated, so it
 *   could not be missing. Each append and the end's turns write their rows only beside their
 *   count (call.turns.ts); the key's ON DELETE CASCADE is this trigger: a count deleted (its
 *   call deleted, or a test's reset) deletes its turns.
 * - `call_turn_counts` is never analyzed by autovacuum: every turn updates its call's row, so
 *   the table counted as changed enough to analyze after about 50 turns while it is small,
 *   and after each tenth of its size in turns later, while every statement reads it by its
 *   primary key (no plan depends on its statistics). On the benchmark's fresh database those
 *   analyses and their catalog pages were most of a call's log. Vacuum is kept.
 */
export class Migration20261130010000_call_turns_wal extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create function call_turns_forget() returns trigger language plpgsql as $$
      begin
        delete from call_turns t using gone where t.call_id = gone.call_id;
        return null;
      end $$;`);
    this.addSql(`create trigger call_turn_counts_delete after delete on call_turn_counts referencing old table as gone for each statement execute function call_turns_forget();`);
    this.addSql(`alter table call_turns drop constraint call_turns_call_id_fkey;`);
    // The largest threshold PostgreSQL takes: never reached.
    this.addSql(`alter table call_turn_counts set (autovacuum_analyze_threshold = 2147483647);`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table call_turn_counts reset (autovacuum_analyze_threshold);`);
    this.addSql(`delete from call_turns t where not exists (select 1 from call_turn_counts h where h.call_id = t.call_id);`);
    this.addSql(`alter table call_turns add constraint call_turns_call_id_fkey foreign key (call_id) references call_turn_counts (call_id) on delete cascade;`);
    this.addSql(`drop trigger if exists call_turn_counts_delete on call_turn_counts;`);
    this.addSql(`drop function if exists call_turns_forget();`);
  }
}
