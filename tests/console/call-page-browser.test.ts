import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';
import { axe, buildConsole, launch, runInBrowser, screenshot, signIn } from '../helpers/console-browser';
import { setTurns } from '../helpers/turns';

/**
 * The console's call page and balance history on what the API answers since issue 45, in
 * Debian's chromium against a server on the simulator with workers: a simulated call with a
 * recording shows each turn at its `at_ms`, a click on a turn seeks the player there (the
 * recording answers Range requests) and highlights it, and the call's status changes are
 * listed in order; a call recorded before turns had times keeps its estimated times, marked,
 * and shows a pipeline answer's latency and knowledge-base searches; the overview pages through the whole ledger
 * (me.ledgerFeed) with "Show older changes", and a call that ends meanwhile joins on top. axe-core on each; screenshots go to
 * test-results/console/.
 */
let app: TestApp;
let browser: Browser | undefined;
let me: TestAccount;
let timedCall: number;
let untimedCall: number;
let webCall: number;
let transferredCall: number;
let transferringCall: number;
let assistant: number;
const SMS = 22;

beforeAll(async () => {
  buildConsole();
  app = await startTestApp({}, { workers: true });
  me = await app.account({ balance: '100' });
  assistant = await app.outboundAssistant(me, { record_call: true });
  const started = await app.request('POST', '/api/user/make_call', { token: me.token, body: { phone_number: '+5511993004444', assistant_id: assistant } });
  expect(started.status).toBe(200);
  timedCall = (await app.finishedCall(started.body.call_id, me.token)).id;

  // More balance changes than a slice (15) and than the console's old first screen (20), through the API.
  const from = await app.phoneNumber(me.accountId, '+5511933001000', { sms: true });
  for (let i = 0; i < SMS; i++) {
    const sent = await app.request('POST', '/api/user/sms', { token: me.token, body: { from, to: `+55119876543${String(i).padStart(2, '0')}`, body: `Mensagem ${i + 1}` } });
    expect(sent.status).toBe(200);
  }

  // A call of a pipeline assistant recorded before turns had times: no at_ms, an answer's latency.
  const [row] = await app.sql(
    `insert into calls (account_id, assistant_name, type, status, assistant_phone_number, client_phone_number, provider, deadline_at, duration, transcript)
     values ($1, 'Ana', 'outbound', 'completed', '+5511955000000', '+5511988000001', 'simulator', now(), 12, $2) returning id`,
    [me.accountId, 'Cliente: Oi, quem fala?\nAssistente: Olá! Aqui é a Ana, da Loja Centro.'],
  );
  await setTurns(app.sql, row.id, [
    { speaker: 'customer', text: 'Oi, quem fala?' },
    {
      speaker: 'assistant',
      text: 'Olá! Aqui é a Ana, da Loja Centro.',
      latency: { stt_final_ms: 120, llm_first_token_ms: 380, tts_first_byte_ms: 610, first_audio_ms: 700 },
      retrievals: [{ knowledgebase_id: 1, mode: 'function_call', query: 'nome da loja', chunks: [{ chunk_id: 12, document_id: 3, score: 0.4123 }, { chunk_id: 7, document_id: 2, score: 0.2 }] }],
    },
  ]);
  untimedCall = row.id;
  // Its vendors: the language model retried once, then the speech replaced (as src/voice/live-call.ts records them).
  await app.sql(
    `insert into call_events (call_id, status, detail, created_at) values
       ($1, 'vendor_retried', '{"part": "llm", "vendor": "gpt-4o-mini", "reason": "OpenAI answered HTTP 429"}', now() - interval '5 seconds'),
       ($1, 'vendor_switched', '{"part": "tts", "from": "elevenlabs", "to": "cartesia", "reason": "ElevenLabs closed the socket"}', now())`,
    [row.id],
  );
  // A web call (Talk, /talk), ended by the caller: web calls are never recorded.
  const [web] = await app.sql(
    `insert into calls (account_id, assistant_name, type, status, assistant_phone_number, client_phone_number, provider, deadline_at, duration, transcript, answered_by, hangup_reason)
     values ($1, 'Ana', 'web', 'ended_by_customer', '', 'web', 'simulator', now(), 8, $2, 'human', 'customer') returning id`,
    [me.accountId, 'Assistente: Olá!\nSistema: O cliente encerrou a chamada.'],
  );
  webCall = web.id;
  // Two calls the assistant transferred (issue 52), as src/voice's transfer records them: one
  // whose dialled leg ended (how, how long), one whose leg is still going.
  const [transferred] = await app.sql(
    `insert into calls (account_id, assistant_name, type, status, assistant_phone_number, client_phone_number, provider, deadline_at, duration, answered_by, hangup_reason, transferred_to, transfer_status, transfer_duration)
     values ($1, 'Ana', 'outbound', 'completed', '+5511955000000', '+5511988000002', 'twilio', now(), 40, 'human', 'transferred', '+551130030000', 'completed', 95) returning id`,
    [me.accountId],
  );
  transferredCall = transferred.id;
  const [transferring] = await app.sql(
    `insert into calls (account_id, assistant_name, type, status, assistant_phone_number, client_phone_number, provider, deadline_at, duration, answered_by, transferred_to)
     values ($1, 'Ana', 'outbound', 'in-progress', '+5511955000000', '+5511988000003', 'twilio', now() + interval '10 minutes', 30, 'human', '+551130030001') returning id`,
    [me.accountId],
  );
  transferringCall = transferring.id;
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

/** The console's clock for a turn (m:ss), as the page writes it. */
const clock = (ms: number) => {
  const whole = Math.round(ms / 1000);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
};

async function openPage(): Promise<{ page: Page; problems: string[]; pageErrors: string[] }> {
  browser ??= await launch();
  const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await signIn(page, app.url, me.token);
  return { page, problems: [], pageErrors };
}

runInBrowser(
  "plays a call from a turn's time, highlights the turn heard and lists the call's status changes",
  async () => {
    const api = (await app.graphql('query($id: Int!) { call(id: $id) { turns { speaker at_ms duration_ms } events { status } } }', { id: timedCall }, me.token)).body.data.call;
    const third = api.turns[2];
    // A turn that takes time (the simulator's system turns take none), so that it can be heard.
    expect(third.duration_ms).toBeGreaterThan(0);
    expect(third.at_ms).toBeGreaterThan(1000);

    const { page, problems, pageErrors } = await openPage();
    await page.goto(`${app.url}/console/calls/${timedCall}`);
    await page.waitForSelector('.transcript li');
    const turns = page.locator('.transcript li');
    expect(await turns.count()).toBe(api.turns.length);
    // Each turn at the time the API gave it, with no estimate mark and no estimate note.
    const times = await page.locator('.transcript .turn-time').allInnerTexts();
    expect(times).toEqual(api.turns.map((turn: any) => clock(turn.at_ms)));
    expect(await page.locator('.conversation').innerText()).not.toContain('estimated');

    // The player knows the recording's length before the click; the test stops it where it lands.
    await page.waitForFunction(() => (globalThis as any).document.querySelector('audio').readyState >= 1, undefined, { timeout: 15_000 });
    await page.evaluate(() => {
      const audio = (globalThis as any).document.querySelector('audio');
      audio.addEventListener('seeked', () => {
        audio.pause();
        (globalThis as any).__landed = audio.currentTime;
      });
    });
    await turns.nth(2).locator('.turn-time').click();
    const landed = Number(await (await page.waitForFunction(() => (globalThis as any).__landed, undefined, { timeout: 10_000 })).jsonValue());
    expect(Math.abs(landed - third.at_ms / 1000)).toBeLessThan(0.5);
    await page.waitForSelector('.transcript li:nth-child(3).playing', { timeout: 5_000 });
    expect(await page.locator('.transcript li.playing').count()).toBe(1);
    expect(await turns.nth(2).getAttribute('aria-current')).toBe('true');
    // Still there once the player has settled (a timeupdate after the pause).
    await page.waitForTimeout(500);
    expect(await turns.nth(2).getAttribute('aria-current')).toBe('true');

    // The status changes, oldest first, as the API recorded them.
    const events = await page.locator('.events li').evaluateAll((items) => items.map((item) => item.getAttribute('data-event')));
    expect(events).toEqual(['initiated', 'ringing', 'in-progress', 'completed']);
    expect(events).toEqual(api.events.map((event: any) => event.status));
    expect(await page.locator('.events li').nth(1).innerText()).toContain('ringing');

    await screenshot(page, 'call-timed');
    problems.push(...(await axe(page, 'call-timed')));
    expect(problems).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  },
  120_000,
);

runInBrowser(
  'keeps estimated times, marked, for a call recorded before turns had times, shows an answer’s latency, and says which vendors were retried or replaced',
  async () => {
    const { page, problems, pageErrors } = await openPage();
    await page.goto(`${app.url}/console/calls/${untimedCall}`);
    await page.waitForSelector('.transcript li');
    const times = await page.locator('.transcript .turn-time').allInnerTexts();
    expect(times).toHaveLength(2);
    for (const time of times) expect(time.startsWith('≈')).toBe(true);
    expect(await page.locator('.conversation').innerText()).toContain('estimated');
    const answer = page.locator('.transcript li').nth(1);
    expect(await answer.locator('.turn-latency').innerText()).toBe('Answered in 700 ms · speech-to-text 120 ms · first token 380 ms · first audio from TTS 610 ms');
    expect(await page.locator('.transcript li').nth(0).locator('.turn-latency').count()).toBe(0);
    // The knowledge-base search it was answered with.
    expect(await answer.locator('.turn-retrieval').innerText()).toBe('Knowledge base, searched by the model: “nome da loja” → chunk 12 of document 3 (0.41), chunk 7 of document 2 (0.20)');
    expect(await page.locator('.transcript li').nth(0).locator('.turn-retrieval').count()).toBe(0);
    // Each vendor event in words, after its status.
    expect(await page.locator('.events li').evaluateAll((items) => items.map((item) => item.getAttribute('data-event')))).toEqual(['vendor_retried', 'vendor_switched']);
    expect(await page.locator('.events .event-detail').allInnerTexts()).toEqual([
      'Language model gpt-4o-mini retried: OpenAI answered HTTP 429',
      'Text-to-speech: elevenlabs → cartesia: ElevenLabs closed the socket',
    ]);
    await screenshot(page, 'call-untimed');
    problems.push(...(await axe(page, 'call-untimed')));
    expect(problems).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  },
  60_000,
);

runInBrowser(
  'pages through the whole balance history, a slice at a time, until there is nothing older',
  async () => {
    const ledger: { id: string }[] = await app.sql('select e.id::text as id from ledger_entries e where e.account_id = $1 order by e.id desc', [me.accountId]);
    expect(ledger.length).toBeGreaterThan(SMS);

    const { page, problems, pageErrors } = await openPage();
    // The console opens on the analytics page; the balance history is the overview's.
    await page.getByRole('link', { name: 'Overview' }).click();
    const rows = page.locator('tr[data-entry]');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(15);
    const older = page.getByRole('button', { name: 'Show older changes' });
    let clicks = 0;
    while ((await older.count()) > 0) {
      const before = await rows.count();
      await older.click();
      clicks++;
      await page.waitForFunction((n) => (globalThis as any).document.querySelectorAll('tr[data-entry]').length > n, before, { timeout: 10_000 });
      await page.waitForSelector('button[aria-busy="true"]', { state: 'detached' });
    }
    expect(clicks).toBe(Math.ceil(ledger.length / 15) - 1);
    // Every entry once, newest first, as the ledger holds them.
    expect(await rows.evaluateAll((items) => items.map((item) => item.getAttribute('data-entry')))).toEqual(ledger.map((entry) => entry.id));
    expect(await page.locator('#main').innerText()).toContain(`That is the whole history (${ledger.length} changes).`);

    await screenshot(page, 'overview-ledger');
    problems.push(...(await axe(page, 'overview-ledger')));

    // A call ends while the whole history is open: its changes join on top, nothing lost or twice.
    const started = await app.request('POST', '/api/user/make_call', { token: me.token, body: { phone_number: '+5511993004445', assistant_id: assistant } });
    expect(started.status).toBe(200);
    await app.finishedCall(started.body.call_id, me.token);
    const after: { id: string }[] = await app.sql('select e.id::text as id from ledger_entries e where e.account_id = $1 order by e.id desc', [me.accountId]);
    expect(after.length).toBeGreaterThan(ledger.length);
    await page.waitForFunction((n) => (globalThis as any).document.querySelectorAll('tr[data-entry]').length === n, after.length, { timeout: 10_000 });
    expect(await rows.evaluateAll((items) => items.map((item) => item.getAttribute('data-entry')))).toEqual(after.map((entry) => entry.id));
    expect(problems).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  },
  60_000,
);

runInBrowser(
  'says why a web call has no recording, lists who answered and why each call ended, links a ledger entry to its call, and shows the currency',
  async () => {
    const { page, problems, pageErrors } = await openPage();
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.waitForSelector('[data-testid="currency"]');
    // The balance in the account's currency (me.currency).
    const currency = (await app.graphql('{ me { currency } }', {}, me.token)).body.data.me.currency;
    expect(await page.locator('[data-testid="currency"]').innerText()).toBe(currency);
    expect(await page.getByLabel('Balance', { exact: true }).innerText()).toContain(currency);
    // A ledger entry caused by a call links to it (the newest such entry is on the first slice).
    const [{ reference: cause }] = await app.sql("select reference from ledger_entries where account_id = $1 and reference like 'call:%' order by id desc limit 1", [me.accountId]);
    const called = Number(cause.slice('call:'.length));
    const reference = page.locator(`tr[data-entry] a[href="/console/calls/${called}"]`).first();
    await reference.waitFor({ timeout: 10_000 });
    expect(await reference.innerText()).toBe(`Call #${called}`);

    // The calls list: who answered and why vozgate ended the call, as the API has them.
    await page.goto(`${app.url}/console/calls`);
    await page.waitForSelector(`tr[data-call="${webCall}"]`);
    const listed = (await app.graphql('{ calls(per_page: 100) { data { id answered_by hangup_reason } } }', {}, me.token)).body.data.calls.data;
    for (const call of listed) {
      const row = page.locator(`tr[data-call="${call.id}"]`);
      expect(await row.locator('[data-answered-by]').innerText()).toBe(call.answered_by ?? '—');
      expect(await row.locator('[data-hangup-reason]').innerText()).toBe(call.hangup_reason ?? '—');
    }
    expect(await page.locator(`tr[data-call="${webCall}"] [data-hangup-reason]`).innerText()).toBe('customer');
    await screenshot(page, 'calls-reasons');
    problems.push(...(await axe(page, 'calls-reasons')));

    // The web call's page: why there is no recording; the system line and speakers in English.
    await page.goto(`${app.url}/console/calls/${webCall}`);
    await page.waitForSelector('[data-no-recording]');
    expect(await page.locator('[data-no-recording]').innerText()).toBe('No recording: web calls (Talk, /talk) are not recorded.');
    expect(await page.locator('.transcript').innerText()).toContain('The caller hung up.');
    expect(await page.locator('.transcript .turn-speaker').allInnerTexts()).toContain('Assistant');
    expect(await page.locator('#main').innerText()).not.toMatch(/Assistente|Sistema|encerrou/);
    await screenshot(page, 'call-web');
    problems.push(...(await axe(page, 'call-web')));
    expect(problems).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  },
  60_000,
);

runInBrowser(
  'shows where a call was transferred, how its leg ended and how long it lasted, and a leg still going',
  async () => {
    const { page, problems, pageErrors } = await openPage();
    const card = (label: string) => page.locator('.cards article.card').filter({ has: page.locator('h2', { hasText: label }) });
    await page.goto(`${app.url}/console/calls/${transferredCall}`);
    await card('Transferred to').waitFor({ timeout: 10_000 });
    const api = (await app.graphql(`{ call(id: ${transferredCall}) { transferred_to transfer_status transfer_duration hangup_reason } }`, {}, me.token)).body.data.call;
    expect(api).toEqual({ transferred_to: '+551130030000', transfer_status: 'completed', transfer_duration: 95, hangup_reason: 'transferred' });
    expect(await card('Transferred to').locator('.card-value').innerText()).toBe('+551130030000');
    expect(await card('Transferred to').locator('.muted').innerText()).toBe('That leg: completed, 1:35.');
    expect(await card('Answered by').innerText()).toContain('The assistant transferred the call to a person.');
    await screenshot(page, 'call-transferred');
    problems.push(...(await axe(page, 'call-transferred')));

    await page.goto(`${app.url}/console/calls/${transferringCall}`);
    await card('Transferred to').waitFor({ timeout: 10_000 });
    expect(await card('Transferred to').locator('.card-value').innerText()).toBe('+551130030001');
    expect(await card('Transferred to').locator('.muted').innerText()).toBe('That leg has not ended yet.');
    // A call never transferred has no such card.
    await page.goto(`${app.url}/console/calls/${webCall}`);
    await page.waitForSelector('[data-no-recording]');
    expect(await card('Transferred to').count()).toBe(0);
    expect(problems).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  },
  60_000,
);
