import { startTestApp, type TestApp } from '../helpers/app';
import { ALL_DAY, dialerKit, sleep, until, type DialerSetup } from '../helpers/dialer';

/**
 * The campaign dialer against the real database and job queue, driven by the simulator on a
 * fast clock (a call lasts about a tenth of a second; DIALER_TIME_SCALE makes a one-minute
 * retry interval 100 ms). Outcomes by the last four digits of the number: 0001 busy,
 * 0002 no answer, 0004 voicemail, anything else a person who talks.
 */
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ maxParallelCalls: 10, dialerTimeScale: 600 }, { workers: true });
});
afterAll(() => app?.close());

const { phone, setup, addLead, setStatus, getCampaign, finished, leadsOf, callsOf, watchInFlight } = dialerKit(() => app);
type Setup = DialerSetup;

describe('the window', () => {
  it('places no call while the window is closed, and wakes when it opens', async () => {
    // A window that opens two hours from now and lasts an hour (Abidjan keeps UTC all year).
    const opens = new Date(Date.now() + 2 * 3_600_000);
    const hhmm = (date: Date) => date.toISOString().slice(11, 16);
    const s = await setup({ timezone: 'Africa/Abidjan', allowed_hours_start_time: hhmm(opens), allowed_hours_end_time: hhmm(new Date(opens.getTime() + 3_600_000)) });
    await addLead(s, phone('human'));
    expect((await setStatus(s, 'start')).body.data.status).toBe('running');
    const wake = await until(
      'a wake-up at the opening',
      () => app.sql(`select run_at from graphile_worker.jobs where key = $1 and run_at > now() + interval '1 hour'`, [`dialer:${s.campaign}`]),
      (rows) => rows.length === 1,
    );
    expect(Math.abs(new Date(wake[0].run_at).getTime() - opens.getTime())).toBeLessThan(60_000);
    await sleep(300);
    expect(await callsOf(s)).toEqual([]);
    expect((await leadsOf(s))[0]).toMatchObject({ status: 'created', attempts: 0 });
    expect((await getCampaign(s)).status).toBe('running');
  });

  it('completes a campaign started with no lead outside its window (mark_complete_when_no_leads), and keeps one that does not ask to', async () => {
    const opens = new Date(Date.now() + 2 * 3_600_000);
    const hhmm = (date: Date) => date.toISOString().slice(11, 16);
    const closedNow = { timezone: 'Africa/Abidjan', allowed_hours_start_time: hhmm(opens), allowed_hours_end_time: hhmm(new Date(opens.getTime() + 3_600_000)) };
    const empty = await setup(closedNow);
    const waiting = await setup({ ...closedNow, mark_complete_when_no_leads: false });
    expect((await setStatus(empty, 'start')).body.data).toMatchObject({ status: 'running', window_open: false });
    expect((await setStatus(waiting, 'start')).body.data.status).toBe('running');
    await finished(empty);
    await sleep(300);
    expect((await getCampaign(waiting)).status).toBe('running');
  });
});

