import { readFileSync } from 'node:fs';
import type { Browser, Download, Page } from 'playwright-core';
import { loadConfig } from '../../src/config';
import { startTestApp, type TestApp } from '../helpers/app';
import { ALL_DAY, dialerKit, type DialerSetup } from '../helpers/dialer';
import { axe, buildConsole, launch, runInBrowser, screenshot, signIn } from '../helpers/console-browser';

/**
 * The console's lead import and exports in Debian's chromium, against a server on the
 * simulator with workers: a file refused whole shows the API's message by the file input; a
 * CSV of 1,000 rows (10 bad, 5 duplicates, one number on the do-not-call list) with its columns
 * mapped in the page is imported with its progress shown live, the counts exact and the bad
 * rows listed with line and message; a smaller file imported into a second campaign runs to
 * completion on the board with no reload (the 1,000 would take minutes of the dialer here); "Export results" and the calls page's "Export CSV" (with its filter) download
 * what the API answers; axe-core on each new state. Screenshots go to test-results/console/.
 */
let app: TestApp;
let browser: Browser | undefined;
const kit = dialerKit(() => app);
let s: DialerSetup;

const ROWS = 1000;
const UNIQUE = 985;
const SMALL = 30;
const SMALL_HUMANS = 8;
let small: number;
/** The data rows (line = index + 2) that are bad, and why the API says so. */
const BAD: Record<number, string> = {};
const DNC = '+5511920507000';

function buildCsv(): string {
  const phones = Array.from({ length: UNIQUE }, (_, i) => `+55119${2000 + i}7000`);
  phones[50] = DNC;
  const rows = phones.map((phone, i) => `${phone},"Cliente ${i + 1}, Silva",${i % 2 ? 'ouro' : 'prata'},nota ${i}`);
  // Ten bad rows and five numbers the file already has, spread through the file.
  const bad = ['12345', '', 'abc', '+55', '999', '0', '+1', 'telefone', '5511', '++5511987650000'];
  bad.forEach((phone, n) => rows.splice(90 * (n + 1), 0, `${phone},Ruim ${n},prata,`));
  for (let n = 0; n < 5; n++) rows.splice(95 * (n + 1) + 3, 0, `${phones[n + 1]},Repetido ${n},ouro,`);
  rows.forEach((row, index) => {
    if (row.includes(',Ruim ')) BAD[index + 2] = row;
  });
  return ['Telefone,Nome,Plano,Notas', ...rows].join('\r\n') + '\r\n';
}

beforeAll(async () => {
  buildConsole();
  // Batches of 100 rows, so that the progress moves in ten steps.
  app = await startTestApp({ leadImport: { ...loadConfig({}).leadImport, batchRows: 100 }, maxParallelCalls: 20 }, { workers: true });
  s = await kit.setup(
    { name: 'Importação de planos', max_retries: 0 },
    { assistant: { record_call: true, post_call_schema: [{ name: 'interested', type: 'bool', description: 'Did the customer want the offer?' }] } },
  );
  const second = await app.request('POST', '/api/user/campaigns', {
    token: s.account.token,
    body: { name: 'Poucos contatos', assistant_id: s.assistant, retry_interval: 1, max_retries: 0, max_calls_in_parallel: 10, ...ALL_DAY },
  });
  expect(second.status).toBe(201);
  small = second.body.data.id;
  expect((await app.request('POST', '/api/user/dnc', { token: s.account.token, body: { phone_number: DNC } })).status).toBeLessThan(300);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

const nav = (page: Page, name: string) => page.locator('nav[aria-label="Console"]').getByRole('link', { name, exact: true });

async function downloaded(page: Page, click: () => Promise<void>): Promise<{ name: string; text: string }> {
  const [download] = (await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), click()])) as [Download, void];
  return { name: download.suggestedFilename(), text: readFileSync((await download.path())!, 'utf8') };
}

