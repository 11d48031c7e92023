import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApolloServer } from '@apollo/server';
import { buildSchema, parse, type OperationDefinitionNode } from 'graphql';
import { OperationRunner } from '../../src/graphql/compiled';
import { DirectPath } from '../../src/graphql/apollo-bypass';
import { registry } from '../../src/metrics';
import * as leadService from '../../src/modules/leads/lead.service';
import { startTestApp, type HttpResult, type TestAccount, type TestApp } from '../helpers/app';

let app: TestApp;
let me: TestAccount;

beforeAll(async () => {
  app = await startTestApp();
  me = await app.account();
});
afterAll(() => app?.close());
afterEach(() => jest.restoreAllMocks());

/** Counts the requests Apollo answers (the rest were answered on the direct path). */
function apolloCalls() {
  return jest.spyOn(ApolloServer.prototype, 'executeHTTPGraphQLRequest');
}

function post(body: unknown, headers: Record<string, string> = {}): Promise<HttpResult> {
  return app.request('POST', '/graphql', { token: me.token, body, headers });
}

/** What a client can see of an answer, but for the headers that change on every request. */
function seen(res: HttpResult) {
  const headers = Object.fromEntries([...res.headers].filter(([name]) => !['date', 'x-request-id'].includes(name)));
  return { status: res.status, headers, text: res.text };
}

async function leadsNumbered(phone: string): Promise<number> {
  const [row] = await app.sql<{ n: number }>('select count(*)::int as n from leads where phone_number = $1', [phone]);
  return row.n;
}

async function operationsCounted(outcome: string): Promise<number> {
  const metric = await registry.getSingleMetric('vozgate_graphql_operations_total')!.get();
  return metric.values.filter((v) => v.labels.outcome === outcome).reduce((sum, v) => sum + v.value, 0);
}

