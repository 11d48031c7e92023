import type { Browser, Page } from 'playwright-core';
import { applyCallEvent } from '../../src/modules/calls/call.lifecycle';
import type { Turn } from '../../src/modules/calls/call.conversation';
import { startTestApp, type TestApp } from '../helpers/app';
import { axe, buildConsole, launch, runInBrowser, screenshot, signIn } from '../helpers/console-browser';
import { dialerKit, type DialerSetup } from '../helpers/dialer';

/**
 * The analytics page (issue 58), the console's first page, in Debian's chromium: after a
 * simulated dialer run with known outcomes and calls of a second assistant settled through the
 * state machine at chosen days, the figures the page shows (read from its tables) are the
 * API's aggregates and a SQL count over the same calls, for each period (today, 7 days, 30
 * days, a custom range) and with a campaign filter and an assistant filter, the averages (the
 * average duration, the cost per answered call) as SQL computes them too; its funnels and
 * latency tables are the API's, and the funnels' and latency's counts SQL's; the charts draw,
 * their lines told apart by dash and marker, not colour alone; a backwards range gets the
 * API's message; axe-core finds nothing serious.
 */
let app: TestApp;
let browser: Browser | undefined;
let me: DialerSetup;
let second: number;
let today: number;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const kit = dialerKit(() => app);

beforeAll(async () => {
  buildConsole();
  app = await startTestApp({ maxParallelCalls: 10, dialerTimeScale: 600 }, { workers: true });
  // The dialer, now: a person twice, busy, no answer, voicemail (no retries).
  me = await kit.setup({ max_retries: 0, retry_on_voicemail: false });
  for (const outcome of ['human', 'human', 'busy', 'no-answer', 'machine'] as const) await kit.addLead(me, kit.phone(outcome));
  await kit.setStatus(me, 'start');
  await kit.finished(me, 60_000);
  // A second assistant's calls, on days before: in 7 days, in 30 days only, in neither.
  second = await app.outboundAssistant(me.account, { assistant_name: 'Segunda' });
  today = Math.floor(Date.now() / DAY) * DAY;
  await craft(today - 3 * DAY + 10 * HOUR, { duration: 125, latency: [400, 610, 900] });
  await craft(today - 3 * DAY + 11 * HOUR, { answeredBy: 'machine', duration: 20 });
  await craft(today - 10 * DAY, { status: 'no-answer' });
  await craft(today - 20 * DAY + 5 * HOUR, { duration: 61, latency: [700, 2600], transfer: true });
  await craft(today - 45 * DAY + HOUR, { status: 'busy' });
  await craft(today - 44 * DAY + 2 * HOUR, { duration: 59 });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

const latencyTurns = (values: number[]): Turn[] =>
  values.map((ms, i) => ({ speaker: 'assistant', text: `Resposta ${i}`, latency: { stt_final_ms: null, llm_first_token_ms: null, tts_first_byte_ms: null, first_audio_ms: ms } }));

/** A call of `second` started at `at`, taken to its end (and settled) through the state machine. */
async function craft(at: number, outcome: { answeredBy?: 'human' | 'machine'; status?: 'busy' | 'no-answer'; duration?: number; latency?: number[]; transfer?: boolean }) {
  const [{ id }] = await app.sql(
    `insert into calls (account_id, assistant_id, assistant_name, type, status, assistant_phone_number, client_phone_number, provider, deadline_at, created_at)
     values ($1, $2, 'Segunda', 'outbound', 'initiated', '+5511955000000', $3, 'simulator', now() + interval '1 hour', $4) returning id`,
    [me.account.accountId, second, kit.phone('human'), new Date(at).toISOString()],
  );
  const event = (e: Parameters<typeof applyCallEvent>[3]) => app.orm.em.fork().transactional((tx) => applyCallEvent(tx, app.runtime.lifecycle, id, e));
  if (outcome.status) return event({ type: 'not-answered', status: outcome.status });
  await event({ type: 'answered', answeredBy: outcome.answeredBy ?? 'human' });
  if (outcome.transfer) await app.sql(`update calls set transferred_to = '+5511955000999', transfer_duration = 70 where id = $1`, [id]);
  await event({ type: 'ended', status: 'completed', duration: outcome.duration ?? 65, turns: latencyTurns(outcome.latency ?? []) });
}

// The page's formats, written out again: the expectation, not a copy of the code.
const money = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 4 });
const count = new Intl.NumberFormat('en-US');
const FORMAT: Record<string, (value: any) => string> = {
  calls: (v) => count.format(v),
  minutes: (v) => count.format(v),
  transfers: (v) => count.format(v),
  answer_rate: (v) => (v === null ? '—' : `${(v * 100).toFixed(2)}%`),
  voicemail_rate: (v) => (v === null ? '—' : `${(v * 100).toFixed(2)}%`),
  no_answer_rate: (v) => (v === null ? '—' : `${(v * 100).toFixed(2)}%`),
  average_duration: (v) => (v === null ? '—' : `${v.toFixed(1)} s`),
  cost: (v) => money.format(v),
  cost_per_answered_call: (v) => (v === null ? '—' : money.format(v)),
};
const FIGURES = Object.keys(FORMAT);

