import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { getSchema } from '../../src/graphql/schema';
import { buildOpenApi } from '../../src/rest/openapi';
import { routes } from '../../src/rest/routes';
import { startTestApp, UNREACHABLE_VOICE, type TestApp } from '../helpers/app';
import { VALID_REST_REQUESTS, createTenant, type Tenant } from '../helpers/tenant';
import { EVENT_TYPES } from '../../src/modules/events/event.outbox';
import { TWILIO_WEBHOOK_PATHS } from '../../src/telephony/twilio.callbacks';
import { LEAD_STATUSES } from '../../src/modules/leads/lead.entity';
import { CALL_STATUSES } from '../../src/modules/calls/call.entity';
import { CAMPAIGN_STATUSES } from '../../src/modules/campaigns/campaign.entity';
import { SMS_STATUSES } from '../../src/modules/sms/sms.entity';
import { seedDemo } from '../../src/seed';

/**
 * The OpenAPI document describes the REST API as it is: every route of the route table with
 * its parameters, and every answer in the shape the document gives. It is valid OpenAPI 3.1
 * (a maintained validator says so), and the committed openapi.json is what the code makes.
 */
let app: TestApp;
let own: Tenant;
let served: any;

beforeAll(async () => {
  // Vendors configured (never reached), so that a web call's start answers as documented.
  app = await startTestApp({ voice: UNREACHABLE_VOICE });
  own = await createTenant(app);
  served = (await app.request('GET', '/api/openapi.json')).body;
});
afterAll(() => app?.close());

