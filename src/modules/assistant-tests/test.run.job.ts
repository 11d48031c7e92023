import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { TEST_RUNS_CHANNEL } from '../events/event.bus';
import { runAttempt, type AttemptOutcome } from './test.attempt';
import { NO_USAGE, type TestBrain, type TestUsage } from './test.ports';
import type { TestConfig, TestType } from './test.rules';

/** How often a run that waits (for the account's other attempts, or a dead worker's) looks again. */
const WAIT_MS = 200;

/** The advisory lock's first key: the account's attempts are claimed one claimer at a time (its second key is the account). */
const CLAIM_LOCK = 56_001;

interface Claimed {
  id: string;
  test_id: number;
  attempt: number;
}

/**
 * Claims up to what the account has left of TEST_RUN_CONCURRENCY of this run's attempts, in one
 * transaction under the account's advisory lock (so claimers of the account's runs, in any
 * process, count and claim one after the other). Claimable: an attempt never started, or one a
 * worker started whose heartbeat has gone (the sweeper deleted it: the process died). An
 * attempt this claim runs is never taken from it, heartbeat or not.
 */
async function claim(em: EntityManager, run: { id: number; account_id: number }, workerId: string, token: string, want: number, concurrency: number): Promise<Claimed[]> {
  return em.transactional(async (tx) => {
    await tx.execute('select pg_advisory_xact_lock(?, ?)', [CLAIM_LOCK, run.account_id]);
    const rows: Claimed[] = await tx.execute(
      `with alive as (select worker_id from worker_heartbeats),
       busy as (
         select count(*)::int as n from test_results x join test_runs t on t.id = x.run_id
          where t.account_id = ? and x.status = 'running' and (x.claim = ?::uuid or x.claimed_by in (select worker_id from alive)))
       update test_results set status = 'running', claimed_by = ?, claim = ?::uuid, started_at = now()
        where id in (
          select r.id from test_results r
           where r.run_id = ?
             and (r.status = 'queued' or (r.status = 'running' and r.claim is distinct from ?::uuid and (r.claimed_by is null or r.claimed_by not in (select worker_id from alive))))
           order by r.test_id, r.attempt
           limit least(?, greatest(0, ? - (select n from busy)))
           for update skip locked)
       returning id::text, test_id, attempt`,
      [run.account_id, token, workerId, token, run.id, token, want, concurrency],
    );
    if (rows.length) {
      await tx.execute(
        `with s as (update test_runs set status = 'running', started_at = coalesce(started_at, now()) where id = ? and status = 'queued' returning id)
         select pg_notify(?, json_build_object('a', ?::int, 'r', s.id)::text) from s`,
        [run.id, TEST_RUNS_CHANNEL, run.account_id],
      );
    }
    return rows;
  });
}

/**
 * JSON PostgreSQL stores: what the models wrote is untrusted text, and jsonb refuses NUL and
 * lone surrogates (the attempt could then never be written, and its job would fail for ever).
 */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
export const storable = (text: string): string => text.replace(UNSTORABLE, '');
const storableJson = (value: unknown): string => JSON.stringify(value, (_key, inner) => (typeof inner === 'string' ? storable(inner) : inner));

/** Writes an attempt's outcome, only under the claim that ran it (never twice), and tells subscribers at commit. */
async function record(em: EntityManager, run: { id: number; account_id: number }, attempt: Claimed, token: string, outcome: AttemptOutcome): Promise<void> {
  await em.execute(
    `with r as (
       update test_results set status = ?, transcript = ?::jsonb, criteria = ?::jsonb, tool_calls = ?::jsonb, latency_ms = ?::jsonb, usage = ?::jsonb, error = ?, finished_at = now()
        where id = ? and claim = ?::uuid and status = 'running' returning id)
     select pg_notify(?, json_build_object('a', ?::int, 'r', ?::int, 't', r.id::text)::text) from r`,
    [
      outcome.status,
      storableJson(outcome.transcript),
      storableJson(outcome.criteria),
      storableJson(outcome.tool_calls),
      storableJson(outcome.latency_ms),
      storableJson(outcome.usage),
      outcome.error === null ? null : storable(outcome.error),
      attempt.id,
      token,
      TEST_RUNS_CHANNEL,
      run.account_id,
      run.id,
    ],
  );
}

/**
 * Ends the run once every attempt is written: failed when one failed, else error when one could
 * not reach a verdict, else passed; its pass rate and usage. Answers false while attempts are left.
 * `abandoned`: the run's job gave up; the attempts not written are `error` with that reason, and
 * so is the run, whatever the others came to (it did not run what it was asked to).
 */