runInBrowser(
  'imports a CSV of 1,000 leads with progress and its bad rows, runs the campaign live on the board, and exports what the API answers',
  async () => {
    browser = await launch();
    const context = await browser.newContext({ viewport: { width: 1360, height: 900 }, acceptDownloads: true });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    const urls: string[] = [];
    page.on('request', (request) => urls.push(request.url()));
    const problems: string[] = [];
    await signIn(page, app.url, s.account.token);
    await page.goto(`${app.url}/console/campaigns/${s.campaign}`);
    await page.getByRole('button', { name: 'Import CSV' }).click();
    await page.waitForSelector('#import-file');
    problems.push(...(await axe(page, 'import-form')));

    // A file with no phone column: Start waits until a column is the phone number.
    await page.setInputFiles('#import-file', { name: 'sem-telefone.csv', mimeType: 'text/csv', buffer: Buffer.from('Nome,Plano\r\nAna,ouro\r\n') });
    await page.waitForSelector('tr[data-column="Nome"]');
    expect(await page.getByRole('button', { name: 'Start import', exact: true }).isDisabled()).toBe(true);
    expect(await page.locator('#import-no-phone').innerText()).toContain('No column holds the phone number');
    await page.getByLabel('Where Nome goes').selectOption('phone');
    expect(await page.getByRole('button', { name: 'Start import', exact: true }).isDisabled()).toBe(false);
    // A column whose values read as phone numbers is the number, whatever its name.
    await page.setInputFiles('#import-file', { name: 'linhas.csv', mimeType: 'text/csv', buffer: Buffer.from('Nome,Linha\r\nAna,(11) 98765-4321\r\nBia,+55 21 98765-4321\r\n') });
    await page.waitForSelector('tr[data-column="Linha"]');
    expect(await page.getByLabel('Where Linha goes').inputValue()).toBe('phone');
    expect(await page.getByLabel('Where Nome goes').inputValue()).toBe('variable');

    // A file the API refuses whole: its message, in English, by the file input; nothing imported.
    const twice = 'phone,Nome,Nome\r\n+5511987650000,Ana,Bia\r\n';
    await page.setInputFiles('#import-file', { name: 'repetida.csv', mimeType: 'text/csv', buffer: Buffer.from(twice) });
    await page.waitForSelector('tr[data-column="phone"]');
    await page.getByRole('button', { name: 'Start import', exact: true }).click();
    const fileError = page.locator('#import-file-error');
    await fileError.waitFor({ timeout: 10_000 });
    const refused = await app.graphql('mutation($input: ImportLeadsInput!) { importLeads(input: $input) { id } }', { input: { campaign_id: s.campaign, csv: twice } }, s.account.token);
    expect(refused.body.errors[0].extensions.errors.csv).toEqual([expect.stringContaining('colunas repetidas')]);
    expect(await fileError.innerText()).toBe('The file’s header names a column twice.');
    expect(await page.locator('#import-file').getAttribute('aria-invalid')).toBe('true');
    await screenshot(page, 'import-error');
    problems.push(...(await axe(page, 'import-error')));

    // The real file: its columns mapped in the page (Telefone is the number by default, Nome
    // becomes customer_name, Notas is left out), then imported with its progress shown as it moves.
    const csv = buildCsv();
    expect(csv.split('\r\n').length - 2).toBe(ROWS);
    await page.setInputFiles('#import-file', { name: 'leads.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.waitForSelector('tr[data-column="Telefone"]');
    expect(await page.getByLabel('Where Telefone goes').inputValue()).toBe('phone');
    expect(await page.locator('tr[data-column="Nome"] td').first().innerText()).toBe('Cliente 1, Silva');
    await page.getByLabel('Variable name for Nome').fill('customer_name');
    await page.getByLabel('Where Notas goes').selectOption('ignore');
    await screenshot(page, 'import-mapping');
    problems.push(...(await axe(page, 'import-mapping')));
    await page.evaluate(() => {
      const seen: number[] = [];
      (globalThis as any).__progress = seen;
      new (globalThis as any).MutationObserver(() => {
        const bar = (globalThis as any).document.querySelector('[data-import] progress');
        if (bar && seen[seen.length - 1] !== Number(bar.value)) seen.push(Number(bar.value));
      }).observe((globalThis as any).document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    });
    const started = page.waitForRequest((request) => request.url().endsWith('/graphql') && (request.postData() ?? '').includes('importLeads'));
    await page.getByRole('button', { name: 'Start import', exact: true }).click();
    // Under the GraphQL body limit, the file goes as importLeads' csv, with the mapping.
    const sent = JSON.parse((await started).postData()!);
    expect(sent.variables.input).toEqual({ campaign_id: s.campaign, csv, mapping: { Telefone: 'phone_number', Nome: 'variables.customer_name', Notas: null } });
    const panel = page.locator('[data-import]');
    await panel.waitFor({ timeout: 10_000 });
    await page.locator('[data-import-status="done"]').waitFor({ timeout: 60_000 });
    const progress: number[] = await page.evaluate(() => (globalThis as any).__progress);
    // Shown as it moved: more than the start and the end, never backwards, ending at every row.
    expect(progress.length).toBeGreaterThan(2);
    expect([...progress].sort((a, b) => a - b)).toEqual(progress);
    expect(progress[progress.length - 1]).toBe(ROWS);

    const count = async (key: string) => (await panel.locator(`[data-count="${key}"] dd`).innerText()).trim();
    expect(await count('rows_read')).toBe('1,000 / 1,000');
    expect(await count('created')).toBe('985');
    expect(await count('duplicates')).toBe('5');
    expect(await count('blacklisted')).toBe('1');
    expect(await count('invalid')).toBe('10');
    // The bad rows, with line and message, as the API keeps them, the message in English.
    const importId = Number(await panel.getAttribute('data-import'));
    const api = await app.graphql(`{ leadImport(id: ${importId}) { created duplicates blacklisted invalid errors { line field message } } }`, {}, s.account.token);
    expect(api.body.data.leadImport).toMatchObject({ created: 985, duplicates: 5, blacklisted: 1, invalid: 10 });
    const shown = await panel.locator('tbody tr[data-line]').evaluateAll((rows) => rows.map((row: any) => [...row.querySelectorAll('td')].map((cell: any) => cell.innerText)));
    expect(shown.map((row) => row.slice(0, 2))).toEqual(api.body.data.leadImport.errors.map((error: any) => [String(error.line), error.field ?? '—']));
    for (const [, , message] of shown) expect(message).toMatch(/^Phone number (is required|must be a valid phone number|has no country code)/);
    expect(shown.map((row) => Number(row[0]))).toEqual(Object.keys(BAD).map(Number));
    // The mapping was applied: Nome is customer_name, Notas is not kept.
    const [lead] = await app.sql('select variables from leads where campaign_id = $1 order by id limit 1', [s.campaign]);
    expect(lead.variables).toEqual({ customer_name: 'Cliente 1, Silva', Plano: 'prata' });
    // The page's counts and list follow the import without a reload.
    await page.locator('.counts [data-status="created"] dd', { hasText: '984' }).waitFor({ timeout: 10_000 });
    await page.locator('.pager', { hasText: 'of 985' }).waitFor({ timeout: 10_000 });
    await screenshot(page, 'import-done');
    problems.push(...(await axe(page, 'import-done')));

    // A second, smaller file into a second campaign, with the API's default columns (no
    // mapping sent): the dialer on this 2-core machine places some 30 calls a second, so
    // the board follows this one to completion within the test's minute.
    await page.getByRole('button', { name: 'Close' }).click();
    await page.goto(`${app.url}/console/campaigns/${small}`);
    await page.getByRole('button', { name: 'Import CSV' }).click();
    const smallCsv = ['phone,customer_name', ...Array.from({ length: SMALL }, (_, i) => `+55119${3000 + i}${i < SMALL_HUMANS ? '7000' : '0001'},Pessoa ${i + 1}`)].join('\n');
    await page.setInputFiles('#import-file', { name: 'poucos.csv', mimeType: 'text/csv', buffer: Buffer.from(smallCsv) });
    await page.waitForSelector('tr[data-column="customer_name"]');
    const smallStarted = page.waitForRequest((request) => (request.postData() ?? '').includes('importLeads'));
    await page.getByRole('button', { name: 'Start import', exact: true }).click();
    expect(JSON.parse((await smallStarted).postData()!).variables.input).toEqual({ campaign_id: small, csv: smallCsv });
    await page.locator('[data-import-status="done"]').waitFor({ timeout: 30_000 });
    expect(await page.locator('[data-import] [data-count="created"] dd').innerText()).toBe(String(SMALL));

    // The board: the imported campaign runs to completion with no reload.
    await page.evaluate(() => ((globalThis as any).__sameDocument = true));
    await nav(page, 'Campaigns').click();
    const card = page.locator(`[data-campaign="${small}"]`);
    await card.waitFor({ timeout: 10_000 });
    expect(await card.locator('.count-created dd').innerText()).toBe(String(SMALL));
    expect(await page.locator(`[data-campaign="${s.campaign}"] .count-created dd`).innerText()).toBe('984');
    await card.getByRole('button', { name: /^Start / }).click();
    await card.locator('.status', { hasText: 'running' }).waitFor({ timeout: 10_000 });
    await card.locator('.count-reached-max-retries dd', { hasText: String(SMALL - SMALL_HUMANS) }).waitFor({ timeout: 60_000 });
    await card.locator('.count-completed dd', { hasText: String(SMALL_HUMANS) }).waitFor({ timeout: 60_000 });
    await card.locator('.status', { hasText: 'completed' }).waitFor({ timeout: 30_000 });
    expect(await page.evaluate(() => (globalThis as any).__sameDocument)).toBe(true);
    await screenshot(page, 'campaigns-imported');

    // "Export results": the file the API answers for the campaign, results included.
    await card.getByRole('link', { name: 'Poucos contatos', exact: true }).click();
    await page.waitForSelector('tr[data-lead]');
    const results = await downloaded(page, () => page.getByRole('button', { name: 'Export results' }).click());
    const expected = await app.request('GET', `/api/user/campaigns/${small}/leads.csv`, { token: s.account.token, headers: { accept: 'text/csv' } });
    expect(expected.status).toBe(200);
    expect(results.name).toBe(`campaign-${small}-leads.csv`);
    expect(results.text).toBe(expected.text);
    const lines = results.text.trimEnd().split('\r\n');
    expect(lines).toHaveLength(SMALL + 1);
    expect(lines[0]).toContain('variables.customer_name');
    expect(lines.filter((line) => line.includes(',completed,'))).toHaveLength(SMALL_HUMANS);
    problems.push(...(await axe(page, 'campaign-exported')));
    // And the large one's, not started: every imported lead, with its mapped variables.
    await page.goto(`${app.url}/console/campaigns/${s.campaign}`);
    await page.waitForSelector('tr[data-lead]');
    const large = await downloaded(page, () => page.getByRole('button', { name: 'Export results' }).click());
    expect(large.text).toBe((await app.request('GET', `/api/user/campaigns/${s.campaign}/leads.csv`, { token: s.account.token })).text);
    expect(large.text.trimEnd().split('\r\n')).toHaveLength(UNIQUE + 1);

    // Calls: "Export CSV" with the list's filters.
    await nav(page, 'Calls').click();
    await page.waitForSelector('tr[data-call]');
    // The filter's fields (the column chooser and the statuses' tip name theirs alike).
    const filter = page.getByRole('search', { name: 'Filter calls' });
    await filter.getByLabel('Campaign').selectOption(String(small));
    await filter.getByLabel('Status').selectOption('busy');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    const calls = await downloaded(page, () => page.getByRole('button', { name: 'Export CSV' }).click());
    const callsExpected = await app.request('GET', `/api/user/calls.csv?status=busy&campaign_id=${small}`, { token: s.account.token, headers: { accept: 'text/csv' } });
    expect(calls.name).toBe('calls.csv');
    expect(calls.text).toBe(callsExpected.text);
    expect(calls.text.trimEnd().split('\r\n')).toHaveLength(SMALL - SMALL_HUMANS + 1);
    expect(urls.some((url) => url.includes('/api/user/calls.csv?') && url.includes(`campaign_id=${small}`) && url.includes('status=busy'))).toBe(true);
    await screenshot(page, 'calls-export');
    problems.push(...(await axe(page, 'calls-export')));

    // The token travelled in headers only.
    expect(urls.filter((url) => url.includes(s.account.token))).toEqual([]);
    expect(problems).toEqual([]);
    expect(pageErrors).toEqual([]);
  },
  300_000,
);
