import { ApolloServer, HeaderMap } from '@apollo/server';
import { GraphQLError, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString, execute, parse } from 'graphql';
import { OperationRunner, compiledGateway } from '../../src/graphql/compiled';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';
import { oldSpaceGrowth } from '../helpers/gc';

/** Compiled operations (graphql-jit) answer what graphql-js answers: data, errors, statuses. */

class Missing extends Error {}

const Item = new GraphQLObjectType({
  name: 'Item',
  fields: { id: { type: new GraphQLNonNull(GraphQLInt) }, name: { type: GraphQLString } },
});
const schema = new GraphQLSchema({
  query: new GraphQLObjectType({
    name: 'Query',
    fields: {
      items: {
        type: new GraphQLList(Item),
        args: { first: { type: new GraphQLNonNull(GraphQLInt) } },
        resolve: (_root, { first }: { first: number }) => Array.from({ length: first }, (_, i) => ({ id: i + 1, name: `item ${i + 1}` })),
      },
      missing: {
        type: Item,
        resolve: () => {
          throw new Missing('not here');
        },
      },
    },
  }),
  subscription: new GraphQLObjectType({
    name: 'Subscription',
    fields: { tick: { type: GraphQLInt, resolve: () => 1 } },
  }),
});

const QUERY = parse('query($first: Int!) { items(first: $first) { id name } missing { id } }');
/** graphql-js answers objects without a prototype; a compiled operation, plain objects. */
const compiledAnswer = (result: { data?: unknown }) => Object.getPrototypeOf(result.data) === Object.prototype;

describe('OperationRunner', () => {
  it('answers the same data and errors as graphql-js, the error a graphql-js error with an extensions object', async () => {
    const expected = await execute({ schema, document: QUERY, variableValues: { first: 2 } });
    const result = await new OperationRunner(schema, 'always').run(QUERY, null, { first: 2 }, {});
    expect(compiledAnswer(result)).toBe(true);
    expect(JSON.parse(JSON.stringify(result))).toEqual(JSON.parse(JSON.stringify(expected)));
    const [error] = result.errors!;
    expect(error).toBeInstanceOf(GraphQLError);
    expect(error.extensions).toEqual({});
    expect(error.originalError).toBeInstanceOf(Missing);
    expect(error.locations).toEqual([{ line: 1, column: 56 }]);
    expect(error.path).toEqual(['missing']);
  });

  it('answers what graphql-js answers for every kind of leaf value, in nested lists (patches/graphql-jit+0.8.9.patch)', async () => {
    // The patch checks a leaf's value inline and builds an error's locations and path only for
    // a value that fails: each way a leaf can fail, at each depth, must still say where.
    const Leaf = new GraphQLObjectType({
      name: 'Leaf',
      fields: { must: { type: new GraphQLNonNull(GraphQLInt) }, may: { type: GraphQLInt }, text: { type: GraphQLString } },
    });
    const Row = new GraphQLObjectType({
      name: 'Row',
      fields: { id: { type: new GraphQLNonNull(GraphQLInt) }, leaves: { type: new GraphQLList(Leaf) }, grid: { type: new GraphQLList(new GraphQLList(Leaf)) } },
    });
    // One failure an object, and a non-null field selected last: graphql-jit, unlike graphql-js,
    // goes on to an object's other fields after a non-null one fails, and says what else failed.
    const leaf = (fields: Record<string, unknown>) => ({ must: 1, may: 2, text: 'a', ...fields });
    const rows = [
      {
        id: 1,
        leaves: [leaf({}), leaf({ must: null }), leaf({ may: null, text: null }), leaf({ must: 'x' }), leaf({ may: 'y' }), leaf({ text: {} }), leaf({ text: 7 })],
        grid: [[leaf({})], [leaf({ may: 1.5 }), leaf({ text: Symbol('s') })]],
      },
      { id: 2, leaves: [leaf({ must: new Error('broken') }), leaf({ may: new Error('gone') })], grid: [[leaf({ must: undefined }), leaf({ text: true })]] },
      { id: null, leaves: [], grid: [] },
    ];
    const leaves = new GraphQLSchema({ query: new GraphQLObjectType({ name: 'Query', fields: { rows: { type: new GraphQLList(Row), resolve: () => rows } } }) });
    const document = parse('{ rows { leaves { may text must } grid { may text must } id } }');
    const expected = await execute({ schema: leaves, document });
    const result = await new OperationRunner(leaves, 'always').run(document, null, {}, {});
    expect(compiledAnswer(result)).toBe(true);
    const shown = (r: typeof result) => ({
      data: JSON.parse(JSON.stringify(r.data)),
      errors: r.errors!.map((e) => ({ message: e.message, locations: e.locations, path: e.path })).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    });
    expect(shown(result)).toEqual(shown(expected));
    expect(result.errors!.length).toBeGreaterThanOrEqual(10);
  });

  it('with `repeated`, compiles a document the second time it runs; `never` never does', async () => {
    const repeated = new OperationRunner(schema, 'repeated');
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await repeated.run(QUERY, null, { first: 1 }, {}));
    expect(runs.map(compiledAnswer)).toEqual([false, true, true]);
    // Another document with the same text is another entry: compiled operations are kept by document.
    expect(compiledAnswer(await repeated.run(parse('query($first: Int!) { items(first: $first) { id } }'), null, { first: 1 }, {}))).toBe(false);

    const never = new OperationRunner(schema, 'never');
    for (let i = 0; i < 2; i++) expect(compiledAnswer(await never.run(QUERY, null, { first: 1 }, {}))).toBe(false);
  });

  it('leaves refused variables and subscriptions to graphql-js, which words them', async () => {
    const runner = new OperationRunner(schema, 'always');
    const refused = await runner.run(QUERY, null, { first: 'two' }, {});
    expect(refused).toEqual(await execute({ schema, document: QUERY, variableValues: { first: 'two' } }));
    expect(refused.errors![0].message).toMatch(/^Variable "\$first" got invalid value "two"/);

    const subscription = parse('subscription { tick }');
    const result = await runner.run(subscription, null, {}, {});
    expect(result).toEqual(await execute({ schema, document: subscription }));
  });
});

