import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app';
import { ALL_DAY, dialerKit, sleep, type DialerSetup } from '../helpers/dialer';
import { axe, buildConsole, launch, runInBrowser, screenshot, signIn } from '../helpers/console-browser';

/**
 * "A campaign of 10,000 leads updating live keeps the page responsive": a file of 10,000 leads,
 * over GraphQL's body limit, is imported through the console (so as multipart), then the
 * campaign runs on the simulator (every number busy: short calls, a lead done at its first
 * attempt) while the campaign's page is open, and the page is measured while lead and
 * campaign events stream in: its longest task (PerformanceObserver 'longtask') and how long a
 * click takes to be answered on screen (Event Timing: from the input to the next paint).
 * The bounds are what the page can promise on this shared 2-core machine, with the server,
 * the database, the dialer's workers and chromium on the same cores.
 */
let app: TestApp;
let browser: Browser | undefined;
const kit = dialerKit(() => app);
let s: DialerSetup;

const LEADS = 10_000;
// The page is measured for at least WINDOW_MS and until it has followed MIN_LEAD_EVENTS lead
// events (how fast the simulator's calls end depends on how busy the machine is), for at most
// MAX_WINDOW_MS.
const WINDOW_MS = 12_000;
const MIN_LEAD_EVENTS = 300;
const MAX_WINDOW_MS = 60_000;

