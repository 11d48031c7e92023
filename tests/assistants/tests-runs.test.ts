import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { CALLER_HANGS_UP } from '../../src/modules/assistant-tests/test.attempt';
import { RUN_ABANDONED } from '../../src/modules/assistant-tests/test.run.job';
import { NO_VENDORS, startTestApp, type TestAccount, type TestApp } from '../helpers/app';
import { startFakeOpenAi, type ChatReply, type FakeOpenAi, type FakeRequest } from '../helpers/fakes/openai';
import { startReceiver, type Receiver } from '../helpers/receiver';

/**
 * Assistant test runs against one fake OpenAI-compatible server playing the assistant (the
 * assistant's model), the simulated caller (TEST_CALLER_MODEL) and the judge (TEST_JUDGE_MODEL):
 * each type passing and failing for its reason, mocks instead of the tool's HTTP call, the ends
 * of a simulation, a judge whose answer does not fit, attempts and pass rates, the account's
 * concurrency across runs, and the subscription.
 */
const OPENAI_KEY = 'sk-test-assistant-tests';
const CONCURRENCY = 3;
let app: TestApp;
let openai: FakeOpenAi;
let stock: Receiver;
let me: TestAccount;
let other: TestAccount;
let assistant: number;
const clients: Client[] = [];

type Script = (body: Record<string, any>) => ChatReply;
let assistantSays: Script;
let callerSays: Script;
let judgeSays: Script;

/** The judge's answer: one verdict per criterion of its prompt, `passed` by `decide`. */
const verdicts =
  (decide: (criterion: string, i: number) => boolean = () => true): Script =>
  (body) => {
    const criteria = [...String(body.messages[1].content).matchAll(/^\d+\. (.*)$/gm)].map((m) => m[1]);
    return { text: JSON.stringify({ criteria: criteria.map((criterion, i) => ({ criterion, passed: decide(criterion, i), reason: `checked ${i + 1}` })) }) };
  };

beforeAll(async () => {
  openai = await startFakeOpenAi(OPENAI_KEY);
  openai.defaultChat = (body) => (body.model === 'judge-model' ? judgeSays(body) : body.model === 'caller-model' ? callerSays(body) : assistantSays(body));
  stock = await startReceiver();
  app = await startTestApp(
    {
      voice: { openai: null, pipelineEngineUrl: null, pipeline: { ...NO_VENDORS, openai: { apiKey: OPENAI_KEY, url: openai.url } } },
      allowPrivateNetworkTargets: true,
      assistantTests: { maxPerAssistant: 100, runConcurrency: CONCURRENCY, callerModel: 'caller-model', judgeModel: 'judge-model' },
    },
    { workers: true },
  );
  me = await app.account();
  other = await app.account();
  const tool = (
    await app.request('POST', '/api/user/tools', {
      token: me.token,
      body: { name: 'check_stock', description: 'Checks the stock', endpoint: `${stock.url}/stock`, method: 'POST', timeout: 5, schema: [{ name: 'product', type: 'string', description: 'The product' }] },
    })
  ).body.data.id;
  assistant = await app.outboundAssistant(me, { system_prompt: 'Você atende a Loja Centro.', tool_ids: [tool], initial_message: 'Olá, Loja Centro!' });
});
beforeEach(() => {
  assistantSays = () => ({ text: 'Abrimos às 9h.' });
  callerSays = () => ({ text: `Obrigado, tchau. ${CALLER_HANGS_UP}` });
  judgeSays = verdicts();
  openai.chatRequests.length = 0;
  stock.requests.length = 0;
});
afterAll(async () => {
  for (const client of clients) await client.dispose();
  await app?.close();
  await Promise.all([openai?.close(), stock?.close()]);
});

