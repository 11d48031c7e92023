import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';

let app: TestApp;
let me: TestAccount;
let other: TestAccount;
let secondCampaign: number;
const ids: number[] = [];

/** 12 leads: 8 in the first campaign, 4 in the second; three completed; dates over three days. */
beforeAll(async () => {
  app = await startTestApp();
  me = await app.account();
  other = await app.account();
  secondCampaign = await app.campaign(me.accountId, 'Second');
  for (let i = 0; i < 12; i++) {
    const res = await app.request('POST', '/api/user/lead', {
      token: me.token,
      body: {
        phone_number: `+5511987650${String(i).padStart(3, '0')}`,
        campaign_id: i < 8 ? me.campaignId : secondCampaign,
        secondary_contacts: Array.from({ length: i % 3 }, (_, k) => ({ phone_number: `+551191234${String(i * 10 + k).padStart(4, "0")}` })),
      },
    });
    ids.push(res.body.data.id);
  }
  await app.sql(`update leads set status = 'completed' where id = any($1)`, [ids.slice(0, 3)]);
  await app.sql(`update leads set created_at = '2026-03-01 10:00:00+00' where id = any($1)`, [ids.slice(0, 4)]);
  await app.sql(`update leads set created_at = '2026-03-02 23:59:59+00' where id = any($1)`, [ids.slice(4, 6)]);
  await app.sql(`update leads set created_at = '2026-03-03 00:00:00+00' where id = any($1)`, [ids.slice(6, 12)]);
  await app.request('POST', '/api/user/lead', { token: other.token, body: { phone_number: '+5511987650000', campaign_id: other.campaignId } });
});
afterAll(() => app?.close());

const list = (query = '') => app.request('GET', `/api/user/leads${query}`, { token: me.token });

describe('GET /user/leads', () => {
  it('returns a bare array of full leads, newest first, 15 to a page', async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body.map((lead: any) => lead.id)).toEqual([...ids].reverse());
    expect(res.body[0]).toHaveProperty('campaign');
    expect(res.body[0]).toHaveProperty('secondary_contacts');
    expect(res.headers.get('x-total-count')).toBe('12');
    expect(res.headers.get('x-per-page')).toBe('15');
    expect(res.headers.get('x-current-page')).toBe('1');
    expect(res.headers.get('x-last-page')).toBe('1');
  });

  it('loads each lead with its own campaign and secondary contacts', async () => {
    const res = await list('?per_page=100');
    for (const lead of res.body) {
      const index = ids.indexOf(lead.id);
      expect(lead.campaign.id).toBe(index < 8 ? me.campaignId : secondCampaign);
      expect(lead.secondary_contacts).toHaveLength(index % 3);
    }
  });

  it('pages with Link headers that keep the other parameters', async () => {
    const res = await list('?per_page=5&page=2&campaign_id=' + me.campaignId);
    expect(res.body).toHaveLength(3);
    expect(res.headers.get('x-total-count')).toBe('8');
    expect(res.headers.get('x-last-page')).toBe('2');
    const link = res.headers.get('link')!;
    const rels = Object.fromEntries(
      link.split(', ').map((part) => {
        const [, url, rel] = /^<([^>]+)>; rel="(\w+)"$/.exec(part)!;
        return [rel, new URL(url)];
      }),
    );
    expect(Object.keys(rels)).toEqual(['first', 'prev', 'last']);
    expect(rels.prev.pathname).toBe('/api/user/leads');
    expect(rels.prev.searchParams.get('page')).toBe('1');
    expect(rels.prev.searchParams.get('per_page')).toBe('5');
    expect(rels.prev.searchParams.get('campaign_id')).toBe(String(me.campaignId));
    expect(rels.last.searchParams.get('page')).toBe('2');

    const first = await list('?per_page=5&campaign_id=' + me.campaignId);
    expect(first.headers.get('link')).toContain('rel="next"');
    expect(first.headers.get('link')).not.toContain('rel="prev"');
  });

  it('answers a page past the end with an empty array', async () => {
    const res = await list('?page=9');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    expect(res.headers.get('x-total-count')).toBe('12');
  });

  it.each([
    ['?status=completed', 3],
    ['?status=created', 9],
    [`?campaign_id=SECOND`, 4],
    ['?phone_number=%2B5511987650004', 1],
    ['?phone_number=%2B55%2011%2098765-0004', 1],
    ['?date_from=2026-03-02', 8],
    ['?date_to=2026-03-02', 6],
    ['?date_from=2026-03-02&date_to=2026-03-02', 2],
    ['?date_from=2026-03-03&status=completed', 0],
    ['?status=', 12],
  ])('filters %s', async (query, count) => {
    const res = await list(query.replace('SECOND', String(secondCampaign)));
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total-count')).toBe(String(count));
  });

  it.each([
    ['?per_page=0', 'per_page'],
    ['?per_page=101', 'per_page'],
    ['?per_page=abc', 'per_page'],
    ['?page=0', 'page'],
    ['?page=1.5', 'page'],
    ['?status=done', 'status'],
    ['?campaign_id=x', 'campaign_id'],
    ['?date_from=2026-02-30', 'date_from'],
    ['?date_to=03/03/2026', 'date_to'],
    ['?date_from=2026-03-03&date_to=2026-03-01', 'date_to'],
    ['?phone_number=12', 'phone_number'],
  ])('refuses %s with 422', async (query, field) => {
    const res = await list(query);
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('Falha na validação');
    expect(Object.keys(res.body.errors)).toEqual([field]);
  });

  it("never shows another account's leads", async () => {
    const theirs = await app.request('GET', '/api/user/leads', { token: other.token });
    expect(theirs.body).toHaveLength(1);
    expect(ids).not.toContain(theirs.body[0].id);
    const filtered = await list(`?campaign_id=${other.campaignId}`);
    expect(filtered.body).toEqual([]);
  });
});

