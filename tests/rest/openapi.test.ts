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
import { startTestApp, type TestApp } from '../helpers/app';
import { VALID_REST_REQUESTS, createTenant, type Tenant } from '../helpers/tenant';
import { EVENT_TYPES } from '../../src/modules/events/event.outbox';
import { TWILIO_WEBHOOK_PATHS } from '../../src/telephony/twilio.callbacks';

/**
 * The OpenAPI document describes the REST API as it is: every route of the route table with
 * its parameters, and every answer in the shape the document gives. It is valid OpenAPI 3.1
 * (a maintained validator says so), and the committed openapi.json is what the code makes.
 */
let app: TestApp;
let own: Tenant;
let served: any;

beforeAll(async () => {
  app = await startTestApp();
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
    const schema = resolve(documented.content['application/json'].schema);
    expect(validate(schema, res.body)).toBeNull();
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
