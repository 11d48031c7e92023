import { GraphQLError } from 'graphql';
import net from 'node:net';
import { isDatabaseUnavailable } from '../../src/db/availability';
import { serializeError } from '../../src/log';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';

let app: TestApp;
let me: TestAccount;

beforeAll(async () => {
  app = await startTestApp();
  me = await app.account();
});
afterAll(() => app?.close());

/** Sends bytes as they are (no client library tidies the request line or the Host header). */
function rawRequest(baseUrl: string, text: string): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(text));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

const statusOf = (response: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1]);

describe('malformed requests get a 400 and the process serves on', () => {
  it.each([
    ['a Host that is no host', 'GET /healthz HTTP/1.1\r\nHost: [\r\nConnection: close\r\n\r\n'],
    ['an asterisk target', 'OPTIONS * HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n'],
    ['an absolute-form target with a bad host', 'GET http://[/healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n'],
  ])('%s', async (_name, request) => {
    const response = await rawRequest(app.url, request);
    expect(statusOf(response)).toBe(400);
    expect(response).toContain('{"message":"Requisição inválida.","code":"BAD_REQUEST"}');
    expect(await app.request('GET', '/healthz')).toMatchObject({ status: 200 });
  });

  it('never reflects the Host header into links: they are built on PUBLIC_URL', async () => {
    const response = await rawRequest(
      app.url,
      `GET /api/user/leads?per_page=1 HTTP/1.1\r\nHost: evil.example\r\nAuthorization: Bearer ${me.token}\r\nConnection: close\r\n\r\n`,
    );
    expect(statusOf(response)).toBe(200);
    expect(response).not.toContain('evil.example');
    expect(response).toContain(`<${app.config.publicUrl}/api/user/leads?per_page=1&page=1>; rel="first"`);
  });

  it('answers a path id with malformed percent-encoding as a missing resource', async () => {
    expect(await app.request('GET', '/api/user/leads/%zz', { token: me.token })).toMatchObject({ status: 404, body: { message: 'Lead não encontrado' } });
    expect(await app.request('DELETE', '/api/user/calls/%E0%A4%A', { token: me.token })).toMatchObject({
      status: 404,
      body: { message: 'Chamada não encontrada' },
    });
    expect(await app.request('GET', '/api/user/leads/%zz')).toMatchObject({ status: 401 });
  });

  it('names the body when a JSON body is null', async () => {
    const res = await app.request('POST', '/api/user/lead', { token: me.token, rawBody: 'null' });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(['body']);
  });

  it('refuses a subscription over HTTP as a client error, pointing at the WebSocket', async () => {
    const res = await app.graphql('subscription { callUpdated { id } }', {}, me.token);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
    expect(res.body.errors[0].message).toContain('WebSocket (graphql-ws) em /graphql');
  });

  it('checks the token of a GraphQL request before reading its body', async () => {
    const res = await app.request('POST', '/graphql', { rawBody: '{ not json', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(401);
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'UNAUTHENTICATED', status: 401 });
    const withToken = await app.request('POST', '/graphql', { token: me.token, rawBody: '{ not json' });
    expect(withToken.status).toBe(400);
  });
});

