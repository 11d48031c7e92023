import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import twilio from 'twilio';
import { FieldMessages, Messages } from '../../src/errors';
import { countSegments } from '../../src/modules/sms/segments';
import { NO_VENDORS, startTestApp, waitingOnLock, type TestAccount, type TestApp } from '../helpers/app';
import { until } from '../helpers/dialer';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fakes/openai';
import { startFakeTwilio, type FakeTwilio } from '../helpers/twilio-sms';

/**
 * SMS and WhatsApp in (design.md, "Conversations"): Twilio's messaging webhook, signed with
 * the `twilio` package's own helper, opens the sender's conversation with the number's inbound
 * assistant, and the reply goes out through the fake Twilio Messages API, charged like an SMS.
 */
const OPENAI_KEY = 'sk-test-inbound';
const AUTH_TOKEN = randomBytes(16).toString('hex');
const ACCOUNT_SID = `AC${randomBytes(16).toString('hex')}`;
const PRICE = '0.0333';

let app: TestApp;
let openai: FakeOpenAi;
let fake: FakeTwilio;
let me: TestAccount;
let number: string;
let seq = 0;

const sid = () => `SM${randomBytes(16).toString('hex')}`;
const customer = () => `+5511987${String(600000 + seq++)}`;
const webhookUrl = () => `${app.config.publicUrl}/telephony/twilio/messaging`;

/** Twilio's request for an incoming message, as its webhook documentation lists the parameters. */
const incoming = (from: string, body: string, extra: Record<string, string> = {}) => ({
  MessageSid: sid(),
  SmsSid: '',
  AccountSid: ACCOUNT_SID,
  From: from,
  To: number,
  Body: body,
  NumMedia: '0',
  NumSegments: '1',
  ApiVersion: '2010-04-01',
  ...extra,
});

function deliver(params: Record<string, string>, signature: string | null = twilio.getExpectedTwilioSignature(AUTH_TOKEN, webhookUrl(), params)) {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (signature !== null) headers['x-twilio-signature'] = signature;
  return fetch(webhookUrl(), { method: 'POST', headers, body: new URLSearchParams(params).toString() });
}

/** The messages Twilio was asked to send to `to` (an address as Twilio has it). */
const sentTo = (to: string) => fake.messages.filter((m) => m.to === to);
const stored = (messageSid: string) => app.sql('select role, content, handled_at from conversation_messages where provider_message_id = $1', [messageSid]);

async function conversationOf(phone: string, type = 'sms') {
  const res = await app.request('GET', `/api/user/conversations?type=${type}&customer_phone=${encodeURIComponent(phone)}`, { token: me.token });
  expect(res.status).toBe(200);
  if (res.body.data.length !== 1) return null;
  return (await app.request('GET', `/api/conversations/${res.body.data[0].uuid}`, { token: me.token })).body.data;
}

/** Waits until the job has dealt with the message `messageSid` (answered or not). */
const handled = (messageSid: string) => until('the message handled', () => stored(messageSid), (rows) => rows[0]?.handled_at != null);

beforeAll(async () => {
  openai = await startFakeOpenAi(OPENAI_KEY);
  fake = await startFakeTwilio();
  app = await startTestApp(
    {
      voice: { openai: null, pipelineEngineUrl: null, pipeline: { ...NO_VENDORS, openai: { apiKey: OPENAI_KEY, url: openai.url } } },
      sms: { provider: 'twilio', prices: { '*': PRICE }, timeoutMs: 5000, reconcileAfterMs: 1000, twilio: { accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN, apiBase: fake.url } },
      allowPrivateNetworkTargets: true,
    },
    { workers: true },
  );
  me = await app.account({ balance: '10' });
  number = '+5511930001000';
  const phone = await app.phoneNumber(me.accountId, number, { sms: true, whatsapp: true });
  await app.outboundAssistant(me, { calls_direction: 'receive', phone_number_id: phone, system_prompt: 'Você atende clientes da Loja Centro por mensagem.' });
});
afterAll(async () => {
  await app?.close();
  await Promise.all([openai?.close(), fake?.close()]);
});
afterEach(() => {
  openai.chat.length = 0;
  openai.chatRequests.length = 0;
});

