import { CALLER_HANGS_UP } from '../../src/modules/assistant-tests/test.attempt';
import { MULTIMODAL_NOT_SIMULATED } from '../../src/voice/simulation/simulator';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';
import { startFakeDeepgram, type FakeDeepgram } from '../helpers/fakes/deepgram';
import { startFakeOpenAi, type ChatReply, type FakeOpenAi } from '../helpers/fakes/openai';
import { DEEPGRAM_KEY, defaultVendors, OPENAI_KEY } from '../helpers/pipeline-calls';
import { startReceiver, type Receiver } from '../helpers/receiver';

/**
 * Voice simulations (design.md, "Assistant tests"): the assistant on the pipeline engine, its
 * vendors the local fakes of Deepgram (which hears speech by its energy, its words scripted) and
 * of OpenAI (the assistant's model, the simulated caller, the judge, and the TTS that speaks
 * both sides). The caller's lines go into the call as speech at real time, so each test takes
 * some seconds.
 */
let app: TestApp;
let openai: FakeOpenAi;
let deepgram: FakeDeepgram;
let stock: Receiver;
let me: TestAccount;
let tool: number;

type Script = (body: Record<string, any>) => ChatReply;
let assistantSays: Script;
let callerLines: string[];
let judged: string[] = [];

beforeAll(async () => {
  openai = await startFakeOpenAi(OPENAI_KEY);
  deepgram = await startFakeDeepgram(DEEPGRAM_KEY);
  openai.defaultChat = (body) => {
    if (body.model === 'caller-model') return { text: callerLines.shift() ?? CALLER_HANGS_UP };
    if (body.model !== 'judge-model') return assistantSays(body);
    const prompt = String(body.messages[1].content);
    judged.push(prompt);
    const criteria = [...prompt.matchAll(/^\d+\. (.*)$/gm)].map((m) => m[1]);
    return { text: JSON.stringify({ criteria: criteria.map((criterion) => ({ criterion, passed: true, reason: 'ok' })) }) };
  };
  stock = await startReceiver();
  app = await startTestApp(
    {
      voice: { openai: null, pipelineEngineUrl: null, pipeline: defaultVendors({ deepgram, openai }) },
      allowPrivateNetworkTargets: true,
      assistantTests: { maxPerAssistant: 100, runConcurrency: 2, callerModel: 'caller-model', judgeModel: 'judge-model' },
    },
    { workers: true },
  );
  me = await app.account();
  tool = (
    await app.request('POST', '/api/user/tools', {
      token: me.token,
      body: { name: 'check_stock', description: 'Checks the stock', endpoint: `${stock.url}/stock`, method: 'POST', timeout: 5, schema: [{ name: 'product', type: 'string', description: 'The product' }] },
    })
  ).body.data.id;
});
beforeEach(() => {
  assistantSays = () => ({ text: 'Temos sim.' });
  judged = [];
  deepgram.transcripts.length = 0;
  stock.requests.length = 0;
});
afterAll(async () => {
  await app?.close();
  await Promise.all([openai?.close(), deepgram?.close(), stock?.close()]);
});

/**
 * A pipeline assistant the caller speaks to first, with `check_stock`. The fakes' TTS speaks a
 * tone, which Silero (rightly) does not take for speech: the caller's turns end at the STT's end
 * of turn (`endpoint_type` ai), as they do for a real caller when the VAD fails.
 */
const assistantWith = (settings: Record<string, unknown> = {}) =>
  app.outboundAssistant(me, {
    system_prompt: 'Você atende a Loja Centro.',
    who_speaks_first: 'Customer',
    endpoint_type: 'ai',
    tool_ids: [tool],
    noise_cancellation: false,
    record_call: false,
    ...settings,
  });

