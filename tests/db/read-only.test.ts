import { jsonRowOf, readOnlyMapper } from '../../src/db/read-only';
import { Account } from '../../src/modules/accounts/account.entity';
import { Campaign } from '../../src/modules/campaigns/campaign.entity';
import { startTestApp, type TestApp } from '../helpers/app';

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});

afterAll(async () => {
  await app.close();
});

describe('rows read as JSON', () => {
  // A decimal with more digits than a double holds, and a timestamp (whole seconds in these tables).
  it.each([Account, Campaign])('map a %p row as the same row read column by column maps', async (entity) => {
    const account = await app.account({ balance: '12345678901234.5678' });
    const table = entity === Account ? 'accounts' : 'campaigns';
    const id = entity === Account ? account.accountId : account.campaignId;
    await app.sql(`update ${table} set updated_at = '2026-11-21 01:29:00-03' where id = $1`, [id]);
    const em = app.orm.em.fork();
    const map = readOnlyMapper<object>(em, entity);
    const [row] = await em.execute(`select * from ${table} where id = ?`, [id]);
    const [{ json }] = await em.execute(`select ${jsonRowOf(em, entity, 't')} as json from ${table} t where t.id = ?`, [id]);
    const byColumn: Record<string, unknown> = { ...map(row) };
    expect({ ...map(json) }).toEqual(byColumn);
    if (entity === Account) expect(byColumn.balance).toBe('12345678901234.5678');
    expect(byColumn.updated_at).toBe('2026-11-21 04:29:00');
  });
});