describe('an inbound SMS', () => {
  it('opens the sender’s conversation, answered at once with an empty TwiML, the reply sent through the Messages API and charged', async () => {
    const from = customer();
    openai.chat.push({ text: 'Abrimos aos sábados das 9h às 13h.', usage: { prompt_tokens: 30, completion_tokens: 9 } });
    const params = incoming(from, 'Vocês abrem sábado?');
    const res = await deliver(params);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/xml; charset=utf-8');
    expect(await res.text()).toBe('<?xml version="1.0" encoding="UTF-8"?><Response/>');

    const [reply] = await until('the reply sent', async () => sentTo(from), (sent) => sent.length === 1);
    const post = fake.receiver.requests.find((r) => r.method === 'POST' && new URLSearchParams(r.body).get('To') === from)!;
    expect(post.url).toBe(`/2010-04-01/Accounts/${ACCOUNT_SID}/Messages.json`);
    expect(post.headers.authorization).toBe(`Basic ${Buffer.from(`${ACCOUNT_SID}:${AUTH_TOKEN}`).toString('base64')}`);
    expect(Object.fromEntries(new URLSearchParams(post.body))).toEqual({ From: number, To: from, Body: 'Abrimos aos sábados das 9h às 13h.' });
    expect(reply.body).toBe('Abrimos aos sábados das 9h às 13h.');
    // The model was asked with the assistant's prompt and the customer's words.
    expect(openai.chatRequests[0].body.messages).toEqual([
      { role: 'system', content: 'Você atende clientes da Loja Centro por mensagem.' },
      { role: 'user', content: 'Vocês abrem sábado?' },
    ]);

    await until('the SMS settled', () => app.sql("select status from sms_messages where \"to\" = $1", [from]), (rows) => rows[0]?.status === 'sent');
    const conversation = await conversationOf(from);
    expect(conversation).toMatchObject({
      type: 'sms',
      customer_phone: from,
      ai_enabled: true,
      usage: { llm_input_tokens: 30, llm_output_tokens: 9 },
      total_cost: 0.0333,
    });
    expect(conversation.messages.map((m: any) => [m.role, m.content])).toEqual([
      ['user', 'Vocês abrem sábado?'],
      ['assistant', 'Abrimos aos sábados das 9h às 13h.'],
    ]);

    // A second message continues the conversation; a 2-segment reply costs two segments: the total is exact.
    const long = 'Temos cadeiras, mesas e estantes. '.repeat(6).trim();
    openai.chat.push({ text: long, usage: { prompt_tokens: 50, completion_tokens: 40 } });
    const second = incoming(from, 'E o que vocês vendem?');
    expect((await deliver(second)).status).toBe(200);
    await until('the second reply sent', async () => sentTo(from), (sent) => sent.length === 2);
    expect(openai.chatRequests[1].body.messages.slice(1)).toEqual([
      { role: 'user', content: 'Vocês abrem sábado?' },
      { role: 'assistant', content: 'Abrimos aos sábados das 9h às 13h.' },
      { role: 'user', content: 'E o que vocês vendem?' },
    ]);
    const after = await conversationOf(from);
    expect(after.uuid).toBe(conversation.uuid);
    expect(after.total_cost).toBe(0.0999);
    const [ledger] = await app.sql(
      `select sum(l.amount)::text as total from ledger_entries l join sms_messages s on l.reference = 'sms:' || s.id where s."to" = $1`,
      [from],
    );
    expect(ledger.total).toBe('-0.0999');
  });

  it('is refused with 403 when its signature is missing or wrong, and nothing is stored', async () => {
    const params = incoming(customer(), 'Oi');
    const wrong = await deliver(params, twilio.getExpectedTwilioSignature('another-token', webhookUrl(), params));
    expect(wrong.status).toBe(403);
    expect(await wrong.json()).toEqual({ message: Messages.forbidden, code: 'FORBIDDEN' });
    expect((await deliver(params, null)).status).toBe(403);
    // Signed over other parameters (a Body changed on the way).
    expect((await deliver({ ...params, Body: 'Outra' }, twilio.getExpectedTwilioSignature(AUTH_TOKEN, webhookUrl(), params))).status).toBe(403);
    expect(await stored(params.MessageSid)).toEqual([]);
  });

  it('to a number no inbound assistant answers: 200 with an empty Response, nothing stored', async () => {
    await app.phoneNumber(me.accountId, '+5511930009999', { sms: true });
    const params = { ...incoming(customer(), 'Oi'), To: '+5511930009999' };
    const res = await deliver(params);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<Response/>');
    expect(await stored(params.MessageSid)).toEqual([]);
  });

  it('delivered again by Twilio (at once, twice concurrently, and later) is stored once and answered once', async () => {
    const from = customer();
    openai.chat.push({ text: 'Olá! Em que posso ajudar?' }, { text: 'SEGUNDA RESPOSTA (não devia existir)' });
    const params = incoming(from, 'Olá');
    const answers = await Promise.all([deliver(params), deliver(params), deliver(params)]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    await handled(params.MessageSid);
    await until('the reply sent', async () => sentTo(from), (sent) => sent.length === 1);
    expect((await deliver(params)).status).toBe(200);
    // Time for a wrong second answer to be sent, had the retry queued one.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await stored(params.MessageSid)).toHaveLength(1);
    expect(sentTo(from)).toHaveLength(1);
    expect(openai.chatRequests).toHaveLength(1);
    const conversation = await conversationOf(from);
    expect(conversation.messages.map((m: any) => m.role)).toEqual(['user', 'assistant']);
  });
});

describe('the do-not-call list and STOP', () => {
  it('a STOP puts the sender on the do-not-call list and is confirmed once; a second STOP and later messages are stored, not answered', async () => {
    const from = customer();
    const stop = incoming(from, ' Stop. ');
    await deliver(stop);
    await until('the confirmation sent', async () => sentTo(from), (sent) => sent.length === 1);
    expect(sentTo(from)[0]).toMatchObject({ from: number, body: Messages.smsOptedOut });
    expect(await app.sql('select reason from dnc_numbers where account_id = $1 and phone_number = $2', [me.accountId, from])).toEqual([{ reason: 'sms_stop' }]);
    const listed = await app.request('GET', '/api/user/dnc', { token: me.token });
    expect(listed.body.map((n: any) => n.phone_number)).toContain(from);

    const again = incoming(from, 'STOP');
    const later = incoming(from, 'Ainda estão aí?');
    await deliver(again);
    await deliver(later);
    await handled(later.MessageSid);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sentTo(from)).toHaveLength(1);
    expect(openai.chatRequests).toHaveLength(0);
    const conversation = await conversationOf(from);
    expect(conversation.messages.map((m: any) => [m.role, m.content])).toEqual([
      ['user', ' Stop. '],
      ['assistant', Messages.smsOptedOut],
      ['user', 'STOP'],
      ['user', 'Ainda estão aí?'],
    ]);
    // The confirmation is an SMS like any other, charged on the conversation: its accents make it UCS-2, 2 segments.
    expect(countSegments(Messages.smsOptedOut)).toMatchObject({ encoding: 'UCS-2', segments: 2 });
    expect(conversation.total_cost).toBe(0.0666);
  });

  it('a Portuguese opt-out (SAIR) counts; START takes a customer who opted out by text back, confirmed', async () => {
    const from = customer();
    const sair = incoming(from, 'sair');
    await deliver(sair);
    await until('the confirmation sent', async () => sentTo(from), (sent) => sent.length === 1);
    const start = incoming(from, 'START');
    await deliver(start);
    await until('the opt-in confirmed', async () => sentTo(from), (sent) => sent.length === 2);
    expect(sentTo(from)[1].body).toBe(Messages.smsOptedIn);
    expect(await app.sql('select 1 from dnc_numbers where account_id = $1 and phone_number = $2', [me.accountId, from])).toEqual([]);
  });

  it('when Twilio’s own opt-out answered the STOP (OptOutType), the number is listed and nothing more is sent', async () => {
    const from = customer();
    const stop = incoming(from, 'STOP', { OptOutType: 'STOP' });
    await deliver(stop);
    await handled(stop.MessageSid);
    expect(await app.sql('select reason from dnc_numbers where account_id = $1 and phone_number = $2', [me.accountId, from])).toEqual([{ reason: 'sms_stop' }]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sentTo(from)).toHaveLength(0);
  });

  it('a sender the account put on the do-not-call list gets no reply; the message is stored', async () => {
    const from = customer();
    expect((await app.request('POST', '/api/user/dnc', { token: me.token, body: { phone_number: from } })).status).toBeLessThan(300);
    const params = incoming(from, 'Quero comprar uma cadeira');
    await deliver(params);
    await handled(params.MessageSid);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sentTo(from)).toHaveLength(0);
    expect(openai.chatRequests).toHaveLength(0);
    expect(await stored(params.MessageSid)).toMatchObject([{ role: 'user', content: 'Quero comprar uma cadeira' }]);
    // START does not take off a number the business listed.
    const start = incoming(from, 'START');
    await deliver(start);
    await handled(start.MessageSid);
    expect(await app.sql('select reason from dnc_numbers where account_id = $1 and phone_number = $2', [me.accountId, from])).toEqual([{ reason: null }]);
  });
});

