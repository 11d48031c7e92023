import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';

/**
 * Folders and labels of assistants, as the original platform has them (its MCP server's
 * list/create/update/delete_folder and _label): a name unique in the account (case aside),
 * one of ten colours, Laravel's page object for lists; an assistant in at most one folder and
 * with any of the account's labels.
 */
let app: TestApp;
let me: TestAccount;
let other: TestAccount;

beforeAll(async () => {
  app = await startTestApp();
  me = await app.account();
  other = await app.account();
});
afterAll(() => app?.close());

const as = (account: TestAccount) => ({
  get: (path: string) => app.request('GET', `/api${path}`, { token: account.token }),
  post: (path: string, body: unknown) => app.request('POST', `/api${path}`, { token: account.token, body }),
  put: (path: string, body: unknown) => app.request('PUT', `/api${path}`, { token: account.token, body }),
  del: (path: string) => app.request('DELETE', `/api${path}`, { token: account.token }),
});
const mine = () => as(me);
const readAssistant = async (id: number) => (await mine().get(`/user/assistant/${id}`)).body;

describe.each([
  { plural: 'folders', singular: 'folder', notFound: 'Pasta não encontrada', word: 'Folder' },
  { plural: 'labels', singular: 'label', notFound: 'Etiqueta não encontrada', word: 'Label' },
])('$plural', ({ plural, singular, notFound, word }) => {
  it('are created, listed as Laravel’s page, renamed, recoloured and deleted', async () => {
    const created = await mine().post(`/user/${plural}`, { name: `  Clientes ${word}  `, color: 'teal' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      message: `${word} created successfully`,
      data: { id: expect.any(Number), name: `Clientes ${word}`, color: 'teal', assistants_count: 0, created_at: expect.any(String), updated_at: expect.any(String) },
    });
    const id = created.body.data.id;
    const plain = await mine().post(`/user/${plural}`, { name: `Sem cor ${word}` });
    expect(plain.body.data.color).toBeNull();

    const list = await mine().get(`/user/${plural}?page=1&per_page=1`);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ current_page: 1, per_page: 1, last_page: 2, data: [{ id, name: `Clientes ${word}` }] });
    expect(list.body.total).toBe(2);
    expect(list.body.next_page_url).toContain(`/api/user/${plural}?per_page=1&page=2`);
    const second = await mine().get(`/user/${plural}?page=2&per_page=1`);
    expect(second.body.data.map((b: any) => b.id)).toEqual([plain.body.data.id]);

    // Only the fields sent change; the singular path is the same route; null removes the colour.
    const renamed = await mine().put(`/user/${plural}/${id}`, { name: `Clientes ${word} 2026` });
    expect(renamed.body).toMatchObject({ message: `${word} updated successfully`, data: { id, name: `Clientes ${word} 2026`, color: 'teal' } });
    const recoloured = await mine().put(`/user/${singular}/${id}`, { color: null });
    expect(recoloured.body.data).toMatchObject({ name: `Clientes ${word} 2026`, color: null });

    expect((await mine().del(`/user/${singular}/${plain.body.data.id}`)).body).toEqual({ message: `${word} deleted successfully` });
    expect((await mine().del(`/user/${plural}/${id}`)).status).toBe(200);
    expect((await mine().get(`/user/${plural}`)).body).toMatchObject({ total: 0, data: [] });
  });

  it('refuse a bad name, colour or page in the documented shape, writing nothing', async () => {
    const before = (await mine().get(`/user/${plural}`)).body.total;
    const bad = await mine().post(`/user/${plural}`, { name: 'x'.repeat(256), color: 'black' });
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({
      message: 'Falha na validação',
      code: 'VALIDATION_FAILED',
      errors: {
        name: ['O campo name não pode ser superior a 255 caracteres.'],
        color: ['O campo color deve ser um dos seguintes valores: gray, slate, red, orange, amber, green, teal, blue, purple, pink.'],
      },
    });
    const missing = await mine().post(`/user/${plural}`, { color: 'red' });
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual({ name: ['O campo name é obrigatório.'] });
    const blank = await mine().post(`/user/${plural}`, { name: '   ' });
    expect(blank.body.errors).toEqual({ name: ['O campo name é obrigatório.'] });
    const unknown = await mine().post(`/user/${plural}`, { name: 'Ok', colour: 'red' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.message).toBe('Campos inválidos: colour');
    const page = await mine().get(`/user/${plural}?per_page=101`);
    expect(page.status).toBe(422);
    expect(page.body.errors).toEqual({ per_page: [expect.any(String)] });
    expect((await mine().get(`/user/${plural}`)).body.total).toBe(before);

    const { body } = await mine().post(`/user/${plural}`, { name: 'Keep' });
    const emptied = await mine().put(`/user/${plural}/${body.data.id}`, { name: '' });
    expect(emptied.status).toBe(422);
    expect(emptied.body.errors).toEqual({ name: ['O campo name é obrigatório.'] });
    expect((await mine().del(`/user/${plural}/${body.data.id}`)).status).toBe(200);
  });

  it('answer 404 with the documented body for a missing id, another account’s id, and a path that is no id', async () => {
    const theirs = (await as(other).post(`/user/${plural}`, { name: 'Deles' })).body.data.id;
    for (const id of [theirs, 999_999_999, 'abc']) {
      for (const res of [await mine().put(`/user/${plural}/${id}`, { name: 'Meu' }), await mine().put(`/user/${singular}/${id}`, { color: 'red' }), await mine().del(`/user/${plural}/${id}`)]) {
        expect([id, res.status, res.body.message]).toEqual([id, 404, notFound]);
      }
    }
    const [row] = await app.sql(`select name, color from ${plural} where id = $1`, [theirs]);
    expect(row).toEqual({ name: 'Deles', color: null });
  });

  it('keep names unique in the account, case aside, also between two creates at once; other accounts may use them', async () => {
    const taken = { message: 'Falha na validação', code: 'VALIDATION_FAILED', errors: { name: ['O campo name já está sendo utilizado.'] } };
    const first = await mine().post(`/user/${plural}`, { name: 'Vendas' });
    expect(first.status).toBe(201);
    const again = await mine().post(`/user/${plural}`, { name: 'VENDAS ' });
    expect([again.status, again.body]).toEqual([422, taken]);
    expect((await as(other).post(`/user/${plural}`, { name: 'Vendas' })).status).toBe(201);

    const second = await mine().post(`/user/${plural}`, { name: 'Suporte' });
    const clash = await mine().put(`/user/${plural}/${second.body.data.id}`, { name: 'vendas' });
    expect([clash.status, clash.body]).toEqual([422, taken]);
    expect((await mine().put(`/user/${plural}/${second.body.data.id}`, { name: 'SUPORTE' })).status).toBe(200);

    const raced = await Promise.all(Array.from({ length: 6 }, () => mine().post(`/user/${plural}`, { name: 'Corrida' })));
    expect(raced.map((res) => res.status).sort()).toEqual([201, 422, 422, 422, 422, 422]);
    expect(raced.filter((res) => res.status === 422).every((res) => JSON.stringify(res.body) === JSON.stringify(taken))).toBe(true);
    const [{ n }] = await app.sql(`select count(*)::int as n from ${plural} where account_id = $1 and lower(name) = 'corrida'`, [me.accountId]);
    expect(n).toBe(1);
  });
});