describe("Apollo's gateway, which runs the compiled operations", () => {
  it("lets each request's context go at the young generation's collections (patches/@apollo+server+5.5.1.patch)", async () => {
    const apollo = new ApolloServer<{ held: number[][] }>({ gateway: compiledGateway(schema, new OperationRunner(schema, 'always')) });
    await apollo.start();
    const headers = new HeaderMap([['content-type', 'application/json']]);
    // Each request's context holds 40 arrays of 500 slots: 160 KB, in small objects.
    const request = () =>
      apollo.executeHTTPGraphQLRequest({
        httpGraphQLRequest: { method: 'POST', headers, search: '', body: { query: '{ items(first: 1) { id } }' } },
        context: async () => ({ held: Array.from({ length: 40 }, () => new Array<number>(500).fill(0)) }),
      });
    expect((await request()).status ?? 200).toBe(200);
    // Warmed up, so that what the first runs leave (compiled code, caches) is not counted.
    for (let i = 0; i < 50; i++) await request();
    const growth = await oldSpaceGrowth(async () => {
      for (let i = 0; i < 200; i++) await request();
    });
    // Unpatched, Apollo's request context for the gateway held each context until a full
    // collection: the 200 contexts, 32 MB, were promoted. Patched, 1.5 MB on Node 20, 0.1 on 24.
    expect(growth).toBeLessThan(8_000_000);
    await apollo.stop();
  });
});

describe('the API, first run (graphql-js) and later runs (compiled)', () => {
  let app: TestApp;
  let me: TestAccount;

  beforeAll(async () => {
    app = await startTestApp({ graphql: { compile: 'repeated' } });
    me = await app.account();
    await app.graphql(
      'mutation($input: CreateLeadInput!) { createLead(input: $input) { id } }',
      { input: { phone_number: '+5511987650001', campaign_id: me.campaignId, variables: { customer_name: 'Ana' }, secondary_contacts: [{ phone_number: '+5511987650002' }] } },
      me.token,
    );
  });
  afterAll(() => app?.close());

  const OPERATIONS: [string, string, Record<string, unknown>][] = [
    [
      'a page with nested lists, aliases, a fragment and @include',
      `query($per: Int!, $more: Boolean!) { page: leads(per_page: $per) { total data { ...lead campaign { id name } secondary_contacts @include(if: $more) { phone_number status } } } }
       fragment lead on Lead { __typename id phone_number variables status created_at }`,
      { per: 5, more: true },
    ],
    ['a domain error (404)', 'query($id: Int!) { lead(id: $id) { id } }', { id: 999_999 }],
    ['field errors (422)', 'mutation($input: CreateLeadInput!) { createLead(input: $input) { id } }', { input: { phone_number: 'x', campaign_id: 999_999 } }],
    ['a variable of the wrong type (400)', 'query($id: Int!) { lead(id: $id) { id } }', { id: 'one' }],
  ];

  it.each(OPERATIONS)('%s', async (_name, query, variables) => {
    const runs = [];
    for (let i = 0; i < 3; i++) {
      const { status, text } = await app.graphql(query, variables, me.token);
      runs.push({ status, text });
    }
    expect(runs[1]).toEqual(runs[0]);
    expect(runs[2]).toEqual(runs[0]);
  });

  it('a REST route, run many times, answers as on its first run', async () => {
    const runs = [];
    for (let i = 0; i < 3; i++) {
      const { status, text } = await app.request('GET', '/api/user/leads?per_page=5', { token: me.token });
      runs.push({ status, text });
    }
    expect(runs[0].status).toBe(200);
    expect(runs[1]).toEqual(runs[0]);
    expect(runs[2]).toEqual(runs[0]);
  });
});
