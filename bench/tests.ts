import path from 'node:path';
import { initOrm } from '../src/db/orm';
import { createAccount } from '../src/modules/accounts/account.service';
import { startFakeOpenAi } from '../tests/helpers/fakes/openai';
import { apiClient, benchAssistant, cpuMs, dropDatabase, freshDatabase, percentile, start, startVozgate, stop } from './process';

/**
 * Assistant tests (issue 56): one run of `simulations` chat simulations, each `turns` turns
 * (the simulated caller never hangs up: max_turns ends it), all at once
 * (TEST_RUN_CONCURRENCY = `concurrency`), on one vozgate process that serves the API and runs
 * the job queue. The fake OpenAI-compatible server in this process plays the assistant, the
 * caller and the judge, each answer taking LLM_MS exactly (streamed or not: the whole text
 * after LLM_MS). A simulation asks it 2 x turns + 1 times, one after the other: caller, then
 * assistant, each turn, then the judge.
 *
 * - Added per turn: for turn k of a simulation, from the fake's arrival of its caller request
 *   to the arrival of the simulation's next request (turn k+1's caller, or the judge), less
 *   the fake's own time for the turn's two requests (arrival to last byte, as the fake saw
 *   it): what vozgate spends around the model in that turn (the assistant's text loop, the
 *   HTTP client, the tool and end-call checks), at that concurrency.
 * - Wall vs critical path: the client's time from `POST /test-runs` to reading the run
 *   finished (polled every POLL_MS) over the fake latencies the run cannot avoid waiting for:
 *   with C attempts at once and N simulations, ceil(N / C) simulations one after the other,
 *   each the longest simulation's sum of fake times (2 x turns + 1 requests). The ratio's
 *   excess is vozgate's: the job's pick-up, claims, the attempts' own time, the results'
 *   writes and the run's end (plus up to one poll).
 * - The floor: the same rounds from bench/tests-floor.ts, a process that makes the same
 *   requests to the same fake and nothing else, measured the same way: what this machine
 *   costs a turn when a hundred simulations come back from the model together.
 */
export interface TestsRound {
  attempts: number;
  errors: number;
  turns: number;
  added_p50_ms: number;
  added_p95_ms: number;
  added_p99_ms: number;
  added_max_ms: number;
  wall_s: number;
  critical_path_s: number;
  wall_over_critical: number;
  cpu_ms_per_turn: number;
  server_cpu_pct: number;
}

export interface TestsResult {
  simulations: number;
  turns: number;
  concurrency: number;
  llm_ms: number;
  rounds: TestsRound[];
  /** The same rounds against a plain node:http process making the same requests (bench/tests-floor.ts). */
  floor?: TestsRound[];
}

const LLM_MS = 200;
const POLL_MS = 50;

interface Seen {
  kind: 'caller' | 'assistant' | 'judge';
  arrived: number;
  ended: number;
}