describe('assistants in folders and with labels', () => {
  let folder: number;
  let otherFolder: number;
  let vip: number;
  let inbound: number;

  beforeAll(async () => {
    folder = (await mine().post('/user/folders', { name: 'Loja Centro' })).body.data.id;
    otherFolder = (await mine().post('/user/folders', { name: 'Loja Sul' })).body.data.id;
    vip = (await mine().post('/user/labels', { name: 'VIP' })).body.data.id;
    inbound = (await mine().post('/user/labels', { name: 'Inbound' })).body.data.id;
  });

  it('take folder_id and label_ids on create and update, shown in the assistant’s JSON and counted', async () => {
    const id = await app.outboundAssistant(me, { folder_id: folder, label_ids: [inbound, vip, vip] });
    expect(await readAssistant(id)).toMatchObject({ folder_id: folder, label_ids: [vip, inbound].sort((a, b) => a - b) });
    const folders = (await mine().get('/user/folders')).body.data;
    expect(folders.find((f: any) => f.id === folder).assistants_count).toBe(1);

    expect((await mine().put(`/user/assistant/${id}`, { folder_id: otherFolder, label_ids: [vip] })).status).toBe(200);
    expect(await readAssistant(id)).toMatchObject({ folder_id: otherFolder, label_ids: [vip] });
    // Fields not sent stay.
    expect((await mine().put(`/user/assistant/${id}`, { speech_speed: 1.1 })).status).toBe(200);
    expect(await readAssistant(id)).toMatchObject({ folder_id: otherFolder, label_ids: [vip] });
    expect((await mine().put(`/user/assistant/${id}`, { folder_id: null, label_ids: [] })).status).toBe(200);
    expect(await readAssistant(id)).toMatchObject({ folder_id: null, label_ids: [] });
    expect((await mine().put(`/user/assistant/${id}`, { label_ids: [inbound] })).status).toBe(200);
    expect((await mine().put(`/user/assistant/${id}`, { label_ids: null })).status).toBe(200);
    expect(await readAssistant(id)).toMatchObject({ label_ids: [] });
  });

  it('refuse another account’s folder and labels, and missing ones, as invalid selections, changing nothing', async () => {
    const theirFolder = (await as(other).post('/user/folders', { name: 'Alheia' })).body.data.id;
    const theirLabel = (await as(other).post('/user/labels', { name: 'Alheia' })).body.data.id;
    const id = await app.outboundAssistant(me, { folder_id: folder, label_ids: [vip] });
    const before = await readAssistant(id);
    for (const [folderId, labelId] of [
      [theirFolder, theirLabel],
      [999_999_999, 999_999_998],
    ]) {
      const res = await mine().put(`/user/assistant/${id}`, { name: 'Mudou', folder_id: folderId, label_ids: [vip, labelId] });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ folder_id: ['O folder_id selecionado é inválido.'], 'label_ids.1': ['O label_ids.1 selecionado é inválido.'] });
      const created = await mine().post('/user/assistant', {
        assistant_name: 'Nova', voice_id: 1, language: 'Portuguese', llm_model: 'gpt-4o-mini', calls_direction: 'make', engine_type: 'pipeline',
        timezone: 'America/Sao_Paulo', initial_message: 'Oi', system_prompt: 'Breve.', folder_id: folderId, label_ids: [labelId],
      });
      expect(created.status).toBe(422);
      expect(Object.keys(created.body.errors).sort()).toEqual(['folder_id', 'label_ids.0']);
    }
    expect(await readAssistant(id)).toEqual(before);
    const [{ n }] = await app.sql(`select count(*)::int as n from assistants where assistant_name = 'Nova'`);
    expect(n).toBe(0);
    const zero = await mine().put(`/user/assistant/${id}`, { folder_id: 0, label_ids: [-1] });
    expect(zero.body.errors).toEqual({ folder_id: ['O folder_id selecionado é inválido.'], 'label_ids.0': ['O label_ids.0 selecionado é inválido.'] });
  });

  it('filter GET /user/assistants by folder_id and by label_id (another account’s: none)', async () => {
    const filterFolder = (await mine().post('/user/folders', { name: 'Filtro' })).body.data.id;
    const filterLabel = (await mine().post('/user/labels', { name: 'Filtro' })).body.data.id;
    const a = await app.outboundAssistant(me, { folder_id: filterFolder, label_ids: [filterLabel] });
    const b = await app.outboundAssistant(me, { folder_id: filterFolder });
    const c = await app.outboundAssistant(me, { label_ids: [filterLabel] });
    const ids = async (query: string) => (await mine().get(`/user/assistants?${query}`)).body.map((x: any) => x.id);
    expect(await ids(`folder_id=${filterFolder}`)).toEqual([a, b]);
    expect(await ids(`label_id=${filterLabel}`)).toEqual([a, c]);
    expect(await ids(`folder_id=${filterFolder}&label_id=${filterLabel}`)).toEqual([a]);
    expect((await mine().get(`/user/assistants/get?folder_id=${filterFolder}`)).body.map((x: any) => x.id)).toEqual([a, b]);
    expect(await as(other).get(`/user/assistants?folder_id=${filterFolder}`).then((res) => res.body)).toEqual([]);
    expect(await as(other).get(`/user/assistants?label_id=${filterLabel}`).then((res) => res.body)).toEqual([]);
    const bad = await mine().get('/user/assistants?folder_id=0');
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(['folder_id']);
  });

  it('deleting a folder leaves its assistants in none; deleting a label takes it off its assistants', async () => {
    const gone = (await mine().post('/user/folders', { name: 'Apagar' })).body.data.id;
    const goneLabel = (await mine().post('/user/labels', { name: 'Apagar' })).body.data.id;
    const id = await app.outboundAssistant(me, { folder_id: gone, label_ids: [goneLabel, vip] });
    expect((await mine().del(`/user/folders/${gone}`)).status).toBe(200);
    expect((await mine().del(`/user/labels/${goneLabel}`)).status).toBe(200);
    expect(await readAssistant(id)).toMatchObject({ id, folder_id: null, label_ids: [vip] });
  });

  it('mirror in GraphQL: the lists, the writes, and an assistant’s folder and labels', async () => {
    const created = await app.graphql('mutation { createFolder(input: { name: "GraphQL", color: "pink" }) { id name color assistants_count } }', {}, me.token);
    const folderId = created.body.data.createFolder.id;
    expect(created.body.data.createFolder).toEqual({ id: folderId, name: 'GraphQL', color: 'pink', assistants_count: 0 });
    const label = await app.graphql('mutation { createLabel(input: { name: "GraphQL" }) { id } }', {}, me.token);
    const labelId = label.body.data.createLabel.id;
    const assistant = await app.outboundAssistant(me);
    const updated = await app.graphql(
      'mutation($id: Int!, $input: UpdateAssistantInput!) { updateAssistant(id: $id, input: $input) { folder_id folder { name } label_ids labels { id name } } }',
      { id: assistant, input: { folder_id: folderId, label_ids: [labelId] } },
      me.token,
    );
    expect(updated.body.data.updateAssistant).toEqual({ folder_id: folderId, folder: { name: 'GraphQL' }, label_ids: [labelId], labels: [{ id: labelId, name: 'GraphQL' }] });
    const listed = await app.graphql(
      'query($f: Int, $l: Int) { assistants(folder_id: $f, label_id: $l) { id } folders(per_page: 100) { total data { id assistants_count } } labels { data { id assistants_count } } }',
      { f: folderId, l: labelId },
      me.token,
    );
    expect(listed.body.data.assistants).toEqual([{ id: assistant }]);
    expect(listed.body.data.folders.data.find((f: any) => f.id === folderId).assistants_count).toBe(1);
    expect(listed.body.data.labels.data.find((l: any) => l.id === labelId).assistants_count).toBe(1);
    const taken = await app.graphql('mutation { createLabel(input: { name: "graphql" }) { id } }', {}, me.token);
    expect(taken.body.errors[0]).toMatchObject({ message: 'Falha na validação', extensions: { code: 'VALIDATION_FAILED', errors: { name: ['O campo name já está sendo utilizado.'] } } });
    const renamed = await app.graphql('mutation($id: Int!) { updateLabel(id: $id, input: { name: "GQL" }) { name } }', { id: labelId }, me.token);
    expect(renamed.body.data.updateLabel).toEqual({ name: 'GQL' });
    expect((await app.graphql('mutation($id: Int!) { deleteFolder(id: $id) }', { id: folderId }, me.token)).body.data).toEqual({ deleteFolder: true });
    const missing = await app.graphql('mutation($id: Int!) { deleteLabel(id: $id) }', { id: 999_999_999 }, me.token);
    expect(missing.body.errors[0]).toMatchObject({ message: 'Etiqueta não encontrada', extensions: { code: 'NOT_FOUND' } });
  });

  it('load an assistant list’s folders and labels in one statement each, however many assistants', async () => {
    const account = await app.account();
    const own = as(account);
    const f = (await own.post('/user/folders', { name: 'F' })).body.data.id;
    const l1 = (await own.post('/user/labels', { name: 'L1' })).body.data.id;
    const l2 = (await own.post('/user/labels', { name: 'L2' })).body.data.id;
    for (let i = 0; i < 4; i += 1) await app.outboundAssistant(account, { folder_id: f, label_ids: [l1, l2] });
    app.resetQueries();
    const res = await app.graphql('{ assistants { id folder { id } label_ids labels { id } } }', {}, account.token);
    expect(res.body.data.assistants).toHaveLength(4);
    expect(res.body.data.assistants.every((a: any) => a.folder.id === f && a.labels.map((x: any) => x.id).join() === [l1, l2].join())).toBe(true);
    expect(app.queries.filter((q) => /from "?folders"?/.test(q))).toHaveLength(1);
    expect(app.queries.filter((q) => /from assistant_labels/.test(q))).toHaveLength(1);
  });
});
