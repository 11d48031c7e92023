import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { EVENT_CATALOGUE } from '../../src/modules/events/event.examples';
import { EVENT_TYPES, emitEvents } from '../../src/modules/events/event.outbox';
import { json, startReceiver, type Received, type Receiver } from '../helpers/receiver';
import { startTestApp, workerEnv, type TestAccount, type TestApp } from '../helpers/app';
import { until } from '../helpers/dialer';
import { exited, startWorker } from '../helpers/workers';

/**
 * Account webhook endpoints: the event types an endpoint asked for, POSTed to a real local
 * receiver, signed as Standard Webhooks says (checked with the official `standardwebhooks`
 * package) and with `x-famulor-signature`, retried with the same webhook-id.
 */
let app: TestApp;
let receiver: Receiver;
let seq = 0;

beforeAll(async () => {
  app = await startTestApp(
    {
      allowPrivateNetworkTargets: true,
      balanceLowThreshold: '5',
      webhooks: { timeoutMs: 400, connectTimeoutMs: 300, retrySchedule: [0.05, 0.1, 0.15], maxRetryAfterSeconds: 2 },
    },
    { workers: true },
  );
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await app?.close();
});
beforeEach(() => {
  receiver.requests.length = 0;
  receiver.respond = (_req, res) => json(res, 200, { ok: true });
});

async function endpoint(account: TestAccount, events: string[], path = `/hooks/${seq++}`) {
  const res = await app.request('POST', '/api/user/webhooks', { token: account.token, body: { url: `${receiver.url}${path}`, events } });
  expect(res.status).toBe(201);
  return { ...res.body.data, path };
}

async function makeCall(account: TestAccount, lastFour: string): Promise<number> {
  const assistant = await app.outboundAssistant(account);
  const res = await app.request('POST', '/api/user/make_call', { token: account.token, body: { phone_number: `+55119${String(4000 + seq++)}${lastFour}`, assistant_id: assistant } });
  expect(res.status).toBe(200);
  await app.finishedCall(res.body.call_id, account.token);
  return res.body.call_id;
}

/** Verifies with the official Standard Webhooks package, and the original platform's HMAC. */
function verified(secret: string, request: Received): any {
  const payload = new Webhook(secret).verify(request.body, {
    'webhook-id': request.headers['webhook-id'] as string,
    'webhook-timestamp': request.headers['webhook-timestamp'] as string,
    'webhook-signature': request.headers['webhook-signature'] as string,
  });
  expect(request.headers['x-famulor-signature']).toBe(`sha256=${createHmac('sha256', secret).update(request.body).digest('hex')}`);
  // The documented example has the same fields as the real thing.
  const documented = Object.keys(EVENT_CATALOGUE[(payload as any).type as keyof typeof EVENT_CATALOGUE].data).filter((key) => key !== 'is_last_attempt');
  expect(Object.keys((payload as any).data).filter((key) => key !== 'is_last_attempt').sort()).toEqual(documented.sort());
  return payload;
}

const to = (path: string) => receiver.requests.filter((request) => request.url === path);

