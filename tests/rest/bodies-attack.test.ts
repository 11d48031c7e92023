import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { buildSchema, getNamedType, isInputObjectType, parse, typeFromAST, type OperationDefinitionNode } from 'graphql';
import { routes, type Route } from '../../src/rest/routes';
import { startTestApp, type HttpResult, type TestApp } from '../helpers/app';
import { VALID_REST_REQUESTS, createTenant, snapshot, type Tenant } from '../helpers/tenant';

/**
 * Property-based requests on every REST route: bodies, path parameters and query strings
 * made of the route's own field names with values of every JSON type (and some that are not
 * JSON at all). Whatever comes in, the answer is never a 500, always JSON in the documented
 * shape (`{message}` or `{message, errors}` for a refusal), and a refused request leaves
 * every row of the database as it was.
 */
let app: TestApp;
let own: Tenant;

beforeAll(async () => {
  app = await startTestApp();
  own = await createTenant(app);
  await app.sql('update accounts set balance = 1000 where id = $1', [own.accountId]);
});
afterAll(() => app?.close());

const schema = buildSchema(readFileSync(path.join(__dirname, '..', '..', 'schema.graphql'), 'utf8'));

/** The names a route's request can carry: its document's variables, and the fields of an `input`. */
function fieldNames(route: Route): string[] {
  const operation = parse(route.document).definitions.find((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition')!;
  const names: string[] = [];
  for (const definition of operation.variableDefinitions ?? []) {
    const type = getNamedType(typeFromAST(schema, definition.type as never));
    if (isInputObjectType(type)) names.push(...Object.keys(type.getFields()));
    else names.push(definition.variable.name.value);
  }
  return [...new Set(names.filter((name) => name !== 'id'))];
}

/** Values of every kind, with the shapes this API cares about (and the account's own ids) over-represented. */
const value = (): fc.Arbitrary<unknown> => fc.oneof(
  fc.constantFrom(own.campaignId, own.lead, own.tool, own.voice, own.phone, own.assistant, own.call, own.sms, own.inboundNumber, [own.tool]),
  fc.jsonValue({ maxDepth: 2 }),
  fc.integer({ min: -3, max: 3 }),
  fc.constantFrom(0, -1, 2 ** 31, 2 ** 53 + 1, 1e308, 0.5, '', ' ', '1', '-1', '1e3', '0x10', 'null', 'true', '2026-02-30', '2026-11-21'),
  fc.constantFrom('+5511987654321', '11987654321', '+1 (555) 010-9999', '+55119876543210000', '+999', 'https://example.com/x', 'http://127.0.0.1/'),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.array(fc.oneof(fc.integer(), fc.string(), fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }))), { maxLength: 3 }),
);

/** Some of `keys`, each with any value. */
const someOf = (keys: string[], maxLength = keys.length): fc.Arbitrary<Record<string, unknown>> =>
  keys.length
    ? fc.subarray(keys, { maxLength: Math.min(maxLength, keys.length) }).chain((chosen) => fc.tuple(...chosen.map((key) => value().map((v) => [key, v] as const))).map((pairs) => Object.fromEntries(pairs)))
    : fc.constant({});

function body(route: Route, valid: Record<string, unknown>): fc.Arbitrary<{ json?: unknown; raw?: string }> {
  const known = fieldNames(route);
  const extra = fc.dictionary(fc.string({ maxLength: 12 }), value(), { maxKeys: 2 });
  // A request the route accepts, with a few of its fields changed (and sometimes a stranger).
  const nearlyValid = fc
    .tuple(someOf(known, 2), fc.oneof(fc.constant({}), extra), fc.subarray(Object.keys(valid), { maxLength: Math.min(1, Object.keys(valid).length) }))
    .map(([changed, strangers, dropped]) => {
      const kept = Object.fromEntries(Object.entries(valid).filter(([key]) => !dropped.includes(key)));
      return { json: { ...strangers, ...kept, ...changed } };
    });
  const anyFields = fc.tuple(someOf(known), extra).map(([fields, strangers]) => ({ json: { ...strangers, ...fields } }));
  return fc.oneof(
    { weight: 4, arbitrary: nearlyValid },
    { weight: 2, arbitrary: anyFields },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((json) => ({ json })) },
    { weight: 1, arbitrary: fc.constantFrom('{', '{"a":', 'null', '[]', '"text"', '{"a":1}}', '\u0000', '').map((raw) => ({ raw })) },
  );
}

