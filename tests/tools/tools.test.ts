import fc from 'fast-check';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';

let app: TestApp;
let me: TestAccount;
let other: TestAccount;

beforeAll(async () => {
  app = await startTestApp({ maxToolsPerAccount: 5 });
  me = await app.account();
  other = await app.account();
});
afterAll(() => app?.close());

const valid = {
  name: 'check_stock',
  description: 'Checks whether a product is in stock',
  endpoint: 'https://api.example.com/stock',
  method: 'POST',
  timeout: 15,
  headers: [{ name: 'Authorization', value: 'Bearer secret-123' }],
  schema: [{ name: 'product_id', type: 'string', description: 'The product code' }],
};

/** A change to a valid tool, and the one field it makes invalid. */
const BAD_FIELDS: [Record<string, unknown>, string][] = [
  [{ description: 'x'.repeat(256) }, 'description'],
  [{ description: '  ' }, 'description'],
  [{ endpoint: 'ftp://example.com/x' }, 'endpoint'],
  [{ endpoint: 'not a url' }, 'endpoint'],
  [{ endpoint: '/relative' }, 'endpoint'],
  [{ method: 'HEAD' }, 'method'],
  [{ timeout: 0 }, 'timeout'],
  [{ timeout: 31 }, 'timeout'],
  [{ timeout: '5.5' }, 'timeout'],
  [{ speak_during: 'x'.repeat(201) }, 'speak_during'],
  [{ headers: [{ name: 'X-Key' }] }, 'headers.0.value'],
  [{ headers: [{ value: 'v' }] }, 'headers.0.name'],
  [{ headers: [{ name: 'Bad Header', value: 'v' }] }, 'headers.0.name'],
  [{ headers: [{ name: 'Host', value: 'evil.example' }] }, 'headers.0.name'],
  [{ headers: [{ name: 'content-length', value: '1' }] }, 'headers.0.name'],
  [{ headers: [{ name: 'Transfer-Encoding', value: 'chunked' }] }, 'headers.0.name'],
  [{ headers: [{ name: 'X-Inject', value: 'a\r\nX-Other: b' }] }, 'headers.0.value'],
  [{ headers: [{ name: 'X-Nul', value: 'a\u0000b' }] }, 'headers.0.value'],
  [{ headers: [{ name: 'X-Big', value: 'x'.repeat(4097) }] }, 'headers.0.value'],
  [{ headers: 'Authorization: x' }, 'headers'],
  [{ schema: [{ name: 'a', type: 'string', description: 'One letter' }] }, 'schema.0.name'],
  [{ schema: [{ name: 'a'.repeat(33), type: 'string', description: 'Too long' }] }, 'schema.0.name'],
  [{ schema: [{ name: '1abc', type: 'string', description: 'Digit first' }] }, 'schema.0.name'],
  [{ schema: [{ name: 'ab1', type: 'string', description: 'Has a digit' }] }, 'schema.0.name'],
  [{ schema: [{ name: 'abc', type: 'integer', description: 'Wrong type' }] }, 'schema.0.type'],
  [{ schema: [{ name: 'abc', type: 'string', description: 'ab' }] }, 'schema.0.description'],
  [{ schema: [{ name: 'abc', type: 'string', description: 'x'.repeat(256) }] }, 'schema.0.description'],
  [{ schema: [{ name: 'abc', type: 'string' }] }, 'schema.0.description'],
  [
    {
      schema: [
        { name: 'abc', type: 'string', description: 'First' },
        { name: 'abc', type: 'number', description: 'Again' },
      ],
    },
    'schema.1.name',
  ],
];