describe('pacing', () => {
  it('calls 24 leads at max_calls_in_parallel 3: never more than 3 in flight, each lead once, caller ids in rotation', async () => {
    const s = await setup({ max_calls_in_parallel: 3 });
    const second = await app.phoneNumber(s.account.accountId, '+5511955777001');
    const expired = await app.phoneNumber(s.account.accountId, '+5511955777002', { expiresAt: '2020-01-31' });
    const [{ phone_number_id: first }] = await app.sql('select phone_number_id from assistants where id = $1', [s.assistant]);
    await app.request('PUT', `/api/user/campaigns/${s.campaign}`, { token: s.account.token, body: { phone_number_ids: [first, expired, second] } });
    for (let i = 0; i < 24; i++) await addLead(s, phone('human'));

    const stop = watchInFlight({ campaign: s.campaign });
    await setStatus(s, 'start');
    const campaign = await finished(s);
    const max = await stop();
    expect(max).toBeLessThanOrEqual(3);
    expect(max).toBeGreaterThanOrEqual(2);

    const leads = await leadsOf(s);
    expect(leads.every((lead) => lead.status === 'completed' && lead.attempts === 1)).toBe(true);
    const calls = await callsOf(s);
    expect(calls).toHaveLength(24);
    expect(new Set(calls.map((call) => call.lead_id)).size).toBe(24);
    expect(calls.every((call) => call.attempt === 1)).toBe(true);
    // The expired number is passed over; the other two take turns.
    const [{ number: firstNumber }] = await app.sql('select number from phone_numbers where id = $1', [first]);
    const callerIds = calls.map((call) => call.assistant_phone_number);
    expect(callerIds.filter((number) => number === firstNumber)).toHaveLength(12);
    expect(callerIds.filter((number) => number === '+5511955777001')).toHaveLength(12);
    expect(campaign.stats).toMatchObject({ leads: { completed: 24, created: 0 }, calls_in_progress: 0, attempts: 24 });
    expect(campaign.stats.total_cost).toBeGreaterThan(0);
  });

  it('keeps the account at PLAN_MAX_PARALLEL_CALLS across its campaigns', async () => {
    const s = await setup({ max_calls_in_parallel: 8 });
    const other = await app.request('POST', '/api/user/campaigns', {
      token: s.account.token,
      body: { name: 'Outra', assistant_id: s.assistant, max_calls_in_parallel: 8, retry_interval: 1, ...ALL_DAY },
    });
    const t: Setup = { ...s, campaign: other.body.data.id };
    for (let i = 0; i < 16; i++) {
      await addLead(s, phone('human'));
      await addLead(t, phone('human'));
    }
    const stop = watchInFlight({ account: s.account.accountId });
    await Promise.all([setStatus(s, 'start'), setStatus(t, 'start')]);
    await Promise.all([finished(s), finished(t)]);
    const max = await stop();
    expect(max).toBeLessThanOrEqual(10);
    expect(max).toBeGreaterThan(8);
    expect(await app.sql('select count(*)::int as n from calls where account_id = $1', [s.account.accountId])).toEqual([{ n: 32 }]);
  });
});

