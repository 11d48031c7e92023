import * as graphileWorker from 'graphile-worker';
import { startWorkers } from '../../src/jobs/runner';
import { renewDueNumbers } from '../../src/modules/accounts/phone-number.service';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';
import { startFakeTwilioNumbers, type FakeTwilioNumbers } from '../helpers/twilio-numbers';

/** Numbers searched, bought, renewed, named and released through a local server that speaks Twilio's number APIs. */
let twilio: FakeTwilioNumbers;
let app: TestApp;

const berlin = (n: number) => ({ phone_number: `+4930${String(900000 + n)}`, friendly_name: `030 ${900000 + n}`, locality: 'Berlin', region: 'BE' });

beforeAll(async () => {
  twilio = await startFakeTwilioNumbers({ DE: Array.from({ length: 30 }, (_, i) => berlin(i + 1)), US: [] });
  app = await startTestApp({ telephony: { provider: 'twilio', simulatorSpeed: 1000, twilio: twilio.settings() } });
});
afterAll(async () => {
  await app?.close();
  await twilio?.close();
});

const api = (account: TestAccount, method: string, path: string, body?: unknown) => app.request(method, `/api${path}`, { token: account.token, body });
const balanceOf = async (account: TestAccount) => (await app.sql('select balance::text from accounts where id = $1', [account.accountId]))[0].balance;
const ledgerOf = async (account: TestAccount) => app.sql(`select amount::text, kind, reference from ledger_entries where account_id = $1 and kind = 'phone_number' order by id`, [account.accountId]);
const numbersOf = async (account: TestAccount) => app.sql('select id, number, provider, provider_sid, monthly_price::text, renews from phone_numbers where account_id = $1 and provider is not null order by id', [account.accountId]);
const inAMonth = async () => (await app.sql(`select to_char(current_date + interval '1 month', 'YYYY-MM-DD') as d`))[0].d;

describe('search', () => {
  it('asks Twilio for local numbers of the country containing the digits, each with its monthly price', async () => {
    const me = await app.account({ balance: '10' });
    const res = await api(me, 'GET', '/user/phone-numbers/search?country_code=de&contains=900012');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { phone_number: '+4930900012', friendly_name: '030 900012', locality: 'Berlin', region: 'BE', iso_country: 'DE', capabilities: { voice: true, sms: true, mms: false }, monthly_price: 2 },
    ]);
    const [asked] = twilio.requests('GET', '/AvailablePhoneNumbers/DE/Local.json').slice(-1);
    expect(new URL(asked.url, 'http://x').searchParams.get('Contains')).toBe('900012');
    const none = await api(me, 'GET', '/user/phone-numbers/search?country_code=FR');
    expect([none.status, none.body]).toEqual([200, []]);
  });

  it('refuses a missing or malformed country and a pattern that is not digits, without asking Twilio', async () => {
    const me = await app.account();
    const before = twilio.receiver.requests.length;
    const missing = await api(me, 'GET', '/user/phone-numbers/search');
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual({ country_code: ['O campo country_code é obrigatório.'] });
    const wrong = await api(me, 'GET', '/user/phone-numbers/search?country_code=Germany&contains=ab');
    expect(wrong.status).toBe(422);
    expect(Object.keys(wrong.body.errors).sort()).toEqual(['contains', 'country_code']);
    expect(twilio.receiver.requests.length).toBe(before);
  });
});

