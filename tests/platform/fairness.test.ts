import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';
import { startReceiver, type Receiver } from '../helpers/receiver';

/**
 * One account cannot starve the others: its slow mid-call tools do not hold the shared
 * worker slots, a call's tools together take at most CALL_TOOLS_BUDGET_SECONDS, and its
 * huge bodies are refused before they cost anything.
 */
let app: TestApp;
let slow: Receiver;
let seq = 0;

const BUDGET_SECONDS = 6;

beforeAll(async () => {
  slow = await startReceiver();
  // The tools' server never answers: each tool waits for its timeout, or for the budget.
  slow.respond = () => {};
  app = await startTestApp({ allowPrivateNetworkTargets: true, callToolsBudgetSeconds: BUDGET_SECONDS }, { workers: true });
});
afterAll(async () => {
  await app?.close();
  await slow?.close();
});

const dial = async (account: TestAccount, assistantId: number) => {
  const res = await app.request('POST', '/api/user/make_call', {
    token: account.token,
    // Ending in 7777: answered by a person, who talks until the planned end.
    body: { phone_number: `+55119${String(1000 + seq++)}7777`, assistant_id: assistantId },
  });
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return res.body.call_id as number;
};

it("another account's calls finish while one account's slow tools run, and the tools stop at the budget", async () => {
  const noisy = await app.account({ balance: '100' });
  const tools: number[] = [];
  for (const name of ['slow_a', 'slow_b', 'slow_c', 'slow_d', 'slow_e']) {
    const res = await app.request('POST', '/api/user/tools', {
      token: noisy.token,
      body: { name, description: 'Slow', endpoint: `${slow.url}/${name}`, method: 'POST', timeout: 30 },
    });
    tools.push(res.body.data.id);
  }
  const noisyAssistant = await app.outboundAssistant(noisy, { tool_ids: tools });
  // More calls with slow tools than the process has worker slots (4 in tests).
  const noisyCalls = await Promise.all(Array.from({ length: 6 }, () => dial(noisy, noisyAssistant)));
  const deadline = Date.now() + 5000;
  while (slow.requests.length < noisyCalls.length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(slow.requests.length).toBe(noisyCalls.length); // every noisy call is now waiting on its first tool

  const quiet = await app.account({ balance: '100' });
  const quietCall = await dial(quiet, await app.outboundAssistant(quiet));
  const finished = await app.finishedCall(quietCall, quiet.token, 10_000);
  expect(finished.status).toBe('completed');
  // The quiet call ended while every noisy call was still waiting on its tools.
  const open = await app.sql(`select count(*)::int as n from calls where id = any($1) and finished_at is null`, [noisyCalls]);
  expect(open[0].n).toBe(noisyCalls.length);

  for (const id of noisyCalls) {
    const call = await app.finishedCall(id, noisy.token, (BUDGET_SECONDS + 10) * 1000);
    expect(call.status).toBe('completed');
    const [{ tool_calls }] = await app.sql('select tool_calls from calls where id = $1', [id]);
    // The first tool runs until the budget is spent; the others are skipped.
    expect(tool_calls[0]).toMatchObject({ name: 'slow_a', status: null, error: expect.stringMatching(/^timeout/) });
    expect(tool_calls[0].latency_ms).toBeLessThan((BUDGET_SECONDS + 1) * 1000);
    expect(tool_calls.slice(1).map((t: any) => t.error)).toEqual(Array(4).fill('skipped: the call has used its time for tools'));
  }
  expect(slow.requests.length).toBe(noisyCalls.length);
});

it("one account's huge bodies are refused at once and another account is served throughout", async () => {
  const noisy = await app.account({ balance: '100' });
  const quiet = await app.account({ balance: '100' });
  const contacts = Array.from({ length: 25_000 }, (_, i) => ({ phone_number: `+55119${String(70000000 + i)}` }));
  const huge = JSON.stringify({ phone_number: '+5511987650999', campaign_id: noisy.campaignId, secondary_contacts: contacts });
  expect(huge.length).toBeGreaterThan(800_000);
  expect(huge.length).toBeLessThan(app.config.maxBodyBytes);

  let flooding = true;
  const flood = Promise.all(
    Array.from({ length: 12 }, async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await app.request('POST', '/api/user/lead', { token: noisy.token, rawBody: huge })).status);
      return statuses;
    }),
  ).finally(() => (flooding = false));
  const served: number[] = [];
  while (flooding) served.push((await app.request('GET', '/api/user/me', { token: quiet.token })).status);

  expect((await flood).flat().every((status) => status === 422)).toBe(true);
  expect(served.length).toBeGreaterThan(0);
  expect(served.every((status) => status === 200)).toBe(true);
  const [{ n }] = await app.sql('select count(*)::int as n from leads where account_id = $1', [noisy.accountId]);
  expect(n).toBe(0);
});
