/**
 * @ci-once a worker process killed mid-run, some seconds of real time
 */
import { enqueue } from '../../src/jobs/queue';
import { NO_VENDORS, startTestApp, type TestAccount, type TestApp } from '../helpers/app';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fakes/openai';
import { exited, startWorker, type WorkerProcess } from '../helpers/workers';

/**
 * A worker process killed with SIGKILL in the middle of a test run, some attempts written and
 * some under way: once the queue hands the run to another worker, it ends with exactly its
 * attempts, each written once (what was written before the kill stays as it was), and the dead
 * worker's attempts run again.
 */
const OPENAI_KEY = 'sk-test-assistant-tests-kill';
const ATTEMPTS = 6;
let app: TestApp;
let openai: FakeOpenAi;
let me: TestAccount;
let assistant: number;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  openai = await startFakeOpenAi(OPENAI_KEY);
  openai.defaultChat = (body) => {
    if (body.model !== 'judge-model') return { text: 'Abrimos às 9h.', firstTokenMs: 1200 };
    return { text: JSON.stringify({ criteria: [{ criterion: 'Diz o horário', passed: true, reason: 'disse' }] }) };
  };
  // No workers of its own: only the worker processes below take jobs.
  app = await startTestApp({ voice: { openai: null, pipelineEngineUrl: null, pipeline: { ...NO_VENDORS, openai: { apiKey: OPENAI_KEY, url: openai.url } } } });
  me = await app.account();
  assistant = await app.outboundAssistant(me);
});
afterAll(async () => {
  for (const worker of workers) worker.child.kill('SIGKILL');
  await Promise.all(workers.map((worker) => exited(worker.child)));
  await app?.close();
  await openai?.close();
});

async function worker(): Promise<WorkerProcess> {
  const started = await startWorker(app, {
    OPENAI_API_KEY: OPENAI_KEY,
    OPENAI_BASE_URL: openai.url,
    TEST_JUDGE_MODEL: 'judge-model',
    TEST_RUN_CONCURRENCY: '2',
  });
  workers.push(started);
  return started;
}

async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const attemptsOf = (runId: number) =>
  app.sql<{ attempt: number; status: string; finished_at: Date | null; claimed_by: string | null }>(
    'select attempt, status, finished_at, claimed_by from test_results where run_id = $1 order by attempt',
    [runId],
  );

it('a worker killed mid-run: another finishes the run with exactly its attempts, each written once', async () => {
  const test = (
    await app.request('POST', `/api/user/assistants/${assistant}/tests`, {
      token: me.token,
      body: { name: 'Horário', type: 'reply', config: { messages: [{ role: 'user', content: 'Que horas abrem?' }], success_criteria: ['Diz o horário'] } },
    })
  ).body.data.id;
  const doomed = await worker();
  const runId = (await app.request('POST', `/api/user/assistants/${assistant}/test-runs`, { token: me.token, body: { test_ids: [test], attempts: ATTEMPTS } })).body.data.id;

  // Some attempts written, two under way (their model still writing): the kill lands there.
  const before = await waitFor('attempts written and others under way', 30_000, async () => {
    const rows = await attemptsOf(runId);
    const done = rows.filter((row) => row.status === 'passed');
    const running = rows.filter((row) => row.status === 'running');
    return done.length >= 2 && running.length === 2 ? rows : undefined;
  });
  doomed.child.kill('SIGKILL');
  await exited(doomed.child);
  const deadWorker = before.find((row) => row.status === 'running')!.claimed_by!;
  const written = before.filter((row) => row.status === 'passed');

  // The sweeper releases a dead worker's jobs once its heartbeat is stale; it runs each minute,
  // here it is added once the heartbeat is stale, so as not to wait for the minute.
  const staleMs = app.config.workers.heartbeatMs * 3;
  await waitFor('the dead worker’s heartbeat to be stale', 10_000, async () => {
    const [{ fresh }] = await app.sql(`select count(*)::int as fresh from worker_heartbeats where worker_id = $1 and beat_at >= now() - ($2 * interval '1 millisecond')`, [deadWorker, staleMs + 100]);
    return fresh === 0 ? true : undefined;
  });
  await worker();
  await enqueue(app.orm.em.fork(), 'calls:sweep', {});

  const run = await waitFor('the run to finish', 40_000, async () => {
    const res = await app.request('GET', `/api/user/test-runs/${runId}`, { token: me.token });
    return res.body.finished_at ? res.body : undefined;
  });
  expect(run).toMatchObject({ status: 'passed', pass_rate: 1 });
  expect(run.results.map((result: any) => result.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
  const after = await attemptsOf(runId);
  expect(after.map((row) => row.status)).toEqual(Array(ATTEMPTS).fill('passed'));
  // What was written before the kill was not written again.
  for (const row of written) expect(after.find((each) => each.attempt === row.attempt)!.finished_at).toEqual(row.finished_at);
  // Each attempt judged once: no attempt was counted twice.
  expect(openai.chatRequests.filter((request) => request.body.model === 'judge-model')).toHaveLength(ATTEMPTS);
});
