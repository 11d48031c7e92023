import { releaseDeadWorkers } from '../../src/jobs/heartbeat';
import { sweepStuckCalls } from '../../src/modules/calls/call.lifecycle';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';

let app: TestApp;
let me: TestAccount;
let other: TestAccount;
let assistantId: number;
let phoneSeq = 0;

/** A Brazilian mobile number whose last four digits choose the simulator's outcome. */
const number = (lastFour = '7777') => `+55119${String(100 + phoneSeq++).padStart(3, '0')}0${lastFour}`;

const outboundAssistant = (token: string, accountId: number, extra: Record<string, unknown> = {}) =>
  app.outboundAssistant(
    { token, accountId },
    {
      post_call_evaluation: true,
      post_call_schema: [
        { name: 'customer_name', type: 'string', description: 'Nome do cliente' },
        { name: 'order_total', type: 'number', description: 'Valor do pedido' },
        { name: 'confirmed', type: 'bool', description: 'Pedido confirmado?' },
      ],
      ...extra,
    },
  );

const makeCall = (body: Record<string, unknown>, token = me.token, headers: Record<string, string> = {}) =>
  app.request('POST', '/api/user/make_call', { token, body, headers });

beforeAll(async () => {
  app = await startTestApp({}, { workers: true });
  me = await app.account({ balance: '100' });
  other = await app.account({ balance: '100' });
  assistantId = await outboundAssistant(me.token, me.accountId);
});
afterAll(() => app?.close());

describe('POST /user/make_call', () => {
  it('answers the documented body and starts the call', async () => {
    const res = await makeCall({ phone_number: number(), assistant_id: assistantId, variables: { customer_name: 'Joana' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Call initiated successfully', data: {}, call_id: expect.any(Number), status: 'initiated' });
    const call = await app.finishedCall(res.body.call_id, me.token);
    expect(call.status).toBe('completed');
  });

  it.each([['12345'], ['+55 11'], ['abc']])('refuses the number %p', async (phone_number) => {
    const res = await makeCall({ phone_number, assistant_id: assistantId });
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('Número de telefone inválido');
  });

  it('names missing fields', async () => {
    const res = await makeCall({});
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['assistant_id', 'phone_number']);
  });

  it("answers another account's assistant exactly like a missing one", async () => {
    const theirs = await outboundAssistant(other.token, other.accountId);
    const foreign = await makeCall({ phone_number: number(), assistant_id: theirs });
    const missing = await makeCall({ phone_number: number(), assistant_id: 987654 });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ message: 'Assistente não encontrado', code: 'NOT_FOUND' });
    expect(missing.text).toBe(foreign.text);
  });

  it('needs an outbound assistant with a phone number', async () => {
    const inbound = await outboundAssistant(me.token, me.accountId, { calls_direction: 'receive' });
    const res = await makeCall({ phone_number: number(), assistant_id: inbound });
    expect(res.status).toBe(422);
    expect(res.body.errors.assistant_id[0]).toContain('calls_direction');
    const noPhone = await outboundAssistant(me.token, me.accountId, { phone_number_id: null });
    await app.request('PUT', `/api/user/assistant/${noPhone}`, { token: me.token, body: { phone_number_id: null } });
    const res2 = await makeCall({ phone_number: number(), assistant_id: noPhone });
    expect(res2.status).toBe(422);
    expect(res2.body.errors.assistant_id[0]).toContain('número de telefone');
  });

  it('needs a positive balance (402 Saldo insuficiente)', async () => {
    const broke = await app.account({ balance: '0' });
    const assistant = await outboundAssistant(broke.token, broke.accountId);
    const res = await makeCall({ phone_number: number(), assistant_id: assistant }, broke.token);
    expect(res.status).toBe(402);
    expect(res.body).toEqual({ message: 'Saldo insuficiente', code: 'INSUFFICIENT_BALANCE' });
    expect(await app.sql('select * from calls where account_id = $1', [broke.accountId])).toEqual([]);
  });
});