describe('the direct path', () => {
  it("answers a document Apollo has accepted without Apollo, with Apollo's exact answer", async () => {
    const lead = (
      await post({ query: 'mutation($p: String!, $c: Int!) { createLead(input: {phone_number: $p, campaign_id: $c}) { id } }', variables: { p: '+5511987650001', c: me.campaignId } })
    ).body.data.createLead;
    const cases: { body: Record<string, unknown>; headers?: Record<string, string> }[] = [
      { body: { query: 'query($id: Int!) { lead(id: $id) { id phone_number status } }', variables: { id: lead.id } } },
      { body: { query: '{ leads(per_page: 5) { data { id } total } }', variables: null, operationName: null } },
      { body: { query: 'query A { me { id } } query B($id: Int!) { lead(id: $id) { id } }', operationName: 'B', variables: { id: lead.id } } },
      { body: { query: '{ me { id } }' }, headers: { accept: 'application/graphql-response+json' } },
      { body: { query: '{ me { id name } }' }, headers: { accept: 'application/graphql-response+json,application/json;q=0.9' } },
      { body: { query: '{ me { name } }' }, headers: { accept: '*/*' } },
    ];
    for (const { body, headers } of cases) {
      const apollo = apolloCalls();
      const first = await post(body, headers);
      const second = await post(body, headers);
      const third = await post(body, headers);
      // Apollo answers the first: it has not accepted the document yet. Then the direct path does.
      expect(apollo).toHaveBeenCalledTimes(1);
      expect(first.status).toBe(200);
      expect(first.body.errors).toBeUndefined();
      expect(seen(second)).toEqual(seen(first));
      expect(seen(third)).toEqual(seen(first));
      apollo.mockRestore();
    }
  });

  it('leaves to Apollo what Apollo would answer otherwise, with the same answer', async () => {
    const query = 'query($id: Int!) { lead(id: $id) { id } }';
    await post({ query, variables: { id: 1 } });
    const cases: { body: unknown; headers?: Record<string, string> }[] = [
      // Errors in the result: Apollo formats them, with the status the errors carry.
      { body: { query, variables: { id: 987654321 } } },
      { body: { query, variables: { id: 'abc' } } },
      { body: { query, variables: {} } },
      // Bodies Apollo refuses, or reads its own way.
      { body: { query, variables: [1] } },
      { body: { query, variables: { id: 1 }, operationName: 7 } },
      { body: { query, variables: { id: 1 }, operationName: '' } },
      { body: { query, variables: { id: 1 }, operationName: 'Other' } },
      { body: { query, variables: { id: 1 }, extensions: { persistedQuery: { version: 1, sha256Hash: 'x' } } } },
      { body: [{ query, variables: { id: 1 } }] },
      // No type Apollo can answer in: it runs the operation, then answers 406.
      { body: { query, variables: { id: 1 } }, headers: { accept: 'text/html' } },
      // Subscriptions are refused over HTTP, every time.
      { body: { query: 'subscription { callUpdated { id } }' } },
    ];
    for (const { body, headers } of cases) {
      const first = await post(body, headers);
      const again = await post(body, headers);
      expect(seen(again)).toEqual(seen(first));
    }
    const notFound = await post({ query, variables: { id: 987654321 } });
    expect(notFound.body.errors[0].extensions).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    expect((await post({ query, variables: { id: 'abc' } })).status).toBe(400);
    expect((await post({ query, variables: { id: 1 } }, { accept: 'text/html' })).status).toBe(406);
  });

  it('runs an operation once when Apollo answers for it', async () => {
    const query = 'mutation($p: String!, $c: Int!) { createLead(input: {phone_number: $p, campaign_id: $c}) { id } }';
    const create = (phone: string, headers?: Record<string, string>) => post({ query, variables: { p: phone, c: me.campaignId } }, headers);
    expect((await create('+5511987650101')).status).toBe(200);
    // An Accept header the direct path has not seen Apollo answer: the mutation runs on the
    // direct path, Apollo answers with its result.
    const apollo = apolloCalls();
    const answered = await create('+5511987650102', { accept: 'application/json, text/plain' });
    expect(apollo).toHaveBeenCalledTimes(1);
    expect(answered.body.data.createLead.id).toEqual(expect.any(Number));
    expect(await leadsNumbered('+5511987650102')).toBe(1);
    // A duplicate: the service refuses it, Apollo formats the refusal.
    const duplicate = await create('+5511987650102');
    expect(apollo).toHaveBeenCalledTimes(2);
    expect(duplicate.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    expect(await leadsNumbered('+5511987650102')).toBe(1);
    // Not acceptable: the operation ran, as it does on Apollo alone, and once.
    expect((await create('+5511987650103', { accept: 'text/html' })).status).toBe(406);
    expect(await leadsNumbered('+5511987650103')).toBe(1);
    // And the direct path itself.
    expect((await create('+5511987650104')).body.data.createLead.id).toEqual(expect.any(Number));
    expect(apollo).toHaveBeenCalledTimes(3);
    expect(await leadsNumbered('+5511987650104')).toBe(1);
  });

  it('logs an unexpected failure once, masks it, and counts operations as Apollo does', async () => {
    const query = 'query($id: Int!) { lead(id: $id) { id } }';
    const lead = (await post({ query: 'mutation($c: Int!) { createLead(input: {phone_number: "+5511987650201", campaign_id: $c}) { id } }', variables: { c: me.campaignId } })).body
      .data.createLead;
    await post({ query, variables: { id: lead.id } });
    const [ok, failed] = [await operationsCounted('ok'), await operationsCounted('error')];
    expect((await post({ query, variables: { id: lead.id } })).body.data.lead.id).toBe(lead.id);
    expect(await operationsCounted('ok')).toBe(ok + 1);

    jest.spyOn(leadService, 'getLead').mockRejectedValueOnce(new Error('select secret from a test'));
    const logged = app.loggedErrors.length;
    const res = await post({ query, variables: { id: lead.id } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ errors: [expect.objectContaining({ extensions: expect.objectContaining({ code: 'INTERNAL' }) })], data: null });
    expect(res.text).not.toContain('secret');
    expect(app.loggedErrors.length).toBe(logged + 1);
    expect(await operationsCounted('error')).toBe(failed + 1);
    expect(await operationsCounted('ok')).toBe(ok + 1);
  });
});

describe('DirectPath', () => {
  const runner = new OperationRunner(buildSchema('type Query { a: Int, b: Int, c: Int }'), 'never');
  const accept = (direct: DirectPath, query: string) => {
    const document = parse(query);
    direct.accept(query, undefined, document, document.definitions[0] as OperationDefinitionNode);
  };
  /** The body the direct path answers a POST of `query` with, or null when it leaves it to Apollo. */
  const answer = async (direct: DirectPath, query: string, accept?: string): Promise<string | null> => {
    const req = { method: 'POST', headers: { authorization: 'Bearer t', ...(accept ? { accept } : {}) } } as unknown as IncomingMessage;
    let text: string | null = null;
    const res = { setHeader() {}, end: (body: string) => (text = body) } as unknown as ServerResponse;
    return (await direct.answer(req, res, { query }, {})) ? text : null;
  };

  it('keeps the newest documents within its budget of characters', async () => {
    const direct = new DirectPath(runner, { characters: 12, queryCharacters: 8, acceptHeaders: 1 });
    direct.answered(undefined, 200, 'application/json; charset=utf-8');
    for (const query of ['{ a }', '{ b }', '{ c }', '{ a b c }']) accept(direct, query);
    expect(await answer(direct, '{ a b c }')).toBeNull(); // longer than a query may be
    expect(await answer(direct, '{ a }')).toBeNull(); // 15 characters with the next two: the oldest went
    expect(await answer(direct, '{ b }')).toBe('{"data":{"b":null}}\n');
    expect(await answer(direct, '{ c }')).toBe('{"data":{"c":null}}\n');
  });

  it('answers only for Accept headers Apollo has answered 200 for, as many as its limit', async () => {
    const direct = new DirectPath(runner, { characters: 100, queryCharacters: 50, acceptHeaders: 1 });
    accept(direct, '{ a }');
    expect(await answer(direct, '{ a }')).toBeNull();
    direct.answered(undefined, 406, 'application/json; charset=utf-8');
    expect(await answer(direct, '{ a }')).toBeNull();
    direct.answered(undefined, 200, 'application/json; charset=utf-8');
    expect(await answer(direct, '{ a }')).toBe('{"data":{"a":null}}\n');
    direct.answered('text/plain', 200, 'application/json; charset=utf-8');
    expect(await answer(direct, '{ a }', 'text/plain')).toBeNull();
  });
});
