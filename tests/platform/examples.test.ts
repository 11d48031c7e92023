import WebSocket from 'ws';
import { CreateLeadDocument } from '../../examples/generated/graphql';
import { GraphQLRequestError, addLead, execute, firstPageOfPhoneNumbers, followCalls } from '../../examples/client';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';

/** The typed client of examples/ (codegen's client preset) works against a running server. */
let app: TestApp;
let me: TestAccount;

beforeAll(async () => {
  app = await startTestApp({}, { workers: true });
  me = await app.account();
});
afterAll(() => app?.close());

it('creates and lists leads through the generated typed documents', async () => {
  const id = await addLead(app.url, me.token, me.campaignId, '+5511987651234');
  expect(id).toBeGreaterThan(0);
  expect(await firstPageOfPhoneNumbers(app.url, me.token, me.campaignId)).toEqual(['+5511987651234']);
  await expect(addLead(app.url, me.token, me.campaignId, '123')).rejects.toThrow('Número de telefone inválido');
});

it('throws an error that carries the code and the field errors, for a form to show beside each field', async () => {
  const refused = await execute(app.url, me.token, CreateLeadDocument, { input: { campaign_id: me.campaignId, phone_number: '123' } }).catch((e) => e);
  expect(refused).toBeInstanceOf(GraphQLRequestError);
  expect(refused).toMatchObject({ code: 'VALIDATION_FAILED', errors: { phone_number: [expect.any(String)] } });
  const missing = await execute(app.url, me.token, CreateLeadDocument, { input: { campaign_id: 999999, phone_number: '+5511987651236' } }).catch((e) => e);
  expect(missing).toMatchObject({ code: 'NOT_FOUND', errors: {}, message: 'Campanha não encontrada' });
  const unauthenticated = await execute(app.url, 'vzg_not_a_token', CreateLeadDocument, { input: { campaign_id: me.campaignId, phone_number: '+5511987651237' } }).catch((e) => e);
  expect(unauthenticated).toMatchObject({ code: 'UNAUTHENTICATED', status: 401 });
});

it('follows calls through the generated subscription document', async () => {
  const account = await app.account({ balance: '10' });
  const assistant = await app.outboundAssistant(account);
  const seen: { id: number; status: string }[] = [];
  const stop = followCalls(app.url, account.token, {}, (call) => seen.push({ id: call.id, status: call.status }), WebSocket);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const res = await app.request('POST', '/api/user/make_call', { token: account.token, body: { phone_number: '+5511987657001', assistant_id: assistant } });
  await app.finishedCall(res.body.call_id, account.token);
  await new Promise((resolve) => setTimeout(resolve, 200));
  await stop();
  expect(seen).toEqual(['initiated', 'ringing', 'in-progress', 'completed'].map((status) => ({ id: res.body.call_id, status })));
});