describe('webhook endpoints', () => {
  it('are created with their own secret, listed without it, and deleted; bad input is a 422', async () => {
    const account = await app.account();
    const created = await endpoint(account, ['call.finished', 'lead.status_changed', 'call.finished']);
    expect(created).toMatchObject({ id: expect.any(Number), events: ['call.finished', 'lead.status_changed'], disabled_at: null, secret: expect.stringMatching(/^whsec_/) });
    const list = await app.request('GET', '/api/user/webhooks', { token: account.token });
    expect(list.body).toEqual([{ id: created.id, url: created.url, events: created.events, disabled_at: null, created_at: expect.any(String) }]);
    expect(JSON.stringify(list.body)).not.toContain(created.secret);
    const [{ secret_sealed }] = await app.sql('select secret_sealed from webhook_endpoints where id = $1', [created.id]);
    expect(secret_sealed).not.toContain(created.secret.slice(6));

    const bad = await app.request('POST', '/api/user/webhooks', { token: account.token, body: { url: 'ftp://x', events: ['call.finished', 'call.exploded'] } });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(['url', 'events.1']);
    const none = await app.request('POST', '/api/user/webhooks', { token: account.token, body: { url: 'https://example.com/h', events: [] } });
    expect(Object.keys(none.body.errors)).toEqual(['events']);

    const other = await app.account();
    expect((await app.request('DELETE', `/api/user/webhooks/${created.id}`, { token: other.token })).status).toBe(404);
    expect((await app.request('DELETE', `/api/user/webhooks/${created.id}`, { token: account.token })).body).toEqual({ message: 'Webhook endpoint deleted successfully' });
    expect((await app.request('GET', '/api/user/webhooks', { token: account.token })).body).toEqual([]);
  });

  it('to a private address: a warning on a development instance and the hint in each attempt; refused elsewhere', async () => {
    const account = await app.account({ balance: '20' });
    const saved = { allow: app.config.allowPrivateNetworkTargets, development: app.config.development };
    try {
      app.config.allowPrivateNetworkTargets = false;
      app.config.development = true;
      const res = await app.request('POST', '/api/user/webhooks', { token: account.token, body: { url: `${receiver.url}/inside`, events: ['call.initiated'] } });
      expect(res.status).toBe(201);
      expect(res.body.data.warning).toContain('ALLOW_PRIVATE_NETWORK_TARGETS=true');
      await makeCall(account, '7000');
      const attempts = () =>
        app.sql('select a.error from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id where d.endpoint_id = $1', [res.body.data.id]);
      const [attempt] = await until('the attempt', attempts, (rows) => rows.length > 0);
      expect(attempt.error).toMatch(/^blocked: .*; .*ALLOW_PRIVATE_NETWORK_TARGETS=true/);
      expect(to('/inside')).toEqual([]);

      // Outside development the endpoint is refused up front; a public URL gets no warning.
      app.config.development = false;
      const refused = await app.request('POST', '/api/user/webhooks', { token: account.token, body: { url: `${receiver.url}/inside`, events: ['call.initiated'] } });
      expect(refused.status).toBe(422);
      expect(refused.body.errors.url).toEqual([expect.stringContaining('endereço interno')]);
      const local = await app.request('POST', '/api/user/webhooks', { token: account.token, body: { url: 'http://localhost:9/h', events: ['call.initiated'] } });
      expect(local.status).toBe(422);
    } finally {
      app.config.allowPrivateNetworkTargets = saved.allow;
      app.config.development = saved.development;
    }
    // Allowed (tests, or ALLOW_PRIVATE_NETWORK_TARGETS=true): no warning.
    expect((await app.request('POST', '/api/user/webhooks', { token: account.token, body: { url: `${receiver.url}/ok`, events: ['call.initiated'] } })).body.data.warning).toBeNull();
  });

  it('get exactly the subscribed types, signed, for a busy call and a completed call', async () => {
    const account = await app.account({ balance: '20' });
    const hook = await endpoint(account, ['call.initiated', 'call.finished']);
    const everything = await endpoint(account, ['call.ringing', 'call.answered', 'sms.sent']);
    const busy = await makeCall(account, '0001');
    const done = await makeCall(account, '7000');
    await until('deliveries', async () => [to(hook.path).length, to(everything.path).length], ([a, b]) => a >= 4 && b >= 3);
    await new Promise((resolve) => setTimeout(resolve, 200));

    const payloads = to(hook.path).map((request) => verified(hook.secret, request));
    expect(payloads.map((p) => [p.type, p.data.id, p.data.status])).toEqual([
      ['call.initiated', busy, 'initiated'],
      ['call.finished', busy, 'busy'],
      ['call.initiated', done, 'initiated'],
      ['call.finished', done, 'completed'],
    ]);
    const finished = payloads[3];
    expect(finished.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(finished.data).toMatchObject({ id: done, type: 'outbound', duration: expect.any(Number), total_cost: expect.any(Number), lead_id: null, attempt: null });
    expect(finished.data).not.toHaveProperty('is_last_attempt');
    // Another endpoint of the account gets its own types, with its own secret.
    const others = to(everything.path).map((request) => verified(everything.secret, request));
    expect(others.map((p) => [p.type, p.data.id])).toEqual([
      ['call.ringing', busy],
      ['call.ringing', done],
      ['call.answered', done],
    ]);
    expect(() => verified(hook.secret, to(everything.path)[0])).toThrow();
  });

  it('say for a campaign lead’s attempt whether it was the last', async () => {
    const account = await app.account({ balance: '20' });
    const hook = await endpoint(account, ['call.finished', 'lead.status_changed', 'campaign.completed']);
    const assistant = await app.outboundAssistant(account);
    const campaign = await app.request('POST', '/api/user/campaigns', {
      token: account.token,
      body: {
        name: 'Eventos', assistant_id: assistant, max_retries: 1, retry_interval: 1, allowed_hours_start_time: '00:00', allowed_hours_end_time: '00:00',
        allowed_days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'],
      },
    });
    const id = campaign.body.data.id;
    await app.request('POST', '/api/user/lead', { token: account.token, body: { phone_number: '+5511987650001', campaign_id: id } });
    // retry_interval 1 minute: the test's clock runs it as 100 ms.
    app.config.dialerTimeScale = 600;
    await app.request('POST', '/api/user/campaigns/update-status', { token: account.token, body: { campaign_id: id, action: 'start' } });
    await until('campaign.completed', async () => to(hook.path).map((r) => JSON.parse(r.body).type), (types) => types.includes('campaign.completed'), 15_000);
    const events = to(hook.path).map((request) => verified(hook.secret, request));
    const finished = events.filter((e) => e.type === 'call.finished').map((e) => [e.data.attempt, e.data.is_last_attempt]);
    expect(finished).toEqual([
      [1, false],
      [2, true],
    ]);
    expect(events.filter((e) => e.type === 'lead.status_changed').map((e) => e.data.status)).toEqual([
      'scheduled', 'processing', 'rescheduled', 'scheduled', 'processing', 'reached-max-retries',
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'campaign.completed', data: { id, status: 'completed' } });
  });

  it('retry with the same webhook-id, and a 410 turns the endpoint off', async () => {
    const account = await app.account({ balance: '20' });
    const hook = await endpoint(account, ['call.initiated']);
    receiver.respond = (_request, res, index) => json(res, index === 0 ? 503 : 200, {});
    await makeCall(account, '7000');
    await until('the retry', async () => to(hook.path).length, (n) => n >= 2);
    const [first, second] = to(hook.path);
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    verified(hook.secret, second);
    const log = await app.graphql(
      `query($id: Int!) { webhookEndpoint(id: $id) { deliveries { id event_type status attempts { attempt status_code } } } }`,
      { id: hook.id },
      account.token,
    );
    expect(log.body.data.webhookEndpoint.deliveries).toEqual([
      { id: first.headers['webhook-id'], event_type: 'call.initiated', status: 'delivered', attempts: [{ attempt: 1, status_code: 503 }, { attempt: 2, status_code: 200 }] },
    ]);
    // Redelivered on request, with the same id.
    const again = await app.graphql('mutation($id: String!) { redeliverWebhook(delivery_id: $id) }', { id: first.headers['webhook-id'] }, account.token);
    expect(again.body.data.redeliverWebhook).toBe(true);
    await until('the redelivery', async () => to(hook.path).length, (n) => n >= 3);
    expect(to(hook.path)[2].headers['webhook-id']).toBe(first.headers['webhook-id']);

    receiver.respond = (_request, res) => json(res, 410, {});
    await makeCall(account, '7000');
    await until('turned off', async () => (await app.request('GET', '/api/user/webhooks', { token: account.token })).body[0].disabled_at, (at) => at !== null);
    const sent = to(hook.path).length;
    await makeCall(account, '7000');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(to(hook.path)).toHaveLength(sent);
  });

  it('send balance.low when a charge crosses BALANCE_LOW_THRESHOLD, and SMS outcomes', async () => {
    // An SMS to Brazil costs 0.05: 5.04 -> 4.99 crosses 5.
    const account = await app.account({ balance: '5.04' });
    const hook = await endpoint(account, ['balance.low', 'sms.sent']);
    const sender = await app.phoneNumber(account.accountId, `+5511933${String(100000 + seq++)}`, { sms: true });
    const sms = await app.request('POST', '/api/user/sms', { token: account.token, body: { from: sender, to: '+5511987650999', body: 'oi' } });
    expect(sms.status).toBe(200);
    await until('two events', async () => to(hook.path).length, (n) => n >= 2);
    const events = to(hook.path).map((request) => verified(hook.secret, request));
    expect(events.map((e) => e.type).sort()).toEqual(['balance.low', 'sms.sent']);
    expect(events.find((e) => e.type === 'balance.low').data).toEqual({ balance: 4.99, threshold: 5 });
    expect(events.find((e) => e.type === 'sms.sent').data).toMatchObject({ id: sms.body.data.id, status: 'sent', to: '+5511987650999' });
  });

  it('a rolled-back change delivers nothing', async () => {
    const account = await app.account();
    const hook = await endpoint(account, ['lead.status_changed']);
    const event = { accountId: account.accountId, type: 'lead.status_changed' as const, data: { id: 1, status: 'completed' } };
    await app.orm.em
      .fork()
      .transactional(async (tx) => {
        await emitEvents(tx, [event]);
        throw new Error('rolled back');
      })
      .catch(() => {});
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(to(hook.path)).toEqual([]);
    expect(await app.sql('select count(*)::int as n from webhook_deliveries where endpoint_id = $1', [hook.id])).toEqual([{ n: 0 }]);
  });
});

it('documents every event type with an example, in the README and the OpenAPI document', async () => {
  const readme = readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8');
  const openapi = (await app.request('GET', '/api/openapi.json')).body;
  for (const type of EVENT_TYPES) {
    expect(readme).toContain(JSON.stringify({ type, timestamp: '2026-11-22T14:04:31.512Z', data: EVENT_CATALOGUE[type].data }, null, 2));
    expect(openapi.webhooks[`event ${type}`].post.requestBody.content['application/json'].example.data).toEqual(EVENT_CATALOGUE[type].data);
  }
});

it('an event committed by a process killed right after is still delivered, by another process', async () => {
  // An API process (the compiled server, no workers) commits a call and its event; it is
  // killed (SIGKILL) as soon as it has answered; a worker process started afterwards delivers.
  const target = await startTestApp({ allowPrivateNetworkTargets: true });
  const account = await target.account({ balance: '20' });
  const hook = await target.request('POST', '/api/user/webhooks', { token: account.token, body: { url: `${receiver.url}/late`, events: ['call.initiated'] } });
  const assistant = await target.outboundAssistant(account);
  const api = spawn(process.execPath, [path.join(__dirname, '..', '..', 'dist/src/main.js')], {
    env: { ...workerEnv(target), PORT: '0', HOST: '127.0.0.1', WORKERS_IN_PROCESS: 'false', SEED_DEMO: 'false', RATE_LIMIT_PER_MINUTE: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    let output = '';
    api.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const base = await until('the API process', async () => /REST\s+(http:\/\/\S+)\/api/.exec(output)?.[1], (url) => url !== undefined, 30_000);
    const call = await fetch(`${base}/api/user/make_call`, {
      method: 'POST',
      headers: { authorization: `Bearer ${account.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ phone_number: '+5511987654444', assistant_id: assistant }),
    }).then((r) => r.json() as Promise<{ call_id: number }>);
    api.kill('SIGKILL');
    await exited(api);
    expect(to('/late')).toEqual([]);
    const worker = await startWorker(target, { ALLOW_PRIVATE_NETWORK_TARGETS: 'true' });
    try {
      await until('the delivery', async () => to('/late').length, (n) => n >= 1, 15_000);
      expect(verified(hook.body.data.secret, to('/late')[0])).toMatchObject({ type: 'call.initiated', data: { id: call.call_id } });
    } finally {
      worker.child.kill('SIGTERM');
      await exited(worker.child);
    }
  } finally {
    if (api.exitCode === null && api.signalCode === null) api.kill('SIGKILL');
    await target.close();
  }
});