beforeAll(async () => {
  buildConsole();
  app = await startTestApp({ maxParallelCalls: 50 }, { workers: true });
  s = await kit.setup({ name: 'Dez mil', max_calls_in_parallel: 50, max_retries: 0 });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

runInBrowser(
  'says on the board and the campaign page when a running campaign is outside its window, and when its calls start again',
  async () => {
    // A window that opens two hours from now, São Paulo time, every day: closed now.
    const zone = 'America/Sao_Paulo';
    const hourThere = Number(new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', hourCycle: 'h23' }).format(new Date()));
    const opens = (hourThere + 2) % 24;
    const hh = (hour: number) => `${String(hour).padStart(2, '0')}:00`;
    const created = await app.request('POST', '/api/user/campaigns', {
      token: s.account.token,
      body: { name: 'Fora do horário', assistant_id: s.assistant, timezone: zone, allowed_days: ALL_DAY.allowed_days, allowed_hours_start_time: hh(opens), allowed_hours_end_time: hh((opens + 1) % 24) },
    });
    expect(created.status).toBe(201);
    const closed = { ...s, campaign: created.body.data.id as number };
    await kit.addLead(closed, kit.phone('human'));
    expect((await kit.setStatus(closed, 'start')).status).toBe(200);
    const api = await app.graphql(`{ campaign(id: ${closed.campaign}) { status window_open next_window_at allowed_days } }`, {}, s.account.token);
    expect(api.body.data.campaign).toMatchObject({ status: 'running', window_open: false });
    // What the page must say: the opening's weekday and time where the campaign calls.
    const at = new Date(`${api.body.data.campaign.next_window_at.replace(' ', 'T')}Z`);
    const weekday = new Intl.DateTimeFormat('en-GB', { timeZone: zone, weekday: 'short' }).format(at);
    const expected = `Closed now, next calls ${weekday} ${hh(opens)} (${zone})`;

    const own = await launch();
    try {
      const page = await own.newPage({ viewport: { width: 1360, height: 900 } });
      const pageErrors: string[] = [];
      page.on('pageerror', (error) => pageErrors.push(error.message));
      await signIn(page, app.url, s.account.token);
      await page.goto(`${app.url}/console/campaigns`);
      const card = page.locator(`[data-campaign="${closed.campaign}"]`);
      await card.locator('[data-window-closed]').waitFor({ timeout: 15_000 });
      expect(await card.locator('[data-window-closed]').innerText()).toBe(expected);
      expect(await card.locator('.campaign-window').innerText()).toContain(`${hh(opens)}–${hh((opens + 1) % 24)}`);
      // A campaign inside its window (all day) says nothing of the kind.
      expect(await page.locator(`[data-campaign="${s.campaign}"] [data-window-closed]`).count()).toBe(0);
      await screenshot(page, 'campaigns-window-closed');
      const problems = await axe(page, 'campaigns-window-closed');
      await page.goto(`${app.url}/console/campaigns/${closed.campaign}`);
      await page.locator('[data-window-closed]').waitFor({ timeout: 15_000 });
      expect(await page.locator('[data-window-closed]').innerText()).toBe(expected);
      expect(await page.locator('.campaign-window').innerText()).toContain('Every day');
      await screenshot(page, 'campaign-window-closed');
      problems.push(...(await axe(page, 'campaign-window-closed')));
      expect(problems).toEqual([]);
      expect(pageErrors).toEqual([]);
    } finally {
      await own.close();
      await kit.setStatus(closed, 'stop');
    }
  },
  120_000,
);

runInBrowser(
  'keeps a campaign of 10,000 leads responsive while its leads change',
  async () => {
    browser = await launch();
    const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    const posted: string[] = [];
    page.on('request', (request) => request.method() === 'POST' && posted.push(`${new URL(request.url()).pathname} ${(request.postData() ?? '').slice(0, 60)}`));
    await signIn(page, app.url, s.account.token);
    await page.goto(`${app.url}/console/campaigns/${s.campaign}`);

    // 10,000 rows with a note each: about 1.2 MB, over /graphql's 1 MB body.
    const note = 'x'.repeat(90);
    const rows = Array.from({ length: LEADS }, (_, i) => `+55${i < 5000 ? 11 : 21}9${5000 + (i % 5000)}0001,Cliente ${i + 1},${note}`);
    const csv = Buffer.from(['phone,customer_name,notes', ...rows].join('\n'));
    expect(csv.length).toBeGreaterThan(1024 * 1024);
    await page.getByRole('button', { name: 'Import CSV' }).click();
    await page.setInputFiles('#import-file', { name: 'dez-mil.csv', mimeType: 'text/csv', buffer: csv });
    await page.waitForSelector('tr[data-column="notes"]');
    await page.getByRole('button', { name: 'Start import', exact: true }).click();
    await page.locator('[data-import-status="done"]').waitFor({ timeout: 120_000 });
    expect(await page.locator('[data-import] [data-count="created"] dd').innerText()).toBe('10,000');
    expect(posted.filter((line) => line.startsWith('/api/user/leads/import'))).toHaveLength(1);
    expect(posted.filter((line) => line.includes('importLeads'))).toEqual([]);
    await page.getByRole('button', { name: 'Close' }).click();
    await page.locator('.pager', { hasText: 'of 10,000' }).waitFor({ timeout: 10_000 });

    // Lead events on the page's socket, counted as they arrive.
    let leadEvents = 0;
    let campaignEvents = 0;
    page.on('websocket', (socket) =>
      socket.on('framereceived', ({ payload }) => {
        const text = String(payload);
        if (text.includes('"leadUpdated"')) leadEvents++;
        if (text.includes('"campaignUpdated"')) campaignEvents++;
      }),
    );
    // The socket was opened before the listener: reload so that its frames are seen.
    await page.reload();
    await page.locator('.pager', { hasText: 'of 10,000' }).waitFor({ timeout: 15_000 });
    await page.evaluate(() => {
      const g = globalThis as any;
      g.__longTasks = [];
      g.__clicks = [];
      new g.PerformanceObserver((list: any) => g.__longTasks.push(...list.getEntries().map((entry: any) => entry.duration))).observe({ type: 'longtask' });
      new g.PerformanceObserver((list: any) =>
        g.__clicks.push(...list.getEntries().filter((entry: any) => entry.name === 'click').map((entry: any) => entry.duration)),
      ).observe({ type: 'event', durationThreshold: 16 });
    });

    // The dialer starts (through the API, so that the page's own click is not what is measured).
    expect((await kit.setStatus(s, 'start')).status).toBe(200);
    const progressBefore = await page.locator('.progress-text').first().innerText();
    const clicks: number[] = [];
    const measuring = Date.now();
    const addLead = page.getByRole('button', { name: 'Add lead' }).first();
    const measured = () => Date.now() - measuring;
    while (measured() < MAX_WINDOW_MS && (measured() < WINDOW_MS || leadEvents <= MIN_LEAD_EVENTS)) {
      await sleep(800);
      // A click answered on screen: the form opens (or closes) and says so.
      const expanded = await addLead.getAttribute('aria-expanded');
      const started = Date.now();
      await addLead.click();
      await page.locator(`button[aria-expanded="${expanded === 'true' ? 'false' : 'true'}"]`, { hasText: 'Add lead' }).waitFor({ timeout: 5_000 });
      clicks.push(Date.now() - started);
    }
    const progressAfter = await page.locator('.progress-text').first().innerText();
    await screenshot(page, 'campaign-10000-live');
    const longTasks: number[] = await page.evaluate(() => (globalThis as any).__longTasks);
    const clickPaints: number[] = await page.evaluate(() => (globalThis as any).__clicks);
    await kit.setStatus(s, 'stop');
    const report = { leadEvents, campaignEvents, longTasks, clickPaints, clicks, progressBefore, progressAfter };
    console.log(JSON.stringify(report));

    // The events streamed while the page was measured, and the page followed them.
    expect(leadEvents).toBeGreaterThan(MIN_LEAD_EVENTS);
    expect(progressAfter).not.toBe(progressBefore);
    // Responsive: no task over 200 ms; each click answered on screen within 300 ms.
    expect(Math.max(0, ...longTasks)).toBeLessThan(200);
    expect(clicks.length).toBeGreaterThan(5);
    expect(Math.max(0, ...clickPaints)).toBeLessThan(300);
    expect(pageErrors).toEqual([]);
  },
  300_000,
);
