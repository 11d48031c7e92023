import { SmsProviderError } from '../../src/modules/sms/sms.ports';
import { TwilioSms } from '../../src/telephony/sms.providers';
import { json, startReceiver, type Receiver } from '../helpers/receiver';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';

let app: TestApp;
let me: TestAccount;
let smsNumber: number;

beforeAll(async () => {
  app = await startTestApp();
  me = await app.account({ balance: '10' });
  smsNumber = await app.phoneNumber(me.accountId, '+5511933001000', { sms: true });
});
afterAll(() => app?.close());

const send = (body: Record<string, unknown>, token = me.token, headers: Record<string, string> = {}) =>
  app.request('POST', '/api/user/sms', { token, body, headers });
const balanceOf = async (accountId: number) => (await app.sql('select balance from accounts where id = $1', [accountId]))[0].balance;
const ledgerSum = async (accountId: number) =>
  (await app.sql('select coalesce(sum(amount), 0)::text as sum from ledger_entries where account_id = $1', [accountId]))[0].sum;

describe('POST /user/sms', () => {
  it('sends, charges per segment for the destination, and answers every field of the record', async () => {
    const before = await balanceOf(me.accountId);
    const res = await send({ from: smsNumber, to: '+55 11 98765-4321', body: 'Seu pedido saiu para entrega.' });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('SMS sent successfully');
    expect(res.body.data).toEqual({
      id: expect.any(Number),
      phone_number_id: smsNumber,
      to: '+5511987654321',
      body: 'Seu pedido saiu para entrega.',
      user_id: me.accountId,
      segments: 1,
      segment_price: 0.05,
      total_cost: 0.05,
      status: 'sent',
      sms_sid: expect.stringMatching(/^SM[0-9a-f]{32}$/),
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      updated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
    });
    expect(Number(before) - Number(await balanceOf(me.accountId))).toBeCloseTo(0.05, 4);
    const ledger = await app.sql(`select amount, kind, reference from ledger_entries where reference = $1`, [`sms:${res.body.data.id}`]);
    expect(ledger).toEqual([{ amount: '-0.0500', kind: 'sms', reference: `sms:${res.body.data.id}` }]);
  });

  it('prices long and Unicode messages by their segments and the destination country', async () => {
    const long = await send({ from: smsNumber, to: '+14155550100', body: 'a'.repeat(200) });
    expect(long.body.data).toMatchObject({ segments: 2, segment_price: 0.0079, total_cost: 0.0158 });
    const unicode = await send({ from: smsNumber, to: '+351912345678', body: 'Olá! 😀 ' + 'ã'.repeat(70) });
    expect(unicode.body.data).toMatchObject({ segments: 2, segment_price: 0.08, total_cost: 0.16 });
  });

  it.each([
    ['nothing', { from: undefined }, ['body', 'from', 'to']],
    ['an empty body', { to: '+5511987654321', body: '' }, ['body']],
    ['301 characters', { to: '+5511987654321', body: 'x'.repeat(301) }, ['body']],
    ['a sender that is not an id', { from: 'abc', to: '+5511987654321', body: 'oi' }, ['from']],
    ['a recipient that is a number', { to: 5511987654321, body: 'oi' }, ['to']],
  ])('refuses %s with 422', async (_case, body, fields) => {
    const res = await send({ from: smsNumber, ...body });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(fields);
  });

  it('accepts 300 characters, emoji counted as one character each', async () => {
    expect((await send({ from: smsNumber, to: '+5511987654321', body: 'x'.repeat(300) })).status).toBe(200);
    expect((await send({ from: smsNumber, to: '+5511987654321', body: '😀'.repeat(300) })).status).toBe(200);
  });

  it('checks in order: sender, SMS capability, subscription, recipient, balance', async () => {
    const account = await app.account({ balance: '0.01' });
    const other = await app.account();
    const theirs = await app.phoneNumber(other.accountId, '+5511933001001', { sms: true });
    const voiceOnly = await app.phoneNumber(account.accountId, '+5511933001002', { sms: false });
    const expired = await app.phoneNumber(account.accountId, '+5511933001003', { sms: true, expiresAt: '2020-01-31' });
    const good = await app.phoneNumber(account.accountId, '+5511933001004', { sms: true, expiresAt: '2999-12-31' });
    const body = { to: '+5511987654321', body: 'oi' };
    const at = (from: number, extra = {}) => send({ ...body, from, ...extra }, account.token);

    const missing = await at(987654);
    const foreign = await at(theirs);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: 'Número de origem não encontrado', code: 'NOT_FOUND' });
    expect(foreign.text).toBe(missing.text);
    expect(await at(voiceOnly, { to: 'bad' })).toMatchObject({ status: 403, body: { message: 'Número de origem não possui capacidade de SMS' } });
    expect(await at(expired, { to: 'bad' })).toMatchObject({ status: 403, body: { message: 'A assinatura do número de origem expirou' } });
    const badRecipient = await at(good, { to: '12345' });
    expect(badRecipient.status).toBe(422);
    expect(badRecipient.body.message).toBe('Número de destino inválido');
    expect(await at(good)).toMatchObject({ status: 402, body: { message: 'Saldo insuficiente' } });
    expect(await balanceOf(account.accountId)).toBe('0.0100');
    expect(await app.sql('select * from sms_messages where account_id = $1', [account.accountId])).toEqual([]);
  });

  it('reverses the charge when the provider fails, records the failure, and answers 502 with its detail', async () => {
    const before = await balanceOf(me.accountId);
    const res = await send({ from: smsNumber, to: '+5511987659999', body: 'oi' });
    expect(res.status).toBe(502);
    expect(res.body).toEqual({ message: 'Falha ao enviar SMS', code: 'PROVIDER_FAILURE', error: expect.stringContaining('+5511987659999') });
    expect(await balanceOf(me.accountId)).toBe(before);
    const [row] = await app.sql(`select id, status, error from sms_messages where "to" = '+5511987659999'`);
    expect(row).toMatchObject({ status: 'failed', error: expect.stringContaining('rejected') });
    const ledger = await app.sql('select amount, kind from ledger_entries where reference = $1 order by id', [`sms:${row.id}`]);
    expect(ledger).toEqual([
      { amount: '-0.0500', kind: 'sms' },
      { amount: '0.0500', kind: 'sms_refund' },
    ]);
  });
});