describe('a person who took the conversation over (the AI off)', () => {
  const send = (uuid: string, message: string) =>
    app.request('POST', `/api/conversations/${uuid}/messages`, { token: me.token, body: { message, sender: 'human' } });
  /** A customer's conversation, answered once by the assistant, then taken over. */
  const takenOver = async () => {
    const from = customer();
    openai.chat.push({ text: 'Olá!' });
    await deliver(incoming(from, 'Olá'));
    await until('the reply sent', async () => sentTo(from), (sent) => sent.length === 1);
    const { uuid } = await conversationOf(from);
    await app.request('POST', `/api/automate/conversations/${uuid}/disable-ai`, { token: me.token });
    return { from, uuid: uuid as string };
  };

  it('the customer’s messages are stored, not answered; the person’s go to the customer through the Messages API, charged on the conversation', async () => {
    const from = customer();
    openai.chat.push({ text: 'Olá! Como posso ajudar?' });
    await deliver(incoming(from, 'Olá'));
    await until('the reply sent', async () => sentTo(from), (sent) => sent.length === 1);
    const { uuid } = await conversationOf(from);
    expect((await app.request('POST', `/api/automate/conversations/${uuid}/disable-ai`, { token: me.token })).status).toBe(200);

    const later = incoming(from, 'Quero falar com uma pessoa');
    await deliver(later);
    await handled(later.MessageSid);
    const res = await send(uuid, 'Oi, aqui é a Júlia da Loja Centro. Já vejo o seu pedido.');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ message: { role: 'human', content: 'Oi, aqui é a Júlia da Loja Centro. Já vejo o seu pedido.' }, reply: null, ai_enabled: false });

    expect(sentTo(from)).toHaveLength(2);
    const post = fake.receiver.requests.filter((r) => r.method === 'POST' && new URLSearchParams(r.body).get('To') === from).at(-1)!;
    expect(Object.fromEntries(new URLSearchParams(post.body))).toEqual({ From: number, To: from, Body: 'Oi, aqui é a Júlia da Loja Centro. Já vejo o seu pedido.' });
    expect(openai.chatRequests).toHaveLength(1);
    const conversation = await conversationOf(from);
    expect(conversation.messages.map((m: any) => m.role)).toEqual(['user', 'assistant', 'user', 'human']);
    // The reply and the person's message (UCS-2 for its accents: one segment of 70).
    expect(conversation.total_cost).toBe(0.0666);
    expect(await app.sql("select status, channel from sms_messages where \"to\" = $1 order by id", [from])).toEqual([
      { status: 'sent', channel: 'sms' },
      { status: 'sent', channel: 'sms' },
    ]);
  });

  it('refuses, storing, sending and charging nothing: a customer on the do-not-call list, a text over an SMS’s 1,600 characters, a balance that does not cover it; a refusal by Twilio is a 502 with the charge given back', async () => {
    const { from, uuid } = await takenOver();
    const count = async () => (await app.sql('select count(*)::int as n from conversation_messages m join conversations c on c.id = m.conversation_id where c.uuid = $1', [uuid]))[0].n;
    const before = await count();

    const tooLong = await send(uuid, 'a'.repeat(1601));
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.errors).toEqual({ message: ['O campo message não pode ser superior a 1600 caracteres.'] });

    await app.sql("update accounts set balance = 0.01 where id = $1", [me.accountId]);
    const poor = await send(uuid, 'Pode me passar seu CPF?');
    expect(poor.status).toBe(402);
    await app.sql("update accounts set balance = 10 where id = $1", [me.accountId]);

    expect((await app.request('POST', '/api/user/dnc', { token: me.token, body: { phone_number: from } })).status).toBeLessThan(300);
    const listed = await send(uuid, 'Pode me passar seu CPF?');
    expect(listed.status).toBe(422);
    expect(listed.body.errors).toEqual({ customer_phone: [FieldMessages.doNotCall] });
    expect(await count()).toBe(before);
    expect(sentTo(from)).toHaveLength(1);
    await app.request('DELETE', `/api/user/dnc/${encodeURIComponent(from)}`, { token: me.token });

    fake.behaviour = () => 'refuse-400';
    try {
      const refused = await send(uuid, 'Seu pedido saiu.');
      expect(refused.status).toBe(502);
      expect(refused.body).toMatchObject({ message: Messages.conversationFailed, code: 'PROVIDER_FAILURE' });
    } finally {
      fake.behaviour = () => 'accept';
    }
    const after = await conversationOf(from);
    expect(after.messages.at(-1)).toMatchObject({ role: 'human', content: 'Seu pedido saiu.' });
    expect(after.total_cost).toBe(0.0333);
  });

  it('decided while the AI was off and turned on by another process before it is stored: refused, nothing stored, sent or charged', async () => {
    const { from, uuid } = await takenOver();
    const state = async () => ({
      messages: (await app.sql('select count(*)::int as n from conversation_messages m join conversations c on c.id = m.conversation_id where c.uuid = $1', [uuid]))[0].n,
      sms: await app.sql('select status from sms_messages where "to" = $1 order by id', [from]),
      balance: (await app.sql('select balance::text from accounts where id = $1', [me.accountId]))[0].balance,
    });
    const before = await state();
    const other = new Client({ connectionString: app.databaseUrl });
    await other.connect();
    try {
      await other.query('begin');
      await other.query('update conversations set ai_enabled = true, updated_at = now() where uuid = $1', [uuid]);
      const person = send(uuid, 'Oi, aqui é a Júlia.');
      // The person's message was reserved and waits on the conversation's row to be stored.
      await waitingOnLock(app, 'insert into conversation_messages');
      await other.query('commit');
      const res = await person;
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ sender: [FieldMessages.humanWhileAiOn] });
    } finally {
      await other.end();
    }
    expect(await state()).toEqual(before);
    expect(sentTo(from)).toHaveLength(1);
  });
});

