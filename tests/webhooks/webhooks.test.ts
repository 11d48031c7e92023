import { createHmac } from 'node:crypto';
import { json, startReceiver, type Received, type Receiver } from '../helpers/receiver';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';

let app: TestApp;
let receiver: Receiver;
let seq = 0;

beforeAll(async () => {
  app = await startTestApp(
    {
      allowPrivateNetworkTargets: true,
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

const number = (lastFour = '7777') => `+55119${String(300 + seq++).padStart(3, '0')}0${lastFour}`;

async function setup(settings: Record<string, unknown> = {}, target = app): Promise<{ account: TestAccount; assistantId: number }> {
  const account = await target.account({ balance: '20' });
  const phone = await target.phoneNumber(account.accountId, `+55119555${String(10000 + seq++).slice(-5)}`);
  const res = await target.request('POST', '/api/user/assistant', {
    token: account.token,
    body: {
      assistant_name: 'Ana', voice_id: 1, language: 'Portuguese', llm_model: 'm', calls_direction: 'make', engine_type: 'pipeline',
      timezone: 'America/Sao_Paulo', initial_message: 'Oi, aqui é a Ana.', system_prompt: 'Você confirma pedidos.', phone_number_id: phone,
      is_webhook_active: true, webhook_url: `${receiver.url}/hooks/calls`,
      post_call_schema: [{ name: 'customer_name', type: 'string', description: 'Nome' }],
      ...settings,
    },
  });
  expect(res.status).toBe(201);
  return { account, assistantId: res.body.data.id };
}

async function call(target: TestApp, account: TestAccount, assistantId: number, lastFour = '7777', variables: Record<string, unknown> = { customer_name: 'Joana' }) {
  const res = await target.request('POST', '/api/user/make_call', { token: account.token, body: { phone_number: number(lastFour), assistant_id: assistantId, variables } });
  expect(res.status).toBe(200);
  return target.finishedCall(res.body.call_id, account.token);
}

async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const deliveries = async (target: TestApp, account: TestAccount, callId: number) =>
  (
    await target.graphql(
      `query($id: Int!) { call(id: $id) { webhook_response webhook_deliveries { id status attempts { attempt status_code error } } } }`,
      { id: callId },
      account.token,
    )
  ).body.data.call;

/** What a receiver does to check a Standard Webhooks signature. */
function verify(secret: string, request: Received): boolean {
  const id = request.headers['webhook-id'] as string;
  const timestamp = request.headers['webhook-timestamp'] as string;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${request.body}`).digest('base64');
  return (request.headers['webhook-signature'] as string).split(' ').some((sig) => sig === `v1,${expected}`);
}

describe('post-call webhooks', () => {
  it('POSTs the signed payload of a finished call, which a receiver can verify', async () => {
    const { account, assistantId } = await setup({ include_recording_in_webhook: true });
    const finished = await call(app, account, assistantId);
    await until(() => receiver.requests.length === 1);
    const [request] = receiver.requests;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/hooks/calls');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(Math.abs(Number(request.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);

    const secret = (await app.graphql('{ webhookSecret }', {}, account.token)).body.data.webhookSecret;
    expect(secret).toMatch(/^whsec_/);
    expect(verify(secret, request)).toBe(true);
    expect(verify(secret, { ...request, body: request.body.replace('Joana', 'Maria') })).toBe(false);

    const payload = JSON.parse(request.body);
    expect(payload).toMatchObject({
      id: finished.id,
      customer_phone: finished.client_phone_number,
      assistant_phone: finished.assistant_phone_number,
      duration: finished.duration,
      status: 'completed',
      extracted_variables: { customer_name: 'Joana' },
      input_variables: { customer_name: 'Joana' },
      transcript: finished.transcript,
      recording_url: finished.recording_url,
      created_at: finished.created_at,
      finished_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      lead: null,
      campaign: null,
    });
    await until(async () => (await deliveries(app, account, finished.id)).webhook_response?.status === 200);
    const { webhook_response } = await deliveries(app, account, finished.id);
    expect(webhook_response).toMatchObject({ status: 200, body: '{"ok":true}', attempt: 1 });
  });

  it('leaves out the recording unless include_recording_in_webhook, and names lead and campaign', async () => {
    const { account, assistantId } = await setup();
    const phone = number();
    await app.request('POST', '/api/user/lead', { token: account.token, body: { phone_number: phone, campaign_id: account.campaignId } });
    const res = await app.request('POST', '/api/user/make_call', { token: account.token, body: { phone_number: phone, assistant_id: assistantId } });
    await app.finishedCall(res.body.call_id, account.token);
    await until(() => receiver.requests.length === 1);
    const payload = JSON.parse(receiver.requests[0].body);
    expect(payload).not.toHaveProperty('recording_url');
    expect(payload.lead).toMatchObject({ phone_number: phone, status: 'created' });
    expect(payload.campaign).toEqual({ id: account.campaignId, name: 'Campaign' });
  });

  it('sends only completed calls with send_webhook_only_on_completed', async () => {
    const { account, assistantId } = await setup({ send_webhook_only_on_completed: true });
    await call(app, account, assistantId, '0001'); // busy
    await call(app, account, assistantId, '7777'); // completed
    await until(() => receiver.requests.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.requests).toHaveLength(1);
    expect(JSON.parse(receiver.requests[0].body).status).toBe('completed');
  });

  it('retries a flaky receiver with the same webhook-id until it answers 2xx', async () => {
    receiver.respond = (_req, res, index) => (index < 2 ? json(res, 503, { busy: true }) : json(res, 200, { thanks: 1 }));
    const { account, assistantId } = await setup();
    const finished = await call(app, account, assistantId);
    await until(() => receiver.requests.length === 3);
    expect(new Set(receiver.requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
    await until(async () => (await deliveries(app, account, finished.id)).webhook_deliveries[0].status === 'delivered');
    const { webhook_deliveries, webhook_response } = await deliveries(app, account, finished.id);
    expect(webhook_deliveries[0].attempts).toEqual([
      { attempt: 1, status_code: 503, error: null },
      { attempt: 2, status_code: 503, error: null },
      { attempt: 3, status_code: 200, error: null },
    ]);
    expect(webhook_response).toMatchObject({ status: 200, body: '{"thanks":1}', attempt: 3 });
  });

  it('honours Retry-After on 429', async () => {
    receiver.respond = (_req, res, index) => (index === 0 ? json(res, 429, {}, { 'retry-after': '1' }) : json(res, 200, {}));
    const { account, assistantId } = await setup();
    await call(app, account, assistantId);
    await until(() => receiver.requests.length === 2, 5000);
    expect(receiver.requests[1].at - receiver.requests[0].at).toBeGreaterThanOrEqual(950);
  });

  it('gives up after the schedule, counting timeouts, and keeps every attempt', async () => {
    receiver.respond = (_req, res) => void setTimeout(() => json(res, 200, {}), 1000);
    const { account, assistantId } = await setup();
    const finished = await call(app, account, assistantId);
    await until(async () => (await deliveries(app, account, finished.id)).webhook_deliveries[0]?.status === 'failed', 15_000);
    const { webhook_deliveries, webhook_response } = await deliveries(app, account, finished.id);
    expect(webhook_deliveries[0].attempts).toHaveLength(4);
    expect(webhook_deliveries[0].attempts.every((a: any) => a.status_code === null && a.error.startsWith('timeout'))).toBe(true);
    expect(webhook_response.error).toMatch(/^timeout/);
  });

  it('treats a redirect as a failure and does not follow it', async () => {
    const target = await startReceiver();
    try {
      receiver.respond = (_req, res) => {
        res.writeHead(301, { location: `${target.url}/moved` });
        res.end();
      };
      const { account, assistantId } = await setup();
      const finished = await call(app, account, assistantId);
      await until(async () => (await deliveries(app, account, finished.id)).webhook_deliveries[0]?.status === 'failed');
      expect(receiver.requests).toHaveLength(1);
      expect(target.connections).toBe(0);
    } finally {
      await target.close();
    }
  });

  it('turns the webhook off when the receiver answers 410 Gone', async () => {
    receiver.respond = (_req, res) => json(res, 410, {});
    const { account, assistantId } = await setup();
    const finished = await call(app, account, assistantId);
    await until(async () => (await deliveries(app, account, finished.id)).webhook_deliveries[0]?.status === 'failed');
    const assistant = (await app.request('GET', `/api/user/assistant/${assistantId}`, { token: account.token })).body;
    expect(assistant).toMatchObject({ is_webhook_active: false, webhook_url: null });
    await call(app, account, assistantId);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.requests).toHaveLength(1);
  });

  it('sends nothing after disable-webhook, while the call still finishes with its data', async () => {
    const { account, assistantId } = await setup();
    const res = await app.request('POST', '/api/user/make_call', { token: account.token, body: { phone_number: number(), assistant_id: assistantId } });
    await app.request('POST', '/api/user/assistants/disable-webhook', { token: account.token, body: { assistant_id: assistantId } });
    const finished = await app.finishedCall(res.body.call_id, account.token);
    expect(finished).toMatchObject({ status: 'completed', variables: { customer_name: expect.any(String) } });
    expect(finished.transcript).not.toBe('');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.requests).toHaveLength(0);
  });

  it('cancels pending retries once the webhook is turned off', async () => {
    receiver.respond = (_req, res) => json(res, 500, {});
    const { account, assistantId } = await setup();
    const finished = await call(app, account, assistantId);
    await until(() => receiver.requests.length >= 1);
    await app.request('PUT', `/api/user/assistant/${assistantId}`, { token: account.token, body: { is_webhook_active: false } });
    await until(async () => (await deliveries(app, account, finished.id)).webhook_deliveries[0].status === 'cancelled');
    const sent = receiver.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.requests.length).toBe(sent);
  });

  it('redelivers on request with the same id, and signs with a rotated secret', async () => {
    receiver.respond = (_req, res) => json(res, 400, {});
    const { account, assistantId } = await setup();
    const finished = await call(app, account, assistantId);
    await until(async () => (await deliveries(app, account, finished.id)).webhook_deliveries[0]?.status === 'failed');
    const [delivery] = (await deliveries(app, account, finished.id)).webhook_deliveries;

    receiver.respond = (_req, res) => json(res, 200, {});
    const rotated = (await app.graphql('mutation { rotateWebhookSecret }', {}, account.token)).body.data.rotateWebhookSecret;
    const res = await app.graphql('mutation($id: String!) { redeliverWebhook(delivery_id: $id) }', { id: delivery.id }, account.token);
    expect(res.body.data.redeliverWebhook).toBe(true);
    await until(() => receiver.requests.length === 2);
    expect(receiver.requests[1].headers['webhook-id']).toBe(delivery.id);
    expect(verify(rotated, receiver.requests[1])).toBe(true);
    await until(async () => (await deliveries(app, account, finished.id)).webhook_deliveries[0].status === 'delivered');
    expect((await deliveries(app, account, finished.id)).webhook_deliveries[0].attempts.map((a: any) => a.status_code)).toEqual([400, 200]);

    const other = await app.account();
    const foreign = await app.graphql('mutation($id: String!) { redeliverWebhook(delivery_id: $id) }', { id: delivery.id }, other.token);
    expect(foreign.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('delivers inbound calls the same way', async () => {
    const account = await app.account({ balance: '5' });
    const phone = await app.phoneNumber(account.accountId, '+5511944441234');
    await app.request('POST', '/api/user/assistant', {
      token: account.token,
      body: {
        assistant_name: 'Recepção', voice_id: 1, language: 'Portuguese', llm_model: 'm', calls_direction: 'receive', engine_type: 'pipeline',
        timezone: 'America/Sao_Paulo', initial_message: 'Olá!', system_prompt: 'Atenda.', phone_number_id: phone,
      },
    });
    const assistantId = (await app.request('GET', '/api/user/assistants/get', { token: account.token })).body[0].id;
    await app.request('POST', '/api/user/assistants/enable-inbound-webhook', {
      token: account.token,
      body: { assistant_id: assistantId, webhook_url: `${receiver.url}/inbound` },
    });
    await app.graphql(`mutation { simulateInboundCall(to: "+5511944441234", from: "+5511987612345") { id } }`, {}, account.token);
    await until(() => receiver.requests.length === 1);
    expect(receiver.requests[0].url).toBe('/inbound');
    expect(JSON.parse(receiver.requests[0].body)).toMatchObject({ type: 'inbound', status: 'completed', customer_phone: '+5511987612345' });
  });
});

describe('a receiver that is down for a while', () => {
  it('gets the delivery when it comes back', async () => {
    const patient = await startTestApp(
      {
        allowPrivateNetworkTargets: true,
        webhooks: { timeoutMs: 400, connectTimeoutMs: 300, retrySchedule: [0.2, 0.4, 0.8, 1.6], maxRetryAfterSeconds: 2 },
      },
      { workers: true },
    );
    let comeback = await startReceiver();
    const port = comeback.port;
    await comeback.close(); // down: connections are refused
    try {
      const { account, assistantId } = await setup({ webhook_url: `http://127.0.0.1:${port}/hooks` }, patient);
      const finished = await call(patient, account, assistantId);
      await until(async () => (await deliveries(patient, account, finished.id)).webhook_deliveries[0]?.attempts.length >= 2);
      const failing = (await deliveries(patient, account, finished.id)).webhook_deliveries[0];
      expect(failing.status).toBe('pending');
      expect(failing.attempts.every((a: any) => a.status_code === null && a.error.startsWith('connection'))).toBe(true);

      comeback = await startReceiver('127.0.0.1', port); // back
      await until(async () => (await deliveries(patient, account, finished.id)).webhook_deliveries[0].status === 'delivered', 10_000);
      expect(comeback.requests).toHaveLength(1);
      expect(JSON.parse(comeback.requests[0].body).id).toBe(finished.id);
    } finally {
      await comeback.close();
      await patient.close();
    }
  });
});