const QUERY = `query($from: DateTime!, $to: DateTime!, $bucket: String, $campaign_id: Int, $assistant_id: Int) {
  analytics(from: $from, to: $to, bucket: $bucket, campaign_id: $campaign_id, assistant_id: $assistant_id) {
    buckets { start ${FIGURES.join(' ')} }
    totals { answered ${FIGURES.join(' ')} }
    funnels { campaign_id campaign_name leads dialled answered completed transferred }
    latency { assistant_id assistant_name calls turns p50_ms p95_ms }
  } }`;

interface Asked {
  from: string;
  to: string;
  bucket: 'hour' | 'day';
  campaign_id: number | null;
  assistant_id: number | null;
}

/** The figures as SQL counts them over the calls themselves (README, "Analytics"), by bucket. */
async function counted(asked: Asked) {
  const rows = await app.sql(
    `select date_trunc($4, created_at, 'UTC') as start, count(*)::int as calls,
        coalesce(sum(case when answered_at is not null and duration > 0 then ceil(duration / 60.0) else 0 end), 0)::int as minutes,
        count(*) filter (where answered_at is not null and answered_by not in ('machine', 'unavailable'))::int as answered,
        count(*) filter (where answered_by = 'machine')::int as voicemail,
        count(*) filter (where status = 'no-answer')::int as no_answer,
        coalesce(sum(total_cost), 0)::numeric as cost,
        count(*) filter (where transferred_to is not null)::int as transfers
       from calls where account_id = $1 and finished_at is not null and created_at >= $2 and created_at < $3
        and ($5::int is null or campaign_id = $5) and ($6::int is null or assistant_id = $6)
      group by 1 order by 1`,
    [me.account.accountId, asked.from, asked.to, asked.bucket, asked.campaign_id, asked.assistant_id],
  );
  return rows.map((row: any) => ({
    start: new Date(row.start).toISOString(),
    calls: row.calls,
    minutes: row.minutes,
    answer_rate: Math.round((row.answered / row.calls) * 10_000) / 10_000,
    voicemail_rate: Math.round((row.voicemail / row.calls) * 10_000) / 10_000,
    no_answer_rate: Math.round((row.no_answer / row.calls) * 10_000) / 10_000,
    cost: Number(row.cost),
    transfers: row.transfers,
  }));
}

/** The figures not given as no call was answered (or none connected): what the page shows for an empty bucket. */
const NO_AVERAGES = { average_duration: '—', cost_per_answered_call: '—' };

/**
 * The averages as SQL computes them over the calls themselves, formatted as the page shows them,
 * by bucket start and "total" for the whole period: the seconds over the calls that connected
 * (a machine's too), the cost over the calls a person answered (or nobody could tell: no
 * detection), rounded half up to 4 decimals (analytics.rollup.ts, README "Analytics").
 */