describe('the simulator drives every outcome to its final state', () => {
  const cases: [string, string, Record<string, unknown>, string | null][] = [
    ['0001', 'busy', {}, null],
    ['0002', 'no-answer', {}, null],
    ['0003', 'failed', {}, null],
    ['0004', 'ended', { end_call_on_voicemail: true }, 'machine'],
    ['0004', 'completed', { end_call_on_voicemail: false }, 'machine'],
    ['0005', 'ended_by_customer', {}, 'human'],
    ['0006', 'ended_by_assistant', {}, 'human'],
    ['4321', 'completed', {}, 'human'],
  ];

  it.each(cases)('…%s ends %s', async (lastFour, status, settings, answeredBy) => {
    const account = await app.account({ balance: '50' });
    const assistant = await outboundAssistant(account.token, account.accountId, settings);
    const started = await makeCall({ phone_number: number(lastFour), assistant_id: assistant, variables: { customer_name: 'Joana' } }, account.token);
    const call = await app.finishedCall(started.body.call_id, account.token);
    expect(call.status).toBe(status);
    expect(call.answered_by).toBe(answeredBy);

    const events = await app.sql('select status from call_events where call_id = $1 order by id', [call.id]);
    const path = events.map((e: any) => e.status);
    expect(path[0]).toBe('initiated');
    expect(path.at(-1)).toBe(status);
    if (answeredBy) expect(path).toEqual(['initiated', 'ringing', 'in-progress', status]);

    const ledger = await app.sql('select amount, kind, reference from ledger_entries where account_id = $1 and kind = $2', [account.accountId, 'call']);
    const balance = (await app.sql('select balance from accounts where id = $1', [account.accountId]))[0].balance;
    if (answeredBy) {
      expect(call.duration).toBeGreaterThan(0);
      expect(call.duration).toBeLessThanOrEqual(600);
      expect(call.total_cost).toBeGreaterThan(call.carrier_cost);
      expect(ledger).toEqual([{ amount: (-call.total_cost).toFixed(4), kind: 'call', reference: `call:${call.id}` }]);
      expect(Number(balance)).toBeCloseTo(50 - call.total_cost, 4);
      expect(call.recording_url).toMatch(new RegExp(`/recordings/${call.id}\\.wav\\?sig=`));
    } else {
      expect(call).toMatchObject({ duration: 0, carrier_cost: 0, total_cost: 0, recording_url: null, transcript: '' });
      expect(ledger).toEqual([]);
      expect(balance).toBe('50.0000');
    }
  });

  it('builds the transcript, extracts the post-call schema and evaluates a human conversation', async () => {
    const started = await makeCall({ phone_number: number('4444'), assistant_id: assistantId, variables: { customer_name: 'Joana', order_total: '129.90' } });
    const call = await app.finishedCall(started.body.call_id, me.token);
    const lines = call.transcript.split('\n');
    expect(lines[0]).toBe('Assistente: Olá, aqui é a Ana da Loja Centro.');
    expect(call.transcript).toContain('Joana');
    expect(call.transcript).toContain('Você confirma pedidos de clientes.');
    expect(call.variables).toEqual({ customer_name: 'Joana', order_total: 129.9, confirmed: expect.any(Boolean) });
    expect(call.evaluation).toEqual({ sentiment: expect.any(String), outcome: 'successful', score: expect.any(Number) });
    // 7 turns: 20 + 7×8 + up to 40 seconds; one started minute at R$0.06 + R$0.05 fee... or two.
    const minutes = Math.ceil(call.duration / 60);
    expect(call.carrier_cost).toBeCloseTo(0.06 * minutes, 4);
    expect(call.total_cost).toBeCloseTo(0.11 * minutes, 4);
    const recording = await fetch(call.recording_url.replace(app.config.publicUrl, app.url));
    expect(recording.status).toBe(200);
    expect(recording.headers.get('content-type')).toBe('audio/wav');
    expect(Number(recording.headers.get('content-length'))).toBe(44 + call.duration * 8000);
  });

  it('lets the customer speak first, stays within max_call_duration, and records only when asked', async () => {
    const assistant = await outboundAssistant(me.token, me.accountId, {
      who_speaks_first: 'Customer',
      max_call_duration: 20,
      record_call: false,
      post_call_evaluation: false,
    });
    const started = await makeCall({ phone_number: number('5555'), assistant_id: assistant }, me.token);
    const call = await app.finishedCall(started.body.call_id, me.token);
    expect(call.transcript.split('\n')[0]).toBe('Cliente: Alô?');
    expect(call.duration).toBe(20);
    expect(call.recording_url).toBeNull();
    expect(call.evaluation).toBeNull();
  });

  it('keeps the call’s variables and links it to the lead with that number', async () => {
    const phone = number('6543');
    await app.request('POST', '/api/user/lead', { token: me.token, body: { phone_number: phone, campaign_id: me.campaignId } });
    const started = await makeCall({ phone_number: phone, assistant_id: assistantId, variables: { customer_name: 'Rui' } });
    const call = await app.finishedCall(started.body.call_id, me.token);
    expect(call.campaign_name).toBe('Campaign');
    const [row] = await app.sql('select input_variables, campaign_id from calls where id = $1', [call.id]);
    expect(row).toEqual({ input_variables: { customer_name: 'Rui' }, campaign_id: me.campaignId });
  });
});

