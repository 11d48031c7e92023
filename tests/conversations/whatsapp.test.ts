import { randomBytes } from 'node:crypto';
import twilio from 'twilio';
import { Messages } from '../../src/errors';
import { NO_VENDORS, startTestApp, type TestAccount, type TestApp } from '../helpers/app';
import { until } from '../helpers/dialer';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fakes/openai';
import { startFakeContentApi, type FakeContent, type FakeContentApi } from '../helpers/fakes/twilio-content';
import { startFakeTwilio, type FakeTwilio } from '../helpers/twilio-sms';

/**
 * WhatsApp senders, templates and sends as the original platform's MCP server sends them
 * (design.md, "Conversations"): templates from the fake Content API, messages through the fake
 * Messages API (`whatsapp:` addresses), charged like an SMS and written into the customer's
 * whatsapp conversation; a free-form message only inside the 24-hour window that an inbound
 * message over the signed webhook opens.
 */
const OPENAI_KEY = 'sk-test-whatsapp';
const AUTH_TOKEN = randomBytes(16).toString('hex');
const ACCOUNT_SID = `AC${randomBytes(16).toString('hex')}`;
const PRICE = '0.0333';

let app: TestApp;
let openai: FakeOpenAi;
let fake: FakeTwilio;
let content: FakeContentApi;
let me: TestAccount;
let other: TestAccount;
let number: string;
let sender: number;
let plain: number;
let expired: number;
let otherSender: number;
let seq = 0;

const customer = () => `+5511986${String(700000 + seq++)}`;
const hx = () => `HX${randomBytes(16).toString('hex')}`;
const auth = `Basic ${Buffer.from(`${ACCOUNT_SID}:${AUTH_TOKEN}`).toString('base64')}`;
const posts = (to: string) => fake.receiver.requests.filter((r) => r.method === 'POST' && new URLSearchParams(r.body).get('To') === to);
const balance = async (accountId: number) => (await app.sql('select balance::text from accounts where id = $1', [accountId]))[0].balance;

const approvedSid = hx();
const pendingSid = hx();
function templates(): FakeContent[] {
  const list: FakeContent[] = [
    {
      sid: approvedSid,
      friendly_name: 'confirmacao_pedido',
      language: 'pt_BR',
      variables: { '1': 'Maria', '2': '1234' },
      types: { 'twilio/text': { body: 'Olá {{1}}, seu pedido {{2}} foi confirmado.' } },
      approval: { status: 'approved', category: 'UTILITY' },
    },
    {
      sid: pendingSid,
      friendly_name: 'promocao',
      language: 'pt_BR',
      variables: {},
      types: { 'twilio/text': { body: 'Promoção de inverno!' } },
      approval: { status: 'pending', category: 'MARKETING' },
    },
  ];
  // A second page: the list is read to its end.
  for (let i = 0; i < 99; i++) {
    list.push({ sid: hx(), friendly_name: `rascunho_${i}`, language: 'pt_BR', variables: {}, types: { 'twilio/text': { body: `Rascunho ${i}` } }, approval: null });
  }
  list.push({
    sid: hx(),
    friendly_name: 'ultimo_aprovado',
    language: 'en',
    variables: {},
    types: { 'twilio/quick-reply': { body: 'Still interested?', actions: [{ title: 'Yes', id: 'yes' }] } },
    approval: { status: 'approved', category: 'MARKETING' },
  });
  return list;
}

