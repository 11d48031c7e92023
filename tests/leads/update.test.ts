import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';

let app: TestApp;
let me: TestAccount;
let other: TestAccount;
let phoneSeq = 100;

beforeAll(async () => {
  app = await startTestApp();
  me = await app.account();
  other = await app.account();
});
afterAll(() => app?.close());

async function newLead(account = me, extra: Record<string, unknown> = {}): Promise<any> {
  const res = await app.request('POST', '/api/user/lead', {
    token: account.token,
    body: {
      phone_number: `+55119876${String(phoneSeq++).padStart(5, '0')}`,
      campaign_id: account.campaignId,
      variables: { customer_name: 'Ana', email: 'ana@example.com' },
      secondary_contacts: [{ phone_number: '+5511912340000' }],
      ...extra,
    },
  });
  expect(res.status).toBe(200);
  return res.body.data;
}

const get = async (id: number, token = me.token) => (await app.request('GET', `/api/user/leads/${id}`, { token })).body;
const update = (id: number | string, body: unknown, token = me.token, prefix = '/api/user/leads') =>
  app.request('PUT', `${prefix}/${id}`, { token, body });

describe('PUT /user/leads/{id}', () => {
  it('changes only the fields sent and merges variables', async () => {
    const lead = await newLead();
    const res = await update(lead.id, { variables: { email: 'new@example.com', plan: 'gold' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Lead updated successfully' });
    const after = await get(lead.id);
    expect(after).toMatchObject({
      phone_number: lead.phone_number,
      status: 'created',
      campaign_id: me.campaignId,
      variables: { customer_name: 'Ana', email: 'new@example.com', plan: 'gold' },
    });
    expect(after.secondary_contacts).toEqual(lead.secondary_contacts);
    expect(after.created_at).toBe(lead.created_at);
  });

  it('moves the lead to another campaign of the account, given as text or number', async () => {
    const lead = await newLead();
    const second = await app.campaign(me.accountId, 'Second');
    expect((await update(lead.id, { campaign_id: String(second) })).status).toBe(200);
    expect(await get(lead.id)).toMatchObject({ campaign_id: second, campaign: { id: second, name: 'Second' } });
  });

  it('normalises a new phone number to E.164 and refuses an invalid one', async () => {
    const lead = await newLead();
    expect((await update(lead.id, { phone_number: '+1 (415) 555-0101' })).status).toBe(200);
    expect((await get(lead.id)).phone_number).toBe('+14155550101');
    const bad = await update(lead.id, { phone_number: '555' });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe('Número de telefone inválido');
    expect(bad.body.errors).toHaveProperty('phone_number');
    expect((await get(lead.id)).phone_number).toBe('+14155550101');
  });

  it.each(['created', 'completed', 'reached-max-retries'])('accepts the status %s', async (status) => {
    const lead = await newLead();
    expect((await update(lead.id, { status })).status).toBe(200);
    expect((await get(lead.id)).status).toBe(status);
  });

  it.each(['in-progress', 'COMPLETED', ''])('refuses the status %p: it is assigned automatically', async (status) => {
    const lead = await newLead();
    const res = await update(lead.id, { status });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: 'Falha na validação',
      code: 'VALIDATION_FAILED',
      errors: { status: ['O status é atribuído automaticamente e não pode ser definido manualmente.'] },
    });
  });

  it('names exactly the unknown fields', async () => {
    const lead = await newLead();
    const res = await update(lead.id, { status: 'completed', a: 1, secondary_contacts: [], b: null });
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('Campos inválidos: a, secondary_contacts, b');
    expect(Object.keys(res.body.errors)).toEqual(['a', 'secondary_contacts', 'b']);
    expect((await get(lead.id)).status).toBe('created');
  });

  it('refuses a campaign_id that is not a positive integer', async () => {
    const lead = await newLead();
    for (const campaign_id of ['x', 0, 2.5]) {
      const res = await update(lead.id, { campaign_id });
      expect(res.status).toBe(422);
      expect(res.body.message).toBe('Falha na validação');
      expect(res.body.errors).toHaveProperty('campaign_id');
    }
  });

  it('refuses variables that are not an object, and nulls', async () => {
    const lead = await newLead();
    const res = await update(lead.id, { variables: 'x' });
    expect(res.body).toEqual({ message: 'Falha na validação', code: 'VALIDATION_FAILED', errors: { variables: ['O campo variables deve ser um objeto.'] } });
    const nulls = await update(lead.id, { phone_number: null, status: null });
    expect(nulls.status).toBe(422);
    expect(Object.keys(nulls.body.errors)).toEqual(['phone_number', 'status']);
  });

  it("answers a campaign of another account exactly like a missing one", async () => {
    const lead = await newLead();
    const foreign = await update(lead.id, { campaign_id: other.campaignId });
    const missing = await update(lead.id, { campaign_id: 987654 });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ message: 'Campanha não encontrada', code: 'NOT_FOUND' });
    expect(missing.text).toBe(foreign.text);
    expect((await get(lead.id)).campaign_id).toBe(me.campaignId);
  });

  it("answers a lead of another account exactly like a missing one, and leaves it alone", async () => {
    const theirs = await newLead(other);
    const foreign = await update(theirs.id, { status: 'completed' }, me.token);
    const missing = await update(987654, { status: 'completed' }, me.token);
    const notAnId = await update('abc', { status: 'completed' }, me.token);
    for (const res of [foreign, missing, notAnId]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'Lead não encontrado', code: 'NOT_FOUND' });
    }
    expect((await get(theirs.id, other.token)).status).toBe('created');
  });

  it('is also served on PUT /leads/{id}', async () => {
    const lead = await newLead();
    const res = await update(lead.id, { status: 'completed' }, me.token, '/api/leads');
    expect(res.status).toBe(200);
    expect((await get(lead.id)).status).toBe('completed');
  });

  it('merges concurrent variable updates without losing any', async () => {
    const lead = await newLead();
    await Promise.all(Array.from({ length: 10 }, (_, i) => update(lead.id, { variables: { [`k${i}`]: i } })));
    const { variables } = await get(lead.id);
    for (let i = 0; i < 10; i++) expect(variables[`k${i}`]).toBe(i);
  });
});