export async function runTestsScenario(
  adminUrl: string,
  root: string,
  options: { simulations: number; turns: number; rounds: number; concurrency: number },
  log: (line: string) => void,
  node = process.execPath,
): Promise<TestsResult> {
  const database = 'vozgate_bench_tests';
  const databaseUrl = await freshDatabase(adminUrl, database);
  const orm = await initOrm({ databaseUrl });
  const { token } = await createAccount(orm.em.fork(), { name: 'Tests bench', balance: '1000' });
  const [{ id: voice }] = await orm.em.fork().execute(`select id from voices where mode = 'pipeline' order by id limit 1`);
  await orm.close();
  const openai = await startFakeOpenAi('sk-bench-tests');
  /** Each simulation's requests as the fake saw them, by the simulation's marker. */
  const seen = new Map<string, Seen[]>();
  openai.defaultChat = (body) => {
    const arrived = performance.now();
    const text = JSON.stringify(body.messages);
    const sim = /SIM-(\d+)-R(\d+)/.exec(text)?.[0];
    const kind: Seen['kind'] = body.model === 'bench-judge' ? 'judge' : body.model === 'bench-caller' ? 'caller' : 'assistant';
    if (sim) {
      const entry: Seen = { kind, arrived, ended: NaN };
      (seen.get(sim) ?? seen.set(sim, []).get(sim)!).push(entry);
      queueMicrotask(() => {
        const request = [...openai.chatRequests].reverse().find((each) => each.body === body);
        void request?.outcome.then(() => (entry.ended = performance.now()));
      });
    }
    if (kind === 'judge') {
      const criteria = [...String(body.messages[1].content).matchAll(/^\d+\. (.*)$/gm)].map((m) => m[1]);
      return { text: JSON.stringify({ criteria: criteria.map((criterion) => ({ criterion, passed: true, reason: 'ok' })) }), firstTokenMs: LLM_MS };
    }
    if (kind === 'caller') return { text: `${sim} Quero saber se o pedido 4521 chega amanhã.`, firstTokenMs: LLM_MS, tokenMs: 0 };
    return { text: 'Claro! Seu pedido 4521 chega amanhã entre 9h e 12h. Posso ajudar em algo mais?', firstTokenMs: LLM_MS, tokenMs: 0 };
  };
  /** A round's row from what the fake saw (`seen`), its wall time and the CPU of the process under test. */
  const measured = async (name: string, attempts: number, errors: number, wall: number, cpu: number): Promise<TestsRound> => {
    // The fake's outcomes settle a moment after the last answer went out.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const added: number[] = [];
    /** Where a turn's added time goes: after the caller's answer (before the assistant's request), after the assistant's answer. */
    const afterCaller: number[] = [];
    const afterAssistant: number[] = [];
    let longest = 0;
    /** Each turn's added times, by the turn's place in its simulation: where the tail is (the first turns start together, the last ends in the judge). */
    const byTurn: number[][] = [];
    for (const requests of seen.values()) {
      requests.sort((a, b) => a.arrived - b.arrived);
      longest = Math.max(longest, requests.reduce((sum, r) => sum + (r.ended - r.arrived), 0));
      for (let i = 0; i + 2 < requests.length; i += 2) {
        const [caller, answer, next] = [requests[i], requests[i + 1], requests[i + 2]];
        if (caller.kind !== 'caller' || answer.kind !== 'assistant') break;
        added.push(next.arrived - caller.arrived - (caller.ended - caller.arrived) - (answer.ended - answer.arrived));
        (byTurn[i / 2] ??= []).push(added.at(-1)!);
        afterCaller.push(answer.arrived - caller.ended);
        afterAssistant.push(next.arrived - answer.ended);
      }
    }
    for (const turns of byTurn) turns.sort((a, b) => a - b);
    log(`tests: ${name}: added by turn, p50/p99 ms: ${byTurn.map((turns, k) => `${k + 1}: ${percentile(turns, 50).toFixed(1)}/${percentile(turns, 99).toFixed(1)}`).join(', ')}`);
    added.sort((a, b) => a - b);
    const critical = Math.ceil(options.simulations / options.concurrency) * longest;
    const round1 = (n: number) => Math.round(n * 10) / 10;
    const row: TestsRound = {
      attempts,
      errors,
      turns: added.length,
      added_p50_ms: round1(percentile(added, 50)),
      added_p95_ms: round1(percentile(added, 95)),
      added_p99_ms: round1(percentile(added, 99)),
      added_max_ms: round1(added.at(-1) ?? 0),
      wall_s: Math.round(wall / 10) / 100,
      critical_path_s: Math.round(critical / 10) / 100,
      wall_over_critical: Math.round((wall / critical) * 100) / 100,
      cpu_ms_per_turn: round1(cpu / Math.max(1, added.length)),
      server_cpu_pct: round1((cpu / wall) * 100),
    };
    afterCaller.sort((a, b) => a - b);
    afterAssistant.sort((a, b) => a - b);
    log(`tests: ${name}: ${JSON.stringify(row)}; after the caller p50/p99 ${round1(percentile(afterCaller, 50))}/${round1(percentile(afterCaller, 99))} ms, after the assistant ${round1(percentile(afterAssistant, 50))}/${round1(percentile(afterAssistant, 99))} ms`);
    return row;
  };
  const server = await startVozgate(
    root,
    databaseUrl,
    {
      OPENAI_API_KEY: 'sk-bench-tests',
      OPENAI_BASE_URL: openai.url,
      LOG_LEVEL: 'warn',
      WORKERS_IN_PROCESS: 'true',
      TEST_RUN_CONCURRENCY: String(options.concurrency),
      TEST_MAX_PER_ASSISTANT: String(Math.max(100, options.simulations)),
      TEST_CALLER_MODEL: 'bench-caller',
      TEST_JUDGE_MODEL: 'bench-judge',
    },
    process.env.TESTS_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.TESTS_PROF}`] : [],
    node,
  );
  const call = apiClient(server.port, token);
  try {
    const assistant = await benchAssistant(call, 'Tests bench', voice, 'Olá, Loja Centro!');
    /** A round's simulations: the marker in each persona (the caller repeats it, so every request of the simulation carries it). */
    const makeTests = async (round: number) => {
      const existing = (await call('GET', `/user/assistants/${assistant}/tests`)) as { id: number }[];
      for (const test of existing) await call('DELETE', `/user/assistant-tests/${test.id}`);
      for (let s = 0; s < options.simulations; s++)
        await call('POST', `/user/assistants/${assistant}/tests`, {
          name: `Simulação ${s}`,
          type: 'simulation',
          config: { persona: `SIM-${s}-R${round}: você quer saber quando chega o seu pedido.`, channel: 'chat', max_turns: options.turns, success_criteria: ['Diz quando o pedido chega'] },
        });
    };
    const runOnce = async () => {
      const started = performance.now();
      const { id } = (await call('POST', `/user/assistants/${assistant}/test-runs`, {})).data as { id: number };
      for (;;) {
        const run = await call('GET', `/user/test-runs/${id}`);
        if (run.finished_at) return { run, wall: performance.now() - started };
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    };

    // Warm-up: a round of the same size, not measured.
    await makeTests(0);
    await runOnce();

    const rounds: TestsRound[] = [];
    for (let round = 1; round <= options.rounds; round++) {
      await makeTests(round);
      seen.clear();
      const cpuBefore = cpuMs(server.child.pid!);
      const { run, wall } = await runOnce();
      const cpu = cpuMs(server.child.pid!) - cpuBefore;
      const notPassed = (run.results as { status: string; error: string | null }[]).filter((result) => result.status !== 'passed');
      for (const why of new Set(notPassed.map((result) => `${result.status}: ${result.error}`))) log(`tests: round ${round}: an attempt ${why}`);
      rounds.push(await measured(`round ${round}`, run.results.length, notPassed.length, wall, cpu));
    }
    await stop(server.child);

    // The floor: the same simulations from a process that does nothing else (bench/tests-floor.ts).
    const floor = await start([path.join(root, 'dist/bench/tests-floor.js')], { OPENAI_API_KEY: 'sk-bench-tests', OPENAI_BASE_URL: openai.url }, /tests floor: http:\/\/[^:]+:(\d+)\/run/, node);
    const floorRounds: TestsRound[] = [];
    try {
      const runFloor = async (round: number) => {
        const started = performance.now();
        const response = await fetch(`http://127.0.0.1:${floor.port}/run`, { method: 'POST', body: JSON.stringify({ simulations: options.simulations, turns: options.turns, round }) });
        if (!response.ok) throw new Error(`the tests floor failed: ${await response.text()}`);
        return performance.now() - started;
      };
      await runFloor(0);
      for (let round = 1; round <= options.rounds; round++) {
        seen.clear();
        const cpuBefore = cpuMs(floor.child.pid!);
        const wall = await runFloor(round);
        floorRounds.push(await measured(`floor round ${round}`, options.simulations, 0, wall, cpuMs(floor.child.pid!) - cpuBefore));
      }
    } finally {
      await stop(floor.child);
    }
    return { simulations: options.simulations, turns: options.turns, concurrency: options.concurrency, llm_ms: LLM_MS, rounds, floor: floorRounds };
  } finally {
    await stop(server.child);
    await openai.close();
    await dropDatabase(adminUrl, database);
  }
}