describe('the address guard on webhooks', () => {
  it('makes no connection to a loopback receiver and records the refusal', async () => {
    const guarded = await startTestApp({}, { workers: true });
    const connectionsBefore = receiver.connections;
    try {
      const { account, assistantId } = await setup({}, guarded);
      const finished = await call(guarded, account, assistantId);
      await until(async () => (await deliveries(guarded, account, finished.id)).webhook_deliveries[0]?.status === 'failed');
      const { webhook_deliveries } = await deliveries(guarded, account, finished.id);
      expect(webhook_deliveries[0].attempts).toEqual([{ attempt: 1, status_code: null, error: expect.stringMatching(/^blocked/) }]);
      expect(receiver.connections).toBe(connectionsBefore);
      expect(receiver.requests).toHaveLength(0);
    } finally {
      await guarded.close();
    }
  });
});

describe('mid-call tools', () => {
  it('calls each tool once with parameters from its schema, and the transcript tells what happened', async () => {
    const seen = receiver.connections;
    const { account, assistantId } = await setup({ is_webhook_active: false });
    const slowTool = await startReceiver();
    slowTool.respond = (_req, res) => void setTimeout(() => json(res, 200, { late: true }), 1500);
    try {
      const tools = [
        { name: 'check_stock', method: 'GET', endpoint: `${receiver.url}/stock?store=1`, schema: [{ name: 'customer_name', type: 'string', description: 'Quem pergunta' }, { name: 'quantity', type: 'number', description: 'Quantas unidades' }] },
        { name: 'book_slot', method: 'POST', endpoint: `${receiver.url}/slots`, headers: [{ name: 'Authorization', value: 'Bearer tool-secret' }], schema: [{ name: 'confirmed', type: 'boolean', description: 'Confirmado?' }] },
        { name: 'slow_lookup', method: 'GET', endpoint: `${slowTool.url}/slow`, timeout: 1 },
      ];
      const ids: number[] = [];
      for (const tool of tools) {
        const res = await app.request('POST', '/api/user/tools', { token: account.token, body: { description: 'Tool', ...tool } });
        ids.push(res.body.data.id);
      }
      await app.request('PUT', `/api/user/assistant/${assistantId}`, { token: account.token, body: { tool_ids: ids } });
      receiver.respond = (req, res) => json(res, 200, { path: req.url });

      const finished = await call(app, account, assistantId, '7777', { customer_name: 'Joana', quantity: '3' });
      expect(finished.status).toBe('completed');
      const toolRequests = receiver.requests.filter((r) => r.url.startsWith('/stock') || r.url.startsWith('/slots'));
      expect(toolRequests).toHaveLength(2);
      const stock = toolRequests.find((r) => r.url.startsWith('/stock'))!;
      expect(stock.method).toBe('GET');
      expect(new URL(stock.url, 'http://x').searchParams.get('store')).toBe('1');
      expect(new URL(stock.url, 'http://x').searchParams.get('customer_name')).toBe('Joana');
      expect(new URL(stock.url, 'http://x').searchParams.get('quantity')).toBe('3');
      const slot = toolRequests.find((r) => r.url === '/slots')!;
      expect(slot.method).toBe('POST');
      expect(slot.headers.authorization).toBe('Bearer tool-secret');
      expect(slot.headers['content-type']).toBe('application/json');
      expect(JSON.parse(slot.body)).toEqual({ confirmed: expect.any(Boolean) });
      expect(slowTool.requests).toHaveLength(1);

      expect(finished.transcript).toContain('ferramenta check_stock: GET');
      expect(finished.transcript).toMatch(/ferramenta book_slot: POST .* -> HTTP 200 em \d+ ms/);
      expect(finished.transcript).toMatch(/ferramenta slow_lookup: GET .* -> falhou após \d+ ms \(timeout/);
      const [row] = await app.sql('select tool_calls from calls where id = $1', [finished.id]);
      expect(row.tool_calls.map((t: any) => [t.name, t.status])).toEqual([
        ['check_stock', 200],
        ['book_slot', 200],
        ['slow_lookup', null],
      ]);
      expect(row.tool_calls[2].latency_ms).toBeLessThan(1500);
      expect(receiver.connections).toBeGreaterThan(seen);
    } finally {
      await slowTool.close();
    }
  });
});