describe('purchase', () => {
  it('buys at Twilio with the voice and SMS webhooks, charges the first month as a ledger row and keeps the sid', async () => {
    const me = await app.account({ balance: '10' });
    const res = await api(me, 'POST', '/user/phone-numbers/purchase', { phone_number: '+49 30 900001' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      message: 'Phone number purchased successfully',
      data: { id: expect.any(Number), phone_number: '+4930900001', sms_capable: true, whatsapp: false, expires_at: await inAMonth(), assistant_id: null, nickname: null, monthly_price: 2, renews: true },
    });
    const [post] = twilio.requests('POST', '/IncomingPhoneNumbers.json').slice(-1);
    expect(Object.fromEntries(new URLSearchParams(post.body))).toEqual({
      PhoneNumber: '+4930900001',
      VoiceUrl: `${app.config.publicUrl}/telephony/twilio/voice`,
      VoiceMethod: 'POST',
      SmsUrl: `${app.config.publicUrl}/telephony/twilio/messaging`,
      SmsMethod: 'POST',
    });
    const [row] = await numbersOf(me);
    expect(row).toEqual({ id: res.body.data.id, number: '+4930900001', provider: 'twilio', provider_sid: expect.stringMatching(/^PN/), monthly_price: '2.0000', renews: true });
    expect(twilio.owned.has(row.provider_sid)).toBe(true);
    expect(await balanceOf(me)).toBe('8.0000');
    expect(await ledgerOf(me)).toEqual([{ amount: '-2.0000', kind: 'phone_number', reference: `phone_number:${row.id}` }]);
    // An owned number is no longer offered, and cannot be bought again.
    const search = await api(me, 'GET', '/user/phone-numbers/search?country_code=DE&contains=900001');
    expect(search.body).toEqual([]);
    const again = await api(me, 'POST', '/user/phone-numbers/purchase', { phone_number: '+4930900001' });
    expect(again.status).toBe(422);
    expect(again.body.errors).toEqual({ phone_number: ['Este número já pertence a uma conta deste serviço.'] });
  });

  it('refuses a balance that does not cover the month before asking Twilio: nothing bought, nothing charged', async () => {
    const me = await app.account({ balance: '1.9999' });
    const before = twilio.requests('POST', '/IncomingPhoneNumbers').length;
    const res = await api(me, 'POST', '/user/phone-numbers/purchase', { phone_number: '+4930900002' });
    expect([res.status, res.body.code, res.body.message]).toEqual([402, 'INSUFFICIENT_BALANCE', 'Saldo insuficiente']);
    expect(twilio.requests('POST', '/IncomingPhoneNumbers').length).toBe(before);
    expect(await numbersOf(me)).toEqual([]);
    expect(await balanceOf(me)).toBe('1.9999');
  });

  it('answers Twilio’s refusal as a 422 on phone_number, charging nothing', async () => {
    const me = await app.account({ balance: '10' });
    const res = await api(me, 'POST', '/user/phone-numbers/purchase', { phone_number: '+4989123456780' });
    expect(res.status).toBe(422);
    expect(res.body.errors.phone_number[0]).toContain('21422');
    expect(await numbersOf(me)).toEqual([]);
    expect(await balanceOf(me)).toBe('10.0000');
    const invalid = await api(me, 'POST', '/user/phone-numbers/purchase', { phone_number: '12' });
    expect(invalid.status).toBe(422);
    expect(Object.keys(invalid.body.errors)).toEqual(['phone_number']);
    const unknown = await api(me, 'POST', '/user/phone-numbers/purchase', { phone_number: '+4930900003', area_code: 30 });
    expect(unknown.status).toBe(422);
  });

  it('never overdraws: two purchases racing with the balance for one buy one number, and the other is released at Twilio', async () => {
    const me = await app.account({ balance: '2' });
    let open!: () => void;
    twilio.holdPurchases = new Promise((resolve) => (open = resolve));
    const racing = [api(me, 'POST', '/user/phone-numbers/purchase', { phone_number: '+4930900004' }), api(me, 'POST', '/user/phone-numbers/purchase', { phone_number: '+4930900005' })];
    // Both past the balance check and at Twilio before either is answered.
    while (twilio.requests('POST', '/IncomingPhoneNumbers.json').filter((r) => /90000[45]/.test(r.body)).length < 2) await new Promise((r) => setTimeout(r, 10));
    twilio.holdPurchases = null;
    open();
    const answers = await Promise.all(racing);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 402]);
    expect(await balanceOf(me)).toBe('0.0000');
    const rows = await numbersOf(me);
    expect(rows).toHaveLength(1);
    expect(await ledgerOf(me)).toHaveLength(1);
    // Twilio keeps only the number the account has.
    const kept = [...twilio.owned.values()].filter((n) => /90000[45]$/.test(n.phone_number)).map((n) => n.sid);
    expect(kept).toEqual([rows[0].provider_sid]);
  });
});

