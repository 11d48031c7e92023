import { startTestApp, type TestApp, type TestAccount } from '../helpers/app';

let app: TestApp;
let account: TestAccount;

beforeAll(async () => {
  app = await startTestApp();
  account = await app.account();
});
afterAll(() => app?.close());

describe('bearer tokens', () => {
  const unauthenticated = { message: 'Não autenticado.', code: 'UNAUTHENTICATED' };

  it.each([
    ['no header', undefined],
    ['an empty bearer', 'Bearer '],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
    ['a malformed token', 'Bearer not-a-token'],
    ['an unknown token of the right shape', `Bearer vzg_${'A'.repeat(43)}`],
    ['a token with trailing garbage', 'Bearer vzg_abc def'],
  ])('refuses %s with 401 and the documented body', async (_case, header) => {
    const headers: Record<string, string> = header === undefined ? {} : { authorization: header };
    for (const [method, path] of [
      ['GET', '/api/user/leads'],
      ['POST', '/api/user/lead'],
      ['PUT', '/api/user/leads/1'],
      ['GET', '/api/user/campaigns'],
    ]) {
      const res = await app.request(method, path, { headers, body: method === 'GET' ? undefined : {} });
      expect(res.status).toBe(401);
      expect(res.body).toEqual(unauthenticated);
    }
  });

  it('answers GraphQL without a valid token with UNAUTHENTICATED', async () => {
    const res = await app.graphql('{ campaigns { id } }', {}, 'vzg_nope');
    expect(res.body.data).toBeNull();
    expect(res.body.errors[0].message).toBe('Não autenticado.');
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'UNAUTHENTICATED', status: 401 });
  });

  it('accepts every token of an account, case-insensitively on the scheme', async () => {
    const second = (await app.account()).token;
    expect((await app.request('GET', '/api/user/campaigns', { token: account.token })).status).toBe(200);
    expect((await app.request('GET', '/api/user/campaigns', { token: second })).status).toBe(200);
    const res = await app.request('GET', '/api/user/campaigns', { headers: { authorization: `bearer ${account.token}` } });
    expect(res.status).toBe(200);
  });

  it('stores tokens only as SHA-256 digests', async () => {
    const rows = await app.sql<{ token_hash: string; prefix: string }>('select token_hash, prefix from api_tokens');
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.prefix).toMatch(/^vzg_.{8}$/);
    }
    const all = JSON.stringify(await app.sql('select * from api_tokens'));
    expect(all).not.toContain(account.token);
  });
});

describe('service endpoints', () => {
  it('reports liveness and readiness', async () => {
    expect(await app.request('GET', '/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(await app.request('GET', '/readyz')).toMatchObject({ status: 200, body: { status: 'ok' } });
  });

  it('answers unknown routes and methods in JSON', async () => {
    expect(await app.request('GET', '/api/nope', { token: account.token })).toMatchObject({ status: 404 });
    const res = await app.request('DELETE', '/api/user/campaigns', { token: account.token });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toContain('GET');
  });
});
