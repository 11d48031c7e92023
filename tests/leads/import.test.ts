import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { startTestApp, type TestApp } from '../helpers/app';
import { until } from '../helpers/dialer';

/**
 * Lead imports (issue 45, item 3): the file checked when sent, then imported by the job queue's
 * workers (in this process here) batch by batch, with the rules of POST /user/lead.
 */
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ leadImport: { maxRows: 2000, maxBytes: 200_000, batchRows: 50, maxConcurrent: 10 } }, { workers: true });
});

afterAll(async () => {
  await app?.close();
});

const phone = (n: number) => `+55119${String(70000000 + n)}`;

async function upload(token: string, fields: Record<string, string>, csv: string | Buffer | null) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  if (csv !== null) form.append('file', new Blob([csv], { type: 'text/csv' }), 'leads.csv');
  const response = await fetch(`${app.url}/api/user/leads/import`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  return { status: response.status, body: (await response.json()) as any };
}

async function finished(token: string, id: number, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await app.request('GET', `/api/user/leads/import/${id}`, { token });
    expect(res.status).toBe(200);
    if (res.body.status === 'done' || res.body.status === 'failed') return res.body;
    if (Date.now() > deadline) throw new Error(`import ${id} did not finish: ${JSON.stringify(res.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

it('imports a file with bad rows, duplicates and numbers on the do-not-call list: exact counts, each bad row with its line and message', async () => {
  const account = await app.account();
  // The campaign already has one of the file's numbers (a duplicate), and one is on the DNC list.
  expect((await app.request('POST', '/api/user/lead', { token: account.token, body: { phone_number: phone(3), campaign_id: account.campaignId } })).status).toBe(200);
  expect((await app.request('POST', '/api/user/dnc', { token: account.token, body: { phone_number: phone(7) } })).status).toBeLessThan(300);
  const lines = ['Telefone,customer_name,email,Segundo'];
  for (let i = 0; i < 200; i++) lines.push(`${phone(i)},"Cliente ${i}, da Silva",c${i}@example.com,${i === 10 ? phone(5000) : ''}`);
  lines.push('12345,Bad one,,'); // line 202: not a number
  lines.push(',No phone,,'); // line 203: required
  lines.push(`${phone(1)},Again,,`); // line 204: a duplicate within the file
  lines.push(`${phone(300)},Too,many,columns,here`); // line 205: column count
  lines.push(`${phone(301)},Bad contact,,999`); // line 206: a bad secondary contact
  const res = await upload(account.token, {
    campaign_id: String(account.campaignId),
    mapping: JSON.stringify({ Telefone: 'phone_number', Segundo: 'secondary_contacts.0.phone_number' }),
  }, lines.join('\r\n'));
  expect(res.status).toBe(202);
  expect(res.body).toMatchObject({ message: 'Lead import started', data: { status: 'queued', rows_total: 205, rows_read: 0, campaign_id: account.campaignId } });

  const done = await finished(account.token, res.body.data.id);
  expect(done).toMatchObject({ status: 'done', rows_total: 205, rows_read: 205, created: 199, duplicates: 2, invalid: 4, blacklisted: 1 });
  expect(done.finished_at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  expect(done.errors).toEqual([
    { line: 202, field: 'phone_number', message: 'O campo phone_number deve ser um número de telefone válido no formato internacional (E.164).' },
    { line: 203, field: 'phone_number', message: 'O campo phone_number é obrigatório.' },
    { line: 205, field: null, message: 'A linha tem 5 colunas; o cabeçalho tem 4.' },
    { line: 206, field: 'secondary_contacts.0.phone_number', message: 'O campo secondary_contacts.0.phone_number deve ser um número de telefone válido no formato internacional (E.164).' },
  ]);
  const leads = await app.sql('select phone_number, status, variables from leads where campaign_id = $1 order by id', [account.campaignId]);
  expect(leads).toHaveLength(200); // the one made before, and 199 imported
  expect(new Set(leads.map((lead) => lead.phone_number)).size).toBe(200);
  expect(leads.find((lead) => lead.phone_number === phone(7))?.status).toBe('blacklisted');
  expect(leads.find((lead) => lead.phone_number === phone(8))).toMatchObject({ status: 'created', variables: { customer_name: 'Cliente 8, da Silva', email: 'c8@example.com' } });
  const contacts = await app.sql('select s.phone_number from secondary_contacts s join leads l on l.id = s.lead_id where l.phone_number = $1', [phone(10)]);
  expect(contacts).toEqual([{ phone_number: phone(5000) }]);
  // The file is dropped once the import is over.
  expect(await app.sql('select count(*)::int as n from lead_import_chunks where import_id = $1', [done.id])).toEqual([{ n: 0 }]);
});

it('refuses a file before writing anything: too large, too many rows, no phone column, a bad mapping, not UTF-8, another account’s campaign', async () => {
  const account = await app.account();
  const other = await app.account();
  const form = (csv: string | Buffer, extra: Record<string, string> = {}) => upload(account.token, { campaign_id: String(account.campaignId), ...extra }, csv);

  const big = await form(`phone\n${'+5511987650000\n'.repeat(15_000)}`);
  expect(big).toMatchObject({ status: 422, body: { errors: { file: ['O arquivo file não pode ter mais de 200000 bytes.'] } } });
  const many = await form(`phone\n${Array.from({ length: 2001 }, (_, i) => phone(i)).join('\n')}`);
  expect(many).toMatchObject({ status: 422, body: { errors: { csv: ['O arquivo csv não pode ter mais de 2000 linhas de dados.'] } } });
  expect(await form('name,email\nAna,a@example.com')).toMatchObject({ status: 422, body: { errors: { csv: [expect.stringContaining('coluna de telefone')] } } });
  expect(await form('phone\n')).toMatchObject({ status: 422, body: { errors: { csv: [expect.stringContaining('não tem linhas de dados')] } } });
  const mapped = await form(`phone,x\n${phone(1)},1`, { mapping: JSON.stringify({ nope: 'phone_number', x: 'cost' }) });
  expect(mapped.status).toBe(422);
  expect(Object.keys(mapped.body.errors).sort()).toEqual(['mapping.nope', 'mapping.x']);
  expect(await form(`phone,x\n${phone(1)},1`, { mapping: '{not json' })).toMatchObject({ status: 422, body: { errors: { mapping: ['O campo mapping deve ser um objeto.'] } } });
  expect(await form(Buffer.from([0x70, 0x68, 0x6f, 0x6e, 0x65, 0x0a, 0xff, 0xfe]))).toMatchObject({ status: 422, body: { errors: { file: ['O arquivo file deve ser um CSV codificado em UTF-8.'] } } });
  expect(await upload(account.token, { campaign_id: String(account.campaignId) }, null)).toMatchObject({ status: 422, body: { errors: { file: ['O campo file é obrigatório.'] } } });
  expect(await upload(account.token, { campaign_id: String(other.campaignId) }, `phone\n${phone(1)}`)).toMatchObject({ status: 404, body: { message: 'Campanha não encontrada' } });
  expect(await app.sql('select count(*)::int as n from lead_imports where account_id = $1', [account.accountId])).toEqual([{ n: 0 }]);
  // Another account's import is not found.
  const mine = await form(`phone\n${phone(1)}`);
  expect((await app.request('GET', `/api/user/leads/import/${mine.body.data.id}`, { token: other.token })).status).toBe(404);
});

it('imports into one campaign at once create each number once', async () => {
  const account = await app.account();
  // Three files hold the same 600 numbers: two in the same order (their batches race for the
  // same numbers at the same time), one reversed.
  const numbers = Array.from({ length: 600 }, (_, i) => phone(10_000 + i));
  const files = [numbers, numbers, [...numbers].reverse()].map((list) => `phone\n${list.join('\n')}`);
  const started = await Promise.all(files.map((csv) => upload(account.token, { campaign_id: String(account.campaignId) }, csv)));
  const results = await Promise.all(started.map((res) => finished(account.token, res.body.data.id)));
  expect(results.reduce((sum, result) => sum + result.created, 0)).toBe(600);
  expect(results.reduce((sum, result) => sum + result.duplicates, 0)).toBe(1200);
  const [{ n, distinct }] = await app.sql('select count(*)::int as n, count(distinct phone_number)::int as distinct from leads where campaign_id = $1', [account.campaignId]);
  expect({ n, distinct }).toEqual({ n: 600, distinct: 600 });
});

it('campaignUpdated follows an import batch by batch: a board sees the leads arrive without a reload', async () => {
  const account = await app.account();
  const csv = `phone_number\n${Array.from({ length: 50 }, (_, i) => phone(40_000 + i)).join('\n')}`;
  const client: Client = createClient({ url: `${app.url.replace('http', 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { Authorization: `Bearer ${account.token}` } });
  const seen: { stats: { leads: Record<string, number> } }[] = [];
  try {
    let subscribed!: () => void;
    const ready = new Promise<void>((resolve) => (subscribed = resolve));
    const unsubscribe = client.subscribe(
      { query: 'subscription ($id: Int!) { campaignUpdated(id: $id, initial: true) { id stats { leads } } }', variables: { id: account.campaignId } },
      { next: (result) => (seen.push(result.data?.campaignUpdated as any), subscribed()), error: () => {}, complete: () => {} },
    );
    await ready;
    const res = await app.graphql('mutation ($input: ImportLeadsInput!) { importLeads(input: $input) { id } }', { input: { campaign_id: account.campaignId, csv } }, account.token);
    expect(res.body.errors).toBeUndefined();
    const count = (state: { stats: { leads: Record<string, number> } }) => Object.values(state.stats.leads).reduce((n, v) => n + Number(v), 0);
    await until('the board saw the imported leads', async () => seen.map(count), (counts) => counts.includes(50), 20_000);
    unsubscribe();
  } finally {
    await client.dispose();
  }
});