describe('text PostgreSQL cannot store is refused on the field', () => {
  const leadsBefore = () => app.sql('select count(*)::int as n from leads').then((rows) => rows[0].n);

  it.each([
    ['a NUL byte', 'a\u0000b'],
    ['a lone UTF-16 half', 'a\ud800b'],
  ])('%s in a text field (REST and GraphQL)', async (_name, text) => {
    const rest = await app.request('POST', '/api/user/campaigns', { token: me.token, body: { name: text } });
    expect(rest.status).toBe(422);
    expect(Object.keys(rest.body.errors)).toEqual(['name']);
    const gql = await app.graphql('mutation($name: String!) { createCampaign(input: { name: $name }) { id } }', { name: text }, me.token);
    expect(gql.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', status: 422 });
    expect(Object.keys(gql.body.errors[0].extensions.errors)).toEqual(['name']);
  });

  it.each([
    ['a NUL byte in a value', { note: 'x\u0000y' }, 'variables.note'],
    ['a NUL byte in a key', { ['k\u0000']: 1 }, 'variables'],
    ['a lone UTF-16 half deep inside', { a: [{ b: '\udc00' }] }, 'variables.a.0.b'],
  ])('%s of free-form variables', async (_name, variables, field) => {
    const before = await leadsBefore();
    const res = await app.request('POST', '/api/user/lead', {
      token: me.token,
      body: { phone_number: '+5511987650001', campaign_id: me.campaignId, variables },
    });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual([field]);
    expect(await leadsBefore()).toBe(before);
    expect(app.loggedErrors).toEqual([]);
  });

  it('a protocol violation is not an outage', () => {
    expect(isDatabaseUnavailable({ code: '08P01', message: 'invalid message format' })).toBe(false);
    expect(isDatabaseUnavailable({ code: '08006', message: 'connection failure' })).toBe(true);
  });

  it('a refused connection that graphql-js wrapped as a non-Error value is an outage', () => {
    const wrapped = new GraphQLError('x', { originalError: new Error('Unexpected error value: { errno: -111, code: "ECONNREFUSED", syscall: "connect", address: "127.0.0.1", port: 45545 }') });
    expect(isDatabaseUnavailable(wrapped)).toBe(true);
    expect(isDatabaseUnavailable(new Error('Unexpected error value: { code: "E_SOMETHING_ELSE" }'))).toBe(false);
  });
});

describe('free-form objects have a bounded depth', () => {
  /** `{"a":{"a":...{"leaf":1}}}` as text: too deep for JSON.stringify to write. */
  const nested = (levels: number) => `${'{"a":'.repeat(levels - 1)}{"leaf":1}${'}'.repeat(levels - 1)}`;
  const leadBody = (phone: string, levels: number) =>
    `{"phone_number":"${phone}","campaign_id":${me.campaignId},"variables":${nested(levels)}}`;

  it('accepts ten levels and refuses deeper ones, up to thousands, with a 422', async () => {
    const ok = await app.request('POST', '/api/user/lead', { token: me.token, rawBody: leadBody('+5511987650002', 10) });
    expect(ok.status).toBe(200);
    for (const levels of [11, 5000]) {
      const res = await app.request('POST', '/api/user/lead', { token: me.token, rawBody: leadBody('+5511987650003', levels) });
      expect(res.status).toBe(422);
      const field = `variables${'.a'.repeat(10)}`;
      expect(res.body.errors).toEqual({ [field]: [`O campo ${field} não pode ter mais de 10 níveis de aninhamento.`] });
      const call = await app.request('POST', '/graphql', {
        token: me.token,
        rawBody: `{"query":"mutation($input: MakeCallInput!) { makeCall(input: $input, idempotency_key: \\"deep\\") { call_id } }",
          "variables":{"input":{"phone_number":"+5511987650003","assistant_id":1,"variables":${nested(levels)}}}}`,
      });
      expect(call.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', errors: { [field]: expect.any(Array) } });
    }
    expect(app.loggedErrors).toEqual([]);
  });

  it('lists in any input are bounded', async () => {
    const res = await app.request('POST', '/api/user/lead', {
      token: me.token,
      body: {
        phone_number: '+5511987650004',
        campaign_id: me.campaignId,
        secondary_contacts: Array.from({ length: 101 }, (_, i) => ({ phone_number: `+55119876${String(i).padStart(5, '0')}` })),
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors.secondary_contacts).toBeDefined();
  });
});

describe('database errors in the logs', () => {
  it('carry the SQLSTATE and no SQL text or parameter values', async () => {
    const error = await app.orm.em.fork().execute('select ?::int as n', ['tel:+5511987654321']).catch((e) => e);
    expect(error.code).toBe('22P02');
    const logged = JSON.stringify(serializeError(error));
    expect(logged).toContain('22P02');
    expect(logged).not.toContain('5511987654321');
    expect(logged.toLowerCase()).not.toContain('select');
  });
});

describe('concurrent updates of an assistant’s tools', () => {
  it('leave exactly one request’s set, and no request fails', async () => {
    const account = await app.account();
    const tools: number[] = [];
    for (const name of ['alpha', 'beta', 'gamma', 'delta', 'epsilon']) {
      const res = await app.request('POST', '/api/user/tools', {
        token: account.token,
        body: { name, description: `Tool ${name}`, endpoint: 'https://api.example.com/t', method: 'POST', timeout: 5 },
      });
      tools.push(res.body.data.id);
    }
    const created = await app.request('POST', '/api/user/assistant', {
      token: account.token,
      body: {
        assistant_name: 'Ana', voice_id: 1, language: 'Portuguese', llm_model: 'gpt-4o-mini', calls_direction: 'make',
        engine_type: 'pipeline', timezone: 'America/Sao_Paulo', initial_message: 'Olá!', system_prompt: 'Ajude.',
      },
    });
    const id = created.body.data.id;
    const sets = [[tools[0]], [tools[1], tools[2]], [tools[3], tools[4], tools[0]], [tools[2]], [tools[4], tools[1]], tools];
    for (let round = 0; round < 15; round++) {
      const results = await Promise.all(
        sets.map((tool_ids) => app.request('PUT', `/api/user/assistant/${id}`, { token: account.token, body: { tool_ids } })),
      );
      expect(results.map((r) => r.status)).toEqual(sets.map(() => 200));
      const rows = await app.sql('select tool_id from assistant_tools where assistant_id = $1 order by tool_id', [id]);
      const final = rows.map((r) => r.tool_id);
      expect(sets.map((set) => [...set].sort((a, b) => a - b))).toContainEqual(final);
    }
  });
});

describe('lead update and the duplicate rule', () => {
  it('refuses moving a lead to a number its campaign already has, also under concurrency', async () => {
    const lead = (phone_number: string) =>
      app.request('POST', '/api/user/lead', { token: me.token, body: { phone_number, campaign_id: me.campaignId } }).then((r) => r.body.data.id);
    const taken = await lead('+5511987651001');
    const mover = await lead('+5511987651002');
    const refused = await app.request('PUT', `/api/user/leads/${mover}`, { token: me.token, body: { phone_number: '+5511987651001' } });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual({ phone_number: ['Já existe um lead com este número de telefone nesta campanha.'] });
    // The lead keeps its own number, and other fields of a lead still update.
    expect((await app.request('PUT', `/api/user/leads/${mover}`, { token: me.token, body: { phone_number: '+5511987651002', variables: { a: 1 } } })).status).toBe(200);
    expect(taken).toBeGreaterThan(0);

    const movers = await Promise.all(Array.from({ length: 8 }, (_, i) => lead(`+55119876520${String(i).padStart(2, '0')}`)));
    const results = await Promise.all(
      movers.map((id) => app.request('PUT', `/api/user/leads/${id}`, { token: me.token, body: { phone_number: '+5511987653000' } })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    const [{ n }] = await app.sql(`select count(*)::int as n from leads where campaign_id = $1 and phone_number = '+5511987653000'`, [me.campaignId]);
    expect(n).toBe(1);
  });

  it('bounds the secondary contacts of a lead at 20', async () => {
    const contacts = (count: number) => Array.from({ length: count }, (_, i) => ({ phone_number: `+55119876${String(60000 + i)}` }));
    const ok = await app.request('POST', '/api/user/lead', { token: me.token, body: { phone_number: '+5511987654444', campaign_id: me.campaignId, secondary_contacts: contacts(20) } });
    expect(ok.status).toBe(200);
    const refused = await app.request('POST', '/api/user/lead', { token: me.token, body: { phone_number: '+5511987654445', campaign_id: me.campaignId, secondary_contacts: contacts(21) } });
    expect(refused).toMatchObject({ status: 422, body: { errors: { secondary_contacts: ['O campo secondary_contacts não pode ter mais de 20 itens.'] } } });
  });
});
