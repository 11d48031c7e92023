import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { FieldErrorCollector, FieldMessages, Messages, NotFoundError } from '../../errors';
import { MAX_PER_PAGE, makePage, offsetOf, type Page } from '../../graphql/pagination';
import { enqueue } from '../../jobs/queue';
import { Assistant } from '../assistants/assistant.entity';
import type { Scope } from '../scope';
import { NO_USAGE } from './test.ports';
import { TEST_RULES } from './test.rules';
import type { StartTestRunInput } from './test.inputs';
import { TestResult, TestRun, TestRunQueued } from './test.types';

interface RunRow {
  id: number;
  assistant_id: number;
  status: string;
  attempts: number;
  assistant_snapshot_hash: string;
  pass_rate: string | null;
  usage: Record<string, number>;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

export interface ResultRow {
  id: string;
  run_id: number;
  test_id: number;
  attempt: number;
  status: string;
  transcript: TestResult['transcript'];
  criteria: TestResult['criteria'];
  tool_calls: TestResult['tool_calls'];
  latency_ms: number[];
  usage: Record<string, number>;
  error: string | null;
}

const RUN_COLUMNS = 'id, assistant_id, status, attempts, assistant_snapshot_hash, pass_rate, usage, created_at, started_at, finished_at';
export const RESULT_COLUMNS = 'id::text, run_id, test_id, attempt, status, transcript, criteria, tool_calls, latency_ms, usage, error';
/** Results a run shows: the finished attempts. */
const FINISHED = `status in ('passed', 'failed', 'error')`;

const iso = (date: Date | null) => (date ? new Date(date).toISOString() : null);

export function asResult(row: ResultRow): TestResult {
  const { id: _id, run_id: _run, usage, ...rest } = row;
  return Object.assign(new TestResult(), rest, { usage: { ...NO_USAGE, ...usage } });
}

function asRun(row: RunRow, results: ResultRow[]): TestRun {
  return Object.assign(new TestRun(), {
    ...row,
    pass_rate: row.pass_rate === null ? null : Number(row.pass_rate),
    usage: { ...NO_USAGE, ...row.usage },
    created_at: iso(row.created_at),
    started_at: iso(row.started_at),
    finished_at: iso(row.finished_at),
    results: results.map(asResult),
  });
}

/** Runs with their finished results, in one statement for all of them. */
async function withResults(em: EntityManager, runs: RunRow[]): Promise<TestRun[]> {
  if (!runs.length) return [];
  const results: ResultRow[] = await em.execute(`select ${RESULT_COLUMNS} from test_results where run_id = any(?::int[]) and ${FINISHED} order by run_id, test_id, attempt`, [
    `{${runs.map((run) => run.id).join(',')}}`,
  ]);
  return runs.map((run) => asRun(run, results.filter((result) => result.run_id === run.id)));
}

/** A value's JSON with its objects' keys sorted: the same settings always give the same text. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${stableJson((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * SHA-256 of what makes an assistant's answers: its prompt and first words, model and fallbacks,
 * language and voice, variables, tools (as defined now), knowledge base, and the acts it may take.
 * Its name, webhooks and call-handling settings do not change what a test sees.
 */
export async function assistantSnapshotHash(em: EntityManager, assistantId: number): Promise<string> {
  const assistant = await em.findOneOrFail(Assistant, { id: assistantId });
  const tools = await em.execute(
    'select t.name, t.description, t.endpoint, t.method, t.timeout, t.schema from assistant_tools a join tools t on t.id = a.tool_id where a.assistant_id = ? order by t.name',
    [assistantId],
  );
  const settings = {
    system_prompt: assistant.system_prompt,
    initial_message: assistant.initial_message,
    who_speaks_first: assistant.who_speaks_first,
    llm_model: assistant.llm_model,
    llm_temperature: assistant.llm_temperature,
    fallback_models: assistant.fallback_models,
    language: assistant.language,
    voice_id: assistant.voice.id,
    fallback_voice_id: assistant.fallback_voice_id,
    speech_speed: assistant.speech_speed,
    variables: assistant.variables,
    end_call_tool_description: assistant.end_call_tool_description,
    transfer_numbers: assistant.transfer_numbers,
    knowledgebase_id: assistant.knowledgebase_id,
    knowledgebase_mode: assistant.knowledgebase_mode,
    tools,
  };
  return createHash('sha256').update(stableJson(settings)).digest('hex');
}

/**
 * Starts a run of the assistant's tests (all, or `test_ids`), each `attempts` times: the run,
 * the tests as they are now, every attempt's row and the job that runs them, in one
 * transaction. Runs are free of the platform fee: nothing is charged.
 */
export async function startRun(scope: Scope, assistantId: number, input: StartTestRunInput): Promise<TestRunQueued> {
  const errors = new FieldErrorCollector();
  const { min, max, default: byDefault } = TEST_RULES.attempts;
  const attempts = input.attempts ?? byDefault;
  if (!Number.isInteger(attempts) || attempts < min || attempts > max) errors.add('attempts', FieldMessages.between('attempts', min, max));
  return scope.em.transactional(async (tx) => {
    const [assistant] = await tx.execute('select id from assistants where id = ? and account_id = ?', [assistantId, scope.accountId]);
    if (!assistant) throw new NotFoundError(Messages.assistantNotFound);
    const tests: { id: number; name: string; type: string; config: unknown }[] = await tx.execute(
      'select id, name, type, config from assistant_tests where assistant_id = ? order by id',
      [assistantId],
    );
    const ids = input.test_ids ?? tests.map((test) => test.id);
    ids.forEach((id, i) => {
      if (!tests.some((test) => test.id === id)) errors.add(`test_ids.${i}`, FieldMessages.testOfOtherAssistant(`test_ids.${i}`));
    });
    if (!ids.length) errors.add('test_ids', FieldMessages.noTestsToRun);
    errors.throwIfAny();
    const chosen = tests.filter((test) => ids.includes(test.id));
    const snapshot = Object.fromEntries(chosen.map(({ id, name, type, config }) => [id, { name, type, config }]));
    const hash = await assistantSnapshotHash(tx, assistantId);
    const [run] = await tx.execute<{ id: number }[]>(
      `insert into test_runs (account_id, assistant_id, attempts, tests, assistant_snapshot_hash) values (?, ?, ?, ?::jsonb, ?) returning id`,
      [scope.accountId, assistantId, attempts, JSON.stringify(snapshot), hash],
    );
    await tx.execute(
      `insert into test_results (run_id, test_id, attempt) select ?, t.id, a.n from unnest(?::int[]) as t(id), generate_series(1, ?) as a(n) order by t.id, a.n`,
      [run.id, `{${chosen.map((test) => test.id).join(',')}}`, attempts],
    );
    await enqueue(tx, 'tests:run', { run_id: run.id });
    return Object.assign(new TestRunQueued(), { id: run.id, status: 'queued' });
  });
}

export async function requireRun(scope: Pick<Scope, 'em' | 'accountId'>, id: number): Promise<TestRun> {
  const runs: RunRow[] = await scope.em.execute(`select ${RUN_COLUMNS} from test_runs where id = ? and account_id = ?`, [id, scope.accountId]);
  if (!runs.length) throw new NotFoundError(Messages.testRunNotFound);
  return (await withResults(scope.em, runs))[0];
}

/** The assistant's runs, newest first. */
export async function listRuns(scope: Scope, assistantId: number, page: number, perPage: number): Promise<Page<TestRun>> {
  const errors = new FieldErrorCollector();
  if (page < 1) errors.add('page', FieldMessages.min('page', 1));
  if (perPage < 1 || perPage > MAX_PER_PAGE) errors.add('per_page', FieldMessages.between('per_page', 1, MAX_PER_PAGE));
  errors.throwIfAny();
  const [assistant] = await scope.em.execute('select id from assistants where id = ? and account_id = ?', [assistantId, scope.accountId]);
  if (!assistant) throw new NotFoundError(Messages.assistantNotFound);
  const [{ total }] = await scope.em.execute<{ total: number }[]>('select count(*)::int as total from test_runs where assistant_id = ? and account_id = ?', [assistantId, scope.accountId]);
  const runs: RunRow[] = await scope.em.execute(`select ${RUN_COLUMNS} from test_runs where assistant_id = ? and account_id = ? order by id desc limit ? offset ?`, [
    assistantId,
    scope.accountId,
    perPage,
    offsetOf(page, perPage),
  ]);
  return makePage(await withResults(scope.em, runs), total, page, perPage);
}

/** One finished result of the account's run, by its row id (what a subscriber is told landed). */
export async function readResult(em: EntityManager, accountId: number, runId: number, resultId: string): Promise<TestResult | null> {
  const [row] = await em.execute<ResultRow[]>(
    `select ${RESULT_COLUMNS.split(', ').map((column) => `r.${column}`).join(', ')} from test_results r join test_runs t on t.id = r.run_id
      where r.id = ? and r.run_id = ? and t.account_id = ? and r.${FINISHED}`,
    [resultId, runId, accountId],
  );
  return row ? asResult(row) : null;
}