describe('no N+1', () => {
  it('loads a page of leads with their campaigns and contacts in 3 statements at any page size', async () => {
    const account = await app.account();
    const campaigns = [account.campaignId, await app.campaign(account.accountId, 'B'), await app.campaign(account.accountId, 'C')];
    await app.sql(
      `insert into leads (account_id, campaign_id, phone_number)
       select $1, ($2::int[])[1 + g % 3], '+55119' || lpad(g::text, 8, '0') from generate_series(1, 120) g`,
      [account.accountId, campaigns],
    );
    await app.sql(
      `insert into secondary_contacts (lead_id, phone_number)
       select l.id, '+551191234' || lpad(k::text, 4, '0') from leads l, generate_series(1, 2) k where l.account_id = $1`,
      [account.accountId],
    );

    app.resetQueries();
    const rest = await app.request('GET', '/api/user/leads?per_page=100', { token: account.token });
    expect(rest.body).toHaveLength(100);
    expect(rest.body.every((lead: any) => lead.secondary_contacts.length === 2 && lead.campaign.name)).toBe(true);
    const restStatements = app.queries.length;

    app.resetQueries();
    const gql = await app.graphql(
      '{ leads(per_page: 100) { total data { id campaign { id name } secondary_contacts { id phone_number } } } }',
      {},
      account.token,
    );
    expect(gql.body.data.leads.data).toHaveLength(100);
    const graphqlStatements = app.queries.length;

    // the token, the page with its total and campaigns, then the page's secondary contacts
    expect(restStatements).toBe(3);
    expect(graphqlStatements).toBe(3);
    app.resetQueries();
    await app.request('GET', '/api/user/leads?per_page=1', { token: account.token });
    expect(app.queries).toHaveLength(3);

    // Contacts asked for through fragments are read with the page; not asked for, not read.
    app.resetQueries();
    const fragments = await app.graphql(
      '{ leads(per_page: 100) { ...Page } } fragment Page on LeadPage { data { id ... on Lead { secondary_contacts { phone_number } } } }',
      {},
      account.token,
    );
    expect(fragments.body.errors).toBeUndefined();
    expect(fragments.body.data.leads.data.every((lead: any) => lead.secondary_contacts.length === 2)).toBe(true);
    expect(app.queries).toHaveLength(3);
    expect(app.queries[2]).toContain('secondary_contacts');
    app.resetQueries();
    await app.graphql('{ leads(per_page: 100) { data { id campaign { name } } } }', {}, account.token);
    expect(app.queries).toHaveLength(2);
    expect(app.queries[1]).not.toContain('secondary_contacts');

    // Page 1 of a filter no lead matches: total 0, without counting; past the last page, counted.
    app.resetQueries();
    const none = await app.graphql('{ leads(status: "blacklisted") { total data { id } } }', {}, account.token);
    expect(none.body.data.leads).toEqual({ total: 0, data: [] });
    expect(app.queries).toHaveLength(2);
    app.resetQueries();
    const past = await app.graphql('{ leads(page: 99, per_page: 100) { total data { id } } }', {}, account.token);
    expect(past.body.data.leads).toEqual({ total: 120, data: [] });
    expect(app.queries).toHaveLength(3);

    // A lead's campaign in a list is the whole campaign, as the campaign query answers it.
    const fields = 'id name assistant_id timezone max_calls_in_parallel allowed_hours_start_time allowed_days max_retries retry_interval status paused_reason phone_number_ids created_at updated_at';
    const listed = await app.graphql(`{ leads(per_page: 3) { data { campaign { ${fields} } } } }`, {}, account.token);
    expect(listed.body.errors).toBeUndefined();
    for (const lead of listed.body.data.leads.data) {
      const alone = await app.graphql(`query($id: Int!) { campaign(id: $id) { ${fields} } }`, { id: lead.campaign.id }, account.token);
      expect(lead.campaign).toEqual(alone.body.data.campaign);
    }
  });
});