describe('DELETE /user/leads/{id}', () => {
  it('deletes the lead and its secondary contacts', async () => {
    const lead = await newLead();
    const res = await app.request('DELETE', `/api/user/leads/${lead.id}`, { token: me.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Lead deleted successfully' });
    expect((await app.request('GET', `/api/user/leads/${lead.id}`, { token: me.token })).status).toBe(404);
    expect(await app.sql('select * from secondary_contacts where lead_id = $1', [lead.id])).toEqual([]);
  });

  it("answers another account's lead like a missing one and keeps it", async () => {
    const theirs = await newLead(other);
    const foreign = await app.request('DELETE', `/api/user/leads/${theirs.id}`, { token: me.token });
    const missing = await app.request('DELETE', '/api/user/leads/987654', { token: me.token });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ message: 'Lead não encontrado', code: 'NOT_FOUND' });
    expect(missing.text).toBe(foreign.text);
    expect((await app.request('GET', `/api/user/leads/${theirs.id}`, { token: other.token })).status).toBe(200);
  });

  it('finds the calls whose lead_id it clears from an index, finished calls too (not by reading every call)', async () => {
    // The foreign key's ON DELETE SET NULL looks calls up by lead_id, finished or not.
    const [plan] = await app.sql(`explain (format json) select 1 from calls where lead_id = 5 and finished_at is not null`);
    const scans = JSON.stringify(plan['QUERY PLAN']);
    expect(scans).toContain('calls_lead_id_index');
  });
});

describe('campaigns', () => {
  it('creates campaigns and lists only the account’s own, as a bare array', async () => {
    const account = await app.account();
    const created = await app.request('POST', '/api/user/campaigns', { token: account.token, body: { name: '  Black Friday ' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ message: 'Campaign created successfully', data: { id: expect.any(Number), name: 'Black Friday', status: 'draft' } });
    const list = await app.request('GET', '/api/user/campaigns', { token: account.token });
    expect(list.status).toBe(200);
    expect(list.body.map((c: any) => [c.id, c.name])).toEqual([
      [account.campaignId, 'Campaign'],
      [created.body.data.id, 'Black Friday'],
    ]);
  });

  it.each([
    [{}, 'O campo name é obrigatório.'],
    [{ name: '   ' }, 'O campo name é obrigatório.'],
    [{ name: 'x'.repeat(256) }, 'O campo name não pode ser superior a 255 caracteres.'],
    [{ name: 12 }, 'O campo name deve ser uma string.'],
  ])('refuses the body %j', async (body, message) => {
    const res = await app.request('POST', '/api/user/campaigns', { token: me.token, body });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'Falha na validação', code: 'VALIDATION_FAILED', errors: { name: [message] } });
  });
});
