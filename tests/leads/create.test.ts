import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';

let app: TestApp;
let me: TestAccount;
let other: TestAccount;

beforeAll(async () => {
  app = await startTestApp();
  me = await app.account();
  other = await app.account();
});
afterAll(() => app?.close());

const create = (body: unknown, token = me.token) => app.request('POST', '/api/user/lead', { token, body });
const leadCount = async () => Number((await app.sql('select count(*)::int as n from leads'))[0].n);
const contactCount = async () => Number((await app.sql('select count(*)::int as n from secondary_contacts'))[0].n);

const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

describe('POST /user/lead', () => {
  it('creates a lead with its secondary contacts and answers the documented envelope', async () => {
    const res = await create({
      phone_number: '+55 (11) 98765-4301',
      campaign_id: me.campaignId,
      variables: { customer_name: 'Ana', email: 'ana@example.com' },
      secondary_contacts: [
        { phone_number: '+5511987654302', variables: { customer_name: 'Bia' } },
        { phone_number: '+14155550100' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Lead created successfully');
    const lead = res.body.data;
    expect(Object.keys(lead)).toEqual([
      'id', 'campaign_id', 'phone_number', 'variables', 'status', 'attempts', 'next_attempt_at', 'created_at', 'updated_at', 'campaign', 'secondary_contacts',
    ]);
    expect(lead).toMatchObject({
      campaign_id: me.campaignId,
      phone_number: '+5511987654301',
      variables: { customer_name: 'Ana', email: 'ana@example.com' },
      status: 'created',
      campaign: { id: me.campaignId, name: 'Campaign' },
    });
    expect(lead.created_at).toMatch(TIMESTAMP);
    expect(lead.updated_at).toMatch(TIMESTAMP);
    expect(lead.secondary_contacts).toHaveLength(2);
    expect(lead.secondary_contacts[0]).toMatchObject({ phone_number: '+5511987654302', variables: { customer_name: 'Bia' }, status: 'created' });
    expect(lead.secondary_contacts[1]).toMatchObject({ phone_number: '+14155550100', variables: {}, status: 'created' });
    expect(Object.keys(lead.secondary_contacts[0])).toEqual(['id', 'phone_number', 'variables', 'status', 'created_at', 'updated_at']);
  });

  it('accepts integers written as strings, as clients of the original platform send them', async () => {
    const res = await create({ phone_number: '+5511987654303', campaign_id: String(me.campaignId), variables: [] });
    expect(res.status).toBe(200);
    expect(res.body.data.campaign_id).toBe(me.campaignId);
    expect(res.body.data.variables).toEqual({});
  });

  it.each([
    ['a word', 'abc'],
    ['a fraction', 1.5],
    ['a fraction as text', '1.5'],
    ['a boolean', true],
    ['an object', { id: 1 }],
  ])('refuses a campaign_id that is %s', async (_case, campaign_id) => {
    const res = await create({ phone_number: '+5511987654304', campaign_id });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'Falha na validação', code: 'VALIDATION_FAILED', errors: { campaign_id: ['O campo campaign_id deve ser um número inteiro.'] } });
  });

  it.each([0, -3, '0'])('refuses a campaign_id of %p (not positive)', async (campaign_id) => {
    const res = await create({ phone_number: '+5511987654304', campaign_id });
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('Falha na validação');
    expect(res.body.errors.campaign_id).toEqual(['O campo campaign_id deve ser pelo menos 1.']);
  });

  it('names every missing required field', async () => {
    const res = await create({});
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: 'Falha na validação',
      code: 'VALIDATION_FAILED',
      errors: {
        phone_number: ['O campo phone_number é obrigatório.'],
        campaign_id: ['O campo campaign_id é obrigatório.'],
      },
    });
  });

  it.each([
    ['a string', 'x'],
    ['a number', 5],
    ['a non-empty list', ['a']],
  ])('refuses variables that are %s', async (_case, variables) => {
    const res = await create({ phone_number: '+5511987654305', campaign_id: me.campaignId, variables });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: 'Falha na validação', code: 'VALIDATION_FAILED', errors: { variables: ['O campo variables deve ser um objeto.'] } });
  });

  it('refuses wrong types inside secondary contacts, keyed by item', async () => {
    const res = await create({
      phone_number: '+5511987654305',
      campaign_id: me.campaignId,
      secondary_contacts: [{ phone_number: 5511 }, { variables: {} }, 'x'],
    });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      'secondary_contacts.0.phone_number': ['O campo secondary_contacts.0.phone_number deve ser uma string.'],
      'secondary_contacts.1.phone_number': ['O campo secondary_contacts.1.phone_number é obrigatório.'],
      'secondary_contacts.2': ['O campo secondary_contacts.2 deve ser um objeto.'],
    });
  });

  it.each(['12345', '+5511', 'not a phone', '', '+999123456789'])('refuses the phone number %p', async (phone_number) => {
    const res = await create({ phone_number, campaign_id: me.campaignId });
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('Número de telefone inválido');
    expect(res.body.errors.phone_number).toHaveLength(1);
  });

  it('writes nothing when one secondary contact is bad', async () => {
    const [leads, contacts] = [await leadCount(), await contactCount()];
    const res = await create({
      phone_number: '+5511987654306',
      campaign_id: me.campaignId,
      secondary_contacts: [{ phone_number: '+5511987654307' }, { phone_number: '123' }],
    });
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('Número de telefone inválido');
    expect(Object.keys(res.body.errors)).toEqual(['secondary_contacts.1.phone_number']);
    expect(await leadCount()).toBe(leads);
    expect(await contactCount()).toBe(contacts);
  });

  it("answers another account's campaign exactly like a missing one", async () => {
    const foreign = await create({ phone_number: '+5511987654308', campaign_id: other.campaignId });
    const missing = await create({ phone_number: '+5511987654308', campaign_id: 999_999 });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ message: 'Campanha não encontrada', code: 'NOT_FOUND' });
    expect(missing.status).toBe(foreign.status);
    expect(missing.text).toBe(foreign.text);
  });

  it('refuses a second lead with the same number in the campaign unless duplicates are allowed', async () => {
    const body = { phone_number: '+5511987654309', campaign_id: me.campaignId };
    expect((await create(body)).status).toBe(200);
    const again = await create({ ...body, phone_number: '+55 11 98765 4309' });
    expect(again.status).toBe(422);
    expect(again.body).toEqual({
      message: 'Falha na validação',
      code: 'VALIDATION_FAILED',
      errors: { phone_number: ['Já existe um lead com este número de telefone nesta campanha.'] },
    });
    expect((await create({ ...body, allow_dupplicate: false })).status).toBe(422);
    expect((await create({ ...body, allow_dupplicate: true })).status).toBe(200);
    expect((await create({ ...body, allow_dupplicate: '1' })).status).toBe(200);
    // Another campaign may hold the same number.
    const second = await app.campaign(me.accountId, 'Second');
    expect((await create({ ...body, campaign_id: second })).status).toBe(200);
  });

  it('keeps exactly one lead when 20 creates of one number race in one campaign', async () => {
    const campaignId = await app.campaign(me.accountId, 'Race');
    const body = { phone_number: '+5511987654310', campaign_id: campaignId };
    const results = await Promise.all(Array.from({ length: 20 }, () => create(body)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 422)).toHaveLength(19);
    const rows = await app.sql('select count(*)::int as n from leads where campaign_id = $1', [campaignId]);
    expect(rows[0].n).toBe(1);
  });

  it('answers invalid JSON and non-object bodies with the validation body', async () => {
    const broken = await app.request('POST', '/api/user/lead', { token: me.token, rawBody: '{"phone_number": ' });
    expect(broken.status).toBe(422);
    expect(broken.body).toEqual({ message: 'Falha na validação', code: 'VALIDATION_FAILED', errors: { body: ['O corpo da requisição não é um JSON válido.'] } });
    for (const body of [[], 'text', 42, null]) {
      const res = await create(body);
      expect(res.status).toBe(422);
      expect(res.body.message).toBe('Falha na validação');
    }
  });

  it('ignores keys the create body does not know', async () => {
    const res = await create({ phone_number: '+5511987654311', campaign_id: me.campaignId, colour: 'blue' });
    expect(res.status).toBe(200);
    expect(res.body.data).not.toHaveProperty('colour');
  });

  it('names the keys it does not know when the request is refused (camelCase for snake_case), with the key meant', async () => {
    const res = await create({ phoneNumber: '+5511987654313', campaignId: me.campaignId, variables: {} });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: 'Campos inválidos: phoneNumber, campaignId',
      code: 'VALIDATION_FAILED',
      errors: {
        phoneNumber: ['O campo phoneNumber não é permitido. Você quis dizer phone_number?'],
        campaignId: ['O campo campaignId não é permitido. Você quis dizer campaign_id?'],
        phone_number: ['O campo phone_number é obrigatório.'],
        campaign_id: ['O campo campaign_id é obrigatório.'],
      },
    });
  });

  it('reads a number dialled abroad with 00 (005511...) as +5511...', async () => {
    const res = await create({ phone_number: '00 55 11 98765-4314', campaign_id: me.campaignId, secondary_contacts: [{ phone_number: '0014155550101' }] });
    expect(res.status).toBe(200);
    expect(res.body.data.phone_number).toBe('+5511987654314');
    expect(res.body.data.secondary_contacts[0].phone_number).toBe('+14155550101');
  });

  it('hints at the missing word Bearer in a 401 on a development instance, and only there', async () => {
    const bare = () => app.request('GET', '/api/user/leads', { headers: { authorization: me.token } });
    const development = app.config.development;
    try {
      app.config.development = true;
      const hinted = await bare();
      expect(hinted.status).toBe(401);
      expect(hinted.body).toEqual({ message: 'Não autenticado.', code: 'UNAUTHENTICATED', hint: expect.stringContaining('Bearer <token>') });
      // A wrong scheme or a wrong token gets no hint: only the slip it describes does.
      expect((await app.request('GET', '/api/user/leads', { headers: { authorization: `Token ${me.token}` } })).body).not.toHaveProperty('hint');
      expect((await app.request('GET', '/api/user/leads', { token: 'vzg_wrong' })).body).not.toHaveProperty('hint');
      app.config.development = false;
      expect((await bare()).body).toEqual({ message: 'Não autenticado.', code: 'UNAUTHENTICATED' });
    } finally {
      app.config.development = development;
    }
  });

  it('never lets an unexpected failure through as a stack trace', async () => {
    expect(app.loggedErrors).toEqual([]);
  });
});

describe('national numbers', () => {
  it('are read in DEFAULT_PHONE_REGION when it is set', async () => {
    const br = await startTestApp({ defaultPhoneRegion: 'BR' });
    try {
      const account = await br.account();
      const res = await br.request('POST', '/api/user/lead', {
        token: account.token,
        body: { phone_number: '(11) 98765-4312', campaign_id: account.campaignId },
      });
      expect(res.status).toBe(200);
      expect(res.body.data.phone_number).toBe('+5511987654312');
    } finally {
      await br.close();
    }
  });

  it('are refused when it is not, with a message that names DEFAULT_PHONE_REGION', async () => {
    const res = await create({ phone_number: '(11) 98765-4312', campaign_id: me.campaignId });
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('Número de telefone inválido');
    expect(res.body.errors.phone_number).toEqual([expect.stringContaining('DEFAULT_PHONE_REGION')]);
    expect(res.body.errors.phone_number[0]).toContain('+5511987654321');
    // A number that is wrong whatever the region keeps the plain message.
    expect((await create({ phone_number: '+5511', campaign_id: me.campaignId })).body.errors.phone_number).toEqual([
      'O campo phone_number deve ser um número de telefone válido no formato internacional (E.164).',
    ]);
  });
});