describe('money under concurrency', () => {
  it('100 concurrent sends against a balance for exactly 37: 37 sent, 63 refused, balance 0 (ten rounds)', async () => {
    for (let round = 0; round < 10; round++) {
      const account = await app.account({ balance: '1.85' }); // 37 × R$0.05
      const from = await app.phoneNumber(account.accountId, `+55119330${String(2000 + round).padStart(4, '0')}`, { sms: true });
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) => send({ from, to: `+5511987${String(600000 + i)}`, body: 'Promoção!' }, account.token)),
      );
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(37);
      expect(statuses.filter((s) => s === 402)).toHaveLength(63);
      expect(results.filter((r) => r.status === 402).every((r) => r.body.message === 'Saldo insuficiente')).toBe(true);
      expect(await balanceOf(account.accountId)).toBe('0.0000');
      expect(await ledgerSum(account.accountId)).toBe('0.0000'); // the 1.85 credit and 37 debits
      const sent = await app.sql(`select count(*)::int as n from sms_messages where account_id = $1 and status = 'sent'`, [account.accountId]);
      expect(sent[0].n).toBe(37);
    }
  });

  it('50 concurrent sends with one idempotency key charge once and answer the same record', async () => {
    const account = await app.account({ balance: '5' });
    const from = await app.phoneNumber(account.accountId, '+5511933003000', { sms: true });
    const body = { from, to: '+5511987654321', body: 'Uma vez só.' };
    const results = await Promise.all(Array.from({ length: 50 }, () => send(body, account.token, { 'Idempotency-Key': 'promo-1' })));
    expect(new Set(results.map((r) => r.status))).toEqual(new Set([200]));
    expect(new Set(results.map((r) => r.body.data.id)).size).toBe(1);
    expect(await balanceOf(account.accountId)).toBe('4.9500');
    const other = await send({ ...body, body: 'Outro texto.' }, account.token, { 'Idempotency-Key': 'promo-1' });
    expect(other.status).toBe(409);
  });

  it('replays a provider failure without charging again', async () => {
    const account = await app.account({ balance: '1' });
    const from = await app.phoneNumber(account.accountId, '+5511933004000', { sms: true });
    const body = { from, to: '+5511987659999', body: 'oi' };
    const first = await send(body, account.token, { 'Idempotency-Key': 'fail-1' });
    const again = await send(body, account.token, { 'Idempotency-Key': 'fail-1' });
    expect(first.status).toBe(502);
    expect(again.text).toBe(first.text);
    expect(await balanceOf(account.accountId)).toBe('1.0000');
    expect((await app.sql('select count(*)::int as n from sms_messages where account_id = $1', [account.accountId]))[0].n).toBe(1);
  });
});