async function finish(em: EntityManager, run: { id: number; account_id: number }, abandoned: string | null = null): Promise<boolean> {
  return em.transactional(async (tx) => {
    const [locked] = await tx.execute('select finished_at from test_runs where id = ? for no key update', [run.id]);
    if (!locked || locked.finished_at) return true;
    if (abandoned !== null) {
      await tx.execute(
        `update test_results set status = 'error', error = ?, claimed_by = null, claim = null, finished_at = now() where run_id = ? and status in ('queued', 'running')`,
        [abandoned, run.id],
      );
    }
    const results: { status: string; usage: Partial<TestUsage> }[] = await tx.execute('select status, usage from test_results where run_id = ?', [run.id]);
    if (results.some((result) => result.status === 'queued' || result.status === 'running')) return false;
    const count = (status: string) => results.filter((result) => result.status === status).length;
    const status = abandoned !== null ? 'error' : count('failed') ? 'failed' : count('error') ? 'error' : 'passed';
    const usage: TestUsage = { ...NO_USAGE };
    for (const result of results) for (const key of Object.keys(usage) as (keyof TestUsage)[]) usage[key] += Number(result.usage[key] ?? 0);
    const passRate = results.length ? (count('passed') / results.length).toFixed(4) : null;
    await tx.execute(
      `with s as (update test_runs set status = ?, pass_rate = ?, usage = ?::jsonb, finished_at = now() where id = ? returning id)
       select pg_notify(?, json_build_object('a', ?::int, 'r', s.id)::text) from s`,
      [status, passRate, JSON.stringify(usage), run.id, TEST_RUNS_CHANNEL, run.account_id],
    );
    return true;
  });
}

export interface RunWorker {
  /** The worker's id, as its heartbeat names it (the job's `locked_by`). */
  workerId: string;
  /** TEST_RUN_CONCURRENCY: the account's attempts at once. */
  concurrency: number;
  logger?: { error(message: string, error?: unknown, fields?: Record<string, unknown>): void };
}

/**
 * Runs a test run's attempts to the end (the `tests:run` job). Attempts are claimed as the
 * account has room (claim above), run, and written under their claim; a run resumed after its
 * worker died takes the dead worker's attempts again once its heartbeat is gone, and what was
 * written stays written. The job returns once every attempt is written and the run ended.
 */
export async function runTestRun(root: EntityManager, brain: TestBrain, runId: number, worker: RunWorker): Promise<void> {
  const [run] = await root.fork().execute<{ id: number; account_id: number; assistant_id: number; tests: Record<string, { type: TestType; config: TestConfig }>; finished_at: Date | null }[]>(
    'select id, account_id, assistant_id, tests, finished_at from test_runs where id = ?',
    [runId],
  );
  if (!run || run.finished_at) return;
  // A previous run of this job on this same worker (it threw) left its claims: nobody runs them now.
  await root.fork().execute(`update test_results set status = 'queued', claimed_by = null, claim = null where run_id = ? and status = 'running' and claimed_by = ?`, [
    runId,
    worker.workerId,
  ]);
  const token = randomUUID();
  const running = new Set<Promise<void>>();
  let failure: unknown = null;
  const start = (attempt: Claimed) => {
    const test = run.tests[String(attempt.test_id)];
    const work = runAttempt(brain, run.account_id, run.assistant_id, test.type, test.config)
      .catch((error): AttemptOutcome => {
        worker.logger?.error('tests: an attempt failed unexpectedly', error, { run_id: runId, test_id: attempt.test_id, attempt: attempt.attempt });
        return { status: 'error', transcript: [], criteria: [], tool_calls: [], latency_ms: [], usage: { ...NO_USAGE }, error: 'the attempt failed unexpectedly' };
      })
      .then((outcome) => record(root.fork(), run, attempt, token, outcome))
      .catch((error) => void (failure ??= error))
      .finally(() => running.delete(work));
    running.add(work);
  };
  const pause = () => new Promise((resolve) => setTimeout(resolve, WAIT_MS));
  for (;;) {
    if (failure) {
      // What runs still writes its outcome; the job's retry takes what is left, on whichever
      // worker it lands: this claim's unwritten attempts are given back (a live worker's claims are never taken).
      await Promise.all(running);
      await root
        .fork()
        .execute(`update test_results set status = 'queued', claimed_by = null, claim = null where run_id = ? and claim = ?::uuid and status = 'running'`, [runId, token])
        .catch(() => undefined);
      throw failure;
    }
    const room = worker.concurrency - running.size;
    const claimed = room > 0 ? await claim(root.fork(), run, worker.workerId, token, room, worker.concurrency).catch(async (error) => {
      await Promise.all(running);
      throw error;
    }) : [];
    claimed.forEach(start);
    if (running.size === 0 && claimed.length === 0) {
      if (await finish(root.fork(), run)) return;
      await pause();
    } else {
      await Promise.race([...running, pause()]);
    }
  }
}

/** Why the attempts of a run whose job gave up were not run (each one's `error`). */
export const RUN_ABANDONED = 'the run stopped before this attempt ran: its job failed on every try (the server’s log has why)';

/**
 * The run's job failed its last try (a database that refused its writes, a bug): the run ends
 * `error`, its unwritten attempts `error` with RUN_ABANDONED, so that nobody waits on a run
 * `running` for ever. What was written stays as it was.
 */
export async function abandonTestRun(root: EntityManager, runId: number): Promise<void> {
  const [run] = await root.fork().execute<{ id: number; account_id: number }[]>('select id, account_id from test_runs where id = ?', [runId]);
  if (run) await finish(root.fork(), run, RUN_ABANDONED);
}
