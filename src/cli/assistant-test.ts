import { writeFile } from 'node:fs/promises';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../config';
import { OperatorError } from '../modules/accounts/account.service';
import { requireRun, startRun } from '../modules/assistant-tests/test.run.service';
import { junitXml } from './junit';

/** A command's answer and its exit code, when it is not 0 (a CI step fails on it). */
export class CommandOutcome {
  constructor(
    readonly output: unknown,
    readonly exitCode: number,
  ) {}
}

const POLL_MS = 250;

/**
 * `assistant:test`: runs every test of the assistant, `attempts` times each, on this database's
 * job queue (the server's workers, or `npm run worker`, run it), prints a line per attempt to
 * stderr as it lands, writes JUnit XML, and answers the run's summary; exit 0 only when every
 * attempt passed.
 */
export async function assistantTest(em: EntityManager, options: { assistantId: number; attempts: number | null; junit: string | null; timeoutSeconds: number }, config: Config): Promise<CommandOutcome> {
  const [assistant] = await em.execute<{ account_id: number }[]>('select account_id from assistants where id = ?', [options.assistantId]);
  if (!assistant) throw new OperatorError(`assistant ${options.assistantId} does not exist`);
  const scope = { em, accountId: assistant.account_id, config };
  const queued = await startRun(scope, options.assistantId, { attempts: options.attempts });
  const [{ tests }] = await em.execute<{ tests: Record<string, { name: string }> }[]>('select tests from test_runs where id = ?', [queued.id]);
  const names: Record<number, string> = Object.fromEntries(Object.entries(tests).map(([id, test]) => [Number(id), test.name]));
  const say = (line: string) => process.stderr.write(`${line}\n`);
  say(`run ${queued.id}: ${Object.keys(names).length} test(s) of assistant ${options.assistantId}, ${options.attempts ?? 1} attempt(s) each`);
  say(`${'STATUS'.padEnd(7)} ${'ATTEMPT'.padEnd(8)} TEST`);
  const shown = new Set<string>();
  const deadline = Date.now() + options.timeoutSeconds * 1000;
  for (;;) {
    const run = await requireRun(scope, queued.id);
    for (const result of run.results) {
      const key = `${result.test_id}:${result.attempt}`;
      if (shown.has(key)) continue;
      shown.add(key);
      const why = result.status === 'error' ? ` (${result.error})` : result.status === 'failed' ? ` (${result.criteria.filter((c) => !c.passed).map((c) => c.criterion).join('; ')})` : '';
      say(`${result.status.toUpperCase().padEnd(7)} ${String(result.attempt).padEnd(8)} ${names[result.test_id] ?? result.test_id}${why}`);
    }
    if (run.finished_at) {
      if (options.junit) await writeFile(options.junit, junitXml(run, names));
      say(`run ${run.id}: ${run.status}, pass rate ${run.pass_rate}`);
      const summary = { run_id: run.id, status: run.status, pass_rate: run.pass_rate, attempts: run.results.length, assistant_snapshot_hash: run.assistant_snapshot_hash, junit: options.junit };
      return new CommandOutcome(summary, run.status === 'passed' ? 0 : 1);
    }
    if (Date.now() > deadline) {
      throw new OperatorError(
        `run ${queued.id} did not finish within ${options.timeoutSeconds} s: runs are run by the job queue's workers, so start the server (npm start) or a worker (npm run worker) on this database`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