const pathId = (validId: string): fc.Arbitrary<string> => fc.oneof(
  fc.constant(validId),
  fc.integer({ min: -5, max: 2 ** 33 }).map(String),
  fc.constantFrom('0', '-1', '1.5', '1e3', 'abc', '%20', '%00', '99999999999999999999', '0x1', ' 1'),
  // `.` and `..` are not ids: the client resolves them away, and the request goes to another path.
  fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 12 }).map(encodeURIComponent).filter((id) => !/^\.{1,2}$/.test(id)),
);

const query = (route: Route, valid: Record<string, unknown>): fc.Arbitrary<string> =>
  route.method !== 'GET'
    ? fc.constant('')
    : fc
        .tuple(
          fc.oneof(fc.constant({}), fc.constant(valid)),
          fc.dictionary(fc.constantFrom(...fieldNames(route), 'page', 'per_page', 'unknown'), value().map((v) => (typeof v === 'string' ? v : JSON.stringify(v))), {
            maxKeys: 4,
          }),
        )
        .map(([base, params]) => new URLSearchParams({ ...Object.fromEntries(Object.entries(base).map(([k, v]) => [k, String(v)])), ...params }).toString());

/** What the documented refusals look like: a message, a code, and for validation the field map. */
function expectEnvelope(res: HttpResult): void {
  // A CSV export's success is its file; its refusals are JSON like every other.
  if (res.status === 200 && res.headers.get('content-type')?.startsWith('text/csv')) return;
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const parsed = JSON.parse(res.text);
  if (res.status < 300) return;
  expect(parsed).toEqual(expect.objectContaining({ message: expect.any(String), code: expect.stringMatching(/^[A-Z_]+$/) }));
  expect(parsed.message.length).toBeGreaterThan(0);
  if ('errors' in parsed) {
    expect(typeof parsed.errors).toBe('object');
    for (const messages of Object.values(parsed.errors)) {
      expect(Array.isArray(messages)).toBe(true);
      for (const message of messages as unknown[]) expect(typeof message).toBe('string');
    }
  }
  expect(Object.keys(parsed).every((key) => ['message', 'code', 'errors', 'retry_after'].includes(key))).toBe(true);
}

/**
 * Every status the API documents; a provider failure (502) is documented for calls and SMS, and
 * UNAVAILABLE (503) for a reply that no model on this server can write (this app has none).
 */
const DOCUMENTED = [200, 201, 202, 400, 401, 402, 403, 404, 409, 413, 415, 422, 429, 502, 503];

describe.each(routes.map((route) => [`${route.method} ${route.path}`, route] as const))('%s', (_name, route) => {
  it('answers any request in the documented shape, never 500, and writes nothing when it refuses', async () => {
    const valid = VALID_REST_REQUESTS[`${route.method} ${route.path}`](own);
    const validId = /\/(\d+)$/.exec(valid.path)?.[1] ?? '1';
    await fc.assert(
      fc.asyncProperty(body(route, valid.body ?? {}), pathId(validId), query(route, valid.query ?? {}), async (payload, id, search) => {
        const url = `/api${route.path.replace('{id}', id)}${search ? `?${search}` : ''}`;
        const before = await snapshot(app);
        const res = await app.request(route.method, url, {
          token: own.token,
          ...(route.method === 'GET' || route.method === 'DELETE' ? {} : payload.raw !== undefined ? { rawBody: payload.raw } : { body: payload.json }),
        });
        expect(DOCUMENTED).toContain(res.status);
        expectEnvelope(res);
        if (res.status >= 300) expect(await snapshot(app)).toEqual(before);
      }),
      { numRuns: 40 },
    );
    expect(app.loggedErrors).toEqual([]);
  });
});