describe('outcomes', () => {
  it('busy with max_retries 2: exactly 3 calls, retry_interval apart, then reached-max-retries', async () => {
    const s = await setup({ max_retries: 2 });
    const lead = await addLead(s, phone('busy'));
    await setStatus(s, 'start');
    const campaign = await finished(s);
    const calls = await callsOf(s);
    expect(calls.map((call) => [call.lead_id, call.attempt, call.status])).toEqual([
      [lead, 1, 'busy'],
      [lead, 2, 'busy'],
      [lead, 3, 'busy'],
    ]);
    const [row] = await leadsOf(s);
    expect(row).toMatchObject({ status: 'reached-max-retries', attempts: 3 });
    // The retries waited retry_interval / DIALER_TIME_SCALE (100 ms) after each end.
    const times = await app.sql(
      `select c.id, (select min(created_at) from call_events e where e.call_id = c.id) as started, (select max(created_at) from call_events e where e.call_id = c.id) as ended
       from calls c where c.campaign_id = $1 order by c.id`,
      [s.campaign],
    );
    for (let i = 1; i < times.length; i++) expect(new Date(times[i].started).getTime() - new Date(times[i - 1].ended).getTime()).toBeGreaterThanOrEqual(90);
    expect(campaign.stats.leads['reached-max-retries']).toBe(1);
  });

  it('voicemail: retried when retry_on_voicemail, completed at once when not', async () => {
    const retrying = await setup({ max_retries: 1, retry_on_voicemail: true });
    await addLead(retrying, phone('machine'));
    const accepting = await setup({ max_retries: 1, retry_on_voicemail: false });
    await addLead(accepting, phone('machine'));
    await Promise.all([setStatus(retrying, 'start'), setStatus(accepting, 'start')]);
    await Promise.all([finished(retrying), finished(accepting)]);
    expect(await leadsOf(retrying)).toMatchObject([{ status: 'reached-max-retries', attempts: 2 }]);
    expect(await leadsOf(accepting)).toMatchObject([{ status: 'completed', attempts: 1 }]);
  });

  it('goal incomplete: retried until the goal variable is true', async () => {
    const s = await setup(
      { max_retries: 1, retry_on_goal_incomplete: true, goal_completion_variable: 'agreed' },
      { assistant: { post_call_schema: [{ name: 'agreed', type: 'bool', description: 'O cliente aceitou?' }] } },
    );
    // The simulator's extraction keeps a value the call was given.
    const refuses = await addLead(s, phone('human'), { variables: { agreed: false } });
    const agrees = await addLead(s, phone('human'), { variables: { agreed: true } });
    await setStatus(s, 'start');
    await finished(s);
    const byId = Object.fromEntries((await leadsOf(s)).map((lead) => [lead.id, lead]));
    expect(byId[refuses]).toMatchObject({ status: 'reached-max-retries', attempts: 2 });
    expect(byId[agrees]).toMatchObject({ status: 'completed', attempts: 1 });
  });

  it('secondary contacts: dialled in order once the primary is exhausted, with their variables merged', async () => {
    const s = await setup({ max_retries: 0 });
    const primary = phone('busy');
    const office = phone('no-answer');
    const mobile = phone('human');
    const lead = await addLead(s, primary, {
      variables: { customer_name: 'Ana', plan: 'gold' },
      secondary_contacts: [
        { phone_number: office, variables: { customer_name: 'Ana (escritório)' } },
        { phone_number: mobile, variables: { customer_name: 'Ana (celular)' } },
      ],
    });
    await setStatus(s, 'start');
    await finished(s);
    const calls = await callsOf(s);
    expect(calls.map((call) => [call.client_phone_number, call.attempt, call.status])).toEqual([
      [primary, 1, 'busy'],
      [office, 2, 'no-answer'],
      [mobile, 3, expect.stringMatching(/^(completed|ended_by_customer|ended_by_assistant)$/)],
    ]);
    expect(calls[2].input_variables).toEqual({ customer_name: 'Ana (celular)', plan: 'gold' });
    expect(await leadsOf(s)).toMatchObject([{ id: lead, status: 'completed', attempts: 3 }]);
  });

  it('reaches max retries when every contact is exhausted', async () => {
    const s = await setup({ max_retries: 0 });
    await addLead(s, phone('busy'), { secondary_contacts: [{ phone_number: phone('busy') }] });
    await setStatus(s, 'start');
    await finished(s);
    expect(await callsOf(s)).toHaveLength(2);
    expect(await leadsOf(s)).toMatchObject([{ status: 'reached-max-retries', attempts: 2 }]);
  });

  it('a lead set back to created is dialled again from its first number, attempts reset', async () => {
    const s = await setup({ max_retries: 0, mark_complete_when_no_leads: false });
    const lead = await addLead(s, phone('busy'));
    await setStatus(s, 'start');
    await until('max retries', () => leadsOf(s), (rows) => rows[0].status === 'reached-max-retries');
    const reset = await app.request('PUT', `/api/user/leads/${lead}`, { token: s.account.token, body: { status: 'created' } });
    expect(reset.status).toBe(200);
    await until('dialled again', () => callsOf(s), (rows) => rows.length === 2 && rows.every((row) => row.status === 'busy'));
    await until('max retries again', () => leadsOf(s), (rows) => rows[0].status === 'reached-max-retries');
    expect((await callsOf(s)).map((call) => call.attempt)).toEqual([1, 1]);
    // Without mark_complete_when_no_leads the campaign waits for more leads.
    expect((await getCampaign(s)).status).toBe('running');
    await addLead(s, phone('human'));
    await until('the new lead', () => leadsOf(s), (rows) => rows[1]?.status === 'completed');
    // The client's statuses over GraphQL are checked; the dialer's are refused.
    const refused = await app.request('PUT', `/api/user/leads/${lead}`, { token: s.account.token, body: { status: 'processing' } });
    expect(refused.status).toBe(422);
  });
});