describe('GET /api/openapi.json', () => {
  it('is valid OpenAPI 3.1, by @seriousme/openapi-schema-validator', async () => {
    const file = path.join(tmpdir(), `openapi-${process.pid}.json`);
    writeFileSync(file, JSON.stringify(served));
    const { stdout } = await promisify(execFile)(process.execPath, [path.join(__dirname, '..', '..', 'scripts', 'validate-openapi.mjs'), file]);
    expect(stdout).toContain('a valid OpenAPI 3.1 document');
  });

  it('describes every route of the route table and Twilio’s webhooks, and nothing else, each with a summary', () => {
    const described = Object.entries(served.paths).flatMap(([p, ops]) =>
      Object.keys(ops as object)
        .filter((key) => key !== 'servers')
        .map((m) => `${m.toUpperCase()} ${p}`),
    );
    const twilio = TWILIO_WEBHOOK_PATHS.map((p) => `POST ${p}`);
    const engine = ['GET /engine/calls/{id}', 'POST /engine/calls/{id}/tools/{name}', 'POST /engine/calls/{id}/events'];
    expect(described.sort()).toEqual([...routes.map((r) => `${r.method} ${r.path}`), ...twilio, ...engine].sort());
    for (const p of TWILIO_WEBHOOK_PATHS) {
      // Outside /api, and signed by Twilio rather than authenticated by a token.
      expect(served.paths[p].servers).toEqual([{ url: '/', description: expect.any(String) }]);
      expect(served.paths[p].post.security).toEqual([]);
      expect(served.paths[p].post.parameters[0]).toMatchObject({ name: 'X-Twilio-Signature', in: 'header', required: true });
    }
    for (const route of routes) {
      const operation = served.paths[route.path][route.method.toLowerCase()];
      expect(operation.summary.length).toBeGreaterThan(5);
      const pathParams = operation.parameters?.filter((p: any) => p.in === 'path').map((p: any) => p.name) ?? [];
      expect(pathParams).toEqual([...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]));
      expect(operation.security ?? served.security).toEqual([{ bearer: [] }]);
    }
    // Relative to where the document is served: never a Host header, never a stale PUBLIC_URL.
    expect(served.servers).toEqual([{ url: '/api' }]);
    expect(Object.keys(served.webhooks)).toEqual(['call.finished', ...EVENT_TYPES.map((type) => `event ${type}`)]);
  });

  it('puts every operation under one area (tag) that the document lists, and every area has operations', () => {
    const operations = Object.values(served.paths).flatMap((ops: any) => Object.entries(ops).filter(([key]) => key !== 'servers').map(([, op]) => op as any));
    const declared = (served.tags ?? []).map((tag: { name: string }) => tag.name);
    for (const operation of operations) {
      expect(operation.tags).toHaveLength(1);
      expect(declared).toContain(operation.tags[0]);
    }
    expect(new Set(operations.map((operation) => operation.tags[0]))).toEqual(new Set(declared));
    expect(served.paths['/user/lead'].post.tags).toEqual(['Leads']);
    expect(served.paths['/user/calls'].get.tags).toEqual(['Calls']);
  });

  it('shares the resources’ shapes in components.schemas, with the status vocabularies as enums', () => {
    const schemas = served.components.schemas;
    expect(Object.keys(schemas)).toEqual(expect.arrayContaining(['Lead', 'Campaign', 'Call', 'CallPage', 'Assistant', 'AssistantSummary', 'Tool', 'Sms', 'Error', 'ValidationError']));
    const success = (method: string, p: string, status = '200') => served.paths[p][method].responses[status].content['application/json'].schema;
    expect(success('post', '/user/lead').properties.data).toEqual({ $ref: '#/components/schemas/Lead' });
    expect(success('get', '/user/leads').items).toEqual({ $ref: '#/components/schemas/Lead' });
    expect(success('get', '/user/leads/{id}')).toEqual({ $ref: '#/components/schemas/Lead' });
    expect(success('get', '/user/calls')).toEqual({ $ref: '#/components/schemas/CallPage' });
    expect(schemas.CallPage.properties.data.items).toEqual({ $ref: '#/components/schemas/Call' });
    expect(success('get', '/user/calls/{id}').allOf[0]).toEqual({ $ref: '#/components/schemas/Call' });
    expect(success('get', '/user/tools/{id}')).toEqual({ $ref: '#/components/schemas/Tool' });
    expect(success('post', '/user/sms').properties.data).toEqual({ $ref: '#/components/schemas/Sms' });
    expect(success('post', '/user/campaigns', '201').properties.data).toEqual({ $ref: '#/components/schemas/Campaign' });
    expect(schemas.Lead.properties.status.enum).toEqual([...LEAD_STATUSES]);
    expect(schemas.Call.properties.status.enum).toEqual([...CALL_STATUSES]);
    expect(schemas.Campaign.properties.status.enum).toEqual([...CAMPAIGN_STATUSES]);
    expect(schemas.Sms.properties.status.enum).toEqual([...SMS_STATUSES]);
    // Nullable vocabularies list null too, or a null answer would fail them.
    expect(schemas.Call.properties.answered_by.enum).toEqual(['human', 'machine', 'unavailable', 'unknown', null]);
  });

  it('says of every object which keys it has, or that any key is allowed (free-form: variables, evaluation, ...)', () => {
    const silent: string[] = [];
    const walk = (node: unknown, at: string) => {
      if (Array.isArray(node)) return node.forEach((item, i) => walk(item, `${at}/${i}`));
      if (!node || typeof node !== 'object') return;
      const schema = node as Record<string, unknown>;
      const types = Array.isArray(schema.type) ? schema.type : [schema.type];
      if (types.includes('object') && schema.properties === undefined && schema.additionalProperties === undefined) silent.push(at);
      for (const [key, value] of Object.entries(schema)) if (key !== 'example' && key !== 'examples') walk(value, `${at}/${key}`);
    };
    walk(served, '#');
    expect(silent).toEqual([]);
  });

  it('answers 304 to a request that has its ETag, and asks clients to check again rather than keep a stale copy', async () => {
    const first = await fetch(`${app.url}/api/openapi.json`);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(first.headers.get('cache-control')).toBe('public, no-cache');
    expect(JSON.parse(await first.text())).toEqual(served);
    const again = await fetch(`${app.url}/api/openapi.json`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    const listed = await fetch(`${app.url}/api/openapi.json`, { headers: { 'if-none-match': `"other", W/${etag}` } });
    expect(listed.status).toBe(304);
    const stale = await fetch(`${app.url}/api/openapi.json`, { headers: { 'if-none-match': '"an-older-document"' } });
    expect(stale.status).toBe(200);
    expect(stale.headers.get('etag')).toBe(etag);
    expect(await stale.text()).toBe(await (await fetch(`${app.url}/api/openapi.json`)).text());
  });

  it('is what the committed openapi.json says (run `npm run openapi` after changing the API)', async () => {
    const generated = buildOpenApi(await getSchema(), routes);
    expect(JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'openapi.json'), 'utf8'))).toEqual(generated);
  });
});