beforeAll(async () => {
  openai = await startFakeOpenAi(OPENAI_KEY);
  fake = await startFakeTwilio();
  content = await startFakeContentApi(ACCOUNT_SID, AUTH_TOKEN);
  content.contents = templates();
  app = await startTestApp(
    {
      voice: { openai: null, pipelineEngineUrl: null, pipeline: { ...NO_VENDORS, openai: { apiKey: OPENAI_KEY, url: openai.url } } },
      sms: {
        provider: 'twilio',
        prices: { '*': PRICE },
        timeoutMs: 5000,
        reconcileAfterMs: 1000,
        twilio: { accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN, apiBase: fake.url, contentApiBase: content.url },
      },
      allowPrivateNetworkTargets: true,
    },
    { workers: true },
  );
  me = await app.account({ balance: '10' });
  other = await app.account({ balance: '10' });
  number = '+5511930002000';
  sender = await app.phoneNumber(me.accountId, number, { sms: true, whatsapp: true });
  plain = await app.phoneNumber(me.accountId, '+5511930002001', { sms: true });
  expired = await app.phoneNumber(me.accountId, '+5511930002002', { sms: true, whatsapp: true, expiresAt: '2020-01-01' });
  otherSender = await app.phoneNumber(other.accountId, '+5511930002003', { sms: true, whatsapp: true });
  await app.outboundAssistant(me, { calls_direction: 'receive', phone_number_id: sender, system_prompt: 'Você atende pelo WhatsApp.' });
});
afterAll(async () => {
  await app?.close();
  await Promise.all([openai?.close(), fake?.close(), content?.close()]);
});

async function templateIds(): Promise<Record<string, number>> {
  const res = await app.request('GET', `/api/user/whatsapp/senders/${sender}/templates?status=all`, { token: me.token });
  expect(res.status).toBe(200);
  return Object.fromEntries(res.body.data.map((t: any) => [t.sid, t.id]));
}

describe('senders', () => {
  it('are the account’s numbers marked whatsapp: online by default, all with status=all, also on the phone numbers', async () => {
    const res = await app.request('GET', '/api/user/whatsapp/senders', { token: me.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [{ id: sender, phone_number: number, status: 'online', assistant_id: expect.any(Number), expires_at: null }] });
    const all = await app.request('GET', '/api/user/whatsapp/senders?status=all', { token: me.token });
    expect(all.body.data.map((s: any) => [s.id, s.status])).toEqual([
      [sender, 'online'],
      [expired, 'offline'],
    ]);
    const bad = await app.request('GET', '/api/user/whatsapp/senders?status=busy', { token: me.token });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.status).toBeDefined();
    const numbers = await app.request('GET', '/api/user/phone-numbers', { token: me.token });
    expect(numbers.body.filter((n: any) => [sender, plain, expired].includes(n.id)).map((n: any) => [n.id, n.whatsapp])).toEqual([
      [sender, true],
      [plain, false],
      [expired, true],
    ]);
    const theirs = await app.request('GET', '/api/user/whatsapp/senders', { token: other.token });
    expect(theirs.body.data.map((s: any) => s.id)).toEqual([otherSender]);
  });
});

describe('templates', () => {
  it('come from the Content API, every page, with basic auth and each one’s WhatsApp approval; approved by default', async () => {
    content.receiver.requests.length = 0;
    const res = await app.request('GET', `/api/user/whatsapp/senders/${sender}/templates`, { token: me.token });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      {
        id: expect.any(Number),
        sid: approvedSid,
        name: 'confirmacao_pedido',
        language: 'pt_BR',
        category: 'UTILITY',
        status: 'approved',
        body: 'Olá {{1}}, seu pedido {{2}} foi confirmado.',
        variables: { '1': 'Maria', '2': '1234' },
      },
      expect.objectContaining({ name: 'ultimo_aprovado', status: 'approved', body: 'Still interested?', language: 'en' }),
    ]);
    const requests = content.receiver.requests;
    expect(requests.every((r) => r.headers.authorization === auth)).toBe(true);
    expect(requests.filter((r) => r.url.startsWith('/v1/Content?')).map((r) => r.url)).toEqual(['/v1/Content?PageSize=100', '/v1/Content?PageSize=100&Page=1']);
    expect(requests.filter((r) => r.url.endsWith('/ApprovalRequests'))).toHaveLength(102);

    // Ids stay the account's: listed again, the same ids; status filters.
    const ids = await templateIds();
    expect(ids[approvedSid]).toBe(res.body.data[0].id);
    const pending = await app.request('GET', `/api/user/whatsapp/senders/${sender}/templates?status=pending`, { token: me.token });
    expect(pending.body.data.map((t: any) => t.sid)).toEqual([pendingSid]);
    const unsubmitted = await app.request('GET', `/api/user/whatsapp/senders/${sender}/templates?status=unsubmitted`, { token: me.token });
    expect(unsubmitted.body.data).toHaveLength(99);
  });

  it('404 for a number that is not one of the account’s senders; 422 for an unknown status; 502 when the Content API fails', async () => {
    for (const id of [plain, otherSender, 999999]) {
      const res = await app.request('GET', `/api/user/whatsapp/senders/${id}/templates`, { token: me.token });
      expect(res.status).toBe(404);
      expect(res.body.message).toBe(Messages.whatsappSenderNotFound);
    }
    expect((await app.request('GET', '/api/user/whatsapp/senders/abc/templates', { token: me.token })).status).toBe(404);
    expect((await app.request('GET', `/api/user/whatsapp/senders/${sender}/templates?status=x`, { token: me.token })).status).toBe(422);
    content.failWith = 500;
    try {
      const res = await app.request('GET', `/api/user/whatsapp/senders/${sender}/templates`, { token: me.token });
      expect(res.status).toBe(502);
      expect(res.body.message).toBe(Messages.whatsappTemplatesFailed);
      expect(res.body.error).toContain('HTTP 500');
    } finally {
      content.failWith = null;
    }
  });
});