describe('reading SMS and the account', () => {
  it('GET /user/me answers name, email, total_balance and the currency; GraphQL me adds the ledger', async () => {
    const account = await app.account({ balance: '12.5', name: 'Loja Centro' });
    const res = await app.request('GET', '/api/user/me', { token: account.token });
    expect(res.body).toEqual({ name: 'Loja Centro', email: '', total_balance: 12.5, currency: 'EUR' });
    const gql = await app.graphql('{ me { name balance currency ledger(limit: 5) { amount kind balance_after } } }', {}, account.token);
    expect(gql.body.data.me).toEqual({ name: 'Loja Centro', balance: 12.5, currency: 'EUR', ledger: [{ amount: 12.5, kind: 'credit', balance_after: 12.5 }] });
  });

  it('lists and reads SMS over GraphQL, only the account’s own', async () => {
    const page = await app.graphql(`{ smsMessages(status: "sent", per_page: 2) { total data { id status to } } }`, {}, me.token);
    expect(page.body.data.smsMessages.total).toBeGreaterThanOrEqual(3);
    expect(page.body.data.smsMessages.data).toHaveLength(2);
    const failed = await app.graphql(`{ smsMessages(status: "failed") { data { to status } } }`, {}, me.token);
    expect(failed.body.data.smsMessages.data[0]).toEqual({ to: '+5511987659999', status: 'failed' });
    const id = page.body.data.smsMessages.data[0].id;
    const one = await app.graphql(`query($id: Int!) { sms(id: $id) { id user_id segments } }`, { id }, me.token);
    expect(one.body.data.sms).toMatchObject({ id, user_id: me.accountId });
    const other = await app.account();
    const foreign = await app.graphql(`query($id: Int!) { sms(id: $id) { id } }`, { id }, other.token);
    expect(foreign.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const bad = await app.graphql(`{ smsMessages(date_from: "yesterday") { total } }`, {}, me.token);
    expect(bad.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
  });
});

describe('the Twilio adapter', () => {
  let twilio: Receiver;
  beforeAll(async () => {
    twilio = await startReceiver();
  });
  afterAll(() => twilio.close());

  const adapter = () => new TwilioSms({ accountSid: 'AC123', authToken: 'tok', apiBase: twilio.url }, 2000);

  it("speaks Twilio's Messages API: form-encoded, basic auth, sid from the answer", async () => {
    twilio.respond = (_req, res) =>
      json(res, 201, { sid: 'SM0123456789abcdef0123456789abcdef', status: 'queued', to: '+5511987654321', from: '+5511933001000' });
    const { sid } = await adapter().send({ reference: 1, from: '+5511933001000', to: '+5511987654321', body: 'Olá & até já' });
    expect(sid).toBe('SM0123456789abcdef0123456789abcdef');
    const [request] = twilio.requests.slice(-1);
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/2010-04-01/Accounts/AC123/Messages.json');
    expect(request.headers.authorization).toBe(`Basic ${Buffer.from('AC123:tok').toString('base64')}`);
    expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(request.body))).toEqual({ From: '+5511933001000', To: '+5511987654321', Body: 'Olá & até já' });
  });

  it("turns Twilio's error JSON into the provider detail", async () => {
    twilio.respond = (_req, res) =>
      json(res, 400, { code: 21211, message: "The 'To' number +5511 is not a valid phone number.", more_info: 'https://www.twilio.com/docs/errors/21211', status: 400 });
    const error = await adapter().send({ reference: 2, from: '+5511933001000', to: '+5511', body: 'x' }).catch((e) => e);
    expect(error).toBeInstanceOf(SmsProviderError);
    expect(error.detail).toBe("twilio 21211: The 'To' number +5511 is not a valid phone number. (HTTP 400)");
  });

  it('is what SMS_PROVIDER=twilio sends through, with the provider’s sid on the record', async () => {
    const viaTwilio = await startTestApp({
      sms: { provider: 'twilio', prices: { '*': '0.10' }, timeoutMs: 2000, reconcileAfterMs: 0, twilio: { accountSid: 'AC999', authToken: 't', apiBase: twilio.url } },
    });
    try {
      twilio.respond = (_req, res) => json(res, 201, { sid: 'SMfromtwilio', status: 'queued' });
      const account = await viaTwilio.account({ balance: '1' });
      const from = await viaTwilio.phoneNumber(account.accountId, '+5511933005000', { sms: true });
      const ok = await viaTwilio.request('POST', '/api/user/sms', { token: account.token, body: { from, to: '+5511987654321', body: 'oi' } });
      expect(ok.body.data).toMatchObject({ sms_sid: 'SMfromtwilio', status: 'sent', total_cost: 0.1 });

      twilio.respond = (_req, res) => json(res, 400, { code: 21610, message: 'Attempt to send to unsubscribed recipient', status: 400 });
      const refused = await viaTwilio.request('POST', '/api/user/sms', { token: account.token, body: { from, to: '+5511987654322', body: 'oi' } });
      expect(refused.status).toBe(502);
      expect(refused.body).toEqual({ message: 'Falha ao enviar SMS', code: 'PROVIDER_FAILURE', error: 'twilio 21610: Attempt to send to unsubscribed recipient (HTTP 400)' });
      expect((await viaTwilio.sql('select balance from accounts where id = $1', [account.accountId]))[0].balance).toBe('0.9000');
    } finally {
      await viaTwilio.close();
    }
  });
});