describe('idempotency keys', () => {
  it('replays the first response without a second call, and refuses the key with another body', async () => {
    const body = { phone_number: number(), assistant_id: assistantId };
    const first = await makeCall(body, me.token, { 'Idempotency-Key': 'order-1' });
    const again = await makeCall(body, me.token, { 'Idempotency-Key': 'order-1' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const other = await makeCall({ ...body, phone_number: number() }, me.token, { 'Idempotency-Key': 'order-1' });
    expect(other.status).toBe(409);
    expect(other.body.message).toContain('Idempotency-Key');
    const calls = await app.sql('select count(*)::int as n from calls where client_phone_number = $1', [body.phone_number]);
    expect(calls[0].n).toBe(1);
  });

  it('starts one call for 20 concurrent requests with one key', async () => {
    const body = { phone_number: number(), assistant_id: assistantId };
    const results = await Promise.all(Array.from({ length: 20 }, () => makeCall(body, me.token, { 'Idempotency-Key': 'burst' })));
    expect(new Set(results.map((r) => r.status))).toEqual(new Set([200]));
    expect(new Set(results.map((r) => r.body.call_id)).size).toBe(1);
    const calls = await app.sql('select count(*)::int as n from calls where client_phone_number = $1', [body.phone_number]);
    expect(calls[0].n).toBe(1);
  });

  it('scopes keys to the account and works over GraphQL', async () => {
    const theirAssistant = await outboundAssistant(other.token, other.accountId);
    const mine = await makeCall({ phone_number: number(), assistant_id: assistantId }, me.token, { 'Idempotency-Key': 'shared' });
    const theirs = await makeCall({ phone_number: number(), assistant_id: theirAssistant }, other.token, { 'Idempotency-Key': 'shared' });
    expect(theirs.body.call_id).not.toBe(mine.body.call_id);
    const query = `mutation($input: MakeCallInput!) { makeCall(input: $input, idempotency_key: "gql-1") { call_id status } }`;
    const input = { phone_number: number(), assistant_id: assistantId };
    const a = await app.graphql(query, { input }, me.token);
    const b = await app.graphql(query, { input }, me.token);
    expect(b.body.data.makeCall).toEqual(a.body.data.makeCall);
  });
});

describe('listing calls', () => {
  let account: TestAccount;
  let assistant: number;
  let campaign: number;
  beforeAll(async () => {
    account = await app.account({ balance: '10' });
    assistant = await outboundAssistant(account.token, account.accountId);
    campaign = await app.campaign(account.accountId, 'Inverno');
    // 35 finished calls written directly: the listing is what is under test here.
    await app.sql(
      `insert into calls (account_id, assistant_id, assistant_name, campaign_id, campaign_name, type, status, assistant_phone_number,
         client_phone_number, provider, deadline_at, created_at)
       select $1, $2, 'Ana', case when g % 5 = 0 then $3::int end, case when g % 5 = 0 then 'Inverno' end,
         case when g % 7 = 0 then 'inbound' else 'outbound' end, case when g % 3 = 0 then 'busy' else 'completed' end,
         '+551140040000', '+55119876' || lpad(g::text, 5, '0'), 'simulator', now(),
         timestamptz '2026-05-01 12:00:00+00' + (g || ' hours')::interval
       from generate_series(1, 35) g`,
      [account.accountId, assistant, campaign],
    );
  });

  const list = (query = '') => app.request('GET', `/api/user/calls${query}`, { token: account.token });

  it("answers Laravel's page object, 15 to a page, newest first", async () => {
    const res = await list('?status=completed');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual([
      'current_page', 'data', 'first_page_url', 'from', 'last_page', 'last_page_url', 'links', 'next_page_url', 'path', 'per_page',
      'prev_page_url', 'to', 'total',
    ]);
    const base = `${app.url}/api/user/calls`;
    expect(res.body).toMatchObject({
      current_page: 1,
      first_page_url: `${base}?status=completed&page=1`,
      from: 1,
      last_page: 2,
      last_page_url: `${base}?status=completed&page=2`,
      next_page_url: `${base}?status=completed&page=2`,
      path: base,
      per_page: 15,
      prev_page_url: null,
      to: 15,
      total: 24,
    });
    expect(res.body.links).toEqual([
      { url: null, label: '&laquo; Previous', active: false },
      { url: `${base}?status=completed&page=1`, label: '1', active: true },
      { url: `${base}?status=completed&page=2`, label: '2', active: false },
      { url: `${base}?status=completed&page=2`, label: 'Next &raquo;', active: false },
    ]);
    const ids = res.body.data.map((c: any) => c.id);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => b - a));
    expect(Object.keys(res.body.data[0])).toEqual([
      'id', 'assistant_name', 'campaign_name', 'type', 'duration', 'assistant_phone_number', 'client_phone_number', 'status', 'transcript',
      'variables', 'evaluation', 'webhook_response', 'carrier_cost', 'total_cost', 'answered_by', 'recording_url', 'lead_id', 'attempt', 'created_at', 'updated_at',
    ]);

    const last = await list('?status=completed&page=2');
    expect(last.body).toMatchObject({ current_page: 2, from: 16, to: 24, next_page_url: null, prev_page_url: `${base}?status=completed&page=1` });
  });

  it('elides page links the way Laravel does past 13 pages', async () => {
    const res = await list('?per_page=2&page=9');
    expect(res.body.last_page).toBe(18);
    expect(res.body.links.map((l: any) => l.label)).toEqual([
      '&laquo; Previous', '1', '2', '...', '6', '7', '8', '9', '10', '11', '12', '...', '17', '18', 'Next &raquo;',
    ]);
    const start = await list('?per_page=2&page=2');
    expect(start.body.links.map((l: any) => l.label)).toEqual([
      '&laquo; Previous', '1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '...', '17', '18', 'Next &raquo;',
    ]);
  });

  it.each([
    ['?type=inbound', 5],
    ['?status=busy', 11],
    ['?campaign_id=CAMPAIGN', 7],
    ['?assistant_id=ASSISTANT', 35],
    ['?phone_number=%2B5511987600007', 1],
    ['?date_from=2026-05-02', 24],
    ['?date_to=2026-05-01', 11],
    ['?date_from=2026-05-02&date_to=2026-05-02', 24],
    ['?date_from=2026-05-03', 0],
    ['?type=outbound&status=busy', 10],
  ])('filters %s', async (query, total) => {
    const res = await list(query.replace('CAMPAIGN', String(campaign)).replace('ASSISTANT', String(assistant)));
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(total);
  });

  it.each([
    ['?status=talking', 'status'],
    ['?type=fax', 'type'],
    ['?per_page=0', 'per_page'],
    ['?per_page=101', 'per_page'],
    ['?page=-1', 'page'],
    ['?assistant_id=x', 'assistant_id'],
    ['?campaign_id=1.5', 'campaign_id'],
    ['?date_from=2026-13-01', 'date_from'],
    ['?phone_number=123', 'phone_number'],
  ])('refuses %s', async (query, field) => {
    const res = await list(query);
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('Falha na validação');
    expect(Object.keys(res.body.errors)).toEqual([field]);
  });

  it("shows only the account's calls; another account's call is like a missing one", async () => {
    // An outbound call: the GraphQL test below counts the inbound ones.
    const [{ id }] = await app.sql(`select id from calls where account_id = $1 and status = 'completed' and type = 'outbound' order by id limit 1`, [account.accountId]);
    expect((await app.request('GET', '/api/user/calls', { token: other.token })).body.data.map((c: any) => c.id)).not.toContain(id);
    for (const method of ['GET', 'DELETE']) {
      const foreign = await app.request(method, `/api/user/calls/${id}`, { token: other.token });
      const missing = await app.request(method, '/api/user/calls/987654', { token: other.token });
      expect(foreign.status).toBe(404);
      expect(foreign.body).toEqual({ message: 'Chamada não encontrada', code: 'NOT_FOUND' });
      expect(missing.text).toBe(foreign.text);
    }
    const deleted = await app.request('DELETE', `/api/user/calls/${id}`, { token: account.token });
    expect(deleted.body).toEqual({ message: 'Call deleted successfully' });
  });

  it('lists over GraphQL with the same filters', async () => {
    const res = await app.graphql(`{ calls(type: "inbound", per_page: 2) { total last_page data { id type } } }`, {}, account.token);
    expect(res.body.data.calls).toMatchObject({ total: 5, last_page: 3 });
    const bad = await app.graphql(`{ calls(status: "x") { total } }`, {}, account.token);
    expect(bad.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
  });
});

describe('inbound calls', () => {
  it('reach an inbound assistant through the simulator and go through the same lifecycle', async () => {
    const account = await app.account({ balance: '5' });
    const phone = await app.phoneNumber(account.accountId, '+5511944440000');
    const created = await app.request('POST', '/api/user/assistant', {
      token: account.token,
      body: {
        assistant_name: 'Recepção',
        voice_id: 1,
        language: 'Portuguese',
        llm_model: 'gpt-4o-mini',
        calls_direction: 'receive',
        engine_type: 'pipeline',
        timezone: 'America/Sao_Paulo',
        initial_message: 'Loja Centro, bom dia!',
        system_prompt: 'Você atende clientes.',
        phone_number_id: phone,
      },
    });
    const res = await app.graphql(
      `mutation { simulateInboundCall(to: "+5511944440000", from: "+5511987611111") { id type status assistant_name } }`,
      {},
      account.token,
    );
    expect(res.body.data.simulateInboundCall).toMatchObject({ type: 'inbound', status: 'initiated', assistant_name: 'Recepção' });
    const call = await app.finishedCall(res.body.data.simulateInboundCall.id, account.token);
    expect(call).toMatchObject({ type: 'inbound', status: 'completed', answered_by: 'human', client_phone_number: '+5511987611111' });
    expect(call.transcript.split('\n')[0]).toBe('Assistente: Loja Centro, bom dia!');
    expect(created.status).toBe(201);

    const noAssistant = await app.graphql(`mutation { simulateInboundCall(to: "+5511944449999", from: "+5511987611111") { id } }`, {}, account.token);
    expect(noAssistant.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    // Another account cannot ring this account's assistant.
    const foreign = await app.graphql(`mutation { simulateInboundCall(to: "+5511944440000", from: "+5511987611111") { id } }`, {}, other.token);
    expect(foreign.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
  });
});

describe('the sweeper', () => {
  it('ends calls that outlived their longest life: unanswered as failed, answered as ended at max_call_duration', async () => {
    const quiet = await startTestApp(); // no workers: nothing moves these calls on
    try {
      const account = await quiet.account({ balance: '10' });
      const phone = await quiet.phoneNumber(account.accountId, '+5511933339999');
      const assistant = await quiet.request('POST', '/api/user/assistant', {
        token: account.token,
        body: {
          assistant_name: 'Ana', voice_id: 1, language: 'Portuguese', llm_model: 'm', calls_direction: 'make', engine_type: 'pipeline',
          timezone: 'America/Sao_Paulo', initial_message: 'Oi', system_prompt: 'Seja breve.', phone_number_id: phone, max_call_duration: 120,
        },
      });
      const start = () => quiet.request('POST', '/api/user/make_call', { token: account.token, body: { phone_number: number(), assistant_id: assistant.body.data.id } });
      const stuckRinging = (await start()).body.call_id;
      const stuckTalking = (await start()).body.call_id;
      await quiet.sql(`update calls set status = 'in-progress', answered_by = 'human', answered_at = now() where id = $1`, [stuckTalking]);

      const deps = quiet.runtime.lifecycle;
      expect(await sweepStuckCalls(quiet.orm.em.fork(), deps, null, new Date())).toBe(0);
      const later = new Date(Date.now() + 3600_000);
      expect(await sweepStuckCalls(quiet.orm.em.fork(), deps, null, later)).toBe(2);
      expect(await sweepStuckCalls(quiet.orm.em.fork(), deps, null, later)).toBe(0);

      const ringing = (await quiet.request('GET', `/api/user/calls/${stuckRinging}`, { token: account.token })).body;
      const talking = (await quiet.request('GET', `/api/user/calls/${stuckTalking}`, { token: account.token })).body;
      expect(ringing).toMatchObject({ status: 'failed', duration: 0, total_cost: 0 });
      expect(talking).toMatchObject({ status: 'ended', duration: 120, carrier_cost: 0.12, total_cost: 0.22 });
      const ledger = await quiet.sql(`select amount from ledger_entries where account_id = $1 and kind = 'call'`, [account.accountId]);
      expect(ledger).toEqual([{ amount: '-0.2200' }]);
    } finally {
      await quiet.close();
    }
  });

  it('releases the jobs of a worker whose heartbeat stopped, and only those', async () => {
    await app.sql(`select graphile_worker.add_job('noop:dead', '{}'::json, run_at => now() + interval '1 hour')`);
    await app.sql(`select graphile_worker.add_job('noop:alive', '{}'::json, run_at => now() + interval '1 hour')`);
    await app.sql(`update graphile_worker._private_jobs j set locked_by = 'worker-dead', locked_at = now()
                   from graphile_worker._private_tasks t where t.id = j.task_id and t.identifier = 'noop:dead'`);
    await app.sql(`update graphile_worker._private_jobs j set locked_by = 'worker-alive', locked_at = now()
                   from graphile_worker._private_tasks t where t.id = j.task_id and t.identifier = 'noop:alive'`);
    await app.sql(`insert into worker_heartbeats (worker_id, beat_at) values ('worker-dead', now() - interval '1 minute'), ('worker-alive', now())`);
    expect(await releaseDeadWorkers(app.orm.em.fork(), 30_000)).toEqual(['worker-dead']);
    const locks = await app.sql(`select t.identifier, j.locked_by from graphile_worker._private_jobs j
                                 join graphile_worker._private_tasks t on t.id = j.task_id where t.identifier like 'noop:%' order by 1`);
    expect(locks).toEqual([{ identifier: 'noop:alive', locked_by: 'worker-alive' }, { identifier: 'noop:dead', locked_by: null }]);
  });

  it('is scheduled on the job queue every minute', async () => {
    const rows = await app.sql(`select identifier from graphile_worker._private_known_crontabs`);
    expect(rows.map((r: any) => r.identifier)).toContain('calls:sweep');
  });
});
