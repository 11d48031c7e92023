import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { NO_VENDORS, startTestApp, workerEnv, type TestAccount, type TestApp } from '../helpers/app';
import { startFakeOpenAi, type ChatReply, type FakeOpenAi } from '../helpers/fakes/openai';

/**
 * `npm run cli -- assistant:test --assistant ID [--attempts N] [--junit FILE]` against the
 * server on the same database (its workers run the run): a line per attempt as it lands, JUnit
 * XML, exit 0 only when every attempt passed, 1 when one failed or erred.
 */
const OPENAI_KEY = 'sk-test-assistant-tests-cli';
const cli = path.resolve(__dirname, '../../dist/src/cli/index.js');
let app: TestApp;
let openai: FakeOpenAi;
let me: TestAccount;
let assistant: number;
let dir: string;
let judge: (criteria: string[]) => ChatReply;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'vozgate-cli-tests-'));
  openai = await startFakeOpenAi(OPENAI_KEY);
  openai.defaultChat = (body) => {
    if (body.model !== 'judge-model') return { text: 'Abrimos às 9h.' };
    return judge([...String(body.messages[1].content).matchAll(/^\d+\. (.*)$/gm)].map((m) => m[1]));
  };
  app = await startTestApp(
    {
      voice: { openai: null, pipelineEngineUrl: null, pipeline: { ...NO_VENDORS, openai: { apiKey: OPENAI_KEY, url: openai.url } } },
      assistantTests: { maxPerAssistant: 100, runConcurrency: 4, callerModel: null, judgeModel: 'judge-model' },
    },
    { workers: true },
  );
  me = await app.account();
  assistant = await app.outboundAssistant(me);
  for (const [name, criterion] of [
    ['Horário', 'Diz o horário'],
    ['Educação', 'É <educado> & "gentil"'],
  ]) {
    const res = await app.request('POST', `/api/user/assistants/${assistant}/tests`, {
      token: me.token,
      body: { name, type: 'reply', config: { messages: [{ role: 'user', content: 'Que horas abrem?' }], success_criteria: [criterion] } },
    });
    expect(res.status).toBe(201);
  }
});
afterAll(async () => {
  await app?.close();
  await openai?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const verdict = (decide: (criterion: string) => boolean) => (criteria: string[]) => ({
  text: JSON.stringify({ criteria: criteria.map((criterion) => ({ criterion, passed: decide(criterion), reason: decide(criterion) ? 'ok' : 'não foi <gentil>' })) }),
});

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cli, 'assistant:test', ...args], { env: workerEnv(app) }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

it('exits 0 when every attempt passed, with a line per attempt and JUnit XML', async () => {
  judge = verdict(() => true);
  const junit = path.join(dir, 'passed.xml');
  const result = await run(['--assistant', String(assistant), '--attempts', '2', '--junit', junit]);
  expect(result.code).toBe(0);
  expect(JSON.parse(result.stdout)).toMatchObject({ status: 'passed', pass_rate: 1, attempts: 4, junit });
  expect(result.stderr.split('\n').filter((line) => line.startsWith('PASSED'))).toHaveLength(4);
  const xml = await readFile(junit, 'utf8');
  expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="vozgate assistant \d+" tests="4" failures="0" errors="0"/);
  expect(xml.match(/<testcase /g)).toHaveLength(4);
  expect(xml).toContain('name="Horário (attempt 2)"');
  expect(xml).not.toContain('<failure');
});

it('exits 1 when an attempt failed, the failure in the JUnit XML with its criterion and reason, escaped', async () => {
  judge = verdict((criterion) => !criterion.includes('educado'));
  const junit = path.join(dir, 'failed.xml');
  const result = await run(['--assistant', String(assistant), '--junit', junit]);
  expect(result.code).toBe(1);
  expect(JSON.parse(result.stdout)).toMatchObject({ status: 'failed', pass_rate: 0.5, attempts: 2 });
  expect(result.stderr).toMatch(/^FAILED +1 +Educação/m);
  const xml = await readFile(junit, 'utf8');
  expect(xml).toContain('tests="2" failures="1" errors="0"');
  expect(xml).toContain('<failure message="É &lt;educado&gt; &amp; &quot;gentil&quot;: não foi &lt;gentil&gt;" type="failed">');
});

it('exits 1 when an attempt could not reach a verdict, as a JUnit error', async () => {
  judge = () => ({ text: 'talvez' });
  const junit = path.join(dir, 'error.xml');
  const result = await run(['--assistant', String(assistant), '--junit', junit]);
  expect(result.code).toBe(1);
  expect(JSON.parse(result.stdout)).toMatchObject({ status: 'error', pass_rate: 0 });
  expect(await readFile(junit, 'utf8')).toContain('tests="2" failures="0" errors="2"');
});

it('refuses an assistant that does not exist (exit 1) and bad attempts (exit 1), and a missing --assistant (exit 2)', async () => {
  const missing = await run(['--assistant', '999999']);
  expect(missing.code).toBe(1);
  expect(JSON.parse(missing.stderr.trim().split('\n').pop()!).error).toBe('assistant 999999 does not exist');
  expect((await run(['--assistant', String(assistant), '--attempts', '11'])).code).toBe(1);
  expect((await run([])).code).toBe(2);
});