describe('a template send', () => {
  it('goes through the Messages API as ContentSid and ContentVariables to whatsapp: addresses, charged like an SMS, into the customer’s conversation', async () => {
    const ids = await templateIds();
    const to = customer();
    const before = await balance(me.accountId);
    const res = await app.request('POST', '/api/user/whatsapp/send', {
      token: me.token,
      body: { sender_id: sender, template_id: ids[approvedSid], recipient_phone: to, recipient_name: 'Ana', variables: { '1': 'Ana', '2': 77 } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message: Messages.whatsappSent,
      data: {
        id: expect.any(Number),
        sender_id: sender,
        recipient_phone: to,
        body: 'Olá Ana, seu pedido 77 foi confirmado.',
        template_id: ids[approvedSid],
        status: 'sent',
        segments: 1,
        total_cost: 0.0333,
        message_sid: expect.stringMatching(/^SM/),
        conversation_uuid: expect.any(String),
      },
    });
    const [post] = posts(`whatsapp:${to}`);
    expect(post.url).toBe(`/2010-04-01/Accounts/${ACCOUNT_SID}/Messages.json`);
    expect(post.headers.authorization).toBe(auth);
    expect(Object.fromEntries(new URLSearchParams(post.body))).toEqual({
      From: `whatsapp:${number}`,
      To: `whatsapp:${to}`,
      ContentSid: approvedSid,
      ContentVariables: JSON.stringify({ '1': 'Ana', '2': '77' }),
    });
    expect(await balance(me.accountId)).toBe((Number(before) - 0.0333).toFixed(4));
    expect(await app.sql('select channel, status, total_cost::text from sms_messages where id = $1', [res.body.data.id])).toEqual([{ channel: 'whatsapp', status: 'sent', total_cost: '0.0333' }]);

    const conversation = (await app.request('GET', `/api/conversations/${res.body.data.conversation_uuid}`, { token: me.token })).body.data;
    expect(conversation).toMatchObject({ type: 'whatsapp', customer_phone: to, total_cost: 0.0333 });
    expect(conversation.messages.map((m: any) => [m.role, m.content])).toEqual([['human', 'Olá Ana, seu pedido 77 foi confirmado.']]);

    // A second send continues the same conversation.
    const again = await app.request('POST', '/api/user/whatsapp/send', {
      token: me.token,
      body: { sender_id: sender, template_id: ids[approvedSid], recipient_phone: to, variables: { '1': 'Ana', '2': '78' } },
    });
    expect(again.body.data.conversation_uuid).toBe(res.body.data.conversation_uuid);
  });

  it('refuses, sending and charging nothing: another account’s or unknown template or sender (404), an expired sender (403), a pending template, missing variables, a bad number, the do-not-call list (422)', async () => {
    const ids = await templateIds();
    const theirIds = Object.fromEntries(
      (await app.request('GET', `/api/user/whatsapp/senders/${otherSender}/templates?status=all`, { token: other.token })).body.data.map((t: any) => [t.sid, t.id]),
    );
    const to = customer();
    await app.request('POST', '/api/user/dnc', { token: me.token, body: { phone_number: '+5511986999999' } });
    const before = await balance(me.accountId);
    const sent = fake.receiver.requests.length;
    const ok = { sender_id: sender, template_id: ids[approvedSid], recipient_phone: to, variables: { '1': 'A', '2': 'B' } };
    const cases: [Record<string, unknown>, number, string | null][] = [
      [{ ...ok, template_id: theirIds[approvedSid] }, 404, Messages.whatsappTemplateNotFound],
      [{ ...ok, template_id: 999999 }, 404, Messages.whatsappTemplateNotFound],
      [{ ...ok, sender_id: otherSender }, 404, Messages.whatsappSenderNotFound],
      [{ ...ok, sender_id: plain }, 404, Messages.whatsappSenderNotFound],
      [{ ...ok, sender_id: expired }, 403, Messages.senderExpired],
      [{ ...ok, template_id: ids[pendingSid] }, 422, 'template_id'],
      [{ ...ok, variables: { '1': 'A' } }, 422, 'variables'],
      [{ ...ok, variables: { '1': { nested: true }, '2': 'B' } }, 422, 'variables'],
      [{ ...ok, recipient_phone: '12' }, 422, 'recipient_phone'],
      [{ ...ok, recipient_phone: '+5511986999999' }, 422, 'recipient_phone'],
      [{ ...ok, extra: 1 }, 422, 'extra'],
      [{ sender_id: sender, recipient_phone: to }, 422, 'template_id'],
    ];
    for (const [body, status, expected] of cases) {
      const res = await app.request('POST', '/api/user/whatsapp/send', { token: me.token, body });
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), status]);
      if (status === 422) expect(res.body.errors[expected!]).toBeDefined();
      else expect(res.body.message).toBe(expected);
    }
    expect(fake.receiver.requests.length).toBe(sent);
    expect(await balance(me.accountId)).toBe(before);
    expect(await app.sql("select count(*)::int as n from conversations where customer_phone = $1", [to])).toEqual([{ n: 0 }]);
  });
});

