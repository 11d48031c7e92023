import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';

/** The do-not-call list: kept per account, and no call and no SMS reach a number on it. */
let app: TestApp;
let me: TestAccount;

beforeAll(async () => {
  app = await startTestApp();
  me = await app.account({ balance: '10' });
});
afterAll(() => app?.close());

const refusal = { message: 'Falha na validação', code: 'VALIDATION_FAILED', errors: { phone_number: ['Este número está na lista de não ligar da conta.'] } };

describe('the do-not-call list', () => {
  it('adds in E.164 (once), lists, and removes, over REST and GraphQL', async () => {
    const added = await app.request('POST', '/api/user/dnc', { token: me.token, body: { phone_number: '+55 11 98765-0101' } });
    expect(added).toMatchObject({ status: 201, body: { message: 'Number added to the do-not-call list', data: { phone_number: '+5511987650101' } } });
    expect(added.body.data.created_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect((await app.request('POST', '/api/user/dnc', { token: me.token, body: { phone_number: '+5511987650101' } })).status).toBe(201);
    const gql = await app.graphql('mutation { addDncNumber(phone_number: "+5511987650102") { phone_number } }', {}, me.token);
    expect(gql.body.data.addDncNumber).toEqual({ phone_number: '+5511987650102' });
    const list = await app.request('GET', '/api/user/dnc', { token: me.token });
    expect(list.body.map((n: any) => n.phone_number)).toEqual(['+5511987650101', '+5511987650102']);

    const removed = await app.request('DELETE', `/api/user/dnc/${encodeURIComponent('+5511987650101')}`, { token: me.token });
    expect(removed).toMatchObject({ status: 200, body: { message: 'Number removed from the do-not-call list' } });
    const again = await app.request('DELETE', `/api/user/dnc/${encodeURIComponent('+5511987650101')}`, { token: me.token });
    expect(again).toMatchObject({ status: 404, body: { message: 'Número não encontrado na lista de não ligar', code: 'NOT_FOUND' } });
    expect((await app.graphql('mutation { removeDncNumber(phone_number: "+5511987650102") }', {}, me.token)).body.data.removeDncNumber).toBe(true);
    expect((await app.graphql('{ dncNumbers { phone_number } }', {}, me.token)).body.data.dncNumbers).toEqual([]);
  });

  it('refuses an invalid number, and keeps each account’s list its own', async () => {
    const bad = await app.request('POST', '/api/user/dnc', { token: me.token, body: { phone_number: '123' } });
    expect(bad).toMatchObject({ status: 422, body: { message: 'Número de telefone inválido', errors: { phone_number: expect.any(Array) } } });
    const other = await app.account();
    await app.request('POST', '/api/user/dnc', { token: other.token, body: { phone_number: '+5511987650103' } });
    expect((await app.request('GET', '/api/user/dnc', { token: me.token })).body).toEqual([]);
    const foreign = await app.request('DELETE', `/api/user/dnc/${encodeURIComponent('+5511987650103')}`, { token: me.token });
    expect(foreign.status).toBe(404);
    expect((await app.request('GET', '/api/user/dnc', { token: other.token })).body).toHaveLength(1);
  });

  it('refuses make_call and SMS to a listed number with 422 on phone_number, charging nothing', async () => {
    const assistant = await app.outboundAssistant(me);
    const sender = await app.phoneNumber(me.accountId, '+5511933007000', { sms: true });
    await app.request('POST', '/api/user/dnc', { token: me.token, body: { phone_number: '+5511987650104' } });
    const call = await app.request('POST', '/api/user/make_call', { token: me.token, body: { phone_number: '+55 11 98765-0104', assistant_id: assistant } });
    expect(call).toMatchObject({ status: 422, body: refusal });
    const gqlCall = await app.graphql('mutation($input: MakeCallInput!) { makeCall(input: $input) { call_id } }', { input: { phone_number: '+5511987650104', assistant_id: assistant } }, me.token);
    expect(gqlCall.body.errors[0].extensions).toMatchObject({ code: 'VALIDATION_FAILED', errors: refusal.errors });
    const sms = await app.request('POST', '/api/user/sms', { token: me.token, body: { from: sender, to: '+5511987650104', body: 'oi' } });
    expect(sms).toMatchObject({ status: 422, body: refusal });
    const [{ n }] = await app.sql('select (select count(*) from calls where account_id = $1) + (select count(*) from sms_messages where account_id = $1) as n', [me.accountId]);
    expect(Number(n)).toBe(0);
    expect((await app.sql('select balance::text from accounts where id = $1', [me.accountId]))[0].balance).toBe('10.0000');
    // Another number still goes through.
    expect((await app.request('POST', '/api/user/sms', { token: me.token, body: { from: sender, to: '+5511987650105', body: 'oi' } })).status).toBe(200);
  });
});
