import { startTestApp, type TestApp } from '../helpers/app';
import { dialerKit, type DialerSetup } from '../helpers/dialer';
import { exited, startWorker, type WorkerProcess } from '../helpers/workers';

/**
 * The dialer on three worker processes (`npm run worker`) beside an API process that runs
 * none: they race for the same campaigns' runs and calls, and still no lead is dialled twice,
 * no attempt is placed twice, and neither cap is ever exceeded.
 */
let app: TestApp;
const workers: WorkerProcess[] = [];
const { phone, setup, addLead, setStatus, finished, leadsOf, callsOf, watchInFlight } = dialerKit(() => app);

beforeAll(async () => {
  app = await startTestApp({ maxParallelCalls: 6, dialerTimeScale: 600, telephony: { provider: 'simulator', simulatorSpeed: 500, twilio: null } });
  for (let i = 0; i < 3; i++) workers.push(await startWorker(app));
});

afterAll(async () => {
  for (const { child } of workers) child.kill('SIGKILL');
  await Promise.all(workers.map(({ child }) => exited(child)));
  await app?.close();
});

it('three worker processes: each lead dialled once per attempt, max_calls_in_parallel and PLAN_MAX_PARALLEL_CALLS held', async () => {
  const first = await setup({ max_calls_in_parallel: 4, max_retries: 1 });
  const second: DialerSetup = await setup({ max_calls_in_parallel: 4, max_retries: 1 });
  // The second campaign shares the first's account, so the account's cap (6) binds too.
  await app.sql('update campaigns set account_id = $1 where id = $2', [first.account.accountId, second.campaign]);
  const sharing: DialerSetup = { ...second, account: first.account };
  await app.sql('update assistants set account_id = $1 where id = $2', [first.account.accountId, second.assistant]);
  await app.sql('update phone_numbers set account_id = $1 where id = (select phone_number_id from assistants where id = $2)', [first.account.accountId, second.assistant]);
  const outcomes = ['human', 'human', 'busy', 'human', 'machine'] as const;
  for (let i = 0; i < 20; i++) {
    await addLead(first, phone(outcomes[i % outcomes.length]));
    await addLead(sharing, phone(outcomes[(i + 1) % outcomes.length]));
  }

  const firstCap = watchInFlight({ campaign: first.campaign });
  const secondCap = watchInFlight({ campaign: sharing.campaign });
  const accountCap = watchInFlight({ account: first.account.accountId });
  await Promise.all([setStatus(first, 'start'), setStatus(sharing, 'start')]);
  await Promise.all([finished(first, 60_000), finished(sharing, 60_000)]);
  expect(await firstCap()).toBeLessThanOrEqual(4);
  expect(await secondCap()).toBeLessThanOrEqual(4);
  const accountMax = await accountCap();
  expect(accountMax).toBeLessThanOrEqual(6);
  expect(accountMax).toBeGreaterThanOrEqual(4);

  for (const campaign of [first, sharing]) {
    const leads = await leadsOf(campaign);
    const calls = await callsOf(campaign);
    for (const lead of leads) {
      const own = calls.filter((call) => call.lead_id === lead.id);
      // Attempts 1..n, each placed once; a person who talks is called exactly once.
      expect(own.map((call) => call.attempt)).toEqual(Array.from({ length: lead.attempts }, (_, i) => i + 1));
      if (lead.phone_number.endsWith('7000')) expect(lead).toMatchObject({ status: 'completed', attempts: 1 });
      else expect(lead).toMatchObject({ status: 'reached-max-retries', attempts: 2 });
    }
  }
  // A lead's calls never overlap: each starts after the one before it ended.
  const spans = await app.sql(
    `select c.lead_id, min(e.created_at) as started, max(e.created_at) as ended from calls c join call_events e on e.call_id = c.id
     where c.campaign_id = any($1) group by c.id, c.lead_id order by c.lead_id, c.attempt`,
    [[first.campaign, sharing.campaign]],
  );
  for (let i = 1; i < spans.length; i++) {
    if (spans[i].lead_id === spans[i - 1].lead_id) expect(new Date(spans[i].started).getTime()).toBeGreaterThanOrEqual(new Date(spans[i - 1].ended).getTime());
  }
  // The three processes shared the work.
  for (const worker of workers) expect(worker.output()).toMatch(/"call status"|call status/);
});
