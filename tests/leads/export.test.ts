import { parse } from 'csv-parse/sync';
import { startTestApp, type TestApp } from '../helpers/app';
import { cellText, csvRecords } from '../../src/rest/csv';

/** CSV exports (issue 45, item 3): a campaign's leads with their results, and the call list. */
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({}, { workers: true });
});

afterAll(async () => {
  await app?.close();
});

it('neutralises formulas (OWASP) but keeps numbers, and quotes as RFC 4180 says', () => {
  expect(['=1+1', '+cmd|x', '-2+3', '@SUM(A1)', '\tx', '+5511987650000', '-3.5', 'Ana'].map(cellText)).toEqual([
    "'=1+1", "'+cmd|x", "'-2+3", "'@SUM(A1)", "'\tx", '+5511987650000', '-3.5', 'Ana',
  ]);
  expect(csvRecords([['a,b', 'say "hi"', 'two\nlines', null, 2, { k: 1 }]])).toBe('"a,b","say ""hi""","two\nlines",,2,"{""k"":1}"\r\n');
});

it('GET /user/campaigns/{id}/leads.csv: each lead with its status, attempts, last call, cost and variables, as the API answers them', async () => {
  const account = await app.account({ balance: '50' });
  const assistant = await app.outboundAssistant(account, {
    post_call_schema: [{ name: 'interested', type: 'bool', description: 'Whether the customer is interested' }],
  });
  const leads: number[] = [];
  for (const [i, name] of ['Ana', '=HYPERLINK("http://evil")', 'Carla, "C"'].entries()) {
    const res = await app.request('POST', '/api/user/lead', {
      token: account.token,
      body: { campaign_id: account.campaignId, phone_number: `+55119880000${10 + i}`, variables: { customer_name: name, ...(i === 0 ? { city: 'Recife' } : {}) } },
    });
    leads.push(res.body.data.id);
  }
  // A call to the first lead's number is that lead's (make_call puts it in the lead's campaign).
  const made = await app.request('POST', '/api/user/make_call', { token: account.token, body: { assistant_id: assistant, phone_number: '+5511988000010' } });
  expect(made.status).toBe(200);
  const call = await app.finishedCall(made.body.call_id, account.token);

  const res = await fetch(`${app.url}/api/user/campaigns/${account.campaignId}/leads.csv`, { headers: { authorization: `Bearer ${account.token}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
  expect(res.headers.get('content-disposition')).toBe(`attachment; filename="campaign-${account.campaignId}-leads.csv"`);
  const text = await res.text();
  expect(text.split('\r\n')[0]).toBe(
    'id,phone_number,status,attempts,calls,total_cost,created_at,updated_at,last_call_id,last_call_at,last_call_status,last_call_answered_by,last_call_duration,last_call_cost,variables.city,variables.customer_name,extracted.interested',
  );
  const rows = parse(text, { columns: true }) as Record<string, string>[];
  expect(rows.map((row) => Number(row.id))).toEqual(leads);
  const api = await app.request('GET', `/api/user/leads?campaign_id=${account.campaignId}`, { token: account.token });
  for (const row of rows) {
    const lead = api.body.find((l: any) => l.id === Number(row.id));
    expect(row).toMatchObject({ phone_number: lead.phone_number, status: lead.status, attempts: String(lead.attempts), created_at: lead.created_at });
  }
  expect(rows[0]).toMatchObject({
    calls: '1',
    last_call_id: String(call.id),
    last_call_status: call.status,
    last_call_duration: String(call.duration),
    last_call_cost: String(call.total_cost),
    total_cost: String(call.total_cost),
    'variables.city': 'Recife',
    'variables.customer_name': 'Ana',
    'extracted.interested': String(call.variables.interested),
  });
  expect(rows[1]).toMatchObject({ 'variables.customer_name': `'=HYPERLINK("http://evil")`, calls: '0', last_call_id: '', 'variables.city': '' });
  expect(rows[2]['variables.customer_name']).toBe('Carla, "C"');

  // Another account's campaign is a missing one, in JSON.
  const other = await app.account();
  const refused = await app.request('GET', `/api/user/campaigns/${account.campaignId}/leads.csv`, { token: other.token });
  expect(refused).toMatchObject({ status: 404, body: { message: 'Campanha não encontrada', code: 'NOT_FOUND' } });
});

it('GET /user/calls.csv: every call the list filters give, across slices, with the extracted variables as columns', async () => {
  const account = await app.account({ balance: '100' });
  const assistant = await app.outboundAssistant(account, { post_call_schema: [{ name: 'interested', type: 'bool', description: 'Whether the customer is interested' }] });
  const ids: number[] = [];
  for (let i = 0; i < 105; i++) {
    const made = await app.request('POST', '/api/user/make_call', { token: account.token, body: { assistant_id: assistant, phone_number: `+5511977${String(100000 + i)}` } });
    ids.push(made.body.call_id);
  }
  for (const id of ids) await app.finishedCall(id, account.token);
  const res = await fetch(`${app.url}/api/user/calls.csv?assistant_id=${assistant}`, { headers: { authorization: `Bearer ${account.token}` } });
  expect(res.status).toBe(200);
  const rows = parse(await res.text(), { columns: true }) as Record<string, string>[];
  expect(rows.map((row) => Number(row.id)).sort((a, b) => a - b)).toEqual(ids);
  const listed = await app.request('GET', `/api/user/calls?assistant_id=${assistant}&per_page=100`, { token: account.token });
  const first = listed.body.data[0];
  expect(rows[0]).toMatchObject({ id: String(first.id), status: first.status, client_phone_number: first.client_phone_number, 'variables.interested': String(first.variables.interested), other_variables: '' });
  // The list's filters apply: a status no call has gives the header alone.
  const none = await fetch(`${app.url}/api/user/calls.csv?assistant_id=${assistant}&status=ringing`, { headers: { authorization: `Bearer ${account.token}` } });
  expect((await none.text()).trim().split('\r\n')).toHaveLength(1);
  const bad = await app.request('GET', '/api/user/calls.csv?status=nope', { token: account.token });
  expect(bad.status).toBe(422);
});
