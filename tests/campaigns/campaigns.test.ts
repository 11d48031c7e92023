import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';

/** Campaigns as the contract gives them: every field, its default and its rule, status, stats. */
let app: TestApp;
let me: TestAccount;
let assistant: number;

beforeAll(async () => {
  app = await startTestApp({ maxParallelCalls: 8 });
  me = await app.account({ balance: '10' });
  assistant = await app.outboundAssistant(me, {
    post_call_schema: [{ name: 'agreed', type: 'bool', description: 'Aceitou?' }],
  });
});
afterAll(() => app?.close());

const create = (body: Record<string, unknown>, token = me.token) => app.request('POST', '/api/user/campaigns', { token, body });

describe('creating a campaign', () => {
  it('takes only a name, and the rest has the contract’s defaults', async () => {
    const res = await create({ name: 'Inverno' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      message: 'Campaign created successfully',
      data: {
        id: expect.any(Number), name: 'Inverno', assistant_id: null, timezone: 'UTC', max_calls_in_parallel: 3,
        allowed_hours_start_time: '09:00', allowed_hours_end_time: '18:00', allowed_days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'],
        max_retries: 3, retry_interval: 60, retry_on_voicemail: true, retry_on_goal_incomplete: false, goal_completion_variable: null,
        mark_complete_when_no_leads: true, phone_number_ids: [], status: 'draft', paused_reason: null,
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/), updated_at: expect.any(String),
        window_open: expect.any(Boolean), next_window_at: res.body.data.window_open ? null : expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:00$/),
      },
    });
  });

  it('says whether its calling window is open now, and else when it next opens (UTC, as created_at)', async () => {
    const everyDay = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
    const open = await create({ name: 'Sempre', allowed_days: everyDay, allowed_hours_start_time: '00:00', allowed_hours_end_time: '00:00' });
    expect(open.body.data).toMatchObject({ window_open: true, next_window_at: null });

    const hhmm = (date: Date) => date.toISOString().slice(11, 16);
    const opens = new Date(Date.now() + 2 * 3600_000);
    const closed = await create({
      name: 'Mais tarde',
      allowed_days: everyDay,
      allowed_hours_start_time: hhmm(opens),
      allowed_hours_end_time: hhmm(new Date(opens.getTime() + 3600_000)),
    });
    const expected = `${opens.toISOString().slice(0, 10)} ${hhmm(opens)}:00`;
    expect(closed.body.data).toMatchObject({ window_open: false, next_window_at: expected });
    const id = closed.body.data.id;
    const read = await app.request('GET', `/api/user/campaigns/${id}`, { token: me.token });
    expect(read.body).toMatchObject({ window_open: false, next_window_at: expected });
    const gql = await app.graphql(`query W($id: Int!) { campaign(id: $id) { window_open next_window_at } }`, { id }, me.token);
    expect(gql.body.data.campaign).toEqual({ window_open: false, next_window_at: expected });
  });

  it('follows its assistant for the time zone and the caller id', async () => {
    const res = await create({ name: 'Com assistente', assistant_id: String(assistant) });
    const [{ phone_number_id }] = await app.sql('select phone_number_id from assistants where id = $1', [assistant]);
    expect(res.body.data).toMatchObject({ assistant_id: assistant, timezone: 'America/Sao_Paulo', phone_number_ids: [phone_number_id] });
  });

  it.each([
    [{ timezone: 'Mars/Olympus' }, 'timezone'],
    [{ timezone: 'UTC+3' }, 'timezone'],
    [{ max_calls_in_parallel: 0 }, 'max_calls_in_parallel'],
    [{ max_calls_in_parallel: 9 }, 'max_calls_in_parallel'],
    [{ allowed_hours_start_time: '25:00' }, 'allowed_hours_start_time'],
    [{ allowed_hours_end_time: '9h' }, 'allowed_hours_end_time'],
    [{ allowed_days: ['monday', 'funday'] }, 'allowed_days.1'],
    [{ allowed_days: [] }, 'allowed_days'],
    [{ max_retries: 11 }, 'max_retries'],
    [{ retry_interval: 0 }, 'retry_interval'],
    [{ retry_interval: 4321 }, 'retry_interval'],
    [{ retry_on_goal_incomplete: true }, 'goal_completion_variable'],
    [{ goal_completion_variable: 'nope', assistant_id: 'ASSISTANT' }, 'goal_completion_variable'],
    [{ assistant_id: 987654 }, 'assistant_id'],
    [{ phone_number_ids: [987654] }, 'phone_number_ids.0'],
    [{ max_retries: null }, 'max_retries'],
  ])('refuses %j on %s, writing nothing', async (change, field) => {
    const before = await app.sql('select count(*)::int as n from campaigns');
    const body = Object.fromEntries(Object.entries({ name: 'X', ...change }).map(([k, v]) => [k, v === 'ASSISTANT' ? assistant : v]));
    const res = await create(body);
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual([field]);
    expect(await app.sql('select count(*)::int as n from campaigns')).toEqual(before);
  });

  it('refuses an inbound assistant and another account’s', async () => {
    const inbound = await app.outboundAssistant(me, { calls_direction: 'receive' });
    expect((await create({ name: 'X', assistant_id: inbound })).body.errors.assistant_id).toEqual([
      'O assistente selecionado não faz chamadas de saída (calls_direction deve ser make).',
    ]);
    const other = await app.account();
    const theirs = await app.outboundAssistant(other);
    expect((await create({ name: 'X', assistant_id: theirs })).body.errors.assistant_id).toEqual(['O assistant_id selecionado é inválido.']);
  });
});