describe('monthly renewal', () => {
  it('charges a number whose month ends once, even with two workers at it, and gives it another month', async () => {
    const me = await app.account({ balance: '10' });
    const bought = await api(me, 'POST', '/user/phone-numbers/purchase', { phone_number: '+4930900006' });
    await app.sql(`update phone_numbers set subscription_expires_at = current_date where id = $1`, [bought.body.data.id]);
    const results = await Promise.all([renewDueNumbers(app.orm.em.fork(), app.config), renewDueNumbers(app.orm.em.fork(), app.config)]);
    expect(results.reduce((sum, r) => sum + r.renewed, 0)).toBe(1);
    expect(await balanceOf(me)).toBe('6.0000');
    expect(await ledgerOf(me)).toHaveLength(2);
    const [row] = await app.sql(`select to_char(subscription_expires_at, 'YYYY-MM-DD') as d, renews from phone_numbers where id = $1`, [bought.body.data.id]);
    expect(row).toEqual({ d: await inAMonth(), renews: true });
    await renewDueNumbers(app.orm.em.fork(), app.config);
    expect(await ledgerOf(me)).toHaveLength(2);
  });

  it('lets a number expire with phone_number.expired when the balance does not cover the month', async () => {
    const me = await app.account({ balance: '3' });
    const bought = await api(me, 'POST', '/user/phone-numbers/purchase', { phone_number: '+4930900007' });
    await app.sql(`update phone_numbers set subscription_expires_at = current_date - 1 where id = $1`, [bought.body.data.id]);
    const result = await renewDueNumbers(app.orm.em.fork(), app.config);
    expect(result.expired).toBeGreaterThanOrEqual(1);
    expect(await balanceOf(me)).toBe('1.0000');
    const [row] = await app.sql('select renews from phone_numbers where id = $1', [bought.body.data.id]);
    expect(row.renews).toBe(false);
    const events = await app.sql(`select data from events where account_id = $1 and type = 'phone_number.expired'`, [me.accountId]);
    expect(events.map((e) => e.data)).toEqual([{ id: bought.body.data.id, phone_number: '+4930900007', expires_at: expect.any(String), monthly_price: 2, reason: 'insufficient_balance' }]);
    // Expired: no longer offered to assistants, and not charged again.
    const attachable = await api(me, 'GET', '/user/assistants/phone-numbers?type=outbound');
    expect(attachable.body.map((n: any) => n.id)).not.toContain(bought.body.data.id);
    await renewDueNumbers(app.orm.em.fork(), app.config);
    expect(await balanceOf(me)).toBe('1.0000');
  });
  it('is scheduled hourly at minute 17 as phone-numbers:renew, and that job, run by the workers, renews a number whose month ended', async () => {
    const me = await app.account({ balance: '10' });
    const bought = await api(me, 'POST', '/user/phone-numbers/purchase', { phone_number: '+4930900013' });
    await app.sql(`update phone_numbers set subscription_expires_at = current_date where id = $1`, [bought.body.data.id]);
    // The options the runner gives graphile-worker, read as graphile-worker reads them.
    const run = jest.spyOn(graphileWorker, 'run');
    const workers = await startWorkers(app.runtime, app.databaseUrl);
    try {
      const [options] = run.mock.calls[0];
      expect(String(options.crontab).split('\n')).toContain('17 * * * * phone-numbers:renew ?max=1');
      const item = graphileWorker.parseCrontab(String(options.crontab)).find((i) => i.identifier === 'phone-numbers:renew');
      expect(item).toMatchObject({ task: 'phone-numbers:renew', options: { maxAttempts: 1, backfillPeriod: 0 } });
      expect(Object.keys(options.taskList!)).toContain(item!.task);
      const at = (min: number, hour: number) => item!.match({ min, hour, date: 1, month: 1, dow: 1 });
      expect([at(17, 0), at(17, 13), at(17, 23), at(16, 13), at(18, 13), at(0, 13)]).toEqual([true, true, true, false, false, false]);
      // graphile-worker's cron knows the entry (registered just after the runner starts).
      const known = async () => (await app.sql(`select identifier from graphile_worker._private_known_crontabs`)).map((r: any) => r.identifier);
      for (const deadline = Date.now() + 5_000; !(await known()).includes('phone-numbers:renew') && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 20));
      expect(await known()).toContain('phone-numbers:renew');

      // The job the cron adds, added by hand and run by the workers as it would be at :17.
      const runJob = async () => {
        const [job] = await app.sql(`select id from graphile_worker.add_job('phone-numbers:renew', '{}'::json, max_attempts => 1)`);
        for (const deadline = Date.now() + 10_000; ; ) {
          const [left] = await app.sql(`select attempts, last_error from graphile_worker._private_jobs where id = $1`, [job.id]);
          if (!left) return; // done: graphile-worker deletes a job that succeeded
          if (left.last_error) throw new Error(`phone-numbers:renew failed: ${left.last_error}`);
          if (Date.now() > deadline) throw new Error('phone-numbers:renew did not run');
          await new Promise((r) => setTimeout(r, 20));
        }
      };
      await runJob();
      expect(await balanceOf(me)).toBe('6.0000');
      expect(await ledgerOf(me)).toEqual([
        { amount: '-2.0000', kind: 'phone_number', reference: `phone_number:${bought.body.data.id}` },
        { amount: '-2.0000', kind: 'phone_number', reference: `phone_number:${bought.body.data.id}` },
      ]);
      const [row] = await app.sql(`select to_char(subscription_expires_at, 'YYYY-MM-DD') as d, renews from phone_numbers where id = $1`, [bought.body.data.id]);
      expect(row).toEqual({ d: await inAMonth(), renews: true });
      await runJob();
      expect(await ledgerOf(me)).toHaveLength(2);
      expect(await balanceOf(me)).toBe('6.0000');
    } finally {
      run.mockRestore();
      await workers.stop();
    }
  });
});

