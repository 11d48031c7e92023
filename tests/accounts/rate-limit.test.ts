import { startTestApp, type TestApp } from '../helpers/app';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ rateLimitPerMinute: 5 });
});
afterAll(() => app?.close());

describe('per-token rate limit', () => {
  it('answers 429 with Retry-After past the limit, on REST and GraphQL alike, per token', async () => {
    // The window is the clock minute: when it is about to turn, wait for the next one.
    const seconds = new Date().getUTCSeconds();
    if (seconds > 50) await new Promise((resolve) => setTimeout(resolve, (61 - seconds) * 1000));
    const account = await app.account();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await app.request('GET', '/api/user/campaigns', { token: account.token })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);

    const limited = await app.request('GET', '/api/user/campaigns', { token: account.token });
    expect(limited.status).toBe(429);
    expect(limited.body.message).toMatch(/^Muitas requisições\. Tente novamente em \d+ segundos?\.$/);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);

    const gql = await app.graphql('{ campaigns { id } }', {}, account.token);
    expect(gql.status).toBe(429);
    expect(gql.body.errors[0].extensions.code).toBe('RATE_LIMITED');

    // Another token counts on its own, and the counts are in the database (shared by every process).
    const second = await app.account();
    expect((await app.request('GET', '/api/user/campaigns', { token: second.token })).status).toBe(200);
    const rows = await app.sql('select requests from rate_limit_windows order by requests desc limit 1');
    expect(rows[0].requests).toBe(7);
  });

  it('still answers 401 for a missing token, whatever the counts', async () => {
    expect((await app.request('GET', '/api/user/campaigns')).status).toBe(401);
  });
});