export function testsTable(r: TestsResult): string {
  const spread = (rounds: TestsRound[], pick: (row: TestsRound) => number) => `${Math.min(...rounds.map(pick))}-${Math.max(...rounds.map(pick))}`;
  const rows = (server: string, rounds: TestsRound[]) =>
    rounds.map(
      (row, i) =>
        `| ${server} | ${i + 1} | ${row.attempts} | ${row.errors} | ${row.turns} | ${row.added_p50_ms} | ${row.added_p95_ms} | ${row.added_p99_ms} | ${row.added_max_ms} | ${row.wall_s} | ${row.critical_path_s} | ${row.wall_over_critical} | ${row.cpu_ms_per_turn} | ${row.server_cpu_pct} |`,
    );
  const floor = r.floor ?? [];
  return [
    `One test run of ${r.simulations} chat simulations of ${r.turns} turns, ${r.concurrency >= r.simulations ? 'all at once' : `${r.concurrency} at a time`} (TEST_RUN_CONCURRENCY=${r.concurrency}), on one vozgate process (API and job queue); the fake OpenAI-compatible server answers every request (caller, assistant, judge) in ${r.llm_ms} ms. ` +
      `Added per turn: the fake's arrival of a turn's caller request to the arrival of the simulation's next request, less the fake's own time for the turn's two requests. ` +
      `Critical path: ceil(simulations / concurrency) x the longest simulation's sum of fake times (${2 * r.turns + 1} requests, one after the other). Targets: added p99 <= 20 ms; wall <= 1.5 x critical path. ` +
      `The floor: the same simulations, all at once, from a plain node:http process that makes the same requests and nothing else (bench/tests-floor.ts).`,
    '',
    '| server | round | attempts | not passed | turns | added p50 ms | p95 | p99 | max | wall s | critical path s | wall / critical | CPU ms per turn | CPU (% of a core) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows('vozgate', r.rounds),
    ...rows('floor', floor),
    '',
    `Spread over the rounds: vozgate added p99 ${spread(r.rounds, (row) => row.added_p99_ms)} ms, wall / critical ${spread(r.rounds, (row) => row.wall_over_critical)}` +
      (floor.length ? `; the floor added p99 ${spread(floor, (row) => row.added_p99_ms)} ms, wall / critical ${spread(floor, (row) => row.wall_over_critical)}.` : '.'),
  ].join('\n');
}