/** Creates and deletes, so the account stays under the plan limit. */
async function tryCreate(body: Record<string, unknown>, token = me.token) {
  const res = await app.request('POST', '/api/user/tools', { token, body });
  if (res.status === 201) await app.request('DELETE', `/api/user/tools/${res.body.data.id}`, { token });
  return res;
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('POST /user/tools', () => {
  it('creates a tool: 201 with the documented envelope, timestamps in ISO 8601', async () => {
    const res = await tryCreate(valid);
    expect(res.status).toBe(201);
    expect(res.body.message).toBe('Tool created successfully');
    expect(res.body.data).toEqual({
      id: expect.any(Number),
      name: 'check_stock',
      description: valid.description,
      endpoint: valid.endpoint,
      method: 'POST',
      timeout: 15,
      headers: valid.headers,
      schema: valid.schema,
      speak_during: null,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    expect(res.body.data).not.toHaveProperty('assistants');
  });

  it('defaults the timeout to 10 and headers and schema to empty', async () => {
    const res = await tryCreate({ name: 'ping', description: 'Ping', endpoint: 'http://example.com', method: 'get' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ timeout: 10, headers: [], schema: [], method: 'GET' });
  });

  it('stores header values encrypted, never in the clear', async () => {
    const created = await app.request('POST', '/api/user/tools', { token: me.token, body: valid });
    const rows = await app.sql('select * from tools where id = $1', [created.body.data.id]);
    expect(JSON.stringify(rows)).not.toContain('secret-123');
    expect(rows[0].headers_sealed).toMatch(/^v1:/);
    const read = await app.request('GET', `/api/user/tools/${created.body.data.id}`, { token: me.token });
    expect(read.body.headers).toEqual(valid.headers);
    await app.request('DELETE', `/api/user/tools/${created.body.data.id}`, { token: me.token });
  });

  it.each(['Check', '_check', '1check', 'check-stock', 'check stock', 'chéck', ''])('refuses the name %p with the name rule as message', async (name) => {
    const res = await tryCreate({ ...valid, name });
    expect(res.status).toBe(422);
    const rule = 'O nome da ferramenta deve conter apenas letras minúsculas e underscores (_) e começar com uma letra.';
    expect(res.body.message).toBe(rule);
    expect(res.body.errors.name).toEqual([rule]);
  });

  it('names every missing required field', async () => {
    const res = await tryCreate({});
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['description', 'endpoint', 'method', 'name']);
  });

  it.each(BAD_FIELDS.map(([change, field]) => [field, change] as const))('refuses a bad %s (case %#)', async (field, change) => {
    const res = await tryCreate({ ...valid, ...change });
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('Falha na validação');
    expect(Object.keys(res.body.errors)).toEqual([field]);
  });

  it('accepts every timeout from 1 to 30 and refuses the rest (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: -5, max: 40 }), async (timeout) => {
        const res = await tryCreate({ ...valid, timeout });
        expect(res.status).toBe(timeout >= 1 && timeout <= 30 ? 201 : 422);
      }),
      { numRuns: 40 },
    );
  });

  it('accepts descriptions up to 255 characters and schema descriptions of 3 to 255 (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 260 }), fc.integer({ min: 0, max: 260 }), async (toolLength, paramLength) => {
        const res = await tryCreate({
          ...valid,
          description: 'd'.repeat(toolLength),
          schema: [{ name: 'param', type: 'number', description: 'p'.repeat(paramLength) }],
        });
        const ok = toolLength >= 1 && toolLength <= 255 && paramLength >= 3 && paramLength <= 255;
        expect(res.status).toBe(ok ? 201 : 422);
      }),
      { numRuns: 30 },
    );
  });

  it('accepts exactly the five methods, in any case (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('GET', 'post', 'Put', 'PATCH', 'delete', 'HEAD', 'OPTIONS', 'CONNECT', 'GETS'), async (method) => {
        const res = await tryCreate({ ...valid, method });
        expect(res.status).toBe(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(method.toUpperCase()) ? 201 : 422);
      }),
      { numRuns: 20 },
    );
  });
});

describe('the plan limit', () => {
  it('refuses the sixth tool with a message that names the limit and suggests an upgrade', async () => {
    const account = await app.account();
    for (let i = 0; i < 5; i++) {
      expect((await app.request('POST', '/api/user/tools', { token: account.token, body: { ...valid, name: `tool_${'abcde'[i]}` } })).status).toBe(201);
    }
    const sixth = await app.request('POST', '/api/user/tools', { token: account.token, body: valid });
    expect(sixth.status).toBe(422);
    expect(sixth.body.message).toContain('limite de 5 ferramentas');
    expect(sixth.body.message).toMatch(/upgrade/i);
    const gql = await app.graphql(
      `mutation { createTool(input: { name: "x", description: "x", endpoint: "https://x.example", method: "GET" }) { id } }`,
      {},
      account.token,
    );
    expect(gql.body.errors[0].extensions).toMatchObject({ code: 'PLAN_LIMIT', status: 422 });
  });

  it('holds under concurrency: 20 parallel creates on an empty account leave exactly 5 tools', async () => {
    const account = await app.account();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => app.request('POST', '/api/user/tools', { token: account.token, body: valid })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(5);
    expect(results.filter((r) => r.status === 422)).toHaveLength(15);
    const rows = await app.sql('select count(*)::int as n from tools where account_id = $1', [account.accountId]);
    expect(rows[0].n).toBe(5);
  });
});