async function averaged(asked: Asked): Promise<Record<string, typeof NO_AVERAGES>> {
  const rows = await app.sql(
    `select date_trunc($4, created_at, 'UTC') as start,
        round(sum(duration)::numeric / nullif(count(*) filter (where answered_at is not null), 0), 1)::float8 as average_duration,
        round(sum(total_cost) / nullif(count(*) filter (where answered_at is not null and coalesce(answered_by, 'unknown') not in ('machine', 'unavailable')), 0), 4)::text as cost_per_answered_call
       from calls where account_id = $1 and finished_at is not null and created_at >= $2 and created_at < $3
        and ($5::int is null or campaign_id = $5) and ($6::int is null or assistant_id = $6)
      group by grouping sets ((1), ())`,
    [me.account.accountId, asked.from, asked.to, asked.bucket, asked.campaign_id, asked.assistant_id],
  );
  return Object.fromEntries(
    rows.map((row: any) => [
      row.start === null ? 'total' : new Date(row.start).toISOString(),
      { average_duration: FORMAT.average_duration(row.average_duration), cost_per_answered_call: FORMAT.cost_per_answered_call(row.cost_per_answered_call) },
    ]),
  );
}

/**
 * Each campaign's funnel, in leads, as SQL counts it over the calls of the period and filters:
 * its leads now; the leads first called (attempt 1), first answered by a person, completed by
 * their last attempt, transferred, in the period.
 */
function funnelled(asked: Asked) {
  return app.sql(
    `select c.campaign_id, k.name as campaign_name,
        (select count(*) from leads l where l.campaign_id = c.campaign_id)::int as leads,
        count(distinct c.lead_id) filter (where c.attempt = 1)::int as dialled,
        count(distinct c.lead_id) filter (where c.id = (select min(p.id) from calls p where p.lead_id = c.lead_id
          and p.answered_at is not null and coalesce(p.answered_by, 'unknown') not in ('machine', 'unavailable')))::int as answered,
        count(distinct c.lead_id) filter (where l.status = 'completed' and l.attempts = c.attempt)::int as completed,
        count(distinct c.lead_id) filter (where c.transferred_to is not null)::int as transferred
       from calls c join campaigns k on k.id = c.campaign_id left join leads l on l.id = c.lead_id
      where c.account_id = $1 and c.finished_at is not null and c.created_at >= $2 and c.created_at < $3
        and ($4::int is null or c.campaign_id = $4) and ($5::int is null or c.assistant_id = $5)
      group by 1, 2 order by 1`,
    [me.account.accountId, asked.from, asked.to, asked.campaign_id, asked.assistant_id],
  );
}

/** Each assistant's calls with a measured turn and its measured turns, as SQL counts them. */
function measured(asked: Asked) {
  return app.sql(
    `select c.assistant_id, count(distinct c.id)::int as calls, count(*)::int as turns
       from calls c join call_turns t on t.call_id = c.id
      where c.account_id = $1 and c.finished_at is not null and c.created_at >= $2 and c.created_at < $3
        and ($4::int is null or c.campaign_id = $4) and ($5::int is null or c.assistant_id = $5)
        and t.timing -> 'latency' ->> 'first_audio_ms' is not null
      group by 1 order by 1`,
    [me.account.accountId, asked.from, asked.to, asked.campaign_id, asked.assistant_id],
  );
}

/** What the page shows: each table's cells by bucket start ("total" for the period's row), the totals tiles, funnels, latency. */
async function readPage(page: Page) {
  return page.evaluate(() => {
    const doc = (globalThis as any).document;
    const buckets: Record<string, Record<string, string>> = {};
    for (const row of doc.querySelectorAll('.analytics-figure tr[data-start]')) {
      const cells = (buckets[row.dataset.start] ??= {});
      for (const cell of row.querySelectorAll('td[data-figure]')) cells[cell.dataset.figure] = cell.textContent.trim();
    }
    const totals: Record<string, string> = {};
    for (const tile of doc.querySelectorAll('.analytics-totals [data-figure]')) totals[tile.dataset.figure] = tile.querySelector('dd').textContent.trim();
    const rows = (selector: string, key: string) =>
      [...doc.querySelectorAll(selector)].map((row: any) => ({
        [key]: Number(row.dataset[key]),
        name: row.querySelector('th').textContent.trim(),
        ...Object.fromEntries([...row.querySelectorAll('td[data-figure]')].map((cell: any) => [cell.dataset.figure, cell.textContent.trim()])),
      }));
    return { buckets, totals, funnels: rows('[data-table="funnels"] tr[data-campaign]', 'campaign'), latency: rows('[data-table="latency"] tr[data-assistant]', 'assistant') };
  });
}

