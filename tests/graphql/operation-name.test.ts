import WebSocket from 'ws';
import type { GraphQLCompile } from '../../src/config';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';

/**
 * A document whose operation cannot be chosen (several operations and no operationName, or an
 * operationName the document does not have) is the client's request error, as the GraphQL spec
 * says and as Apollo Server answers it on graphql-js: a 400 with OPERATION_RESOLUTION_FAILURE,
 * the same whether the operation would run compiled or not, and over the socket an error
 * message, never a 500.
 */
const TWO = 'query A { me { id } } query B { languages { id } }';
const UNCHOOSABLE: { name: string; body: Record<string, unknown>; message: string }[] = [
  { name: 'several operations, no operationName', body: { query: TWO }, message: 'Must provide operation name if query contains multiple operations.' },
  { name: 'several operations, operationName null', body: { query: TWO, operationName: null }, message: 'Must provide operation name if query contains multiple operations.' },
  { name: 'an operationName not in the document', body: { query: TWO, operationName: 'C' }, message: 'Unknown operation named "C".' },
  { name: 'an operationName for a one-operation document without it', body: { query: 'query A { me { id } }', operationName: 'B' }, message: 'Unknown operation named "B".' },
];

describe.each<GraphQLCompile>(['always', 'repeated', 'never'])('GRAPHQL_COMPILE=%s', (compile) => {
  let app: TestApp;
  let me: TestAccount;
  beforeAll(async () => {
    app = await startTestApp({ graphql: { compile } });
    me = await app.account();
  });
  afterAll(() => app?.close());

  it.each(UNCHOOSABLE)('$name: 400 OPERATION_RESOLUTION_FAILURE over HTTP, every time', async ({ body, message }) => {
    // Twice: the second request finds the document in Apollo's cache (and a compiled runner's).
    for (let i = 0; i < 2; i++) {
      const res = await app.request('POST', '/graphql', { token: me.token, body });
      expect([res.status, res.body]).toEqual([400, { errors: [{ message, extensions: { code: 'OPERATION_RESOLUTION_FAILURE', status: 400 } }] }]);
    }
    expect(app.loggedErrors).toEqual([]);
    // The document's operations still run when named.
    const named = await app.request('POST', '/graphql', { token: me.token, body: { query: TWO, operationName: 'A' } });
    expect([named.status, named.body.data.me.id]).toEqual([200, me.accountId]);
  });
});

describe('over the socket', () => {
  let app: TestApp;
  let me: TestAccount;
  beforeAll(async () => {
    app = await startTestApp();
    me = await app.account();
  });
  afterAll(() => app?.close());

  it.each([
    { query: 'subscription A { leadUpdated { id } } subscription B { callUpdated { id } }', operationName: undefined, message: 'Must provide operation name if query contains multiple operations.' },
    { query: 'subscription A { leadUpdated { id } }', operationName: 'B', message: 'Unknown operation named "B".' },
  ])('$query ($operationName): an error message with OPERATION_RESOLUTION_FAILURE, and the socket stays open', async ({ query, operationName, message }) => {
    const ws = new WebSocket(`${app.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
    const messages: any[] = [];
    ws.on('message', (data) => messages.push(JSON.parse(String(data))));
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    ws.send(JSON.stringify({ type: 'connection_init', payload: { Authorization: `Bearer ${me.token}` } }));
    const until = async (seen: (m: any) => boolean) => {
      const deadline = Date.now() + 5_000;
      while (!messages.some(seen) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    };
    await until((m) => m.type === 'connection_ack');
    ws.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query, ...(operationName ? { operationName } : {}) } }));
    await until((m) => m.id === '1');
    expect(messages.find((m) => m.id === '1')).toEqual({ id: '1', type: 'error', payload: [{ message, extensions: { code: 'OPERATION_RESOLUTION_FAILURE', status: 400 } }] });
    expect(ws.readyState).toBe(WebSocket.OPEN);
    ws.close();
  });
});
