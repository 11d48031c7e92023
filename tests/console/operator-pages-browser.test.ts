import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { NO_VENDORS, startTestApp, type TestAccount, type TestApp } from '../helpers/app';
import { axe, buildConsole, launch, runInBrowser, screenshot, signIn } from '../helpers/console-browser';

/**
 * The operator's jobs that needed the CLI or were missing (issue 58), in Debian's chromium
 * against a server on the simulator with workers and some voice vendors set: API tokens made,
 * used by curl itself, and revoked in the page; "Call me" on an assistant's page,
 * followed live to the call's page; the voice vendors page as the server's configuration has
 * them, no secret in its answer; the calls list's choosable columns and the Status column's
 * explanation. axe-core on each page; screenshots go to test-results/console/.
 */
let app: TestApp;
let browser: Browser | undefined;
let me: TestAccount;
let assistant: number;

/** Values that must never leave the server: the vendors' keys, and URLs (which may carry credentials). */
const SECRETS = ['dg-secret-3f9a', 'el-secret-77c1', 'kokoro-secret-0b2e', 'ws://dg.internal.example:9', 'http://kokoro.internal.example:8880/v1'];

beforeAll(async () => {
  buildConsole();
  app = await startTestApp(
    {
      // Slow enough that the call is still going when its page opens.
      telephony: { provider: 'simulator', simulatorSpeed: 4, twilio: null },
      voice: {
        openai: null,
        pipelineEngineUrl: null,
        pipeline: {
          ...NO_VENDORS,
          deepgram: { apiKey: SECRETS[0], url: SECRETS[3] },
          elevenlabs: { apiKey: SECRETS[1], url: 'wss://api.elevenlabs.io' },
          ttsProviders: { kokoro: { apiKey: SECRETS[2], url: SECRETS[4], model: 'kokoro', sampleRate: 24000 } },
        },
      },
    },
    { workers: true },
  );
  me = await app.account({ balance: '100' });
  assistant = await app.outboundAssistant(me);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

async function openPage(): Promise<{ page: Page; pageErrors: string[] }> {
  browser ??= await launch();
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
  const page = await context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('dialog', (dialog) => void dialog.accept());
  await signIn(page, app.url, me.token);
  return { page, pageErrors };
}

/** GET /api/user/me with the real `curl` binary, as an operator's script would: the token alone, in a header. */
async function curlMe(token: string): Promise<{ status: number; body: string }> {
  const { stdout } = await promisify(execFile)('curl', ['-sS', '-w', '\n%{http_code}', '-H', `Authorization: Bearer ${token}`, `${app.url}/api/user/me`]);
  const end = stdout.lastIndexOf('\n');
  return { status: Number(stdout.slice(end + 1)), body: stdout.slice(0, end) };
}

runInBrowser(
  'creates a token shown once with a copy button, which curl then uses, shows its last use, and revokes it: refused from then on',
  async () => {
    const { page, pageErrors } = await openPage();
    await page.goto(`${app.url}/console/tokens`);
    await page.waitForSelector('tr[data-token]');
    expect(await page.locator('tr[data-token]').count()).toBe(1);
    await page.getByLabel(/^Name/).fill('CI script');
    await page.getByRole('button', { name: 'Create token' }).click();
    const token = (await page.locator('.token-value').innerText()).trim();
    expect(token).toMatch(/^vzg_/);
    await page.getByRole('button', { name: 'Copy the new token' }).click();
    await page.waitForSelector('.copy-status:has-text("Copied.")');
    expect(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).toBe(token);
    const row = page.locator('tr[data-token]', { hasText: 'CI script' });
    await row.waitFor();
    expect(await row.locator('.mono').innerText()).toBe(`${token.slice(0, 12)}…`);
    expect(await row.locator('.last-used').innerText()).toBe('Never');
    {
      const problems = await axe(page, 'tokens');
      expect(problems).toEqual([]);
      await screenshot(page, 'tokens');
    }

    // curl with the new token: the account's own answer, as the console's token gets it.
    const own = await curlMe(me.token);
    expect(own.status).toBe(200);
    expect(JSON.parse(own.body)).toMatchObject({ total_balance: 100 });
    expect(await curlMe(token)).toEqual(own);
    // The list never carries the token again.
    const listed = await app.graphql('{ apiTokens { id prefix name last_used_at } }', {}, me.token);
    expect(listed.text).not.toContain(token);
    const made = listed.body.data.apiTokens.find((t: any) => t.name === 'CI script');
    expect(made.last_used_at).not.toBeNull();
    await page.reload();
    await page.locator('tr[data-token]', { hasText: 'CI script' }).waitFor();
    expect(await page.locator('tr[data-token]', { hasText: 'CI script' }).locator('.last-used').innerText()).not.toBe('Never');
    // Shown once: gone after the reload.
    expect(await page.locator('.token-value').count()).toBe(0);

    await page.getByRole('button', { name: 'Revoke CI script' }).click();
    await page.locator('tr[data-token]', { hasText: 'CI script' }).waitFor({ state: 'detached' });
    const refused = await curlMe(token);
    expect(refused.status).toBe(401);
    expect(refused.body).not.toContain('total_balance');
    // The console's own token still works.
    expect((await curlMe(me.token)).status).toBe(200);
    expect(pageErrors).toEqual([]);
    await page.close();
  },
  90_000,
);

runInBrowser(
  'lists the voice vendors as this server is configured, naming the variables and never a secret; the assistant editor warns that its engine cannot run here',
  async () => {
    const api = await app.graphql('{ voiceVendors { code configured hosted parts variables } }', {}, me.token);
    for (const secret of SECRETS) expect(api.text).not.toContain(secret);
    const byCode = Object.fromEntries(api.body.data.voiceVendors.map((v: any) => [v.code, v]));
    // What the test app's configuration sets, and nothing else.
    expect(Object.fromEntries(Object.entries(byCode).map(([code, v]: [string, any]) => [code, v.configured]))).toEqual({
      openai: false,
      deepgram: true,
      elevenlabs: true,
      cartesia: false,
      stt_providers: false,
      llm_providers: false,
      kokoro: true,
      'pipeline-engine': false,
    });
    expect(byCode.deepgram.variables).toEqual(['DEEPGRAM_API_KEY', 'DEEPGRAM_URL']);
    expect(byCode.kokoro).toEqual({ code: 'kokoro', configured: true, hosted: true, parts: ['tts'], variables: ['TTS_PROVIDERS'] });

    const { page, pageErrors } = await openPage();
    await page.goto(`${app.url}/console/vendors`);
    await page.waitForSelector('tr[data-vendor]');
    const rows = await page.locator('tr[data-vendor]').evaluateAll((trs) =>
      trs.map((tr) => [tr.getAttribute('data-vendor'), tr.querySelector('.vendor-state')!.getAttribute('data-configured'), tr.querySelector('.vendor-variables')!.textContent]),
    );
    expect(rows).toEqual(api.body.data.voiceVendors.map((v: any) => [v.code, String(v.configured), v.variables.join(', ')]));
    expect(await page.locator('tr[data-vendor="deepgram"]').innerText()).toContain('Configured');
    expect(await page.locator('tr[data-vendor="openai"]').innerText()).toContain('Not configured');
    const html = await page.content();
    for (const secret of SECRETS) expect(html).not.toContain(secret);
    expect(await axe(page, 'vendors')).toEqual([]);
    await screenshot(page, 'vendors');

    // The model needs OpenAI, not configured here: the editor says so and links to this page.
    const readiness = (await app.graphql('query($id: Int!) { assistant(id: $id) { voice_ready voice_missing } }', { id: assistant }, me.token)).body.data.assistant;
    expect(readiness).toEqual({ voice_ready: false, voice_missing: ['OPENAI_API_KEY'] });
    await page.goto(`${app.url}/console/assistants/${assistant}`);
    const warning = page.locator('.page-head ~ [data-voice-missing]');
    await warning.waitFor();
    expect(await warning.getAttribute('data-voice-missing')).toBe('OPENAI_API_KEY');
    await warning.getByRole('link', { name: 'This server’s voice vendors' }).click();
    await page.waitForSelector('tr[data-vendor]');
    expect(pageErrors).toEqual([]);
    await page.close();
  },
  90_000,
);

runInBrowser(
  '"Call me" places a call from the assistant to the number and follows it live on its page',
  async () => {
    const { page, pageErrors } = await openPage();
    await page.goto(`${app.url}/console/assistants/${assistant}`);
    const number = page.getByLabel('Your phone number', { exact: true });
    await number.waitFor();
    expect(await page.locator('#call-me-hint').innerText()).toContain('E.164');
    expect(await axe(page, 'assistant-call-me')).toEqual([]);

    // A malformed number: the API's message beside the field, no call.
    await number.fill('12');
    await page.getByRole('button', { name: 'Call me' }).click();
    await page.waitForSelector('#call-me-error');
    expect((await app.sql('select count(*)::int as n from calls where account_id = $1', [me.accountId]))[0].n).toBe(0);

    await number.fill('+5511987650000');
    await page.getByRole('button', { name: 'Call me' }).click();
    await page.waitForURL(/\/console\/calls\/\d+$/, { timeout: 15_000 });
    const callId = Number(/\/calls\/(\d+)$/.exec(page.url())![1]);
    const [row] = await app.sql('select client_phone_number, assistant_id, type from calls where id = $1 and account_id = $2', [callId, me.accountId]);
    expect(row).toEqual({ client_phone_number: '+5511987650000', assistant_id: assistant, type: 'outbound' });
    await page.waitForSelector('h1 .status');
    const first = await page.locator('h1 .status').innerText();
    expect(['initiated', 'ringing', 'in-progress']).toContain(first);
    // Live: the page moves to the end as the call does, with no reload.
    await page.waitForFunction(() => !['initiated', 'ringing', 'in-progress'].includes((globalThis as any).document.querySelector('h1 .status').textContent), undefined, { timeout: 60_000 });
    const final = await page.locator('h1 .status').innerText();
    const [ended] = await app.sql('select status from calls where id = $1', [callId]);
    expect(final).toBe(ended.status);
    await screenshot(page, 'call-me');
    expect(pageErrors).toEqual([]);
    await page.close();
  },
  120_000,
);

runInBrowser(
  'the calls list shows who answered, why it ended, the sentiment and summary, as chosen columns remembered by the browser, and explains ended and completed',
  async () => {
    await app.sql(
      `insert into calls (account_id, assistant_name, type, status, assistant_phone_number, client_phone_number, provider, deadline_at, duration, answered_by, hangup_reason, evaluation)
       values ($1, 'Ana', 'outbound', 'ended_by_customer', '+5511955000000', '+5511988000009', 'simulator', now(), 31, 'human', 'customer', '{"sentiment": "negative", "outcome": "customer_hung_up", "score": 3.5}')`,
      [me.accountId],
    );
    const { page, pageErrors } = await openPage();
    await page.goto(`${app.url}/console/calls`);
    const row = page.locator('tr[data-call]', { hasText: '+5511988000009' });
    await row.waitFor();
    expect(await row.locator('[data-answered-by]').innerText()).toBe('human');
    expect(await row.locator('[data-hangup-reason]').innerText()).toBe('customer');
    expect(await row.locator('[data-sentiment]').innerText()).toBe('negative');
    expect(await row.locator('[data-summary]').innerText()).toBe('customer hung up · 3.5/10');

    // The tooltip, by keyboard.
    await page.getByRole('button', { name: 'What the statuses mean' }).focus();
    const tip = page.getByRole('tooltip');
    await tip.waitFor({ state: 'visible' });
    expect(await tip.textContent()).toMatch(/completed: .*ended: vozgate ended it/s);
    expect(await axe(page, 'calls-columns')).toEqual([]);
    await screenshot(page, 'calls-columns');

    await page.getByText('Columns', { exact: true }).click();
    await page.getByLabel('Sentiment', { exact: true }).uncheck();
    await page.getByLabel('Answered by', { exact: true }).uncheck();
    expect(await row.locator('[data-sentiment]').count()).toBe(0);
    expect(await row.locator('[data-answered-by]').count()).toBe(0);
    const headers = async () => (await page.locator('thead th').allTextContents()).map((text) => text.replace(/\s*\?.*$/s, '').trim());
    expect(await headers()).not.toContain('Sentiment');
    // Remembered: the same columns after a reload.
    await page.reload();
    await page.locator('tr[data-call]', { hasText: '+5511988000009' }).waitFor();
    expect(await headers()).toEqual(['Call', 'When', 'Customer', 'Assistant', 'Campaign', 'Type', 'Status', 'Ended by', 'Summary', 'Duration', 'Cost']);
    expect(pageErrors).toEqual([]);
    await page.close();
  },
  90_000,
);