describe('reading, updating and deleting tools', () => {
  let toolId: number;
  let owner: TestAccount;
  beforeAll(async () => {
    owner = await app.account();
    toolId = (await app.request('POST', '/api/user/tools', { token: owner.token, body: valid })).body.data.id;
  });

  it('GET /user/tools/{id} answers the bare tool; GET /user/tools the list', async () => {
    const res = await app.request('GET', `/api/user/tools/${toolId}`, { token: owner.token, headers: { accept: 'application/json' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: toolId, name: 'check_stock', headers: valid.headers });
    expect(res.body).not.toHaveProperty('message');
    const list = await app.request('GET', '/api/user/tools', { token: owner.token });
    expect(list.body.map((t: any) => t.id)).toEqual([toolId]);
  });

  it('PUT changes only the fields sent and answers every current value', async () => {
    const res = await app.request('PUT', `/api/user/tools/${toolId}`, { token: owner.token, body: { timeout: '20', description: 'New' } });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Tool updated successfully');
    expect(res.body.data).toMatchObject({ id: toolId, name: 'check_stock', description: 'New', timeout: 20, method: 'POST' });
    expect(res.body.data.headers).toEqual(valid.headers);
    expect(res.body.data.schema).toEqual(valid.schema);
  });

  it('PUT replaces headers and schema entirely when they are sent', async () => {
    const res = await app.request('PUT', `/api/user/tools/${toolId}`, {
      token: owner.token,
      body: { headers: [{ name: 'X-Api-Key', value: 'k' }], schema: [] },
    });
    expect(res.body.data.headers).toEqual([{ name: 'X-Api-Key', value: 'k' }]);
    expect(res.body.data.schema).toEqual([]);
  });

  it('PUT validates like create', async () => {
    const bad = await app.request('PUT', `/api/user/tools/${toolId}`, { token: owner.token, body: { timeout: 99, method: 'TRACE' } });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe('Falha na validação');
    expect(Object.keys(bad.body.errors).sort()).toEqual(['method', 'timeout']);
    // Only create words an invalid name as the name rule (the spec's Errors table); update says Falha na validação.
    const name = await app.request('PUT', `/api/user/tools/${toolId}`, { token: owner.token, body: { name: 'Bad' } });
    expect(name.body).toEqual({
      message: 'Falha na validação',
      code: 'VALIDATION_FAILED',
      errors: { name: ['O nome da ferramenta deve conter apenas letras minúsculas e underscores (_) e começar com uma letra.'] },
    });
    const nulls = await app.request('PUT', `/api/user/tools/${toolId}`, { token: owner.token, body: { endpoint: null } });
    expect(nulls.body.errors).toEqual({ endpoint: ['O campo endpoint é obrigatório.'] });
  });

  it("answers another account's tool exactly like a missing one, on every route", async () => {
    const theirs = (await app.request('POST', '/api/user/tools', { token: other.token, body: valid })).body.data.id;
    for (const [method, body] of [['GET', undefined], ['PUT', { timeout: 5 }], ['DELETE', undefined]] as const) {
      const foreign = await app.request(method, `/api/user/tools/${theirs}`, { token: owner.token, body });
      const missing = await app.request(method, `/api/user/tools/987654`, { token: owner.token, body });
      expect(foreign.status).toBe(404);
      expect(foreign.body).toEqual({ message: 'Ferramenta não encontrada', code: 'NOT_FOUND' });
      expect(missing.text).toBe(foreign.text);
    }
    expect((await app.request('GET', `/api/user/tools/${theirs}`, { token: other.token })).body.timeout).toBe(15);
  });

  it('speak_during: stored trimmed and answered; null or blank clears it; at most 200 characters, checked before any write', async () => {
    const phrase = 'Só um instante, estou consultando o estoque.';
    const set = await app.request('PUT', `/api/user/tools/${toolId}`, { token: owner.token, body: { speak_during: `  ${phrase} ` } });
    expect(set.status).toBe(200);
    expect(set.body.data.speak_during).toBe(phrase);
    expect((await app.request('GET', `/api/user/tools/${toolId}`, { token: owner.token })).body.speak_during).toBe(phrase);
    const long = await app.request('PUT', `/api/user/tools/${toolId}`, { token: owner.token, body: { speak_during: 'x'.repeat(201), timeout: 7 } });
    expect(long.status).toBe(422);
    expect(long.body).toEqual({
      message: 'Falha na validação',
      code: 'VALIDATION_FAILED',
      errors: { speak_during: ['O campo speak_during não pode ser superior a 200 caracteres.'] },
    });
    const kept = (await app.request('GET', `/api/user/tools/${toolId}`, { token: owner.token })).body;
    expect(kept).toMatchObject({ speak_during: phrase, timeout: 20 }); // nothing of the refused update written
    expect((await app.request('PUT', `/api/user/tools/${toolId}`, { token: owner.token, body: { speak_during: 'x'.repeat(200) } })).status).toBe(200);
    expect((await app.request('PUT', `/api/user/tools/${toolId}`, { token: owner.token, body: { speak_during: '  ' } })).body.data.speak_during).toBeNull();
    await app.request('PUT', `/api/user/tools/${toolId}`, { token: owner.token, body: { speak_during: phrase } });
    expect((await app.request('PUT', `/api/user/tools/${toolId}`, { token: owner.token, body: { speak_during: null } })).body.data.speak_during).toBeNull();
  });

  it('DELETE removes the tool', async () => {
    const res = await app.request('DELETE', `/api/user/tools/${toolId}`, { token: owner.token });
    expect(res.body).toEqual({ message: 'Tool deleted successfully' });
    expect((await app.request('GET', `/api/user/tools/${toolId}`, { token: owner.token })).status).toBe(404);
  });
});

describe('tools over GraphQL', () => {
  it('shares the rules and the data', async () => {
    const account = await app.account();
    const created = await app.graphql(
      `mutation($input: CreateToolInput!) { createTool(input: $input) { id name timeout headers { name value } schema { name } } }`,
      { input: valid },
      account.token,
    );
    expect(created.body.data.createTool).toMatchObject({ name: 'check_stock', timeout: 15, headers: valid.headers });
    const spoken = await app.graphql(
      `mutation($id: Int!) { updateTool(id: $id, input: { speak_during: "Um instante, por favor." }) { speak_during } }`,
      { id: created.body.data.createTool.id },
      account.token,
    );
    expect(spoken.body.data.updateTool).toEqual({ speak_during: 'Um instante, por favor.' });
    const bad = await app.graphql(`mutation { createTool(input: { name: "Bad", description: "d", endpoint: "https://x.example", method: "GET" }) { id } }`, {}, account.token);
    expect(bad.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', errors: { name: [expect.any(String)] } });
    const list = await app.graphql(`{ tools { id } }`, {}, account.token);
    expect(list.body.data.tools).toEqual([{ id: created.body.data.createTool.id }]);
    const deleted = await app.graphql(`mutation($id: Int!) { deleteTool(id: $id) }`, { id: created.body.data.createTool.id }, account.token);
    expect(deleted.body.data.deleteTool).toBe(true);
  });
});

describe('a tool whose endpoint is on a private address (the webhook endpoints’ rule)', () => {
  it('is taken with data.warning in development, refused with 422 outside it, and plain when private targets are allowed', async () => {
    const saved = { allow: app.config.allowPrivateNetworkTargets, development: app.config.development };
    try {
      app.config.allowPrivateNetworkTargets = false;
      app.config.development = true;
      const warned = await tryCreate({ ...valid, endpoint: 'http://127.0.0.1:9/stock' });
      expect(warned.status).toBe(201);
      expect(warned.body.data.warning).toContain('ALLOW_PRIVATE_NETWORK_TARGETS=true');
      const gql = await app.graphql(
        'mutation($input: CreateToolInput!) { createTool(input: $input) { id warning } }',
        { input: { ...valid, name: 'inside_tool', endpoint: 'http://localhost:9/x' } },
        me.token,
      );
      expect(gql.body.data.createTool.warning).toContain('ALLOW_PRIVATE_NETWORK_TARGETS=true');
      const id = gql.body.data.createTool.id;
      // An update that moves the endpoint inside warns too; one to a public address does not.
      const moved = await app.request('PUT', `/api/user/tools/${id}`, { token: me.token, body: { endpoint: 'http://10.0.0.7/x' } });
      expect(moved.body.data.warning).toContain('ALLOW_PRIVATE_NETWORK_TARGETS=true');
      const out = await app.request('PUT', `/api/user/tools/${id}`, { token: me.token, body: { endpoint: 'https://tools.example.com/x' } });
      expect(out.status).toBe(200);
      expect(out.body.data).not.toHaveProperty('warning');

      app.config.development = false;
      const refused = await tryCreate({ ...valid, endpoint: 'http://127.0.0.1:9/stock' });
      expect(refused.status).toBe(422);
      expect(refused.body.errors.endpoint).toEqual([expect.stringContaining('endereço interno')]);
      const update = await app.request('PUT', `/api/user/tools/${id}`, { token: me.token, body: { endpoint: 'http://localhost:9/x' } });
      expect(update.status).toBe(422);
      expect((await app.request('GET', `/api/user/tools/${id}`, { token: me.token })).body.endpoint).toBe('https://tools.example.com/x');
      await app.request('DELETE', `/api/user/tools/${id}`, { token: me.token });
    } finally {
      app.config.allowPrivateNetworkTargets = saved.allow;
      app.config.development = saved.development;
    }
    app.config.allowPrivateNetworkTargets = true;
    try {
      const allowed = await tryCreate({ ...valid, endpoint: 'http://127.0.0.1:9/stock' });
      expect(allowed.status).toBe(201);
      expect(allowed.body.data).not.toHaveProperty('warning');
    } finally {
      app.config.allowPrivateNetworkTargets = saved.allow;
    }
  });
});