describe('a campaign’s life', () => {
  it('is read with its stats, updated, started, stopped and deleted with its leads', async () => {
    const { body } = await create({ name: 'Vida' });
    const id = body.data.id;
    for (const phone of ['+5511987650201', '+5511987650202']) {
      await app.request('POST', '/api/user/lead', { token: me.token, body: { phone_number: phone, campaign_id: id } });
    }
    const read = await app.request('GET', `/api/user/campaigns/${id}`, { token: me.token });
    expect(read.body.stats).toEqual({
      leads: { created: 2, scheduled: 0, processing: 0, rescheduled: 0, completed: 0, 'reached-max-retries': 0, blacklisted: 0 },
      calls_in_progress: 0,
      attempts: 0,
      total_cost: 0,
    });

    // Starting needs an outbound assistant with a number.
    const refused = await app.request('POST', '/api/user/campaigns/update-status', { token: me.token, body: { campaign_id: id, action: 'start' } });
    expect(refused).toMatchObject({ status: 422, body: { errors: { assistant_id: [expect.stringContaining('assistente')] } } });
    const updated = await app.request('PUT', `/api/user/campaigns/${id}`, { token: me.token, body: { assistant_id: assistant, max_retries: 1, allowed_days: ['sunday', 'monday'] } });
    expect(updated.body).toMatchObject({ message: 'Campaign updated successfully', data: { assistant_id: assistant, max_retries: 1, allowed_days: ['monday', 'sunday'] } });
    expect((await app.request('PUT', `/api/user/campaigns/${id}`, { token: me.token, body: { nope: 1 } })).body.message).toBe('Campos inválidos: nope');

    const started = await app.request('POST', '/api/user/campaigns/update-status', { token: me.token, body: { campaign_id: String(id), action: 'start' } });
    expect(started.body).toMatchObject({ message: 'Campaign started successfully', data: { status: 'running', paused_reason: null } });
    // Edits apply while it runs.
    expect((await app.request('PUT', `/api/user/campaigns/${id}`, { token: me.token, body: { retry_interval: 5 } })).body.data).toMatchObject({ status: 'running', retry_interval: 5 });
    const running = await app.request('DELETE', `/api/user/campaigns/${id}`, { token: me.token });
    expect(running).toMatchObject({ status: 422, body: { message: 'A campanha está em andamento; pare-a antes de excluí-la.' } });
    const bad = await app.request('POST', '/api/user/campaigns/update-status', { token: me.token, body: { campaign_id: id, action: 'pause' } });
    expect(bad.body.errors).toEqual({ action: ['O campo action deve ser start ou stop.'] });

    const stopped = await app.graphql('mutation($id: Int!) { stopCampaign(id: $id) { status paused_reason } }', { id }, me.token);
    expect(stopped.body.data.stopCampaign).toEqual({ status: 'paused', paused_reason: 'manual' });
    const deleted = await app.request('DELETE', `/api/user/campaign/${id}`, { token: me.token });
    expect(deleted.body).toEqual({ message: 'Campaign deleted successfully' });
    expect(await app.sql('select count(*)::int as n from leads where campaign_id = $1', [id])).toEqual([{ n: 0 }]);
    expect((await app.request('GET', `/api/user/campaigns/${id}`, { token: me.token })).status).toBe(404);
  });

  it('answers another account’s campaign exactly like a missing one', async () => {
    const other = await app.account();
    for (const [method, path] of [['GET', `/api/user/campaigns/${other.campaignId}`], ['DELETE', `/api/user/campaigns/${other.campaignId}`]] as const) {
      const foreign = await app.request(method, path, { token: me.token });
      const missing = await app.request(method, path.replace(String(other.campaignId), '987654'), { token: me.token });
      expect(foreign.status).toBe(404);
      expect(foreign.text).toBe(missing.text);
    }
  });
});

it('reads the stats of a page of campaigns in two statements, whatever its size', async () => {
  const account = await app.account();
  for (const name of ['A', 'B', 'C', 'D']) await create({ name }, account.token);
  app.resetQueries();
  const res = await app.graphql('{ campaigns { id stats { leads attempts } } }', {}, account.token);
  expect(res.body.data.campaigns).toHaveLength(5);
  const statsQueries = app.queries.filter((q) => /from (leads|calls)( c)? where (c\.)?campaign_id = any/.test(q));
  expect(statsQueries).toHaveLength(2);
});