it('GraphQL: importLeads with the file as text, then leadImportUpdated follows it to its final state', async () => {
  const account = await app.account();
  const csv = `phone_number,customer_name\n${Array.from({ length: 300 }, (_, i) => `${phone(20_000 + i)},=HYPERLINK("x")`).join('\n')}\nbad,x`;
  const client: Client = createClient({ url: `${app.url.replace('http', 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { Authorization: `Bearer ${account.token}` } });
  try {
    const res = await app.graphql(
      'mutation ($input: ImportLeadsInput!) { importLeads(input: $input) { id status rows_total } }',
      { input: { campaign_id: account.campaignId, csv } },
      account.token,
    );
    expect(res.body.errors).toBeUndefined();
    const { id } = res.body.data.importLeads;
    const seen: any[] = [];
    await new Promise<void>((resolve, reject) => {
      client.subscribe(
        { query: 'subscription ($id: Int!) { leadImportUpdated(id: $id) { id status rows_read created invalid errors { line field } } }', variables: { id } },
        { next: (result) => void seen.push(result.data?.leadImportUpdated ?? result), error: reject, complete: resolve },
      );
    });
    // The stream ends after the final state, which is the last thing it says.
    expect(seen.at(-1)).toEqual({ id, status: 'done', rows_read: 301, created: 300, invalid: 1, errors: [{ line: 302, field: 'phone_number' }] });
    // Progress grows and never goes back.
    const reads = seen.map((state) => state.rows_read);
    expect(reads).toEqual([...reads].sort((a, b) => a - b));
    const query = await app.graphql('query ($id: Int!) { leadImport(id: $id) { status created } }', { id }, account.token);
    expect(query.body.data.leadImport).toEqual({ status: 'done', created: 300 });
  } finally {
    await client.dispose();
  }
});
