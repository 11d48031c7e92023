import { Migration } from '@mikro-orm/migrations';

/**
 * Assistant tests (design.md, "Assistant tests"): a test pins what an assistant must do; a run
 * runs some of them, each `attempts` times. Every attempt of a run is a row of test_results made
 * with the run, unique by (run, test, attempt), so that a result is written once whatever the
 * workers do: an attempt is claimed by a worker (`claimed_by`, its heartbeat id; `claim`, the
 * claiming handler's token) and its outcome is written only by that claim.
 */
export class Migration20261214000000_assistant_tests extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table assistant_tests (
        id serial primary key,
        account_id int not null references accounts (id) on delete cascade,
        assistant_id int not null references assistants (id) on delete cascade,
        name varchar(255) not null,
        type varchar(16) not null,
        config jsonb not null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );`);
    this.addSql('create index assistant_tests_assistant_idx on assistant_tests (assistant_id, id);');
    this.addSql(`
      create table test_runs (
        id serial primary key,
        account_id int not null references accounts (id) on delete cascade,
        assistant_id int not null references assistants (id) on delete cascade,
        status varchar(16) not null default 'queued',
        attempts int not null,
        -- The tests as they were when the run started: {"<id>": {name, type, config}}.
        tests jsonb not null,
        assistant_snapshot_hash varchar(64) not null,
        pass_rate numeric(5, 4) null,
        usage jsonb not null default '{}',
        created_at timestamptz not null default now(),
        started_at timestamptz null,
        finished_at timestamptz null
      );`);
    this.addSql('create index test_runs_assistant_idx on test_runs (assistant_id, id desc);');
    this.addSql(`
      create table test_results (
        id bigserial primary key,
        run_id int not null references test_runs (id) on delete cascade,
        -- No foreign key: a test deleted later keeps its runs' results (the run keeps the test as it ran).
        test_id int not null,
        attempt int not null,
        status varchar(16) not null default 'queued',
        claimed_by text null,
        claim uuid null,
        transcript jsonb not null default '[]',
        criteria jsonb not null default '[]',
        tool_calls jsonb not null default '[]',
        latency_ms jsonb not null default '[]',
        usage jsonb not null default '{}',
        error text null,
        started_at timestamptz null,
        finished_at timestamptz null,
        unique (run_id, test_id, attempt)
      );`);
    this.addSql(`create index test_results_running_idx on test_results (run_id) where status in ('queued', 'running');`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table test_results;');
    this.addSql('drop table test_runs;');
    this.addSql('drop table assistant_tests;');
  }
}