describe('an inbound WhatsApp message', () => {
  it('opens a whatsapp conversation with the E.164 customer, answered to its whatsapp: address, charged like an SMS', async () => {
    const phone = customer();
    openai.chat.push({ text: 'Oi! Pelo WhatsApp também atendo.' });
    const params = { ...incoming(`whatsapp:${phone}`, 'Oi pelo zap'), To: `whatsapp:${number}`, ProfileName: 'Maria', WaId: phone.slice(1) };
    expect((await deliver(params)).status).toBe(200);
    const [sent] = await until('the reply sent', async () => sentTo(`whatsapp:${phone}`), (all) => all.length === 1);
    expect(sent).toMatchObject({ from: `whatsapp:${number}`, body: 'Oi! Pelo WhatsApp também atendo.' });
    await until('the message settled', () => app.sql('select status, channel from sms_messages where "to" = $1', [phone]), (rows) => rows[0]?.status === 'sent');
    const conversation = await conversationOf(phone, 'whatsapp');
    expect(conversation).toMatchObject({ type: 'whatsapp', customer_phone: phone, total_cost: 0.0333 });
    expect(await conversationOf(phone, 'sms')).toBeNull();
  });

  it('a person’s message goes to the whatsapp: address inside the customer’s 24-hour window, and is refused outside it, nothing sent or charged', async () => {
    const phone = customer();
    openai.chat.push({ text: 'Oi!' });
    const params = { ...incoming(`whatsapp:${phone}`, 'Oi'), To: `whatsapp:${number}` };
    await deliver(params);
    await until('the reply sent', async () => sentTo(`whatsapp:${phone}`), (all) => all.length === 1);
    const { uuid } = await conversationOf(phone, 'whatsapp');
    await app.request('POST', `/api/automate/conversations/${uuid}/disable-ai`, { token: me.token });
    const send = (message: string) => app.request('POST', `/api/conversations/${uuid}/messages`, { token: me.token, body: { message, sender: 'human' } });

    expect((await send('Aqui é a Júlia, posso ajudar?')).status).toBe(200);
    expect(sentTo(`whatsapp:${phone}`).at(-1)).toMatchObject({ from: `whatsapp:${number}`, body: 'Aqui é a Júlia, posso ajudar?' });

    await app.sql(`update conversation_messages set created_at = now() - interval '25 hours' where provider_message_id = $1`, [params.MessageSid]);
    const closed = await send('Ainda está aí?');
    expect(closed.status).toBe(422);
    expect(closed.body).toEqual({ message: Messages.whatsappWindowClosed, code: 'VALIDATION_FAILED', errors: { message: [Messages.whatsappWindowClosed] } });
    expect(sentTo(`whatsapp:${phone}`)).toHaveLength(2);
    const conversation = await conversationOf(phone, 'whatsapp');
    expect(conversation.messages.map((m: any) => m.role)).toEqual(['user', 'assistant', 'human']);
    expect(conversation.total_cost).toBe(0.0666);
  });
});
