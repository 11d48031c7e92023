import { addLead, firstPageOfPhoneNumbers } from '../examples/client';
import { startTestApp, type TestAccount, type TestApp } from './helpers/app';

/** The typed client of examples/ (codegen's client preset) works against a running server. */
let app: TestApp;
let me: TestAccount;

beforeAll(async () => {
  app = await startTestApp();
  me = await app.account();
});
afterAll(() => app?.close());

it('creates and lists leads through the generated typed documents', async () => {
  const id = await addLead(app.url, me.token, me.campaignId, '+5511987651234');
  expect(id).toBeGreaterThan(0);
  expect(await firstPageOfPhoneNumbers(app.url, me.token, me.campaignId)).toEqual(['+5511987651234']);
  await expect(addLead(app.url, me.token, me.campaignId, '123')).rejects.toThrow('Número de telefone inválido');
});