describe('every answer has the documented shape', () => {
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
  const validate = (schema: unknown, value: unknown) => {
    const check = ajv.compile({ ...(schema as object), $defs: undefined, components: served.components } as never);
    return check(value) ? null : check.errors;
  };
  const resolve = (schema: any): any => (schema?.$ref ? served.components.schemas[schema.$ref.split('/').pop()] : schema);

  it('has a valid request for every route', () => {
    expect(Object.keys(VALID_REST_REQUESTS).sort()).toEqual(routes.map((r) => `${r.method} ${r.path}`).sort());
  });

  // In the order of VALID_REST_REQUESTS, which deletes last.
  it.each(Object.keys(VALID_REST_REQUESTS).map((key) => [key] as const))('%s', async (key) => {
    const [method, routePath] = key.split(' ');
    const request = VALID_REST_REQUESTS[key](own);
    const search = request.query ? `?${new URLSearchParams(Object.entries(request.query).map(([k, v]): [string, string] => [k, String(v)]))}` : '';
    const res = await app.request(method, `/api${request.path}${search}`, { token: own.token, body: request.body });
    const operation = served.paths[routePath][method.toLowerCase()];
    const documented = operation.responses[res.status];
    expect({ status: res.status, documented: !!documented }).toEqual({ status: res.status, documented: true });
    expect(res.status).toBeLessThan(300);
    if (documented.content['text/csv']) return void expect(res.headers.get('content-type')).toMatch(/^text\/csv; charset=utf-8/);
    const schema = resolve(documented.content['application/json'].schema);
    expect(validate(schema, res.body)).toBeNull();
  });

  it('documents the paging headers GET /user/leads sends, with their types', async () => {
    const documented = served.paths['/user/leads'].get.responses['200'].headers ?? {};
    expect(Object.keys(documented).sort()).toEqual(['Link', 'X-Current-Page', 'X-Last-Page', 'X-Per-Page', 'X-Total-Count']);
    const res = await app.request('GET', '/api/user/leads?per_page=1', { token: own.token });
    for (const [name, header] of Object.entries<any>(documented)) {
      const value = res.headers.get(name);
      expect({ name, present: value !== null }).toEqual({ name, present: true });
      const typed = header.schema.type === 'integer' ? Number(value) : value;
      expect(validate(header.schema, typed)).toBeNull();
      if (header.schema.type === 'integer') expect(Number.isInteger(typed)).toBe(true);
    }
  });

  it('errors too: 401, 404, 422 and 415 answers match the Error schemas', async () => {
    const error = resolve({ $ref: '#/components/schemas/Error' });
    const validation = served.components.schemas.ValidationError;
    const cases: [string, string, any, unknown][] = [
      ['GET', '/api/user/leads', undefined, error],
      ['GET', '/api/user/leads/999999', own.token, error],
      ['POST', '/api/user/lead', own.token, validation],
    ];
    for (const [method, url, token, schema] of cases) {
      const res = await app.request(method, url, { token, body: method === 'POST' ? {} : undefined });
      expect(validate(schema, res.body)).toBeNull();
    }
  });
});

describe('GET /docs', () => {
  it('serves the reference page and every asset it loads from this server', async () => {
    const page = await fetch(`${app.url}/docs`);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(assets.length).toBeGreaterThanOrEqual(3);
    for (const asset of assets) {
      expect(asset.startsWith('/docs/assets/')).toBe(true);
      const res = await fetch(`${app.url}${asset}`);
      expect(res.status).toBe(200);
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(10);
    }
    const root = await fetch(`${app.url}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/docs');
  });
});

describe('"Try it out" as given', () => {
  const bodyOf = (operation: any) => operation.requestBody?.content?.['application/json'];
  const operations = () =>
    routes.map((route) => ({ route, operation: served.paths[route.path][route.method.toLowerCase()] })).filter(({ operation }) => bodyOf(operation));

  it('has an example for every body and path parameter, valid against its schema', () => {
    const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
    for (const { route, operation } of operations()) {
      const { schema } = bodyOf(operation);
      const name = `${route.method} ${route.path}`;
      expect({ name, example: schema.example !== undefined }).toEqual({ name, example: true });
      const check = ajv.compile({ ...schema, components: served.components });
      expect({ name, errors: check(schema.example) ? null : check.errors }).toEqual({ name, errors: null });
    }
    for (const route of routes) {
      for (const parameter of served.paths[route.path][route.method.toLowerCase()].parameters ?? []) {
        if (parameter.in === 'path') expect({ route: route.path, example: parameter.example }).toEqual({ route: route.path, example: expect.anything() });
      }
    }
    expect(served.paths['/user/lead'].post.requestBody.content['application/json'].schema.example).toEqual({
      phone_number: '+5511987654321',
      campaign_id: 1,
      variables: { customer_name: 'Ana', email: 'ana@example.com' },
    });
  });

  it('works on the demo account of a first start: every body example, sent as Swagger sends it, succeeds', async () => {
    // A first start with its voice vendors set (never reached here): a web call needs them.
    const demoApp = await startTestApp({ voice: UNREACHABLE_VOICE });
    try {
      const demo = (await seedDemo(demoApp.orm, demoApp.config))!;
      expect(demo).toMatchObject({ accountId: 1, campaignId: 1, assistantId: 1, phoneNumberId: 1 });
      const sent: string[] = [];
      const failures: unknown[] = [];
      // In the route table's order: a lead exists before it is updated.
      for (const { route, operation } of operations()) {
        const params = Object.fromEntries((operation.parameters ?? []).filter((p: any) => p.in === 'path').map((p: any) => [p.name, p.example]));
        const url = route.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(String(params[name])));
        const res = await demoApp.request(route.method, `/api${url}`, { token: demo.token, body: bodyOf(operation).schema.example });
        sent.push(`${route.method} ${route.path}`);
        if (res.status >= 300) failures.push({ route: `${route.method} ${route.path}`, status: res.status, body: res.body });
      }
      expect(failures).toEqual([]);
      expect(sent).toEqual(expect.arrayContaining(['POST /user/lead', 'PUT /user/leads/{id}', 'POST /user/make_call', 'POST /user/sms', 'POST /user/assistant', 'POST /user/tools']));
    } finally {
      await demoApp.close();
    }
  });
});