/** Waits until the page shows the figures of a query that `matches`, and answers that query's variables. */
async function shown(page: Page, matches: (asked: Asked) => boolean): Promise<Asked> {
  for (const deadline = Date.now() + 15_000; ; ) {
    const query = await page.locator('.analytics-figures').getAttribute('data-query', { timeout: 15_000 });
    if (query && matches(JSON.parse(query))) return JSON.parse(query);
    if (Date.now() > deadline) throw new Error(`the page still shows ${query}`);
    await page.waitForTimeout(50);
  }
}

/** The page against the API and SQL for the query it shows: every bucket, the period, funnels and latency. */
async function compare(page: Page, asked: Asked, name: string) {
  const res = await app.graphql(QUERY, { ...asked }, me.account.token);
  expect([name, res.body.errors]).toEqual([name, undefined]);
  const api = res.body.data.analytics;
  const got = await readPage(page);
  const expected: Record<string, Record<string, string>> = { total: Object.fromEntries(FIGURES.map((f) => [f, FORMAT[f](api.totals[f])])) };
  for (const bucket of api.buckets) expected[new Date(bucket.start).toISOString()] = Object.fromEntries(FIGURES.map((f) => [f, FORMAT[f](bucket[f])]));
  expect([name, got.buckets]).toEqual([name, expected]);
  expect([name, got.totals]).toEqual([name, expected.total]);
  // The API's figures are a SQL count over the same calls.
  const sql = await counted(asked);
  const nonEmpty = api.buckets.filter((b: any) => b.calls > 0).map((b: any) => ({ start: new Date(b.start).toISOString(), ...Object.fromEntries(Object.keys(sql[0] ?? {}).filter((k) => k !== 'start').map((k) => [k, b[k]])) }));
  expect([name, nonEmpty]).toEqual([name, sql]);
  expect([name, api.totals.calls]).toEqual([name, sql.reduce((sum: number, b: any) => sum + b.calls, 0)]);
  // The averages shown, in each bucket, the period's row and its tiles, are SQL's over the same calls.
  const averages = await averaged(asked);
  const shownAverages = (cells: Record<string, string>) => ({ average_duration: cells.average_duration, cost_per_answered_call: cells.cost_per_answered_call });
  for (const [start, cells] of Object.entries(got.buckets)) expect([name, start, shownAverages(cells)]).toEqual([name, start, averages[start] ?? NO_AVERAGES]);
  expect([name, shownAverages(got.totals)]).toEqual([name, averages.total]);
  expect([name, api.funnels]).toEqual([name, await funnelled(asked)]);
  expect([name, api.latency.map((l: any) => ({ assistant_id: l.assistant_id, calls: l.calls, turns: l.turns }))]).toEqual([name, await measured(asked)]);
  expect(got.funnels).toEqual(
    api.funnels.map((f: any) => ({
      campaign: f.campaign_id,
      name: f.campaign_name,
      ...Object.fromEntries(['leads', 'dialled', 'answered', 'completed', 'transferred'].map((k) => [k, count.format(f[k])])),
    })),
  );
  expect(got.latency).toEqual(
    api.latency.map((l: any) => ({
      assistant: l.assistant_id,
      name: l.assistant_name,
      calls: count.format(l.calls),
      turns: count.format(l.turns),
      p50_ms: `${count.format(l.p50_ms)} ms`,
      p95_ms: `${count.format(l.p95_ms)} ms`,
    })),
  );
  return { api, got };
}

/**
 * Run in the page before its scripts: records, for each canvas, what it strokes (colour, line
 * dash, fill), so that a test sees how uPlot drew each line (stroked with its dash) and its
 * markers (stroked with no dash, filled with their fill).
 */
