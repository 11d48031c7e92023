import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';

let app: TestApp;
let me: TestAccount;

beforeAll(async () => {
  app = await startTestApp({
    graphql: { introspection: false, ide: false, maxDepth: 4, maxCost: 3000, maxAliases: 3, maxTokens: 400, maxDirectives: 5, wsKeepAliveMs: 12_000 },
  });
  me = await app.account();
});
afterAll(() => app?.close());

const codeOf = (res: any) => res.body.errors?.[0]?.extensions?.code;

describe('GraphQL limits, before any resolver runs', () => {
  it('accepts ordinary operations', async () => {
    const res = await app.graphql('{ leads(per_page: 5) { total data { id campaign { name } secondary_contacts { phone_number } } } }', {}, me.token);
    expect(res.body.errors).toBeUndefined();
  });

  it('refuses operations deeper than the limit', async () => {
    const fits = await app.graphql('{ leads { data { campaign { id } } } }', {}, me.token);
    expect(fits.body.errors).toBeUndefined();
    const tooDeep = await app.graphql('{ calls { data { webhook_deliveries { attempts { attempt } } } } }', {}, me.token);
    expect(tooDeep.status).toBe(400);
    expect(codeOf(tooDeep)).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('refuses operations that cost more than the budget', async () => {
    const costly = await startTestApp({ graphql: { ...app.config.graphql, maxCost: 10 } });
    try {
      const account = await costly.account();
      const res = await costly.graphql('{ calls { data { id status duration transcript variables evaluation } total } }', {}, account.token);
      expect(res.status).toBe(400);
      expect(res.body.errors[0].message).toMatch(/cost/i);
    } finally {
      await costly.close();
    }
  });

  it('refuses too many aliases and too many tokens', async () => {
    const aliases = await app.graphql('{ a: campaigns { id } b: campaigns { id } c: campaigns { id } d: campaigns { id } }', {}, me.token);
    expect(aliases.status).toBe(400);
    expect(codeOf(aliases)).toBe('GRAPHQL_VALIDATION_FAILED');
    const tokens = await app.graphql(`{ campaigns { ${'id '.repeat(500)} } }`, {}, me.token);
    expect(tokens.status).toBe(400);
    expect(codeOf(tokens)).toBe('GRAPHQL_PARSE_FAILED');
  });

  it('refuses batched requests', async () => {
    const res = await app.request('POST', '/graphql', { token: me.token, body: [{ query: '{ campaigns { id } }' }, { query: '{ campaigns { id } }' }] });
    expect(res.status).toBe(400);
  });

  it('answers introspection only when GRAPHQL_INTROSPECTION is on, and suggests no field names', async () => {
    const res = await app.graphql('{ __schema { types { name } } }', {}, me.token);
    expect(res.status).toBe(400);
    const typo = await app.graphql('{ campaign { id } }', {}, me.token);
    expect(JSON.stringify(typo.body)).not.toContain('Did you mean');
    const open = await startTestApp({ graphql: { ...app.config.graphql, introspection: true } });
    try {
      // Like every operation, introspection needs a token.
      expect((await open.graphql('{ __schema { queryType { name } } }', {}, null)).status).toBe(401);
      const allowed = await open.graphql('{ __schema { queryType { name } } }', {}, (await open.account()).token);
      expect(allowed.body.data.__schema.queryType.name).toBe('Query');
    } finally {
      await open.close();
    }
  });
});
