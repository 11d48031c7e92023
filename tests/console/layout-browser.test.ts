import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';
import { cspViolations } from '../helpers/chromium';
import { axe, buildConsole, launch, root, runInBrowser, signIn } from '../helpers/console-browser';
import { setTurns } from '../helpers/turns';

/**
 * The console on a phone (issue 58): at 390x844 in Debian's chromium, every route of the
 * console's router (read from console/src/app.tsx, so a new page is covered without touching
 * this file) opens with no sideways scroll and passes axe; tables read as cards, each cell named
 * by its column; the menu opens and closes from the keyboard; /talk wears the console's look and
 * fits too. So do the states a route's address alone does not show: the assistant's Tests tab
 * with a test written, and the analytics page's tables ("Table") and custom range. The rows
 * are long on purpose (URLs, JSON, a transcript, variables). With
 * SCREENSHOTS=1 each page's viewport goes to docs/screenshots/390/, which the README links;
 * without it nothing under docs/ is written.
 */
const WIDTH = 390;
const HEIGHT = 844;
const screenshots = process.env.SCREENSHOTS === '1' ? path.join(root, 'docs', 'screenshots', String(WIDTH)) : null;

let app: TestApp;
let browser: Browser | undefined;
let me: TestAccount;
/** A seeded row for each kind of `:id` the router has, by the route's first segment. */
const ids: Record<string, number> = {};

/** The console's routes, as its router lists them. */
export function consoleRoutes(): string[] {
  const source = readFileSync(path.join(root, 'console/src/app.tsx'), 'utf8');
  return [...source.matchAll(/<Route\s+path="([^"]+)"/g)].map((match) => match[1]);
}

