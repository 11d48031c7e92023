import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';

/**
 * GraphiQL in a real browser (Debian's chromium, headless), with every request to another
 * host refused: the page, its scripts and styles all come from this server, and a query run
 * from the page with a pasted token answers, and so does a subscription (over the WebSocket). Needs `apt-get install chromium` (CI does it);
 * without it the test is skipped, except under CI=true, where it fails.
 */
const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((file) => existsSync(file));
const run = CHROMIUM || process.env.CI ? it : it.skip;
if (!CHROMIUM && !process.env.CI) console.warn('ide.browser.test: no chromium (apt-get install chromium): the GraphiQL browser test is skipped');

let app: TestApp;
let me: TestAccount;
let browser: Browser | undefined;

beforeAll(async () => {
  app = await startTestApp();
  me = await app.account();
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

run('GraphiQL loads with no network beyond this server and runs a query and a subscription with a pasted token', async () => {
  if (!CHROMIUM) throw new Error('CI=true but no chromium: .ci/run installs the Debian package');
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = await browser.newPage();
  const refused: string[] = [];
  const origin = new URL(app.url).origin;
  await page.route('**/*', (route) => {
    if (route.request().url().startsWith(origin)) return route.continue();
    refused.push(route.request().url());
    return route.abort();
  });
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));

  await page.goto(`${app.url}/graphql`);
  await page.waitForSelector('.graphiql-query-editor .CodeMirror', { timeout: 20_000 });
  expect(await page.title()).toBe('vozgate GraphQL');

  // The user pastes a token into the headers editor and writes a query.
  await page.evaluate(
    ({ token }) => {
      const editor = (selector: string) => (globalThis as any).document.querySelector(`${selector} .CodeMirror`).CodeMirror;
      // The example operations are there to start from.
      if (!editor('.graphiql-query-editor').getValue().includes('query Leads')) throw new Error('the example operations are missing');
      editor('.graphiql-query-editor').setValue('{ languages { id name } }');
      // The headers editor is the visible one of the tools (it opens first; variables stay hidden).
      const headers = editor('.graphiql-editor-tool .graphiql-editor:not(.hidden)');
      if (!headers.getValue().includes('"Authorization": "Bearer "')) throw new Error('the headers editor does not start with an empty bearer header');
      headers.setValue(JSON.stringify({ Authorization: `Bearer ${token}` }));
    },
    { token: me.token },
  );
  // The editors hand their text to GraphiQL after a short debounce: run until the answer comes.
  // (In the page: `document` is the browser's, hence globalThis here, where TypeScript knows no DOM.)
  const resultText = () => page.evaluate(() => (globalThis as any).document.querySelector('.result-window .CodeMirror')?.CodeMirror.getValue() ?? '');
  const deadline = Date.now() + 20_000;
  while (!(await resultText()).includes('Portuguese') && Date.now() < deadline) {
    await page.click('.graphiql-execute-button');
    await page.waitForTimeout(300);
  }
  const result = JSON.parse(await resultText());
  expect(result.data.languages).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'Portuguese' })]));

  // A subscription runs from the page too, over the WebSocket, with the same pasted token.
  await page.evaluate(() => {
    const editor = (globalThis as any).document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror;
    editor.setValue('subscription { leadUpdated { id status } }');
  });
  await page.waitForTimeout(1000);
  await page.click('.graphiql-execute-button');
  await page.waitForTimeout(1000);
  const lead = await app.request('POST', '/api/user/lead', { token: me.token, body: { phone_number: '+5511987658888', campaign_id: me.campaignId } });
  await app.request('PUT', `/api/user/leads/${lead.body.data.id}`, { token: me.token, body: { status: 'completed' } });
  const until = Date.now() + 10_000;
  while (!(await resultText()).includes('completed') && Date.now() < until) await page.waitForTimeout(200);
  expect(JSON.parse(await resultText())).toEqual({ data: { leadUpdated: { id: lead.body.data.id, status: 'completed' } } });

  const shots = path.join(__dirname, '..', '..', 'test-results');
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, 'graphiql.png') });
  expect(refused).toEqual([]);
  expect(pageErrors).toEqual([]);
});