function recordStrokes() {
  const drawn = new WeakMap<object, Set<string>>();
  (globalThis as any).__strokes = drawn;
  const context = (globalThis as any).CanvasRenderingContext2D.prototype;
  const stroke = context.stroke;
  context.stroke = function (this: any, ...args: unknown[]) {
    if (!drawn.has(this.canvas)) drawn.set(this.canvas, new Set());
    drawn.get(this.canvas)!.add(`${this.strokeStyle}|${this.getLineDash().join(' ')}|${this.fillStyle}`);
    return stroke.apply(this, args);
  };
}

/** Each chart's lines as its legend shows them and whether its canvas drew them so: colour, dash, marker. */
function chartLines(page: Page) {
  return page.locator('.analytics-figure').evaluateAll((figures) =>
    figures.map((figure: any) => {
      const drawn: string[] = [...((globalThis as any).__strokes.get(figure.querySelector('.uplot canvas')) ?? [])];
      return [...figure.querySelectorAll('.analytics-legend li')].map((item: any) => {
        const color = item.querySelector('line').getAttribute('stroke');
        const dash = item.querySelector('line').getAttribute('stroke-dasharray') ?? '';
        const fill = item.querySelector('circle').getAttribute('fill');
        return {
          label: item.textContent,
          look: `${dash || 'solid'}, ${fill === color ? 'filled' : 'hollow'}`,
          line: drawn.some((one) => one.startsWith(`${color}|${dash}|`)),
          markers: drawn.includes(`${color}||${fill}`),
        };
      });
    }),
  );
}

const iso = (ms: number) => new Date(ms).toISOString();
const day = (ms: number) => iso(ms).slice(0, 10);

