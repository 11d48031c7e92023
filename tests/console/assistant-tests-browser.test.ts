import type { Browser } from 'playwright-core';
import { NO_VENDORS, startTestApp, type TestAccount, type TestApp } from '../helpers/app';
import { axe, buildConsole, launch, runInBrowser, screenshot, signIn } from '../helpers/console-browser';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fakes/openai';

/**
 * The assistant's "Tests" tab in Debian's chromium, against a server with workers whose OpenAI
 * base URL is the tests' fake, playing the assistant, the simulated caller and the judge: the
 * API's 422 shown beside the field it names; a reply test written in the form, run twice, its
 * verdicts arriving over the `testRunUpdated` subscription (one criterion passing, one failing
 * with the judge's reason), the pass rate per test across the attempts, the run among the past
 * runs; a test edited and deleted; axe-core on each state. Screenshots go to test-results/console/.
 */
const OPENAI_KEY = 'sk-test-console-tests';
const FAILING_REASON = 'A resposta não diz o horário de domingo.';
let app: TestApp;
let openai: FakeOpenAi;
let browser: Browser | undefined;
let me: TestAccount;
let assistant: number;
let judged = 0;

beforeAll(async () => {
  buildConsole();
  openai = await startFakeOpenAi(OPENAI_KEY);
  openai.defaultChat = (body) => {
    if (body.model === 'judge-model') {
      // The first attempt judged passes every criterion; the next fails the second, with its reason.
      const first = judged++ === 0;
      const criteria = [...String(body.messages[1].content).matchAll(/^\d+\. (.*)$/gm)].map((m) => m[1]);
      return {
        text: JSON.stringify({
          criteria: criteria.map((criterion, i) => ({ criterion, passed: first || i === 0, reason: first || i === 0 ? 'Diz que abre às 9h.' : FAILING_REASON })),
        }),
      };
    }
    if (body.model === 'caller-model') return { text: 'Tchau. [[END_CALL]]' };
    // The assistant answers slowly enough that the run is seen running before its results land.
    return { text: 'Abrimos às 9h, de segunda a sábado.', firstTokenMs: 800 };
  };
  app = await startTestApp(
    {
      voice: { openai: null, pipelineEngineUrl: null, pipeline: { ...NO_VENDORS, openai: { apiKey: OPENAI_KEY, url: openai.url } } },
      assistantTests: { maxPerAssistant: 100, runConcurrency: 1, callerModel: 'caller-model', judgeModel: 'judge-model' },
    },
    { workers: true },
  );
  me = await app.account();
  assistant = await app.outboundAssistant(me, { system_prompt: 'Você atende a Loja Centro.' });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await openai?.close();
});