describe('a free-form message and the session status', () => {
  const webhookUrl = () => `${app.config.publicUrl}/telephony/twilio/messaging`;
  function inbound(from: string, body: string) {
    const params = {
      MessageSid: `SM${randomBytes(16).toString('hex')}`,
      AccountSid: ACCOUNT_SID,
      From: `whatsapp:${from}`,
      To: `whatsapp:${number}`,
      Body: body,
      NumMedia: '0',
      NumSegments: '1',
      ProfileName: 'Ana',
      WaId: from.slice(1),
      ApiVersion: '2010-04-01',
    };
    return fetch(webhookUrl(), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilio.getExpectedTwilioSignature(AUTH_TOKEN, webhookUrl(), params) },
      body: new URLSearchParams(params).toString(),
    });
  }
  const status = (to: string, senderId = sender, token = me.token) =>
    app.request('GET', `/api/user/whatsapp/session-status?sender_id=${senderId}&recipient_phone=${encodeURIComponent(to)}`, { token });

  it('is refused outside the 24-hour window (nothing sent or charged), accepted once the customer wrote, and the status says so', async () => {
    const to = customer();
    const closed = await status(to);
    expect(closed.status).toBe(200);
    expect(closed.body).toEqual({ data: { sender_id: sender, recipient_phone: to, session_open: false, last_inbound_at: null, expires_at: null } });

    const before = await balance(me.accountId);
    const sent = fake.receiver.requests.length;
    const refused = await app.request('POST', '/api/user/whatsapp/send-freeform', { token: me.token, body: { sender_id: sender, recipient_phone: to, message: 'Oi!' } });
    expect(refused.status).toBe(422);
    expect(refused.body.message).toBe(Messages.whatsappWindowClosed);
    expect(refused.body.errors.recipient_phone).toEqual([Messages.whatsappWindowClosed]);
    expect(fake.receiver.requests.length).toBe(sent);
    expect(await balance(me.accountId)).toBe(before);
    expect(await app.sql('select count(*)::int as n from conversations where customer_phone = $1', [to])).toEqual([{ n: 0 }]);

    // The customer writes: the window opens (the assistant's reply goes out as well).
    openai.chat.push({ text: 'Olá! Como posso ajudar?' });
    expect((await inbound(to, 'Oi, tudo bem?')).status).toBe(200);
    await until('the reply sent', async () => posts(`whatsapp:${to}`), (all) => all.length === 1);
    const open = await status(to);
    expect(open.body.data).toMatchObject({ sender_id: sender, recipient_phone: to, session_open: true });
    const last = Date.parse(open.body.data.last_inbound_at);
    expect(Math.abs(last - Date.now())).toBeLessThan(60_000);
    expect(Date.parse(open.body.data.expires_at) - last).toBe(24 * 3600 * 1000);

    const res = await app.request('POST', '/api/user/whatsapp/send-freeform', { token: me.token, body: { sender_id: sender, recipient_phone: to, message: 'Seu pedido saiu para entrega.' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ recipient_phone: to, body: 'Seu pedido saiu para entrega.', template_id: null, status: 'sent', total_cost: 0.0333 });
    const freeform = posts(`whatsapp:${to}`)[1];
    expect(Object.fromEntries(new URLSearchParams(freeform.body))).toEqual({ From: `whatsapp:${number}`, To: `whatsapp:${to}`, Body: 'Seu pedido saiu para entrega.' });
    const conversation = (await app.request('GET', `/api/conversations/${res.body.data.conversation_uuid}`, { token: me.token })).body.data;
    expect(conversation.messages.map((m: any) => [m.role, m.content])).toEqual([
      ['user', 'Oi, tudo bem?'],
      ['assistant', 'Olá! Como posso ajudar?'],
      ['human', 'Seu pedido saiu para entrega.'],
    ]);
    await until('both settled', () => app.sql("select status from sms_messages where conversation_id = (select id from conversations where uuid = $1)", [conversation.uuid]), (rows) => rows.length === 2 && rows.every((r) => r.status === 'sent'));
    expect((await app.request('GET', `/api/conversations/${conversation.uuid}`, { token: me.token })).body.data.total_cost).toBe(0.0666);

    // 24 hours later, the window has closed.
    await app.sql("update conversation_messages set created_at = created_at - interval '24 hours 1 second' where role = 'user' and conversation_id = (select id from conversations where uuid = $1)", [conversation.uuid]);
    expect((await status(to)).body.data.session_open).toBe(false);
    const late = await app.request('POST', '/api/user/whatsapp/send-freeform', { token: me.token, body: { sender_id: sender, recipient_phone: to, message: 'Ainda aí?' } });
    expect(late.status).toBe(422);
  });

  it('refuses: unknown or another account’s sender (404), a bad number, an empty or too long message (422)', async () => {
    const to = customer();
    expect((await status(to, otherSender)).status).toBe(404);
    expect((await status(to, plain)).status).toBe(404);
    expect((await status('12')).status).toBe(422);
    expect((await app.request('GET', `/api/user/whatsapp/session-status?recipient_phone=${encodeURIComponent(to)}`, { token: me.token })).status).toBe(422);
    const cases: [Record<string, unknown>, number][] = [
      [{ sender_id: otherSender, recipient_phone: to, message: 'Oi' }, 404],
      [{ sender_id: 999999, recipient_phone: to, message: 'Oi' }, 404],
      [{ sender_id: sender, recipient_phone: to, message: ' ' }, 422],
      [{ sender_id: sender, recipient_phone: to, message: 'a'.repeat(4097) }, 422],
      [{ sender_id: sender, recipient_phone: 'abc', message: 'Oi' }, 422],
      [{ sender_id: sender, message: 'Oi' }, 422],
    ];
    for (const [body, expected] of cases) {
      const res = await app.request('POST', '/api/user/whatsapp/send-freeform', { token: me.token, body });
      expect([JSON.stringify(body).slice(0, 80), res.status]).toEqual([JSON.stringify(body).slice(0, 80), expected]);
    }
  });
});