runInBrowser(
  'opens on the analytics page after sign-in, and its figures are the API’s and SQL’s for each period and filter',
  async () => {
    browser ??= await launch();
    const page = await (await browser.newContext({ viewport: { width: 1360, height: 900 } })).newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.addInitScript(recordStrokes);
    await signIn(page, app.url, me.account.token);
    expect(await page.locator('main h1').innerText()).toBe('Analytics');
    expect(await page.getByRole('link', { name: 'Analytics' }).getAttribute('aria-current')).toBe('page');

    // 7 days by default: today's dialer calls and the second assistant's of 3 days ago.
    let asked = await shown(page, (q) => q.bucket === 'day' && q.from === iso(today - 6 * DAY));
    expect(Date.parse(asked.to) - Date.now()).toBeLessThanOrEqual(HOUR);
    expect(Date.parse(asked.to)).toBeGreaterThan(Date.now() - 60_000);
    let { api } = await compare(page, asked, '7 days');
    expect(api.totals).toMatchObject({ calls: 7, answered: 3, voicemail_rate: 0.2857 });
    expect(api.buckets).toHaveLength(7);
    expect(api.latency.map((l: any) => [l.assistant_name, l.turns])).toEqual([['Segunda', 3]]);
    expect(api.funnels.map((f: any) => [f.campaign_id, f.leads, f.dialled, f.answered])).toEqual([[me.campaign, 5, 5, 2]]);
    // The charts draw (uPlot, loaded on demand), each with its legend; the tables are there for screen readers.
    await page.waitForSelector('.analytics-figure .uplot canvas');
    expect(await page.locator('.analytics-figure .uplot').count()).toBe(4);
    expect(await page.locator('.analytics-legend li').allInnerTexts()).toContain('Minutes (right axis)');
    expect(await page.locator('.analytics-figure table caption').allInnerTexts()).toEqual(
      ['Calls and minutes', 'Outcomes', 'Cost', 'Duration and transfers'].map((title) => `${title}, by day (UTC)`),
    );
    // Readable without colour: in each chart no two lines share both their dash and their
    // marker, the legend shows each line's, and the canvas draws each line and its markers so.
    await page.waitForFunction(() => [...(globalThis as any).document.querySelectorAll('.analytics-figure .uplot canvas')].every((canvas) => (globalThis as any).__strokes.get(canvas)?.size));
    for (const lines of await chartLines(page)) {
      expect(lines.length).toBeGreaterThan(1);
      expect(new Set(lines.map((line) => line.look)).size).toBe(lines.length);
      for (const line of lines) expect(line).toEqual({ label: line.label, look: line.look, line: true, markers: true });
    }
    const problems = await axe(page, 'analytics');
    await screenshot(page, 'analytics');
    // "Table" shows a chart's figures as a table in its place.
    const toggle = page.locator('.analytics-figure', { hasText: 'Outcomes' }).getByRole('button', { name: 'Table' });
    await toggle.click();
    expect(await toggle.getAttribute('aria-pressed')).toBe('true');
    const table = page.locator('.analytics-figure', { hasText: 'Outcomes' }).locator('table');
    expect(await table.isVisible()).toBe(true);
    expect(await page.locator('.analytics-figure', { hasText: 'Outcomes' }).locator('.uplot').count()).toBe(0);
    expect(await table.locator('tfoot td[data-figure="voicemail_rate"]').innerText()).toBe('28.57%');
    problems.push(...(await axe(page, 'analytics-table')));

    // Today, by hour: the dialer's calls only.
    await page.getByLabel('Today').check();
    asked = await shown(page, (q) => q.bucket === 'hour' && q.from === iso(today));
    ({ api } = await compare(page, asked, 'today'));
    expect(api.totals).toMatchObject({ calls: 5, answered: 2, answer_rate: 0.4, no_answer_rate: 0.2 });

    // 30 days: the transfer of 20 days ago and the no-answer of 10 days ago join them.
    await page.getByLabel('30 days').check();
    asked = await shown(page, (q) => q.bucket === 'day' && q.from === iso(today - 29 * DAY) && q.campaign_id === null);
    ({ api } = await compare(page, asked, '30 days'));
    expect(api.totals).toMatchObject({ calls: 9, transfers: 1 });
    expect(api.latency.map((l: any) => [l.assistant_name, l.calls, l.turns])).toEqual([['Segunda', 2, 5]]);

    // 30 days of the campaign: the dialer's calls.
    await page.getByLabel('Campaign', { exact: true }).selectOption(String(me.campaign));
    asked = await shown(page, (q) => q.from === iso(today - 29 * DAY) && q.campaign_id === me.campaign);
    ({ api } = await compare(page, asked, '30 days, campaign'));
    expect(api.totals).toMatchObject({ calls: 5, transfers: 0 });

    // 30 days of the second assistant (any campaign): its four calls.
    await page.getByLabel('Campaign', { exact: true }).selectOption('');
    await page.getByLabel('Assistant', { exact: true }).selectOption(String(second));
    asked = await shown(page, (q) => q.from === iso(today - 29 * DAY) && q.campaign_id === null && q.assistant_id === second);
    ({ api } = await compare(page, asked, '30 days, second assistant'));
    expect(api.totals).toMatchObject({ calls: 4, answered: 2, transfers: 1 });
    expect(api.funnels).toEqual([]);
    expect(await page.locator('.analytics-section', { hasText: 'Campaign funnels' }).locator('.empty').innerText()).toBe('No campaign calls in this period.');

    // A custom range of whole UTC days, both included: the calls of 45 and 44 days ago.
    await page.getByLabel('Assistant', { exact: true }).selectOption('');
    await page.getByLabel('Custom range').check();
    await page.getByLabel('From').fill(day(today - 46 * DAY));
    await page.getByLabel('To', { exact: true }).fill(day(today - 44 * DAY));
    asked = await shown(page, (q) => q.from === iso(today - 46 * DAY) && q.to === iso(today - 43 * DAY) && q.assistant_id === null);
    ({ api } = await compare(page, asked, 'custom range'));
    expect(api.totals).toMatchObject({ calls: 2, answered: 1 });
    expect(api.buckets).toHaveLength(3);
    problems.push(...(await axe(page, 'analytics-custom')));

    // A range that runs backwards: the API's message, no figures.
    await page.getByLabel('From').fill(day(today - 40 * DAY));
    await page.locator('.notice-error').waitFor();
    expect(await page.locator('.notice-error').innerText()).toBe('The period must end after it starts.');
    expect(await page.locator('.analytics-figures').count()).toBe(0);

    // The overview is still a page of its own.
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.waitForSelector('[data-testid="balance"]');
    expect(problems).toEqual([]);
    expect(pageErrors).toEqual([]);
  },
  240_000,
);
