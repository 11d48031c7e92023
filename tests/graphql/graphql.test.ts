import { GraphQLError } from 'graphql';
import { formatError, isUnexpected } from '../../src/graphql/errors';
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

const LEAD = `id campaign_id phone_number variables status created_at updated_at campaign { id name } secondary_contacts { id phone_number status }`;

async function gql(query: string, variables: Record<string, unknown> = {}, token: string | null = me.token) {
  const res = await app.graphql(query, variables, token);
  expect(res.status).toBe(200);
  return res.body as { data: any; errors?: any[] };
}

describe('leads over GraphQL', () => {
  it('creates, reads, updates, lists and deletes a lead', async () => {
    const created = await gql(`mutation($input: CreateLeadInput!) { createLead(input: $input) { ${LEAD} } }`, {
      input: {
        phone_number: '+5511987654401',
        campaign_id: me.campaignId,
        variables: { customer_name: 'Ana' },
        secondary_contacts: [{ phone_number: '+5511987654402' }],
      },
    });
    expect(created.errors).toBeUndefined();
    const lead = created.data.createLead;
    expect(lead).toMatchObject({ phone_number: '+5511987654401', status: 'created', campaign: { id: me.campaignId } });
    expect(lead.secondary_contacts).toEqual([{ id: expect.any(Number), phone_number: '+5511987654402', status: 'created' }]);

    const updated = await gql(`mutation($id: Int!, $input: UpdateLeadInput!) { updateLead(id: $id, input: $input) { status variables } }`, {
      id: lead.id,
      input: { status: 'completed', variables: { email: 'a@b.c' } },
    });
    expect(updated.data.updateLead).toEqual({ status: 'completed', variables: { customer_name: 'Ana', email: 'a@b.c' } });

    const read = await gql(`query($id: Int!) { lead(id: $id) { ${LEAD} } }`, { id: lead.id });
    expect(read.data.lead).toMatchObject({ id: lead.id, status: 'completed' });

    const page = await gql(`{ leads(status: "completed", per_page: 10) { data { id } current_page per_page total last_page from to } }`);
    expect(page.data.leads).toEqual({ data: [{ id: lead.id }], current_page: 1, per_page: 10, total: 1, last_page: 1, from: 1, to: 1 });

    const deleted = await gql(`mutation($id: Int!) { deleteLead(id: $id) }`, { id: lead.id });
    expect(deleted.data.deleteLead).toBe(true);
    const gone = await gql(`query($id: Int!) { lead(id: $id) { id } }`, { id: lead.id });
    expect(gone.errors![0]).toMatchObject({ message: 'Lead não encontrado', extensions: { code: 'NOT_FOUND', status: 404 } });
  });

  it('reports validation errors with their code, status and field map', async () => {
    const res = await gql(`mutation($input: UpdateLeadInput!) { updateLead(id: 1, input: $input) { id } }`, {
      input: { status: 'done', campaign_id: 0 },
    });
    expect(res.errors![0]).toMatchObject({
      message: 'Falha na validação',
      extensions: {
        code: 'VALIDATION_FAILED',
        status: 422,
        errors: {
          campaign_id: ['O campo campaign_id deve ser pelo menos 1.'],
          status: ['O status é atribuído automaticamente e não pode ser definido manualmente.'],
        },
      },
    });
    const phone = await gql(`mutation { createLead(input: { phone_number: "123", campaign_id: 1 }) { id } }`);
    expect(phone.errors![0]).toMatchObject({ message: 'Número de telefone inválido', extensions: { code: 'VALIDATION_FAILED' } });
  });

  it("treats another account's lead and campaign exactly like missing ones", async () => {
    const theirs = await gql(
      `mutation($input: CreateLeadInput!) { createLead(input: $input) { id } }`,
      { input: { phone_number: '+5511987654403', campaign_id: other.campaignId } },
      other.token,
    );
    const foreignId = theirs.data.createLead.id;
    for (const [query, variables] of [
      [`query($id: Int!) { lead(id: $id) { id } }`, {}],
      [`mutation($id: Int!) { updateLead(id: $id, input: { status: "completed" }) { id } }`, {}],
      [`mutation($id: Int!) { deleteLead(id: $id) }`, {}],
    ] as const) {
      const foreign = await gql(query, { ...variables, id: foreignId });
      const missing = await gql(query, { ...variables, id: 987654 });
      expect(foreign.errors).toEqual(missing.errors);
      expect(foreign.errors![0]).toMatchObject({ message: 'Lead não encontrado', extensions: { code: 'NOT_FOUND' } });
    }
    const campaign = await gql(`mutation($c: Int!) { createLead(input: { phone_number: "+5511987654404", campaign_id: $c }) { id } }`, {
      c: other.campaignId,
    });
    expect(campaign.errors![0]).toMatchObject({ message: 'Campanha não encontrada', extensions: { code: 'NOT_FOUND', status: 404 } });
    const leads = await gql(`{ leads(per_page: 100) { data { id } } }`);
    expect(leads.data.leads.data.map((l: any) => l.id)).not.toContain(foreignId);
  });

  it('creates and lists campaigns', async () => {
    const created = await gql(`mutation { createCampaign(input: { name: "Inverno" }) { id name } }`);
    expect(created.data.createCampaign).toEqual({ id: expect.any(Number), name: 'Inverno' });
    const list = await gql(`{ campaigns { id name } }`);
    expect(list.data.campaigns).toEqual([{ id: me.campaignId, name: 'Campaign' }, created.data.createCampaign]);
  });

  it('keeps GraphQL-level errors for malformed operations', async () => {
    const res = await app.graphql(`{ leads(per_page: "x") { total } }`, {}, me.token);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });
});

