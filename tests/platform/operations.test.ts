import http from 'node:http';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/log';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';

/** What an operator reads: request ids, a log line per request, Prometheus metrics. */
const lines: string[] = [];
let app: TestApp;
let me: TestAccount;

beforeAll(async () => {
  app = await startTestApp({}, { logger: createLogger('info', { write: (line: string) => void lines.push(line) }) });
  me = await app.account();
});
afterAll(() => app?.close());

/** The value of one sample of the exposition, or 0 when it is not there yet. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const body = /\{(.*)\}/.exec(line)?.[1] ?? '';
    const found = Object.fromEntries([...body.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(line.split(' ').pop());
  }
  return 0;
}

describe('request ids', () => {
  it('echoes a well-formed X-Request-Id, takes the trace id of a traceparent, and makes one otherwise', async () => {
    const given = await app.request('GET', '/healthz', { headers: { 'x-request-id': 'req-42.a:b' } });
    expect(given.headers.get('x-request-id')).toBe('req-42.a:b');
    const traced = await app.request('GET', '/healthz', { headers: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' } });
    expect(traced.headers.get('x-request-id')).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    const bad = await app.request('GET', '/healthz', { headers: { 'x-request-id': 'no spaces or\u00e9' } });
    expect(bad.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('logs one line per request at info: method, route, status, ms, account, request id', async () => {
    const res = await app.request('GET', `/api/user/leads/424242`, { token: me.token, headers: { 'x-request-id': 'find-me-1' } });
    expect(res.status).toBe(404);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const line = lines.map((l) => JSON.parse(l)).find((r) => r.msg === 'request' && r.request_id === 'find-me-1');
    expect(line).toMatchObject({ level: 30, method: 'GET', route: '/api/user/leads/{id}', status: 404, ms: expect.any(Number), account_id: me.accountId });
    // A path no route has, and one answered before the shim looks at it (a bad Host), each labelled as it is.
    await app.request('GET', '/api/user/no-such-thing/7', { token: me.token, headers: { 'x-request-id': 'find-me-2' } });
    await new Promise((resolve, reject) => {
      const { port } = new URL(app.url);
      const req = http.request({ host: '127.0.0.1', port, path: '/api/user/leads/7', headers: { host: 'bad host', 'x-request-id': 'find-me-3' } }, (res) =>
        res.resume().on('end', resolve),
      );
      req.on('error', reject).end();
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const routes = lines.map((l) => JSON.parse(l)).filter((r) => r.msg === 'request' && ['find-me-2', 'find-me-3'].includes(r.request_id));
    expect(routes.map((r) => [r.request_id, r.route, r.status])).toEqual([
      ['find-me-2', 'unmatched', 404],
      ['find-me-3', '/api/user/leads/{id}', 400],
    ]);
  });
});

describe('GET /metrics', () => {
  it('exposes Prometheus counters that grow, and the shared gauges', async () => {
    const before = (await app.request('GET', '/metrics')).text;
    await app.request('GET', '/api/user/campaigns', { token: me.token });
    await app.graphql('{ me { name } }', {}, me.token);
    const res = await app.request('GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const labels = { method: 'GET', route: '/api/user/campaigns', status: '200' };
    expect(sample(res.text, 'vozgate_http_requests_total', labels)).toBe(sample(before, 'vozgate_http_requests_total', labels) + 1);
    expect(sample(res.text, 'vozgate_http_request_duration_seconds_count', labels)).toBeGreaterThan(0);
    expect(sample(res.text, 'vozgate_graphql_operations_total', { type: 'query', outcome: 'ok' })).toBeGreaterThan(sample(before, 'vozgate_graphql_operations_total', { type: 'query', outcome: 'ok' }));
    for (const name of ['vozgate_calls_in_progress', 'vozgate_job_queue_depth', 'vozgate_db_pool_connections', 'vozgate_process_resident_memory_bytes']) {
      expect(res.text).toMatch(new RegExp(`^${name}[{ ]`, 'm'));
    }
    // Paths become their route's pattern: no label per id.
    expect(res.text).not.toContain('route="/api/user/leads/424242"');
  });

  it('wants METRICS_TOKEN where it is not a development instance', async () => {
    const guarded = await startTestApp({ metricsOpen: false, metricsToken: 'scrape-secret' });
    try {
      expect((await guarded.request('GET', '/metrics')).status).toBe(401);
      expect((await guarded.request('GET', '/metrics', { headers: { authorization: 'Bearer nope' } })).status).toBe(401);
      const ok = await guarded.request('GET', '/metrics', { headers: { authorization: 'Bearer scrape-secret' } });
      expect(ok.status).toBe(200);
      expect(ok.text).toContain('vozgate_http_requests_total');
    } finally {
      await guarded.close();
    }
  });
});

describe('log lines of what happens', () => {
  it('a line for each call status and each mid-call tool, with the hint for a blocked target', async () => {
    const seen: string[] = [];
    const worked = await startTestApp({}, { workers: true, logger: createLogger('info', { write: (line: string) => void seen.push(line) }) });
    try {
      const account = await worked.account({ balance: '10' });
      const tool = await worked.request('POST', '/api/user/tools', {
        token: account.token,
        body: { name: 'lookup', description: 'Looks up', endpoint: 'http://127.0.0.1:9/x', method: 'GET', timeout: 2 },
      });
      const assistant = await worked.outboundAssistant(account, { tool_ids: [tool.body.data.id] });
      const call = await worked.request('POST', '/api/user/make_call', { token: account.token, body: { phone_number: '+5511987657777', assistant_id: assistant } });
      await worked.finishedCall(call.body.call_id, account.token);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const records = seen.map((line) => JSON.parse(line));
      const statuses = records.filter((r) => r.msg === 'call status' && r.call_id === call.body.call_id).map((r) => r.status);
      expect(statuses).toEqual(['ringing', 'in-progress', 'completed']);
      expect(records.find((r) => r.msg === 'mid-call tool')).toMatchObject({
        call_id: call.body.call_id,
        name: 'lookup',
        error: expect.stringMatching(/^blocked/),
        hint: expect.stringContaining('ALLOW_PRIVATE_NETWORK_TARGETS'),
      });
    } finally {
      await worked.close();
    }
  });

  it('LOG_LEVEL is one of pino’s levels, said at start', () => {
    expect(loadConfig({ LOG_LEVEL: 'debug' }).logLevel).toBe('debug');
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent/);
  });
});