beforeAll(async () => {
  buildConsole();
  app = await startTestApp({});
  me = await app.account({ balance: '100', name: 'Loja Centro de Atendimento ao Cliente Ltda' });
  ids.assistants = await app.outboundAssistant(me, {
    assistant_name: 'Ana, atendente da Loja Centro para renovações de planos',
    transfer_numbers: [{ number: '+551130030000', description: 'Vendas, para um plano novo com desconto especial' }],
  });
  const campaign = await app.request('POST', '/api/user/campaigns', {
    token: me.token,
    body: { name: 'Renovação de planos empresariais do segundo semestre', assistant_id: ids.assistants, retry_interval: 1 },
  });
  expect(campaign.status).toBe(201);
  ids.campaigns = campaign.body.data.id;
  const lead = await app.request('POST', '/api/user/lead', {
    token: me.token,
    body: {
      phone_number: '+5511987654321',
      campaign_id: ids.campaigns,
      variables: { customer_name: 'Maria Aparecida dos Santos Oliveira', plano: 'Empresarial Plus 500 minutos com portabilidade', observacao: 'x'.repeat(120) },
    },
  });
  expect(lead.status).toBe(200);
  const [call] = await app.sql(
    `insert into calls (account_id, campaign_id, campaign_name, lead_id, assistant_id, assistant_name, type, status, assistant_phone_number, client_phone_number, provider, deadline_at, duration, transcript, answered_by, hangup_reason, input_variables)
     values ($1, $2, 'Renovação de planos empresariais do segundo semestre', $3, $4, 'Ana', 'outbound', 'completed', '+5511955000000', '+5511987654321', 'simulator', now(), 184, $5, 'human', 'assistant', $6) returning id`,
    [
      me.accountId,
      ids.campaigns,
      lead.body.data.id,
      ids.assistants,
      'Assistente: Olá!\nCliente: Oi.',
      JSON.stringify({ customer_name: 'Maria Aparecida dos Santos Oliveira', url: `https://example.com/${'segmento/'.repeat(12)}` }),
    ],
  );
  ids.calls = call.id;
  await setTurns(app.sql, call.id, [
    { speaker: 'assistant', text: 'Olá! Aqui é a Ana, da Loja Centro. Posso falar sobre a renovação do seu plano empresarial?', at_ms: 800 },
    { speaker: 'customer', text: `Pode sim, meu protocolo é ${'1234567890'.repeat(6)} e o e-mail é maria.aparecida.dos.santos.oliveira@empresa-exemplo.com.br`, at_ms: 5200 },
  ]);
  const webhook = await app.graphql('mutation ($url: String!) { createWebhookEndpoint(url: $url, events: ["call.finished", "call.answered"]) { id } }', {
    url: `https://hooks.example.com/vozgate/${'integracao/'.repeat(8)}receber`,
  }, me.token);
  ids.webhooks = webhook.body.data?.createWebhookEndpoint.id;
  expect(ids.webhooks).toEqual(expect.any(Number));
  const tool = await app.request('POST', '/api/user/tools', {
    token: me.token,
    body: {
      name: 'consultar_pedido_por_numero',
      description: 'Consulta um pedido pelo número.',
      endpoint: `https://api.example.com/${'pedidos/'.repeat(8)}consultar`,
      method: 'POST',
      schema: [{ name: 'numero_do_pedido', type: 'string', description: 'O número do pedido' }],
    },
  });
  expect(tool.status).toBeLessThan(300);
  const test = await app.request('POST', `/api/user/assistants/${ids.assistants}/tests`, {
    token: me.token,
    body: {
      name: 'Renovação do plano empresarial com portabilidade e desconto especial',
      type: 'reply',
      config: { messages: [{ role: 'user', content: 'Quero renovar meu plano, o que muda?' }], success_criteria: ['Explica o que muda na renovação', 'Oferece o desconto especial'] },
    },
  });
  expect(test.status).toBe(201);
  await app.graphql('mutation { addDncNumber(phone_number: "+5511999990000") { phone_number } }', {}, me.token);
  if (screenshots) mkdirSync(screenshots, { recursive: true });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

/** A route with its `:params` filled from the seeded rows. */
function concrete(route: string): string {
  const kind = route.split('/')[1];
  return route.replace(/:(\w+)\??/g, (_, name) => {
    const id = ids[kind];
    if (id === undefined) throw new Error(`layout-browser.test.ts: no seeded row for ${route}'s :${name} (add one to ids)`);
    return String(id);
  });
}

/** A file name for a route: "/" is home, "/campaigns/:id/edit" is campaigns-id-edit. */
const shotName = (route: string) => route.replace(/^\//, '').replace(/[/:]+/g, '-').replace(/[^\w-]/g, '') || 'home';

/** Once the page's data came: no "Loading…" left in the page. */
async function settled(page: Page): Promise<void> {
  await page.waitForFunction(
    () => {
      const main = (globalThis as any).document.querySelector('main');
      return main && main.querySelector('h1') && !main.querySelector('[aria-busy="true"]');
    },
    undefined,
    { timeout: 20_000 },
  );
}

/** How far the page scrolls sideways (0 when it fits), and which elements stick out, to say why. */
function overflow(page: Page): Promise<{ extra: number; wide: string[] }> {
  return page.evaluate(() => {
    const doc = (globalThis as any).document;
    const width = doc.documentElement.clientWidth;
    const wide: string[] = [];
    for (const element of doc.body.querySelectorAll('*')) {
      const box = element.getBoundingClientRect();
      if (box.right > width + 0.5 && box.width > 0) {
        wide.push(`${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''}${element.className && typeof element.className === 'string' ? `.${element.className.trim().split(/\s+/).join('.')}` : ''} (${Math.round(box.right)}px)`);
      }
    }
    return { extra: doc.documentElement.scrollWidth - width, wide: wide.slice(0, 8) };
  });
}

/** The tables shown as cards: each is laid out as blocks, and each cell of a data row is named by its column. */
function cardTables(page: Page): Promise<{ tables: number; display: string[]; unlabelled: string[] }> {
  return page.evaluate(() => {
    const doc = (globalThis as any).document;
    const tables = [...doc.querySelectorAll('main table')].filter((table: any) => table.tHead && table.offsetParent !== null);
    const unlabelled: string[] = [];
    for (const table of tables as any[]) {
      for (const row of table.tBodies[0]?.rows ?? []) {
        for (const cell of row.cells) {
          // A cell spanning the row is its detail (a lead's calls), not a column's value.
          if (cell.colSpan > 1 || cell.closest('table') !== table) continue;
          if (!cell.dataset.label && cell.textContent.trim()) unlabelled.push(`${row.textContent.slice(0, 40)}: ${cell.textContent.slice(0, 30)}`);
        }
      }
    }
    return { tables: tables.length, display: tables.map((table: any) => (globalThis as any).getComputedStyle(table).display), unlabelled };
  });
}

runInBrowser(
  'every route of the console fits a 390 px phone with no sideways scroll, tables as labelled cards, axe clean',
  async () => {
    browser = await launch();
    const page = await browser.newPage({ viewport: { width: WIDTH, height: HEIGHT }, deviceScaleFactor: 1 });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    const violations = await cspViolations(page);
    const problems: string[] = [];
    const overflowing: string[] = [];
    const tableProblems: string[] = [];

    await page.goto(`${app.url}/console`);
    expect((await overflow(page)).extra).toBe(0);
    if (screenshots) await page.screenshot({ path: path.join(screenshots, 'sign-in.png') });
    await signIn(page, app.url, me.token);

    const routes = consoleRoutes();
    // The list is the router's: the pages of today are all in it.
    for (const known of ['/', '/campaigns/:id', '/calls/:id', '/assistants/:id', '/webhooks/:id', '/tokens', '/vendors']) expect(routes).toContain(known);
    let withTables = 0;
    /** The page as it stands: no sideways scroll, its tables as labelled cards, axe clean. */
    const check = async (route: string, name: string) => {
      await settled(page);
      const { extra, wide } = await overflow(page);
      if (extra > 0) overflowing.push(`${route}: ${extra}px too wide: ${wide.join(', ')}`);
      const cards = await cardTables(page);
      withTables += cards.tables;
      for (const display of cards.display) if (display !== 'block') tableProblems.push(`${route}: a table shown as ${display}, not as cards`);
      tableProblems.push(...cards.unlabelled.map((cell) => `${route}: a cell with no column name: ${cell}`));
      problems.push(...(await axe(page, name)));
      if (screenshots) await page.screenshot({ path: path.join(screenshots, `${name}.png`) });
    };
    for (const route of routes) {
      await page.goto(`${app.url}/console${concrete(route)}`);
      await check(route, shotName(route));
    }

    // The assistant's Tests tab, its test listed.
    await page.goto(`${app.url}/console/assistants/${ids.assistants}?tab=tests`);
    await page.locator('tr[data-test]').waitFor();
    await check('/assistants/:id?tab=tests', 'assistants-id-tests');
    // The analytics page with every chart shown as its table.
    await page.goto(`${app.url}/console/`);
    await page.locator('.analytics-figures').waitFor();
    for (const toggle of await page.getByRole('button', { name: 'Table', exact: true }).all()) await toggle.click();
    expect(await page.locator('.analytics-figure .table-wrap table').count()).toBe(4);
    await check('/ (Table)', 'analytics-tables');
    // Its custom range: the two days' fields, and the figures of that range.
    await page.getByLabel('Custom range').check();
    const from = new Date(Date.now() - 20 * 86_400_000).toISOString().slice(0, 10);
    await page.getByLabel('From').fill(from);
    await page.locator(`.analytics-figures[data-query*="${from}T00:00:00.000Z"]`).waitFor();
    await check('/ (custom range)', 'analytics-custom');
    expect(withTables).toBeGreaterThan(5);
    expect([...overflowing, ...tableProblems, ...problems]).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(violations).toEqual([]);
  },
  300_000,
);

runInBrowser('on a phone the menu is a button that opens and closes the navigation from the keyboard; wide, the tables stay tables', async () => {
  browser ??= await launch();
  const page = await browser.newPage({ viewport: { width: WIDTH, height: HEIGHT } });
  await signIn(page, app.url, me.token);
  const menu = page.getByRole('button', { name: 'Menu' });
  const nav = page.getByRole('navigation', { name: 'Console' });
  expect(await menu.getAttribute('aria-expanded')).toBe('false');
  expect(await nav.isVisible()).toBe(false);
  await menu.focus();
  await page.keyboard.press('Enter');
  expect(await menu.getAttribute('aria-expanded')).toBe('true');
  expect(await nav.isVisible()).toBe(true);
  if (screenshots) await page.screenshot({ path: path.join(screenshots, 'menu.png') });
  expect(await axe(page, 'menu-open')).toEqual([]);
  // Escape closes it and gives the focus back to the button.
  await page.keyboard.press('Tab');
  await page.keyboard.press('Escape');
  expect(await nav.isVisible()).toBe(false);
  expect(await page.evaluate(() => (globalThis as any).document.activeElement.textContent)).toBe('Menu');
  // A link followed closes it, and goes there.
  await page.keyboard.press('Enter');
  await nav.getByRole('link', { name: 'Calls' }).click();
  await page.waitForURL(/\/console\/calls$/);
  expect(await nav.isVisible()).toBe(false);
  expect(await menu.getAttribute('aria-expanded')).toBe('false');
  await page.locator('tr[data-call]').first().waitFor();
  expect((await overflow(page)).extra).toBe(0);

  // Wide: no menu button, the sidebar's links, and the calls as a table with its header row.
  await page.setViewportSize({ width: 1360, height: 900 });
  expect(await menu.isVisible()).toBe(false);
  expect(await nav.isVisible()).toBe(true);
  expect(await page.locator('main table').first().evaluate((table) => (globalThis as any).getComputedStyle(table).display)).toBe('table');
  expect(await page.getByRole('columnheader').count()).toBeGreaterThan(3);
  expect(await page.getByRole('cell').count()).toBeGreaterThan(3);
  await page.close();
});

runInBrowser('/talk wears the console look (its stylesheet and header) and fits a phone', async () => {
  browser ??= await launch();
  const page = await browser.newPage({ viewport: { width: WIDTH, height: HEIGHT } });
  const violations = await cspViolations(page);
  await page.goto(`${app.url}/talk`);
  // The console's own stylesheet, as the console's page links it.
  const consoleCss = [...readFileSync(path.join(root, 'dist/console/index.html'), 'utf8').matchAll(/<link rel="stylesheet"[^>]*href="([^"]+)"/g)].map((m) => m[1]);
  expect(consoleCss.length).toBeGreaterThan(0);
  const linked = await page.locator('link[rel="stylesheet"]').evaluateAll((links) => links.map((link) => link.getAttribute('href')));
  for (const href of consoleCss) expect(linked).toContain(href);
  expect(await page.locator('header.topbar .brand').innerText()).toContain('vozgate');
  expect(await page.getByRole('link', { name: 'Console' }).getAttribute('href')).toBe('/console');
  // The console's canvas colour, from its stylesheet.
  expect(await page.evaluate(() => (globalThis as any).getComputedStyle((globalThis as any).document.body).backgroundColor)).toBe('rgb(246, 247, 251)');
  await page.getByLabel('Token').fill(me.token);
  await page.getByRole('button', { name: 'Connect' }).click();
  await page.getByLabel('Assistant').locator('option').first().waitFor({ state: 'attached' });
  expect((await overflow(page)).extra).toBe(0);
  expect(await axe(page, 'talk')).toEqual([]);
  if (screenshots) await page.screenshot({ path: path.join(screenshots, 'talk.png') });
  expect(violations).toEqual([]);
  await page.close();
});
