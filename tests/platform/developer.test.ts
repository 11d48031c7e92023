import http from 'node:http';
import { loadConfig } from '../../src/config';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';

/** What frontend developers and integrators meet first: CORS, GET queries, errors with codes. */
let app: TestApp;
let me: TestAccount;

beforeAll(async () => {
  app = await startTestApp({ cors: { anyOrigin: false, origins: ['https://app.example.com'], localhost: true } });
  me = await app.account({ balance: '0' });
});
afterAll(() => app?.close());

const preflight = (path: string, origin: string, method = 'POST') =>
  fetch(`${app.url}${path}`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization,content-type,idempotency-key' },
  });

describe('CORS', () => {
  it.each(['/graphql', '/api/user/leads', '/api/user/sms'])('answers a preflight to %s from an allowed origin with 204', async (path) => {
    for (const origin of ['https://app.example.com', 'http://localhost:5173', 'http://127.0.0.1:3000']) {
      const res = await preflight(path, origin);
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(origin);
      expect(res.headers.get('access-control-allow-headers')?.toLowerCase().split(',')).toEqual(['authorization', 'content-type', 'idempotency-key']);
      expect(res.headers.get('access-control-allow-methods')).toContain('PUT');
    }
  });

  it('exposes the paging, Link, Retry-After and request-id headers to an allowed origin', async () => {
    const res = await fetch(`${app.url}/api/user/leads`, { headers: { origin: 'https://app.example.com', authorization: `Bearer ${me.token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(res.headers.get('access-control-expose-headers')?.toLowerCase().split(',')).toEqual(
      expect.arrayContaining(['x-total-count', 'x-per-page', 'x-current-page', 'x-last-page', 'link', 'retry-after', 'x-request-id']),
    );
  });

  it('gives an origin that is not allowed no CORS headers at all', async () => {
    for (const origin of ['https://evil.example', 'https://app.example.com.evil.example', 'http://localhost.evil.example']) {
      const pre = await preflight('/graphql', origin);
      expect(pre.headers.get('access-control-allow-origin')).toBeNull();
      const res = await fetch(`${app.url}/api/user/leads`, { headers: { origin, authorization: `Bearer ${me.token}` } });
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(res.headers.get('access-control-expose-headers')).toBeNull();
    }
  });

  it('follows CORS_ORIGINS, and NODE_ENV=production for the localhost default', () => {
    expect(loadConfig({}).cors).toEqual({ anyOrigin: false, origins: [], localhost: true });
    expect(loadConfig({ NODE_ENV: 'production' }).cors).toEqual({ anyOrigin: false, origins: [], localhost: false });
    expect(loadConfig({ DATABASE_URL: 'postgres://x/y' }).cors.localhost).toBe(false);
    expect(loadConfig({ CORS_ORIGINS: '*' }).cors.anyOrigin).toBe(true);
    expect(loadConfig({ CORS_ORIGINS: 'https://a.example, http://b.example:8080/' }).cors.origins).toEqual(['https://a.example', 'http://b.example:8080']);
    expect(() => loadConfig({ CORS_ORIGINS: 'https://a.example/path' })).toThrow(/CORS_ORIGINS/);
  });
});

describe('GET /graphql', () => {
  it('runs a query with only the Authorization header', async () => {
    const res = await fetch(`${app.url}/graphql?query=${encodeURIComponent('{ languages { name } }')}`, { headers: { authorization: `Bearer ${me.token}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).data.languages.length).toBeGreaterThan(0);
  });

  it('refuses a mutation, as GraphQL over HTTP says', async () => {
    const query = encodeURIComponent('mutation { createCampaign(input: { name: "x" }) { id } }');
    const res = await fetch(`${app.url}/graphql?query=${query}`, { headers: { authorization: `Bearer ${me.token}` } });
    expect(res.status).toBe(405);
    expect((await app.sql(`select count(*)::int as n from campaigns where account_id = $1 and name = 'x'`, [me.accountId]))[0].n).toBe(0);
  });
});

describe('errors a program can read', () => {
  it('every REST error carries the code of GraphQL beside the message', async () => {
    const other = await app.account({ balance: '10' });
    const phone = await app.phoneNumber(other.accountId, '+5511933008000', { sms: true });
    const voiceOnly = await app.phoneNumber(other.accountId, '+5511933008001');
    // Run one after the other: some cases move the balance.
    const cases: [string, () => Promise<any>, number, string][] = [
      ['no token', () => app.request('GET', '/api/user/leads'), 401, 'UNAUTHENTICATED'],
      ['no balance', () => app.request('POST', '/api/user/sms', { token: me.token, body: { from: phone, to: '+5511987654321', body: 'oi' } }), 404, 'NOT_FOUND'],
      ['missing', () => app.request('GET', '/api/user/leads/999999', { token: me.token }), 404, 'NOT_FOUND'],
      ['no route', () => app.request('GET', '/api/nope', { token: me.token }), 404, 'NOT_FOUND'],
      ['wrong method', () => app.request('PATCH', '/api/user/leads', { token: me.token }), 405, 'METHOD_NOT_ALLOWED'],
      ['too large', () => app.request('POST', '/api/user/lead', { token: me.token, rawBody: `{"x":"${'a'.repeat(app.config.maxBodyBytes)}"}` }), 413, 'PAYLOAD_TOO_LARGE'],
      ['not JSON', () => app.request('POST', '/api/user/lead', { token: me.token, rawBody: 'phone_number=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['invalid', () => app.request('POST', '/api/user/lead', { token: me.token, body: {} }), 422, 'VALIDATION_FAILED'],
      ['forbidden', () => app.request('POST', '/api/user/sms', { token: other.token, body: { from: voiceOnly, to: '+5511987654321', body: 'oi' } }), 403, 'FORBIDDEN'],
      ['conflict', () => app.request('POST', '/api/user/sms', { token: other.token, body: { from: phone, to: '+5511987654323', body: 'oi' }, headers: { 'idempotency-key': 'k1' } }).then(() =>
        app.request('POST', '/api/user/sms', { token: other.token, body: { from: phone, to: '+5511987654323', body: 'outro' }, headers: { 'idempotency-key': 'k1' } })), 409, 'CONFLICT'],
      ['balance', () => app.request('POST', '/api/user/sms', { token: other.token, body: { from: phone, to: '+5511987654321', body: 'oi' } }).then(async () => {
        await app.sql('update accounts set balance = 0 where id = $1', [other.accountId]);
        return app.request('POST', '/api/user/sms', { token: other.token, body: { from: phone, to: '+5511987654322', body: 'oi' } });
      }), 402, 'INSUFFICIENT_BALANCE'],
      ['provider', () => app.sql('update accounts set balance = 5 where id = $1', [other.accountId]).then(() =>
        app.request('POST', '/api/user/sms', { token: other.token, body: { from: phone, to: '+5511987659999', body: 'oi' } })), 502, 'PROVIDER_FAILURE'],
    ];
    for (const [name, run, status, code] of cases) {
      const res = await run();
      expect({ name, status: res.status, code: res.body.code }).toEqual({ name, status, code });
      expect(typeof res.body.message).toBe('string');
    }
  });

  it('a body sent in chunks, with no length, is refused with a 413 once it passes the limit, in each API’s error shape', async () => {
    for (const path of ['/api/user/lead', '/graphql']) {
      const answer = await new Promise<{ status: number; body: any }>((resolve, reject) => {
        const req = http.request(`${app.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${me.token}`, 'content-type': 'application/json' } }, (res) => {
          let text = '';
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
        });
        req.on('error', reject);
        const chunk = `"${'a'.repeat(16 * 1024)}",`;
        req.write('{"query": [');
        for (let sent = 0; sent <= app.config.maxBodyBytes; sent += chunk.length) req.write(chunk);
        req.end('""]}');
      });
      // Each API answers in its own error shape.
      const code = path === '/graphql' ? answer.body.errors?.[0]?.extensions?.code : answer.body.code;
      expect({ path, status: answer.status, code }).toEqual({ path, status: 413, code: 'PAYLOAD_TOO_LARGE' });
    }
    expect((await app.request('GET', '/api/user/leads', { token: me.token })).status).toBe(200);
  });

  it('a 401 names the Bearer scheme, on REST and GraphQL', async () => {
    expect((await app.request('GET', '/api/user/leads')).headers.get('www-authenticate')).toBe('Bearer');
    const gql = await app.graphql('{ me { name } }', {}, null);
    expect(gql.status).toBe(401);
    expect(gql.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('a 429 carries retry_after in the body and Retry-After in the headers', async () => {
    const limited = await startTestApp({ rateLimitPerMinute: 1 });
    try {
      const account = await limited.account();
      await limited.request('GET', '/api/user/campaigns', { token: account.token });
      const res = await limited.request('GET', '/api/user/campaigns', { token: account.token });
      expect(res.status).toBe(429);
      expect(res.body).toEqual({ message: expect.stringMatching(/^Muitas requisições/), code: 'RATE_LIMITED', retry_after: Number(res.headers.get('retry-after')) });
      expect(res.body.retry_after).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });

  it('says "objeto" of objects and "lista" of lists', async () => {
    const res = await app.request('POST', '/api/user/lead', { token: me.token, body: { phone_number: '+5511987654321', campaign_id: me.campaignId, variables: 'x', secondary_contacts: 'y' } });
    expect(res.body.errors).toEqual({ variables: ['O campo variables deve ser um objeto.'], secondary_contacts: ['O campo secondary_contacts deve ser uma lista.'] });
  });

  it.each([
    ['a parse error', '{ leads { '],
    ['a validation error', '{ leads { nope } }'],
    ['a variable of the wrong type', 'query($id: Int!) { lead(id: $id) { id } }'],
  ])('GraphQL answers %s with the HTTP status its extensions claim', async (_name, query) => {
    const res = await app.graphql(query, { id: 'abc' }, me.token);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.status).toBe(400);
  });
});

describe('what a client needs to discover', () => {
  it('lists the account’s phone numbers, and only its own', async () => {
    const account = await app.account();
    const sms = await app.phoneNumber(account.accountId, '+5511933009001', { sms: true, expiresAt: '2030-01-31' });
    const voice = await app.phoneNumber(account.accountId, '+5511933009002');
    const assistant = await app.outboundAssistant(account);
    const [{ phone_number_id }] = await app.sql('select phone_number_id from assistants where id = $1', [assistant]);
    // Numbers of the operator's (not bought here): no price, never renewed.
    const given = { nickname: null, monthly_price: null, renews: false };
    const expected = [
      { id: sms, phone_number: '+5511933009001', sms_capable: true, expires_at: '2030-01-31', assistant_id: null, whatsapp: false, ...given },
      { id: voice, phone_number: '+5511933009002', sms_capable: false, expires_at: null, assistant_id: null, whatsapp: false, ...given },
      { id: phone_number_id, phone_number: expect.any(String), sms_capable: false, expires_at: null, assistant_id: assistant, whatsapp: false, ...given },
    ];
    expect((await app.request('GET', '/api/user/phone-numbers', { token: account.token })).body).toEqual(expected);
    // The original platform's clients read this path's list under `data`.
    expect((await app.request('GET', '/api/user/phone-numbers/all', { token: account.token })).body).toEqual({ data: expected });
    const gql = await app.graphql('{ phoneNumbers { id phone_number sms_capable expires_at assistant_id whatsapp nickname monthly_price renews } }', {}, account.token);
    expect(gql.body.data.phoneNumbers).toEqual(expected);
    expect((await app.request('GET', '/api/user/phone-numbers', { token: me.token })).body).toEqual([]);
  });

  it('lists the account’s assistants, and the outbound ones alone', async () => {
    const account = await app.account();
    const outbound = await app.outboundAssistant(account);
    const inbound = await app.outboundAssistant(account, { calls_direction: 'receive' });
    const all = await app.request('GET', '/api/user/assistants', { token: account.token });
    expect(all.body.map((a: any) => [a.id, a.type])).toEqual([[outbound, 'outbound'], [inbound, 'inbound']]);
    expect(all.body).toEqual((await app.request('GET', '/api/user/assistants/get', { token: account.token })).body);
    const out = await app.request('GET', '/api/user/assistants/outbound', { token: account.token });
    expect(out.body.map((a: any) => a.id)).toEqual([outbound]);
    const bad = await app.graphql('{ assistants(calls_direction: "sideways") { id } }', {}, account.token);
    expect(bad.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
  });
});

describe('production conventions', () => {
  it('NODE_ENV=production turns introspection and the demo seed off unless their own variables say otherwise', () => {
    expect(loadConfig({})).toMatchObject({ seedDemo: true, graphql: { introspection: true } });
    expect(loadConfig({ NODE_ENV: 'production' })).toMatchObject({ seedDemo: false, graphql: { introspection: false } });
    expect(loadConfig({ NODE_ENV: 'production', SEED_DEMO: 'true', GRAPHQL_INTROSPECTION: 'true' })).toMatchObject({ seedDemo: true, graphql: { introspection: true } });
  });
});