runInBrowser(
  'writes a reply test in the form, runs it, and sees each criterion’s verdict and reason arrive live, with the pass rate across attempts',
  async () => {
    browser = await launch();
    const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    // What the subscription brings: the run's results, as the server streams them.
    const streamed: string[] = [];
    page.on('websocket', (socket) => socket.on('framereceived', ({ payload }) => void (String(payload).includes('testRunUpdated') && streamed.push(String(payload)))));
    const problems: string[] = [];
    await signIn(page, app.url, me.token);

    // The tab, from the assistant's page.
    await page.goto(`${app.url}/console/assistants/${assistant}`);
    await page.getByRole('navigation', { name: 'Assistant sections' }).getByRole('link', { name: 'Tests' }).click();
    await page.getByRole('button', { name: 'New test' }).waitFor({ timeout: 15_000 });
    // The tests and the runs load apart: whichever list answers first shows its own empty state first.
    await page.locator('.tests-tab .empty', { hasText: 'No tests yet' }).waitFor({ timeout: 15_000 });
    problems.push(...(await axe(page, 'assistant-tests-empty')));

    // The API's refusal, beside the fields it names (nothing typed: no name, no criteria).
    await page.getByRole('button', { name: 'New test' }).click();
    const form = page.getByRole('form', { name: 'New test' });
    await form.getByRole('button', { name: 'Create test' }).click();
    await page.locator('#test-new-criteria-error').waitFor({ timeout: 10_000 });
    expect(await page.locator('#test-new-criteria').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#test-new-name-error').innerText()).not.toBe('');
    expect(await page.locator('#test-new-message-0-error').innerText()).not.toBe('');
    problems.push(...(await axe(page, 'assistant-tests-refused')));
    await screenshot(page, 'assistant-tests-refused');

    // Written in the form: the customer's question and two criteria.
    await form.getByLabel('Name').fill('Horário de abertura');
    await form.getByLabel('Message 1', { exact: true }).fill('Que horas vocês abrem?');
    await form.getByLabel(/^Success criteria/).fill('Diz que abre às 9h\nDiz o horário de domingo');
    await form.getByRole('button', { name: 'Create test' }).click();
    const row = page.locator('tr[data-test]', { hasText: 'Horário de abertura' });
    await row.waitFor({ timeout: 10_000 });
    expect(await row.innerText()).toContain('2 criteria');
    const [test] = (await app.request('GET', `/api/user/assistants/${assistant}/tests`, { token: me.token })).body;
    expect(test).toMatchObject({
      name: 'Horário de abertura',
      type: 'reply',
      config: { messages: [{ role: 'user', content: 'Que horas vocês abrem?' }], success_criteria: ['Diz que abre às 9h', 'Diz o horário de domingo'] },
    });

    // Run twice; the run is followed live.
    await page.evaluate(() => ((globalThis as any).__sameDocument = true));
    await page.getByLabel(/^Attempts per test/).fill('2');
    await page.getByRole('button', { name: 'Run all' }).click();
    const run = page.locator('section.test-run');
    await run.waitFor({ timeout: 10_000 });
    await run.locator('.test-result').first().waitFor({ timeout: 30_000 });
    await page.locator('section.test-run[data-status="failed"]').waitFor({ timeout: 30_000 });
    expect(await page.evaluate(() => (globalThis as any).__sameDocument)).toBe(true);
    // The verdicts came over the subscription, the failing reason among them.
    expect(streamed.some((payload) => payload.includes(FAILING_REASON))).toBe(true);

    const failed = run.locator('.test-result[data-status="failed"]');
    expect(await failed.count()).toBe(1);
    expect(await run.locator('.test-result[data-status="passed"]').count()).toBe(1);
    const verdicts = await failed.locator('.test-criteria li').evaluateAll((items) =>
      items.map((li) => [li.getAttribute('data-passed'), li.querySelector('.test-criterion')!.textContent, li.querySelector('.test-reason')!.textContent]),
    );
    expect(verdicts).toEqual([
      ['true', 'Diz que abre às 9h', 'Diz que abre às 9h.'],
      ['false', 'Diz o horário de domingo', FAILING_REASON],
    ]);
    // The transcript, as the assistant answered.
    expect(await failed.locator('.test-transcript li').allInnerTexts()).toEqual(['Caller Que horas vocês abrem?', 'Assistant Abrimos às 9h, de segunda a sábado.']);
    // The pass rate per test across its attempts, and the run's.
    expect(await run.locator(`tr[data-rate-test="${test.id}"]`).innerText()).toMatch(/Horário de abertura\s+1 of 2\s+50%/);
    expect(await run.locator('[data-fact="pass-rate"]').innerText()).toBe('50%');
    problems.push(...(await axe(page, 'assistant-tests-run')));
    await screenshot(page, 'assistant-tests-run');

    // Among the past runs.
    const past = page.locator('tr[data-past-run]');
    await past.first().locator('.test-verdict', { hasText: 'failed' }).waitFor({ timeout: 10_000 });
    expect(await past.count()).toBe(1);
    expect(await past.first().innerText()).toContain('50%');

    // Edited, then deleted.
    await row.getByRole('button', { name: 'Edit Horário de abertura' }).click();
    const edit = page.getByRole('form', { name: 'Edit test Horário de abertura' });
    await edit.getByLabel('Name').fill('Horário (editado)');
    await edit.getByRole('button', { name: 'Save test' }).click();
    const edited = page.locator('tr[data-test]', { hasText: 'Horário (editado)' });
    await edited.waitFor({ timeout: 10_000 });
    page.once('dialog', (dialog) => void dialog.accept());
    await edited.getByRole('button', { name: 'Delete Horário (editado)' }).click();
    await page.locator('.tests-tab .empty', { hasText: 'No tests yet' }).waitFor({ timeout: 10_000 });
    expect((await app.request('GET', `/api/user/assistants/${assistant}/tests`, { token: me.token })).body).toEqual([]);

    expect(problems).toEqual([]);
    expect(pageErrors).toEqual([]);
  },
  120_000,
);