describe('nickname and release', () => {
  it('names a number, and answers another account’s number as a missing one', async () => {
    const me = await app.account({ balance: '10' });
    const other = await app.account();
    const bought = await api(me, 'POST', '/user/phone-numbers/purchase', { phone_number: '+4930900008' });
    const id = bought.body.data.id;
    const named = await api(me, 'PUT', `/user/phone-numbers/${id}`, { nickname: 'Sales' });
    expect(named.status).toBe(200);
    expect(named.body).toMatchObject({ message: 'Phone number updated successfully', data: { id, nickname: 'Sales' } });
    const list = await api(me, 'GET', '/user/phone-numbers');
    expect(list.body.find((n: any) => n.id === id).nickname).toBe('Sales');
    expect((await api(me, 'PUT', `/user/phone-numbers/${id}`, { nickname: null })).body.data.nickname).toBeNull();
    const long = await api(me, 'PUT', `/user/phone-numbers/${id}`, { nickname: 'x'.repeat(256) });
    expect(long.status).toBe(422);
    expect(Object.keys(long.body.errors)).toEqual(['nickname']);
    const foreign = await api(other, 'PUT', `/user/phone-numbers/${id}`, { nickname: 'Mine' });
    const missing = await api(other, 'PUT', '/user/phone-numbers/900000099', { nickname: 'Mine' });
    expect([foreign.status, foreign.body]).toEqual([404, missing.body]);
    expect(foreign.body.message).toBe('Número de telefone não encontrado');
    const released = await api(other, 'DELETE', `/user/phone-numbers/${id}`);
    expect([released.status, released.body]).toEqual([404, (await api(other, 'DELETE', '/user/phone-numbers/900000099')).body]);
    expect((await numbersOf(me)).map((n) => n.id)).toEqual([id]);
  });

  it('releases at Twilio, unassigns its assistants, and pauses the running campaigns it leaves without a number', async () => {
    const me = await app.account({ balance: '10' });
    const assistant = await app.outboundAssistant(me);
    const bought = await api(me, 'POST', '/user/phone-numbers/purchase', { phone_number: '+4930900009' });
    const id = bought.body.data.id;
    const spare = await app.phoneNumber(me.accountId, '+4930900029');
    await app.sql('update assistants set phone_number_id = $1 where id = $2', [id, assistant]);
    const alone = await api(me, 'POST', '/user/campaigns', { name: 'Only this number', assistant_id: assistant, phone_number_ids: [id] });
    const rotating = await api(me, 'POST', '/user/campaigns', { name: 'Two numbers', assistant_id: assistant, phone_number_ids: [id, spare] });
    for (const campaign of [alone, rotating]) {
      expect((await api(me, 'POST', '/user/campaigns/update-status', { campaign_id: campaign.body.data.id, action: 'start' })).status).toBe(200);
    }
    const [{ provider_sid: sid }] = await numbersOf(me);

    // Twilio failing: nothing changes here.
    twilio.releaseStatus = 500;
    const failed = await api(me, 'DELETE', `/user/phone-numbers/${id}`);
    twilio.releaseStatus = null;
    expect([failed.status, failed.body.code]).toEqual([502, 'PROVIDER_FAILURE']);
    expect((await numbersOf(me)).map((n) => n.id)).toEqual([id]);

    const res = await api(me, 'DELETE', `/user/phone-numbers/${id}`);
    expect([res.status, res.body]).toEqual([200, { message: 'Phone number released successfully' }]);
    expect(twilio.requests('DELETE', `/IncomingPhoneNumbers/${sid}.json`)).toHaveLength(2);
    expect(twilio.owned.has(sid)).toBe(false);
    expect(await numbersOf(me)).toEqual([]);
    expect((await app.sql('select phone_number_id from assistants where id = $1', [assistant]))[0].phone_number_id).toBeNull();
    const campaigns = await app.sql('select id, status, paused_reason, phone_number_ids from campaigns where id = any($1::int[]) order by id', [[alone.body.data.id, rotating.body.data.id]]);
    expect(campaigns).toEqual([
      { id: alone.body.data.id, status: 'paused', paused_reason: 'no_phone_number', phone_number_ids: [] },
      { id: rotating.body.data.id, status: 'running', paused_reason: null, phone_number_ids: [spare] },
    ]);
    const events = await app.sql(`select data from events where account_id = $1 and type = 'campaign.status_changed' and data->>'status' = 'paused'`, [me.accountId]);
    expect(events.map((e) => [e.data.id, e.data.paused_reason])).toEqual([[alone.body.data.id, 'no_phone_number']]);
    expect((await api(me, 'DELETE', `/user/phone-numbers/${id}`)).status).toBe(404);
  });
});

describe('GraphQL', () => {
  it('searches, buys, names and releases as REST does', async () => {
    const me = await app.account({ balance: '10' });
    const search = await app.graphql('{ availablePhoneNumbers(country_code: "DE", contains: "900010") { phone_number monthly_price } }', {}, me.token);
    expect(search.body.data.availablePhoneNumbers).toEqual([{ phone_number: '+4930900010', monthly_price: 2 }]);
    const bought = await app.graphql('mutation { purchasePhoneNumber(input: { phone_number: "+4930900010" }) { id renews monthly_price } }', {}, me.token);
    const id = bought.body.data.purchasePhoneNumber.id;
    const named = await app.graphql('mutation($id: Int!) { updatePhoneNumber(id: $id, input: { nickname: "Suporte" }) { nickname } }', { id }, me.token);
    expect(named.body.data.updatePhoneNumber).toEqual({ nickname: 'Suporte' });
    const released = await app.graphql('mutation($id: Int!) { releasePhoneNumber(id: $id) }', { id }, me.token);
    expect(released.body.data).toEqual({ releasePhoneNumber: true });
  });
});