/** Runs a voice simulation of the assistant once and answers its result. */
async function simulate(assistant: number, config: Record<string, unknown> = {}): Promise<any> {
  const created = await app.request('POST', `/api/user/assistants/${assistant}/tests`, {
    token: me.token,
    body: { name: 'Voz', type: 'simulation', config: { persona: 'Você quer saber se tem cadeira.', channel: 'voice', success_criteria: ['Confirma o estoque'], ...config } },
  });
  expect(created.status).toBe(201);
  const started = await app.request('POST', `/api/user/assistants/${assistant}/test-runs`, { token: me.token, body: { test_ids: [created.body.data.id] } });
  expect(started.status).toBe(202);
  const deadline = Date.now() + 90_000;
  for (;;) {
    const res = await app.request('GET', `/api/user/test-runs/${started.body.data.id}`, { token: me.token });
    if (res.body.finished_at) return res.body;
    if (Date.now() > deadline) throw new Error(`the run did not finish: ${JSON.stringify(res.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

it('talks with the assistant by voice until the caller hangs up; the transcript as heard and said, one latency per answer', async () => {
  callerLines = ['Tem cadeira?', `Obrigado, tchau. ${CALLER_HANGS_UP}`];
  deepgram.transcripts.push('Tem cadeira?', 'Obrigado, tchau.');
  const run = await simulate(await assistantWith());
  const [result] = run.results;
  expect(result).toMatchObject({ status: 'passed', error: null, criteria: [{ criterion: 'Confirma o estoque', passed: true, reason: 'ok' }] });
  expect(result.transcript).toEqual([
    { role: 'user', content: 'Tem cadeira?' },
    { role: 'assistant', content: 'Temos sim.' },
    { role: 'user', content: 'Obrigado, tchau.' },
  ]);
  expect(result.latency_ms).toHaveLength(1);
  expect(result.latency_ms[0]).toBeGreaterThan(0);
  expect(result.usage.llm_output_tokens).toBeGreaterThan(0);
  expect(result.usage.caller_output_tokens).toBeGreaterThan(0);
  // The assistant's words reached the caller as its TTS's speech, and the caller's went through TTS too.
  expect(openai.speechRequests.map((request) => request.body.input)).toEqual(expect.arrayContaining(['Tem cadeira?', 'Temos sim.', 'Obrigado, tchau.']));
  expect(judged[0]).toContain('Customer: Tem cadeira?\nAssistant: Temos sim.\nCustomer: Obrigado, tchau.');
  expect(run).toMatchObject({ status: 'passed', pass_rate: 1 });
});

it('answers a mocked tool with its mock: the tool’s receiver gets no request', async () => {
  callerLines = ['Tem cadeira?', `Tchau. ${CALLER_HANGS_UP}`];
  deepgram.transcripts.push('Tem cadeira?', 'Tchau.');
  assistantSays = (body) => {
    const last = body.messages.at(-1);
    if (last.role === 'tool') return { text: 'Temos sete.' };
    return last.content === 'Tem cadeira?' ? { toolCalls: [{ name: 'check_stock', arguments: '{"product":"cadeira"}' }] } : { text: 'Até logo.' };
  };
  const { results } = await simulate(await assistantWith(), { tool_mocks: [{ tool: 'check_stock', response: { in_stock: 7 }, status: 200 }] });
  expect(results[0].tool_calls).toEqual([{ name: 'check_stock', arguments: { product: 'cadeira' }, mocked: true }]);
  expect(results[0].transcript).toContainEqual({ role: 'assistant', content: 'Temos sete.' });
  const toolOutput = openai.chatRequests.flatMap((request) => request.body.messages).find((message: any) => message.role === 'tool');
  expect(JSON.parse(toolOutput.content)).toEqual({ status: 200, response: '{"in_stock":7}' });
  expect(stock.requests).toHaveLength(0);
});

it('ends at max_turns when nobody hangs up, with a latency for each answer', async () => {
  callerLines = ['Tem cadeira?', 'E mesa?', 'E sofá?'];
  deepgram.transcripts.push('Tem cadeira?', 'E mesa?', 'E sofá?');
  const { results } = await simulate(await assistantWith(), { max_turns: 2 });
  expect(results[0].transcript).toEqual([
    { role: 'user', content: 'Tem cadeira?' },
    { role: 'assistant', content: 'Temos sim.' },
    { role: 'user', content: 'E mesa?' },
    { role: 'assistant', content: 'Temos sim.' },
  ]);
  expect(results[0].latency_ms).toHaveLength(2);
  expect(results[0].latency_ms.every((ms: number) => ms > 0)).toBe(true);
  expect(callerLines).toEqual(['E sofá?']);
});

it('ends when the assistant ends the call, after its opening', async () => {
  callerLines = ['Só isso, obrigado.'];
  deepgram.transcripts.push('Só isso, obrigado.');
  assistantSays = (body) => (body.messages.at(-1).role === 'tool' ? { text: '' } : { text: 'Até logo!', toolCalls: [{ name: 'endCall', arguments: '{}' }] });
  const { results } = await simulate(await assistantWith({ who_speaks_first: 'AI assistant', initial_message: 'Olá, Loja Centro!' }));
  expect(results[0].status).toBe('passed');
  expect(results[0].transcript.slice(0, 3)).toEqual([
    { role: 'assistant', content: 'Olá, Loja Centro!' },
    { role: 'user', content: 'Só isso, obrigado.' },
    { role: 'assistant', content: 'Até logo!' },
  ]);
  expect(results[0].tool_calls).toContainEqual({ name: 'end_call', arguments: {}, mocked: false });
  // The opening answers nobody: one latency, of the one answer.
  expect(results[0].latency_ms).toHaveLength(1);
  expect(callerLines).toEqual([]);
});

it('is an error, with the reason, for a multimodal assistant', async () => {
  const [{ id: voice }] = await app.sql(`select id from voices where name = 'coral' and mode = 'multimodal'`);
  const { results, status } = await simulate(await assistantWith({ engine_type: 'multimodal', voice_id: voice }));
  expect(status).toBe('error');
  expect(results[0]).toMatchObject({ status: 'error', error: MULTIMODAL_NOT_SIMULATED, transcript: [] });
});