describe('the request context', () => {
  it("forks the ORM's EntityManager only for what needs one, once a request, whatever Apollo copies", async () => {
    const created = await gql(`mutation($input: CreateLeadInput!) { createLead(input: $input) { id } }`, {
      input: { phone_number: '+5511987654431', campaign_id: me.campaignId },
    });
    const id = created.data.createLead.id;
    // Forks made for a request's context, told apart from the workers' by where they are made.
    const fork = app.orm.em.fork.bind(app.orm.em);
    let forks = 0;
    const spy = jest.spyOn(app.orm.em, 'fork').mockImplementation((options) => {
      if (new Error().stack?.includes('RequestContext')) forks++;
      return fork(options);
    });
    const forksOf = async (request: () => Promise<unknown>) => {
      forks = 0;
      await request();
      return forks;
    };
    try {
      // Reads mapped read-only, by the token check and by the lists and the call, need none.
      expect(await forksOf(() => gql(`{ leads { data { id campaign { id } } total } calls { total } }`))).toBe(0);
      expect(await forksOf(() => app.request('GET', '/api/user/leads', { token: me.token }))).toBe(0);
      // Two fields that need one share the request's.
      const both = await forksOf(async () => {
        const read = await gql(`query($id: Int!) { a: lead(id: $id) { id } b: lead(id: $id) { id } }`, { id });
        expect(read.data).toEqual({ a: { id }, b: { id } });
      });
      expect(both).toBe(1);
    } finally {
      spy.mockRestore();
    }
  });
});

describe('error masking', () => {
  it('hides unexpected errors behind a generic message', () => {
    const raw = new Error('duplicate key value violates unique constraint "accounts_pkey"\n    at Parser.parseErrorMessage');
    const wrapped = new GraphQLError(raw.message, { originalError: raw, path: ['leads'] });
    const formatted = formatError({ message: raw.message, path: ['leads'] }, wrapped);
    expect(formatted).toEqual({ message: 'Erro interno do servidor.', path: ['leads'], locations: undefined, extensions: { code: 'INTERNAL', status: 500 } });
    expect(isUnexpected(wrapped)).toBe(true);
  });
});