const requestsOf = (model: string) => openai.chatRequests.filter((request) => request.body.model === model);
const createTest = async (body: Record<string, unknown>) => {
  const res = await app.request('POST', `/api/user/assistants/${assistant}/tests`, { token: me.token, body: { name: 'Teste', ...body } });
  expect(res.status).toBe(201);
  return res.body.data.id as number;
};
const startRun = async (testIds: number[], attempts = 1) => {
  const res = await app.request('POST', `/api/user/assistants/${assistant}/test-runs`, { token: me.token, body: { test_ids: testIds, attempts } });
  expect(res.status).toBe(202);
  return res.body.data.id as number;
};
async function finished(runId: number, timeoutMs = 30_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await app.request('GET', `/api/user/test-runs/${runId}`, { token: me.token });
    if (res.body.finished_at) return res.body;
    if (Date.now() > deadline) throw new Error(`run ${runId} did not finish: ${JSON.stringify(res.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
const run = async (test: Record<string, unknown>, attempts = 1) => finished(await startRun([await createTest(test)], attempts));

const replyTest = (criteria = ['Diz que abre às 9h', 'É educado']) => ({ type: 'reply', config: { messages: [{ role: 'user', content: 'Que horas vocês abrem?' }], success_criteria: criteria } });
const toolCallTest = (expect: Record<string, unknown>) => ({ type: 'tool_call', config: { messages: [{ role: 'user', content: 'Tem cadeira?' }], expect } });
const simulationTest = (extra: Record<string, unknown> = {}) => ({
  type: 'simulation',
  config: { persona: 'Você quer saber se tem cadeira em estoque.', success_criteria: ['Confirma o estoque'], ...extra },
});

describe('a reply test', () => {
  it('passes when the judge finds every criterion met, asked in the contract’s JSON schema', async () => {
    const result = await run(replyTest());
    expect(result).toMatchObject({ status: 'passed', pass_rate: 1, assistant_snapshot_hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(result.results).toEqual([
      expect.objectContaining({
        attempt: 1,
        status: 'passed',
        transcript: [
          { role: 'user', content: 'Que horas vocês abrem?' },
          { role: 'assistant', content: 'Abrimos às 9h.' },
        ],
        criteria: [
          { criterion: 'Diz que abre às 9h', passed: true, reason: 'checked 1' },
          { criterion: 'É educado', passed: true, reason: 'checked 2' },
        ],
        error: null,
      }),
    ]);
    // The assistant answered through the conversations' loop: its own prompt, its tools.
    const [asked] = requestsOf('gpt-4o-mini');
    expect(asked.body.messages[0]).toEqual({ role: 'system', content: expect.stringContaining('Você atende a Loja Centro.') });
    expect(asked.body.tools.map((t: any) => t.function.name)).toEqual(['check_stock']);
    const [judged] = requestsOf('judge-model');
    expect(judged.body.stream).toBeUndefined();
    expect(judged.body.response_format).toEqual({
      type: 'json_schema',
      json_schema: {
        name: expect.any(String),
        strict: true,
        schema: {
          type: 'object',
          properties: {
            criteria: {
              type: 'array',
              items: {
                type: 'object',
                properties: { criterion: { type: 'string' }, passed: { type: 'boolean' }, reason: { type: 'string' } },
                required: ['criterion', 'passed', 'reason'],
                additionalProperties: false,
              },
            },
          },
          required: ['criteria'],
          additionalProperties: false,
        },
      },
    });
    expect(result.usage.judge_input_tokens).toBeGreaterThan(0);
    expect(result.usage.llm_output_tokens).toBeGreaterThan(0);
  });

  it('fails when the judge finds a criterion unmet, with its reason', async () => {
    judgeSays = verdicts((_criterion, i) => i !== 1);
    const result = await run(replyTest());
    expect(result.status).toBe('failed');
    expect(result.results[0].status).toBe('failed');
    expect(result.results[0].criteria[1]).toEqual({ criterion: 'É educado', passed: false, reason: 'checked 2' });
  });

  it('stores what a model wrote that PostgreSQL cannot hold (NUL, a lone surrogate) without it', async () => {
    assistantSays = () => ({ text: 'Abrimos\u0000 às 9h\ud800.' });
    judgeSays = (body) => ({ text: JSON.stringify({ criteria: JSON.parse(verdicts()(body).text!).criteria.map((v: any) => ({ ...v, reason: `ok\u0000\udc00` })) }) });
    const result = await run(replyTest());
    expect(result.status).toBe('passed');
    expect(result.results[0].transcript[1]).toEqual({ role: 'assistant', content: 'Abrimos às 9h.' });
    expect(result.results[0].criteria[0].reason).toBe('ok');
  });

  it.each([
    ['not JSON', () => ({ text: 'Sim, passou.' }), 'not JSON'],
    ['a verdict short', (body: any) => ({ text: JSON.stringify({ criteria: [JSON.parse(verdicts()(body).text!).criteria[0]] }) }), '1 verdict(s) for 2 criteria'],
    ['the criteria out of order', (body: any) => ({ text: JSON.stringify({ criteria: JSON.parse(verdicts()(body).text!).criteria.reverse() }) }), 'another criterion'],
    ['passed as a string', (body: any) => ({ text: JSON.stringify({ criteria: JSON.parse(verdicts()(body).text!).criteria.map((v: any) => ({ ...v, passed: 'true' })) }) }), 'is not {criterion'],
  ])('is an error, never passed, when the judge answers %s twice', async (_what, garbage, reason) => {
    judgeSays = garbage as Script;
    const result = await run(replyTest());
    expect(result.status).toBe('error');
    expect(result.pass_rate).toBe(0);
    expect(result.results[0]).toMatchObject({ status: 'error', criteria: [], error: expect.stringContaining(reason) });
    expect(requestsOf('judge-model')).toHaveLength(2);
  });

  it('asks the judge once more after an answer that does not fit, and takes the second', async () => {
    let asked = 0;
    judgeSays = (body) => (asked++ === 0 ? { text: '{"criteria": "todos"}' } : verdicts()(body));
    const result = await run(replyTest());
    expect(result.status).toBe('passed');
    expect(requestsOf('judge-model')).toHaveLength(2);
  });
});

describe('a tool_call test', () => {
  it('passes when the reply calls the tool with arguments containing the expected ones; the tool is not called', async () => {
    assistantSays = () => ({ toolCalls: [{ name: 'check_stock', arguments: JSON.stringify({ product: 'cadeira', color: 'azul' }) }] });
    const result = await run(toolCallTest({ tool: 'check_stock', arguments: { product: 'cadeira' } }));
    expect(result.status).toBe('passed');
    expect(result.results[0].tool_calls).toEqual([{ name: 'check_stock', arguments: { product: 'cadeira', color: 'azul' }, mocked: false }]);
    expect(stock.requests).toHaveLength(0);
    expect(requestsOf('judge-model')).toHaveLength(0);
  });

  it('fails when the arguments differ, or another tool or none is called, saying what was called', async () => {
    assistantSays = () => ({ toolCalls: [{ name: 'check_stock', arguments: JSON.stringify({ product: 'mesa' }) }] });
    const wrong = await run(toolCallTest({ tool: 'check_stock', arguments: { product: 'cadeira' } }));
    expect(wrong.results[0]).toMatchObject({ status: 'failed', criteria: [{ passed: false, reason: 'called check_stock with {"product":"mesa"}' }] });
    assistantSays = () => ({ text: 'Temos, sim.' });
    const none = await run(toolCallTest({ tool: 'check_stock' }));
    expect(none.results[0]).toMatchObject({ status: 'failed', criteria: [{ passed: false, reason: 'called no tool' }] });
  });

  it('passes tool null when no tool is called, and fails it when one is', async () => {
    assistantSays = () => ({ text: 'Temos, sim.' });
    expect((await run(toolCallTest({ tool: null }))).status).toBe('passed');
    assistantSays = () => ({ toolCalls: [{ name: 'check_stock', arguments: '{"product":"cadeira"}' }] });
    expect((await run(toolCallTest({ tool: null }))).results[0]).toMatchObject({ status: 'failed', criteria: [{ reason: 'called check_stock' }] });
  });

  it('counts end_call: the assistant ending the conversation', async () => {
    assistantSays = (body) => {
      expect(body.tools.map((t: any) => t.function.name)).toContain('endCall');
      return { text: 'Até logo!', toolCalls: [{ name: 'endCall', arguments: '{}' }] };
    };
    const result = await run({ type: 'tool_call', config: { messages: [{ role: 'user', content: 'Era só isso, tchau.' }], expect: { tool: 'end_call' } } });
    expect(result.status).toBe('passed');
    expect(result.results[0].tool_calls).toEqual([{ name: 'end_call', arguments: {}, mocked: false }]);
  });
});

describe('a chat simulation', () => {
  it('plays the persona against the assistant until the caller hangs up, then judges the transcript', async () => {
    const lines = ['Oi, tem cadeira azul?', `Ótimo, obrigado! ${CALLER_HANGS_UP}`];
    callerSays = () => ({ text: lines.shift()! });
    assistantSays = () => ({ text: 'Temos, sim.' });
    const result = await run(simulationTest());
    expect(result.status).toBe('passed');
    expect(result.results[0].transcript).toEqual([
      { role: 'assistant', content: 'Olá, Loja Centro!' },
      { role: 'user', content: 'Oi, tem cadeira azul?' },
      { role: 'assistant', content: 'Temos, sim.' },
      { role: 'user', content: 'Ótimo, obrigado!' },
    ]);
    // The caller plays the persona in the assistant's language, and reads the assistant's lines as the other party's.
    const [first, second] = requestsOf('caller-model');
    expect(first.body.messages[0].content).toContain('Você quer saber se tem cadeira em estoque.');
    expect(first.body.messages[0].content).toContain('Portuguese');
    expect(second.body.messages.slice(1)).toEqual([
      { role: 'user', content: 'Olá, Loja Centro!' },
      { role: 'assistant', content: 'Oi, tem cadeira azul?' },
      { role: 'user', content: 'Temos, sim.' },
    ]);
    expect(requestsOf('judge-model')[0].body.messages[1].content).toContain('Customer: Ótimo, obrigado!');
  });

  it('ends at max_turns when nobody hangs up', async () => {
    let n = 0;
    callerSays = () => ({ text: `Pergunta ${++n}?` });
    assistantSays = () => ({ text: 'Resposta.' });
    const result = await run(simulationTest({ max_turns: 3 }));
    expect(result.results[0].transcript.filter((m: any) => m.role === 'user').map((m: any) => m.content)).toEqual(['Pergunta 1?', 'Pergunta 2?', 'Pergunta 3?']);
    expect(requestsOf('caller-model')).toHaveLength(3);
    expect(requestsOf('gpt-4o-mini')).toHaveLength(3);
  });

  it('ends when the assistant ends the call', async () => {
    callerSays = () => ({ text: 'Quero cancelar.' });
    let turn = 0;
    assistantSays = () => (++turn === 2 ? { text: 'Cancelado. Até logo!', toolCalls: [{ name: 'endCall', arguments: '{}' }] } : { text: 'Qual pedido?' });
    const result = await run(simulationTest({ max_turns: 10 }));
    expect(result.results[0].transcript.at(-1)).toEqual({ role: 'assistant', content: 'Cancelado. Até logo!' });
    expect(requestsOf('caller-model')).toHaveLength(2);
    expect(result.results[0].tool_calls).toEqual([{ name: 'end_call', arguments: {}, mocked: false }]);
  });

  it('answers a mocked tool with its mock: the tool’s receiver gets no request', async () => {
    const lines = ['Tem cadeira?', CALLER_HANGS_UP];
    callerSays = () => ({ text: lines.shift()! });
    assistantSays = (body) =>
      body.messages.at(-1).role === 'tool' ? { text: `Estoque: ${body.messages.at(-1).content}` } : { toolCalls: [{ name: 'check_stock', arguments: '{"product":"cadeira"}' }] };
    const result = await run(simulationTest({ tool_mocks: [{ tool: 'check_stock', response: { in_stock: 7 }, status: 200 }] }));
    expect(result.results[0].tool_calls).toEqual([{ name: 'check_stock', arguments: { product: 'cadeira' }, mocked: true }]);
    expect(result.results[0].transcript).toContainEqual({ role: 'assistant', content: 'Estoque: {"status":200,"response":{"in_stock":7}}' });
    expect(stock.requests).toHaveLength(0);
  });

  it('calls an unmocked tool through the guarded client, as on a call', async () => {
    const lines = ['Tem cadeira?', CALLER_HANGS_UP];
    callerSays = () => ({ text: lines.shift()! });
    assistantSays = (body) => (body.messages.at(-1).role === 'tool' ? { text: 'Temos.' } : { toolCalls: [{ name: 'check_stock', arguments: '{"product":"cadeira"}' }] });
    const result = await run(simulationTest());
    expect(result.results[0].tool_calls).toEqual([{ name: 'check_stock', arguments: { product: 'cadeira' }, mocked: false }]);
    expect(stock.requests.map((request) => JSON.parse(request.body))).toEqual([{ product: 'cadeira' }]);
  });

  // Voice simulations: tests-voice-simulation.test.ts.
});

describe('a run', () => {
  it('runs each test its attempts, each once, with the pass rate over them', async () => {
    const passing = await createTest(replyTest(['Diz que abre às 9h']));
    const flaky = await createTest({ ...replyTest(['Oferece ajuda']), name: 'flaky' });
    let judged = 0;
    judgeSays = (body) => verdicts(() => !String(body.messages[1].content).includes('Oferece ajuda') || judged++ % 2 === 0)(body);
    const result = await finished(await startRun([passing, flaky], 4));
    expect(result.results.map((r: any) => [r.test_id, r.attempt])).toEqual([
      [passing, 1], [passing, 2], [passing, 3], [passing, 4],
      [flaky, 1], [flaky, 2], [flaky, 3], [flaky, 4],
    ]);
    expect(result.results.filter((r: any) => r.test_id === flaky && r.status === 'failed')).toHaveLength(2);
    expect(result).toMatchObject({ status: 'failed', attempts: 4, pass_rate: 0.75 });
    const [{ n }] = await app.sql('select count(*)::int as n from test_results where run_id = $1', [result.id]);
    expect(n).toBe(8);
    const page = await app.request('GET', `/api/user/assistants/${assistant}/test-runs?per_page=2`, { token: me.token });
    expect(page.body.data[0].id).toBe(result.id);
    expect(page.body.data[0].id).toBeGreaterThan(page.body.data[1].id);
  });

  it(`runs at most TEST_RUN_CONCURRENCY (${CONCURRENCY}) of the account’s attempts at once, across its runs`, async () => {
    assistantSays = () => ({ text: 'Abrimos às 9h.', firstTokenMs: 300 });
    let open = 0;
    let most = 0;
    const track = (request: FakeRequest) => {
      open++;
      most = Math.max(most, open);
      void request.outcome.then(() => open--);
    };
    const seen = new Set<FakeRequest>();
    const watcher = setInterval(() => {
      for (const request of requestsOf('gpt-4o-mini')) if (!seen.has(request)) seen.add(request) && track(request);
    }, 5);
    const test = await createTest(replyTest(['Diz o horário']));
    try {
      const runs = await Promise.all([startRun([test], 5), startRun([test], 5)]);
      const results = await Promise.all(runs.map((id) => finished(id)));
      expect(results.map((r) => r.status)).toEqual(['passed', 'passed']);
    } finally {
      clearInterval(watcher);
    }
    expect(seen.size).toBe(10);
    expect(most).toBe(CONCURRENCY);
  });

  it('ends error, its unwritten attempts with the reason, when its job fails its last try', async () => {
    const test = await createTest(replyTest(['Diz o horário']));
    // The database refuses this test's results (as a full disk would): every try of the run's job fails.
    await app.sql(`create function refuse_results() returns trigger language plpgsql as $$ begin raise exception 'no space left on device'; end $$`);
    await app.sql(
      `create trigger refuse_results before update on test_results for each row
       when (new.test_id = ${test} and new.claim is not null and new.status <> 'running') execute function refuse_results()`,
    );
    try {
      const runId = await startRun([test], 2);
      const key = `test-run:${runId}`;
      const deadline = Date.now() + 20_000;
      while (!(await app.sql(`select 1 from graphile_worker.jobs where key = $1 and attempts >= 1 and locked_at is null`, [key])).length) {
        if (Date.now() > deadline) throw new Error('the run’s job never failed');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // Its next try is its last (rather than nine more, minutes of backoff apart).
      await app.sql(`update graphile_worker._private_jobs set max_attempts = attempts + 1, run_at = now() where key = $1`, [key]);
      const result = await finished(runId, 30_000);
      expect(result).toMatchObject({ status: 'error', pass_rate: 0 });
      expect(result.results.map((r: any) => [r.attempt, r.status, r.error])).toEqual([
        [1, 'error', RUN_ABANDONED],
        [2, 'error', RUN_ABANDONED],
      ]);
    } finally {
      await app.sql('drop trigger refuse_results on test_results');
      await app.sql('drop function refuse_results()');
    }
  });

  it('streams each result as it lands over testRunUpdated, to its account only', async () => {
    const test = await createTest(replyTest(['Diz o horário']));
    assistantSays = () => ({ text: 'Abrimos às 9h.', firstTokenMs: 400 });
    const runId = await startRun([test], 2);
    const updates: any[] = [];
    const errors: any[] = [];
    const subscribe = (token: string, into: any[], failures: any[]) => {
      const client = createClient({ url: app.url.replace('http', 'ws') + '/graphql', webSocketImpl: WebSocket, connectionParams: { Authorization: `Bearer ${token}` }, retryAttempts: 0 });
      clients.push(client);
      client.subscribe<any>(
        { query: 'subscription($id: Int!) { testRunUpdated(id: $id) { run { id status pass_rate results { attempt } } result { test_id attempt status } } }', variables: { id: runId } },
        { next: (r) => (r.errors ? failures.push(...r.errors) : into.push(r.data.testRunUpdated)), error: (e) => failures.push(e), complete: () => {} },
      );
    };
    subscribe(me.token, updates, errors);
    const strangers: any[] = [];
    const refused: any[] = [];
    subscribe(other.token, strangers, refused);
    await finished(runId);
    // The run's last piece is its status change (no result). A result's piece read after the run
    // ended shows the run passed too, so that alone does not say the stream is over.
    const deadline = Date.now() + 5000;
    while (!updates.some((u) => u.run.status === 'passed' && u.result === null) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(errors).toEqual([]);
    const landed = updates.filter((u) => u.result).map((u) => u.result);
    expect(landed.map((r) => r.attempt).sort()).toEqual([1, 2]);
    expect(updates.at(-1)).toEqual({ run: { id: runId, status: 'passed', pass_rate: 1, results: [{ attempt: 1 }, { attempt: 2 }] }, result: null });
    expect(strangers).toEqual([]);
    expect(refused[0].message).toBe('Execução de testes não encontrada');
  });
});