describe('control', () => {
  it('stop holds the dialer (calls in flight end), start picks up where it stopped', async () => {
    const s = await setup({ max_calls_in_parallel: 1 });
    for (let i = 0; i < 8; i++) await addLead(s, phone('human'));
    await setStatus(s, 'start');
    await until('first calls', () => callsOf(s), (rows) => rows.length >= 2);
    const stopped = await setStatus(s, 'stop');
    expect(stopped.body.data).toMatchObject({ status: 'paused', paused_reason: 'manual' });
    await until('nothing in flight', () => getCampaign(s), (c) => c.stats.calls_in_progress === 0);
    const placed = (await callsOf(s)).length;
    await sleep(400);
    expect(await callsOf(s)).toHaveLength(placed);
    expect((await leadsOf(s)).filter((lead) => lead.status === 'created').length).toBe(8 - placed);

    await setStatus(s, 'start');
    await finished(s);
    expect(await callsOf(s)).toHaveLength(8);
    expect((await leadsOf(s)).every((lead) => lead.status === 'completed')).toBe(true);
  });

  it('never dials a number on the do-not-call list: the lead is blacklisted, a listed contact is passed over', async () => {
    const s = await setup({ max_retries: 0 });
    const listed = phone('human');
    const listedLater = phone('human');
    const listedContact = phone('human');
    const reachable = phone('human');
    await app.request('POST', '/api/user/dnc', { token: s.account.token, body: { phone_number: listed } });
    await addLead(s, listed);
    const later = await addLead(s, listedLater);
    // Listing a number marks its waiting leads at once.
    await app.request('POST', '/api/user/dnc', { token: s.account.token, body: { phone_number: listedLater } });
    expect((await leadsOf(s)).find((lead) => lead.id === later)?.status).toBe('blacklisted');
    await addLead(s, phone('busy'), { secondary_contacts: [{ phone_number: listedContact }, { phone_number: reachable }] });
    await app.request('POST', '/api/user/dnc', { token: s.account.token, body: { phone_number: listedContact } });
    await setStatus(s, 'start');
    const campaign = await finished(s);
    const dialled = (await callsOf(s)).map((call) => call.client_phone_number);
    expect(dialled).not.toContain(listed);
    expect(dialled).not.toContain(listedLater);
    expect(dialled).not.toContain(listedContact);
    expect(dialled).toContain(reachable);
    expect(campaign.stats.leads).toMatchObject({ blacklisted: 2, completed: 1 });
  });

  it('pauses the account’s running campaigns when the balance cannot start a call, and places none past it', async () => {
    // A call reserves its first minute (0.11 to Brazil) and costs about 0.22: two or three calls.
    const s = await setup({ max_calls_in_parallel: 2 }, { balance: '0.5' });
    const idle = await app.request('POST', '/api/user/campaigns', {
      token: s.account.token,
      body: { name: 'Parada', assistant_id: s.assistant, mark_complete_when_no_leads: false, ...ALL_DAY },
    });
    const t: Setup = { ...s, campaign: idle.body.data.id };
    await setStatus(t, 'start');
    for (let i = 0; i < 10; i++) await addLead(s, phone('human'));
    await setStatus(s, 'start');
    const paused = await until('paused', () => getCampaign(s), (c) => c.status === 'paused' && c.stats.calls_in_progress === 0);
    expect(paused.paused_reason).toBe('insufficient_balance');
    expect((await getCampaign(t)).paused_reason).toBe('insufficient_balance');
    const calls = await callsOf(s);
    expect(calls.length).toBeGreaterThanOrEqual(2);
    expect(calls.length).toBeLessThan(10);
    await sleep(300);
    expect(await callsOf(s)).toHaveLength(calls.length);
    expect((await leadsOf(s)).filter((lead) => lead.status === 'created')).toHaveLength(10 - calls.length);
    // Topped up and started again, it goes on.
    await app.sql('update accounts set balance = balance + 50 where id = $1', [s.account.accountId]);
    await setStatus(s, 'start');
    await finished(s);
    expect(await callsOf(s)).toHaveLength(10);
  });

  it('refuses to delete a stopped campaign while one of its calls is in flight', async () => {
    const s = await setup();
    const lead = await addLead(s, phone('human'));
    const [call] = await app.sql(
      `insert into calls (account_id, assistant_id, assistant_name, lead_id, campaign_id, campaign_name, type, status, assistant_phone_number,
         client_phone_number, provider, deadline_at)
       select account_id, $2, 'Ana', id, campaign_id, 'Discador', 'outbound', 'ringing', '+5511955000000', phone_number, 'simulator', now() + interval '1 hour'
       from leads where id = $1 returning id`,
      [lead, s.assistant],
    );
    const refused = await app.request('DELETE', `/api/user/campaigns/${s.campaign}`, { token: s.account.token });
    expect(refused).toMatchObject({ status: 422, body: { message: 'A campanha ainda tem chamadas em andamento; tente novamente quando elas terminarem.' } });
    await app.sql(`update calls set status = 'busy', finished_at = now() where id = $1`, [call.id]);
    expect((await app.request('DELETE', `/api/user/campaigns/${s.campaign}`, { token: s.account.token })).status).toBe(200);
  });
});
